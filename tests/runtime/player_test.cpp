// The TXN player against the register-level device (RegFileDevice): every op kind, argument
// binding, token waits in any order, a DMA copy DDR -> L1 -> DDR with padding, and the faults
// (missing token, out-of-range BD, foreign header, unbound argument) with their diagnostics.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "axcore/runtime/player.hpp"
#include "axcore/runtime/regfile_device.hpp"
#include "axcore/txn/axcore_builder.hpp"
#include "sample_programs.hpp"

namespace axcore::runtime {
namespace {

using ::testing::HasSubstr;
using txn::AxcoreBuilder;
using txn::Dir;
using txn::Tile;

template <class F>
std::string play_error(F&& f) {
  try {
    f();
  } catch (const PlayError& e) { return e.what(); }
  return "(no error)";
}

using testing_support::linear_bd;
using testing_support::token_push;

TEST(RuntimePlayer, DmaCopyDdrToL1ToDdrWithPadding) {
  RegFileDevice dev;
  constexpr uint32_t kWords = 64;
  std::vector<uint8_t> x(4 * kWords);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(3 * i + 1);
  const ArgBinding args[] = {{"x", 0x1000, x.size()}, {"y", 0x8000, 4 * 80}};
  dev.ddr_write(args[0].addr, x);

  AxcoreBuilder b(1);
  // SysDMA: DDR (arg 0) -> L1 of core 0 at byte 0x400.
  b.write_bd(Tile::shim(), 0, linear_bd(spec::MemSel::DDR, kWords)).patch_bd_address(Tile::shim(), 0, 0, 0);
  spec::DmaBd to_l1 = linear_bd(spec::MemSel::L1, kWords, 0x400);
  b.write_bd(Tile::shim(), 1, to_l1);
  b.push_dma(Tile::shim(), Dir::S2MM, 0, token_push(1)).push_dma(Tile::shim(), Dir::MM2S, 0, token_push(0));
  b.wait_dma(Tile::shim(), Dir::S2MM, 0).wait_dma(Tile::shim(), Dir::MM2S, 0);
  // CoreDMA: L1 as 8 rows of 8 words, one pad word before and after each row -> DDR (arg 1).
  spec::DmaBd rows = linear_bd(spec::MemSel::L1, kWords, 0x400);
  rows.d0_size = 8;
  rows.d1_size = 8;
  rows.d1_stride = 8;
  rows.d0_pad_before = 1;
  rows.d0_pad_after = 1;
  rows.pad_value = 0xA5A5A5A5;
  b.write_bd(Tile::core(0), 2, rows);
  b.write_bd(Tile::core(0), 3, linear_bd(spec::MemSel::DDR, 80)).patch_bd_address(Tile::core(0), 3, 1, 0);
  b.push_dma(Tile::core(0), Dir::MM2S, 1, token_push(2)).push_dma(Tile::core(0), Dir::S2MM, 1, token_push(3));
  b.wait_dma(Tile::core(0), Dir::S2MM, 1).wait_dma(Tile::core(0), Dir::MM2S, 1);
  const auto words = b.words();

  const PlayStats st = play(dev, words, args);
  EXPECT_EQ(st.waits, 4u);
  EXPECT_EQ(st.tokens, 4u);
  EXPECT_EQ(st.patches, 2u);

  std::vector<uint8_t> y(4 * 80);
  dev.ddr_read(args[1].addr, y);
  auto word = [](const std::vector<uint8_t>& v, size_t i) {
    return uint32_t{v[4 * i]} | uint32_t{v[4 * i + 1]} << 8 | uint32_t{v[4 * i + 2]} << 16 |
           uint32_t{v[4 * i + 3]} << 24;
  };
  for (size_t r = 0; r < 8; ++r) {
    EXPECT_EQ(word(y, 10 * r), 0xA5A5A5A5u) << "row " << r;
    for (size_t c = 0; c < 8; ++c) EXPECT_EQ(word(y, 10 * r + 1 + c), word(x, 8 * r + c)) << r << "," << c;
    EXPECT_EQ(word(y, 10 * r + 9), 0xA5A5A5A5u);
  }
}

TEST(RuntimePlayer, DdrPatchWritesTheBoundAddressPlusOffset) {
  RegFileDevice dev;
  AxcoreBuilder b(1);
  b.patch_bd_address(Tile::shim(), 5, 1, 0x40);
  const ArgBinding args[] = {{"a", 0x100, 16}, {"b", 0x12'3456'7000ULL, 0x1000}};
  play(dev, b.words(), args);
  const uint64_t lo = spec::tile_addr(0, 0, spec::shim::DMA_BD.at(5) + 4);
  EXPECT_EQ(dev.read32(lo), 0x34567040u);
  EXPECT_EQ(dev.read32(lo + 4), 0x12u);
  // The log holds the two writes in order.
  const auto& log = dev.log();
  ASSERT_GE(log.size(), 2u);
  EXPECT_TRUE(log[0].write && log[0].addr == lo && log[0].value == 0x34567040u);
  EXPECT_TRUE(log[1].write && log[1].addr == lo + 4 && log[1].value == 0x12u);
}

TEST(RuntimePlayer, EveryRegisterOpReachesTheDevice) {
  RegFileDevice dev;
  txn::Writer w(txn::Device::axcore(1));
  const uint64_t scratch = spec::tile_addr(0, 0, spec::shim::SCRATCH.offset);
  const uint32_t data[] = {1, 2, 3};
  w.write32(scratch, 0xF0F0)
      .maskwrite32(scratch, 0x0A0A, 0x0F0F)
      .maskpoll32(scratch, 0xFAFA, 0xFFFF)
      .noop()
      .preempt(1)
      .blockwrite(spec::tile_addr(0, 2, spec::core::CMD_MEM.at(10)), data);
  const PlayStats st = play(dev, w.words(), {});
  EXPECT_EQ(dev.read32(scratch), 0xFAFAu);
  EXPECT_EQ(dev.read32(spec::tile_addr(0, 2, spec::core::CMD_MEM.at(12))), 3u);
  EXPECT_EQ(st.ops, 6u);
  EXPECT_EQ(st.writes, 1u);
  EXPECT_EQ(st.mask_writes, 1u);
  EXPECT_EQ(st.polls, 1u);
  EXPECT_EQ(st.block_words, 3u);
  EXPECT_EQ(st.noops, 2u);
}

TEST(RuntimePlayer, WaitsMayComeInAnyOrder) {
  RegFileDevice dev;
  AxcoreBuilder b(1);
  b.push_task(0, spec::Queue::MVMEXE, token_push(0, 1))
      .push_task(0, spec::Queue::DWPU, token_push(64, 2))
      .wait_task(0, spec::Queue::DWPU)
      .wait_task(0, spec::Queue::MVMEXE);
  const PlayStats st = play(dev, b.words(), {});
  ASSERT_EQ(st.token_words.size(), 2u);
  EXPECT_EQ(spec::Token::decode_word(st.token_words[0]).tag, 2u);
  EXPECT_EQ(spec::Token::decode_word(st.token_words[1]).tag, 1u);
  EXPECT_TRUE(dev.stashed_tokens().empty());
}

TEST(RuntimePlayer, MissingTokenNamesTheTaskAndDumpsStatus) {
  RegFileDevice dev;
  dev.hang(0, 2, 0, 8);  // MVMEXE queue of core 0
  AxcoreBuilder b(1);
  b.push_task(0, spec::Queue::MVMEXE, token_push(40, 3)).wait_task(0, spec::Queue::MVMEXE);
  PlayOptions opt;
  opt.token_timeout_cycles = 5000;
  const std::string e = play_error([&] { play(dev, b.words(), {}, opt); });
  EXPECT_THAT(e, HasSubstr("tct at word 10: no completion token within 5000 cycles: the task pushed at word 4 "
                           "to (0,2) MVMEXE queue (push 0x83000028: start 40, repeat 0, tag 3) never completed"));
  EXPECT_THAT(e, HasSubstr("device status (regfile"));
  EXPECT_THAT(e, HasSubstr("STATUS=0x00000001"));
  EXPECT_THAT(e, HasSubstr("WDOG_STATUS="));
  EXPECT_THAT(e, HasSubstr("Q_STATUS.MVMEXE=0x00000021"));  // 1 pending, busy
}

TEST(RuntimePlayer, WaitWithoutPushOrWithoutTokenSaysSo) {
  PlayOptions opt;
  opt.token_timeout_cycles = 1000;
  {
    RegFileDevice dev;
    AxcoreBuilder b(1);
    b.wait_task(0, spec::Queue::LOADIMC);
    EXPECT_THAT(play_error([&] { play(dev, b.words(), {}, opt); }),
                HasSubstr("no push to (0,2) LOADIMC queue precedes this wait"));
  }
  {
    RegFileDevice dev;
    AxcoreBuilder b(1);
    spec::QueuePush p;
    p.start = 7;
    b.push_task(0, spec::Queue::CTRL, p).wait_task(0, spec::Queue::CTRL);
    EXPECT_THAT(play_error([&] { play(dev, b.words(), {}, opt); }), HasSubstr("NO token requested"));
  }
}

TEST(RuntimePlayer, OutOfRangeBdEndsWithItsErrorCode) {
  RegFileDevice dev(RegFileOptions{1, 1 << 20, 100});
  AxcoreBuilder b(1);
  b.write_bd(Tile::shim(), 4, linear_bd(spec::MemSel::DDR, 16, 0x200000));  // past the 1 MiB DDR
  b.write_bd(Tile::shim(), 5, linear_bd(spec::MemSel::L2, 16));
  b.push_dma(Tile::shim(), Dir::S2MM, 1, token_push(5)).push_dma(Tile::shim(), Dir::MM2S, 1, token_push(4));
  b.wait_dma(Tile::shim(), Dir::MM2S, 1);
  const std::string e = play_error([&] { play(dev, b.words(), {}); });
  EXPECT_THAT(e, HasSubstr("to (0,0) MM2S ch1"));
  EXPECT_THAT(e, HasSubstr("ended with error ADDR_RANGE"));
  EXPECT_THAT(e, HasSubstr("(ADDR_RANGE, MM2S ch1, detail 4)"));
}

TEST(RuntimePlayer, RefusesAStreamForAnotherDevice) {
  RegFileDevice dev;
  txn::Writer aie2(txn::Device::aie2());
  aie2.noop();
  EXPECT_THAT(play_error([&] { play(dev, aie2.words(), {}); }),
              HasSubstr("TXN stream is for another device: its header names devGen 0x3, 6 rows, 4 columns"));
  AxcoreBuilder four(4);
  EXPECT_THAT(play_error([&] { play(dev, four.words(), {}); }),
              HasSubstr("the regfile device is axcore with 1 core(s) (devGen 0x41, 3 rows, 1 columns"));
  EXPECT_TRUE(dev.log().empty());  // refused before any op
}

TEST(RuntimePlayer, ArgumentErrors) {
  RegFileDevice dev;
  AxcoreBuilder b(1);
  b.patch_bd_address(Tile::shim(), 0, 2, 0);
  const ArgBinding args[] = {{"x", 0, 64}, {"y", 64, 64}};
  EXPECT_THAT(play_error([&] { play(dev, b.words(), args); }),
              HasSubstr("ddr_patch at word 4: argument 2 is not bound (2 arguments: 0=x, 1=y)"));
  AxcoreBuilder c(1);
  c.patch_bd_address(Tile::shim(), 0, 1, 64);
  EXPECT_THAT(play_error([&] { play(dev, c.words(), args); }),
              HasSubstr("offset 0x40 is past argument 1 ('y', 64 bytes)"));
}

TEST(RuntimePlayer, UnsupportedOpsAndBadRegistersAreErrorsNamingTheWord) {
  RegFileDevice dev;
  txn::Writer w(txn::Device::axcore(1));
  w.loadpdi(1, 16, 0);
  EXPECT_THAT(play_error([&] { play(dev, w.words(), {}); }), HasSubstr("loadpdi at word 4: axcore has no PDIs"));
  txn::Writer u(txn::Device::axcore(1));
  u.write32(spec::tile_addr(0, 0, 0x7FFF0), 1);
  EXPECT_THAT(play_error([&] { play(dev, u.words(), {}); }),
              HasSubstr("write32 at word 4: regfile: write of unmapped register 0x7fff0"));
  std::vector<uint32_t> truncated = u.words();
  truncated.pop_back();
  EXPECT_THAT(play_error([&] { play(dev, truncated, {}); }), HasSubstr("TXN stream: TXN header gives"));
}

TEST(RuntimePlayer, OnlyAWrite32PushesAMaskOrBlockWriteToAQueueIsRefused) {
  // The tracer shows no push for a maskwrite32 / blockwrite reaching a queue register, the device
  // would start a task: the player refuses the op before it touches the device.
  const uint64_t q_push = spec::tile_addr(0, spec::core_row(0), spec::core::Q_PUSH.at(0));
  const uint64_t mm2s_ctrl = spec::tile_addr(0, 0, spec::shim::DMA_MM2S_CTRL.at(1));
  const uint64_t scratch = spec::tile_addr(0, 0, spec::shim::SCRATCH.offset);
  {
    RegFileDevice dev;
    txn::Writer w(txn::Device::axcore(1));
    w.write32(scratch, 1).maskwrite32(q_push, token_push(0, 1).encode_word(), 0xFFFFFFFF);
    EXPECT_EQ(play_error([&] { play(dev, w.words(), {}); }),
              "maskwrite32 at word 10 writes 0x200404, the queue register of (0,2) MVMEXE queue: only a write32 "
              "pushes a task (the TXN trace shows no push here); write the push word with write32");
    ASSERT_EQ(dev.log().size(), 1u);  // the scratch write only
    EXPECT_EQ(dev.log()[0].addr, scratch);
  }
  {
    RegFileDevice dev;
    txn::Writer w(txn::Device::axcore(1));
    const uint32_t ctrl_and_queue[] = {0, token_push(0, 1).encode_word()};
    w.blockwrite(static_cast<uint32_t>(mm2s_ctrl), ctrl_and_queue);
    EXPECT_THAT(play_error([&] { play(dev, w.words(), {}); }),
                HasSubstr("blockwrite at word 4 writes 0x102c, the queue register of (0,0) MM2S ch1: only a write32"));
    EXPECT_TRUE(dev.log().empty());
  }
}

TEST(RuntimePlayer, AnOpcodeTheDecoderDoesNotHandleIsUnknown) {
  RegFileDevice dev;
  txn::Writer w(txn::Device::axcore(1));
  w.noop();
  auto words = w.words();
  words[4] = 2;  // blockset: TXN names it but gives it no word layout
  EXPECT_EQ(play_error([&] { play(dev, words, {}); }), "TXN stream: unknown TXN opcode 0x2 at word 4");
}

TEST(RuntimePlayer, PollTimeoutNamesTheRegister) {
  RegFileDevice dev;
  txn::Writer w(txn::Device::axcore(1));
  w.maskpoll32(spec::tile_addr(0, 0, spec::shim::SCRATCH.offset), 1, 1);
  PlayOptions opt;
  opt.poll_timeout_cycles = 200;
  EXPECT_THAT(play_error([&] { play(dev, w.words(), {}, opt); }),
              HasSubstr("maskpoll32 at word 4: poll32: register 0x50 did not reach 0x1"));
}

TEST(RuntimeRegFile, RegistersFollowTheSpecAccessRules) {
  RegFileDevice dev;
  const auto shim = [](uint32_t off) { return spec::tile_addr(0, 0, off); };
  EXPECT_EQ(dev.read32(shim(spec::shim::ID.offset)), spec::kIdMagic);
  EXPECT_EQ(dev.read32(shim(spec::shim::SPEC_HASH_LO.offset)), static_cast<uint32_t>(spec::kSpecHash));
  dev.write32(shim(spec::shim::ID.offset), 0);  // RO: ignored
  EXPECT_EQ(dev.read32(shim(spec::shim::ID.offset)), spec::kIdMagic);
  EXPECT_EQ(dev.read32(spec::tile_addr(0, 2, spec::core::WDOG_LIMIT.offset)), spec::param::watchdog_default_cycles);
  EXPECT_EQ(dev.read32(shim(spec::shim::TOKEN_POP.offset)), 0u);
  EXPECT_THROW(dev.read32(spec::tile_addr(0, 3, 0)), device::DeviceError);  // core 1 is not built
  EXPECT_THROW(dev.read32(shim(0x2)), device::DeviceError);                 // unaligned
}

}  // namespace
}  // namespace axcore::runtime
