// The whole core tile through its register bus: a hand-assembled program (CMD_MEM descriptors,
// L1 data through DBG_MEM, queue pushes) doing LoadIMC and a matmul datapath, checked against
// common/ref; tokens, TASK_START/DONE order, refused descriptors, queue overflow, barriers, the
// watchdog registers and perf counters.
#include <gtest/gtest.h>

#include <axcore/ref/imc.hpp>
#include <axcore/ref/walk.hpp>
#include <chrono>
#include <cstdio>
#include <random>

#include "Vtb_core.h"
#include "mm_layout.hpp"
#include "tb_util.hpp"

namespace {

namespace ref = axcore::ref;
using rtlcore::Matmul;
using rtlcore::kX0;
using rtlcore::kW0;
using rtlcore::kY0;
namespace core = axcore::spec::core;

constexpr uint32_t kLiWord = 0x10, kDpWord = 0x100, kBarWord = 0x40;

struct Tile {
  rtlcore::Sim<Vtb_core> sim;
  std::vector<uint32_t> tokens;
  std::vector<std::pair<bool, uint32_t>> cmd_events[4];  // (start, addr)

  void observe() {
    sim.settle();
    if (sim->tok_valid_o) tokens.push_back(sim->tok_o);
    for (unsigned q = 0; q < 4; ++q) {
      // mon_task_t {valid, start, addr[15:0], bytes[31:0], word[31:0]} = 82 bits per queue
      const unsigned base = 82 * q;
      if (rtlcore::bit(sim->mon_cmd_o, base + 81)) {
        uint32_t addr = 0;
        for (unsigned i = 0; i < 16; ++i) addr |= uint32_t{rtlcore::bit(sim->mon_cmd_o, base + 64 + i)} << i;
        cmd_events[q].emplace_back(rtlcore::bit(sim->mon_cmd_o, base + 80), addr);
      }
    }
  }
  void tick() {
    observe();
    sim.tick();
  }
  static uint64_t req(bool we, uint32_t off, uint32_t data) {
    return (uint64_t{we} << 52) | (uint64_t{off & 0xFFFFF} << 32) | data;
  }
  uint32_t access(bool we, uint32_t off, uint32_t data) {
    sim->reg_valid_i = 1;
    sim->reg_req_i = req(we, off, data);
    for (int i = 0; i < 1000; ++i) {
      sim.settle();
      if (sim->reg_rsp_valid_o) {
        const uint32_t r = sim->reg_rsp_rdata_o;
        EXPECT_TRUE(sim->reg_rsp_hit_o) << "offset 0x" << std::hex << off;
        tick();
        sim->reg_valid_i = 0;
        return r;
      }
      tick();
    }
    ADD_FAILURE() << "no register response at 0x" << std::hex << off;
    return 0;
  }
  void write(uint32_t off, uint32_t v) { access(true, off, v); }
  uint32_t read(uint32_t off) { return access(false, off, 0); }
  void write_cmd(uint32_t word, std::span<const uint32_t> w) {
    for (std::size_t i = 0; i < w.size(); ++i) write(core::CMD_MEM.offset + 4 * (word + static_cast<uint32_t>(i)), w[i]);
  }
  void write_l1(uint64_t addr, std::span<const uint8_t> bytes) {
    write(core::DBG_MEM_SEL.offset, 0);
    write(core::DBG_MEM_ADDR.offset, static_cast<uint32_t>(addr));
    for (std::size_t i = 0; i < bytes.size(); i += 4) {
      uint32_t v = 0;
      for (std::size_t b = 0; b < 4; ++b) v |= uint32_t{bytes[i + b]} << (8 * b);
      write(core::DBG_MEM_DATA.offset, v);
    }
  }
  std::vector<uint8_t> read_l1(uint64_t addr, std::size_t n) {
    write(core::DBG_MEM_ADDR.offset, static_cast<uint32_t>(addr));
    std::vector<uint8_t> out;
    while (out.size() < n) {
      const uint32_t v = read(core::DBG_MEM_DATA.offset);
      for (std::size_t b = 0; b < 4; ++b) out.push_back(static_cast<uint8_t>(v >> (8 * b)));
    }
    return out;
  }
  void push(unsigned q, uint32_t start, uint32_t tag, bool token = true, uint32_t repeat = 0) {
    axcore::spec::QueuePush p{};
    p.start = start;
    p.tag = tag;
    p.token = token;
    p.repeat = repeat;
    write(core::Q_PUSH.at(q), p.encode_word());
  }
  bool wait_tokens(std::size_t n, int limit = 2000000) {
    for (int i = 0; i < limit && tokens.size() < n; ++i) tick();
    return tokens.size() >= n;
  }
};

std::vector<uint32_t> datapath_words(const Matmul& mm) {
  std::vector<uint32_t> w(axcore::spec::layout::datapath_desc::program, 0);
  axcore::spec::DpHeader h{};
  h.magic = axcore::spec::magic::datapath;
  h.kind = axcore::spec::DpKind::MVMEXE;
  h.has_ifd0 = h.has_main = h.has_odr = 1;
  h.words = static_cast<uint32_t>(w.size());
  h.id = 7;
  auto put = [&](std::size_t at, auto words) { std::copy(words.begin(), words.end(), w.begin() + static_cast<std::ptrdiff_t>(at)); };
  put(0, h.encode());
  put(axcore::spec::layout::datapath_desc::ifd0, mm.ifd().encode());
  put(axcore::spec::layout::datapath_desc::mvm, mm.mvm().encode());
  put(axcore::spec::layout::datapath_desc::odr, mm.odr().encode());
  return w;
}

axcore::spec::Token token_of(uint32_t w) { return axcore::spec::Token::decode_word(w); }

TEST(CoreTileTest, LoadImcAndMatmulThroughRegisters) {
  Tile t;
  std::mt19937 rng(21);
  Matmul mm{5, 3, 2};
  mm.out = axcore::spec::Dtype::INT8;
  std::vector<uint8_t> image(axcore::spec::param::l1_bytes, 0);
  auto fill = [&](uint32_t row, uint32_t rows) {
    std::vector<uint8_t> b(std::size_t{rows} * 64);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    t.write_l1(uint64_t{row} * 64, b);
    std::copy(b.begin(), b.end(), image.begin() + std::ptrdiff_t{row} * 64);
  };
  fill(kX0, mm.m * mm.kb);
  fill(kW0, mm.kb * mm.nb * 64);
  t.write_cmd(kLiWord, mm.load().encode());
  t.write_cmd(kDpWord, datapath_words(mm));
  // The MVMEXE push comes first but must wait for the LoadIMC only if it ran: here LoadIMC is
  // pushed first and the datapath second, as a program would.
  t.push(2, kLiWord, 1);
  t.push(0, kDpWord, 2);
  ASSERT_TRUE(t.wait_tokens(2));
  ASSERT_EQ(t.tokens.size(), 2u);
  const auto t0 = token_of(t.tokens[0]), t1 = token_of(t.tokens[1]);
  EXPECT_EQ(t0.tag, 1u);
  EXPECT_EQ(t0.channel, 8u + 2u);
  EXPECT_EQ(t0.row, 2u);
  EXPECT_FALSE(t0.error);
  EXPECT_EQ(t1.tag, 2u);
  EXPECT_EQ(t1.channel, 8u);
  EXPECT_FALSE(t1.error);
  EXPECT_EQ(t.read(core::ERROR_STATUS.offset), 0u);

  ref::Imc imc;
  ref::run_loadimc(mm.load(), image, imc);
  std::vector<ref::Element> xs, ys;
  ref::run_ifd(mm.ifd(), image, [&](const ref::Element& e) { xs.push_back(e); });
  ref::VectorSource src(xs);
  ref::run_mvm(mm.mvm(), imc, src.fn(), [&](const ref::Element& e) { ys.push_back(e); });
  ref::VectorSource ysrc(ys);
  ref::run_odr(mm.odr(), image, ysrc.fn());
  const auto got = t.read_l1(uint64_t{kY0} * 64, mm.out_bytes());
  EXPECT_TRUE(std::equal(got.begin(), got.end(), image.begin() + std::ptrdiff_t{kY0} * 64));

  // status and perf registers
  EXPECT_EQ(t.read(core::IMC_STATUS.offset), (uint32_t{mm.kb * mm.nb} << 8) | mm.matrix_id);
  EXPECT_EQ(t.read(core::Q_STATUS.at(0)) >> 16, 1u);
  EXPECT_EQ(t.read(core::Q_STATUS.at(2)) >> 16, 1u);
  const uint32_t mvm_busy = t.read(core::PERF_BUSY.at(static_cast<uint32_t>(axcore::spec::PerfUnit::MVM)));
  EXPECT_EQ(mvm_busy, mm.m * mm.kb * mm.nb);
  EXPECT_EQ(t.read(core::PERF_TASKS.at(static_cast<uint32_t>(axcore::spec::PerfUnit::LOADIMC))), 1u);
  // CMDPROC events: queue 2 start/done, then queue 0 start/done, at the descriptor addresses
  ASSERT_EQ(t.cmd_events[2].size(), 2u);
  EXPECT_TRUE(t.cmd_events[2][0].first);
  EXPECT_EQ(t.cmd_events[2][0].second, kLiWord);
  EXPECT_FALSE(t.cmd_events[2][1].first);
  ASSERT_EQ(t.cmd_events[0].size(), 2u);
  EXPECT_EQ(t.cmd_events[0][1].second, kDpWord);
}

// Speed of the whole tile with the MVM busy: a resident matmul M = 64, K = 1152, N = 256 run
// through the command processor (operands loaded through DBG_MEM beforehand). Prints the
// simulated cycles per second and the cycles against the ideal M * K_BLOCKS * N_BLOCKS.
TEST(CoreTileTest, MatmulRunSpeed) {
  Tile t;
  std::mt19937 rng(22);
  Matmul mm{64, 18, 4};
  std::vector<uint8_t> x(std::size_t{mm.m} * mm.kb * 64), w(std::size_t{mm.kb} * mm.nb * 64 * 64);
  for (auto& v : x) v = static_cast<uint8_t>(rng());
  for (auto& v : w) v = static_cast<uint8_t>(rng());
  t.write_l1(uint64_t{kX0} * 64, x);
  t.write_l1(uint64_t{kW0} * 64, w);
  t.write_cmd(kLiWord, mm.load().encode());
  t.write_cmd(kDpWord, datapath_words(mm));
  t.push(2, kLiWord, 1);
  ASSERT_TRUE(t.wait_tokens(1));
  t.push(0, kDpWord, 2);
  const uint64_t c0 = t.sim.cycle();
  const auto w0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(t.wait_tokens(2));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  const uint64_t cycles = t.sim.cycle() - c0;
  const uint64_t ideal = uint64_t{mm.m} * mm.kb * mm.nb;
  std::printf("core tile MVMEXE M=64 K=1152 N=256 through the command processor: %llu cycles (push to token), "
              "ideal %llu, ratio %.4f; %.0f simulated cycles/s\n",
              static_cast<unsigned long long>(cycles), static_cast<unsigned long long>(ideal),
              static_cast<double>(cycles) / static_cast<double>(ideal), static_cast<double>(cycles) / secs);
  EXPECT_FALSE(token_of(t.tokens[1]).error);
  // 92 descriptor words, the pipeline fill and the ODR tail on top of the tile-ops
  EXPECT_LE(static_cast<double>(cycles), 1.05 * static_cast<double>(ideal) + 120.0);
}

TEST(CoreTileTest, RefusedDescriptorsEndWithErrorTokens) {
  Tile t;
  std::vector<uint32_t> bad(8, 0);
  bad[0] = 0x55;  // not 0x1C
  t.write_cmd(kLiWord, bad);
  t.push(2, kLiWord, 3);
  ASSERT_TRUE(t.wait_tokens(1, 1000));
  const auto tk = token_of(t.tokens[0]);
  EXPECT_TRUE(tk.error);
  EXPECT_EQ(tk.code, axcore::spec::ErrorCode::DESC_MAGIC);
  EXPECT_EQ(tk.tag, 3u);
  const uint32_t st = t.read(core::ERROR_STATUS.offset);
  EXPECT_EQ(st & 0x5u, 0x5u);  // any, desc
  EXPECT_EQ(t.read(core::ERROR_INFO.offset) & 0x1Fu, static_cast<uint32_t>(axcore::spec::ErrorCode::DESC_MAGIC));
  EXPECT_EQ(t.read(core::ERROR_INFO.offset) >> 16, kLiWord);
  t.write(core::ERROR_STATUS.offset, st);
  EXPECT_EQ(t.read(core::ERROR_STATUS.offset), 0u);
  EXPECT_TRUE(t.read(core::Q_STATUS.at(2)) & (1u << 6));  // error of the last task

  // a datapath naming the DPU is refused (not built): DESC_UNITS, without a token push flag
  Matmul mm{1, 1, 1};
  auto w = datapath_words(mm);
  w[0] |= 1u << 13;  // has_dpu
  t.write_cmd(kDpWord, w);
  t.push(0, kDpWord, 4, false);
  ASSERT_TRUE(t.wait_tokens(2, 1000));
  EXPECT_EQ(token_of(t.tokens[1]).code, axcore::spec::ErrorCode::DESC_UNITS);

  // a descriptor running past CMD_MEM
  t.push(2, axcore::spec::param::cmd_mem_bytes / 4 - 4, 5);
  ASSERT_TRUE(t.wait_tokens(3, 1000));
  EXPECT_EQ(token_of(t.tokens[2]).code, axcore::spec::ErrorCode::CMD_RANGE);
}

TEST(CoreTileTest, QueueOverflowAndBarrier) {
  Tile t;
  // a single-core barrier completes at once
  axcore::spec::BarrierDesc b{};
  b.magic = axcore::spec::magic::barrier;
  b.barrier_id = 9;
  b.core_mask = 1;
  t.write_cmd(kBarWord, b.encode());
  t.push(3, kBarWord, 6);
  ASSERT_TRUE(t.wait_tokens(1, 1000));
  EXPECT_FALSE(token_of(t.tokens[0]).error);
  EXPECT_EQ(token_of(t.tokens[0]).channel, 11u);
  // a mask naming a missing core
  b.core_mask = 3;
  t.write_cmd(kBarWord, b.encode());
  t.push(3, kBarWord, 7);
  ASSERT_TRUE(t.wait_tokens(2, 1000));
  EXPECT_EQ(token_of(t.tokens[1]).code, axcore::spec::ErrorCode::BARRIER_MASK);
  // five pushes into a 4-deep queue in consecutive register writes: the fifth is refused
  t.write(core::ERROR_STATUS.offset, 0xFFFFFFFFu);
  std::vector<uint32_t> bad(8, 0);
  t.write_cmd(kLiWord, bad);
  for (unsigned i = 0; i < axcore::spec::param::queue_depth + 1; ++i) t.push(2, kLiWord, 10 + i, false);
  EXPECT_TRUE(t.read(core::ERROR_STATUS.offset) & (1u << 4));  // overflow
  EXPECT_EQ(t.read(core::ERROR_INFO.offset) & 0x1Fu, static_cast<uint32_t>(axcore::spec::ErrorCode::QUEUE_OVERFLOW));
}

TEST(CoreTileTest, RegisterDefaultsAndUnknownOffsets) {
  Tile t;
  EXPECT_EQ(t.read(core::WDOG_LIMIT.offset), axcore::spec::param::watchdog_default_cycles);
  t.write(core::WDOG_LIMIT.offset, 1234);
  EXPECT_EQ(t.read(core::WDOG_LIMIT.offset), 1234u);
  t.write(core::CMD_MEM.offset + 8, 0xCAFEF00Du);
  EXPECT_EQ(t.read(core::CMD_MEM.offset + 8), 0xCAFEF00Du);
  t.sim->reg_valid_i = 1;
  t.sim->reg_req_i = Tile::req(false, 0x00800, 0);  // no register there
  for (int i = 0; i < 4 && !t.sim->reg_rsp_valid_o; ++i) t.tick();
  t.sim.settle();
  EXPECT_TRUE(t.sim->reg_rsp_valid_o);
  EXPECT_FALSE(t.sim->reg_rsp_hit_o);
  t.tick();
  t.sim->reg_valid_i = 0;
}

}  // namespace
