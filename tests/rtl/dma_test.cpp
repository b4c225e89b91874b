// BD engines through the whole system path (host port, SysDMA/MemDMA, word fabric, L2 banks,
// AXI bridge, DDR model), checked word for word against common/ref's DMA walks.
#include "sys_fixture.hpp"

namespace axcore::rtl::test {
namespace {

using spec::MemSel;
using trace::Kind;
using trace::Unit;

// DDR -> DDR through SysDMA with a random 3-D gather on the read side and a random scatter on
// the write side.
TEST(RtlDma, SysDmaDdrGatherScatterMatchesRef) {
  std::mt19937 rng(11);
  for (int round = 0; round < 4; ++round) {
    Sys s;
    const uint32_t a = 1 + rng() % 7, b = 1 + rng() % 5, c = 1 + rng() % 3;
    const uint64_t src = 0x1000'0000ull, dst = 0x2000'0000ull;
    const auto words = random_words(4096, round);
    s.ddr_words(src, words);
    // Read: d0 over a words with stride 2, d1 over b with stride 3a, d2 over c with stride 40.
    const auto rd = bd(MemSel::DDR, src + 64, {a, b, c}, {2, static_cast<int32_t>(3 * a), 40});
    // Write: transposed (d0 = b, d1 = a, d2 = c) into a dense block.
    const auto wr = bd(MemSel::DDR, dst, {a * b * c}, {1});
    s.write_bd(kShim, 0, rd);
    s.write_bd(kShim, 1, wr);
    s.push(kShim, false, 0, 1, 0, true, 5);
    s.push(kShim, true, 0, 0, 0, true, 6);
    s.dev.run_until_idle(kIdle);
    std::vector<uint32_t> expect(a * b * c, 0);
    ref_copy(rd, engine(kShim), words, src, wr, engine(kShim), expect, dst);
    EXPECT_EQ(s.ddr_words(dst, expect.size()), expect) << "round " << round;
    const auto t_s2mm = s.token(kShim, false, 0), t_mm2s = s.token(kShim, true, 0);
    EXPECT_EQ(t_s2mm.error, 0u);
    EXPECT_EQ(t_s2mm.tag, 5u);
    EXPECT_EQ(t_mm2s.tag, 6u);
    EXPECT_EQ(s.dev.read32(addr(kShim, spec::shim::DMA_S2MM_BYTES.at(0))), 4 * a * b * c);
  }
}

// DDR -> L2 (SysDMA), L2 -> L2 with padding on every dimension (MemDMA), L2 -> DDR (SysDMA).
TEST(RtlDma, MemDmaPaddingMatchesRef) {
  Sys s;
  const auto words = random_words(256, 3);
  const uint64_t src = 0x4000, dst = 0x8000;
  s.ddr_words(src, words);
  s.write_bd(kShim, 0, linear(MemSel::DDR, src, 256));
  s.write_bd(kShim, 1, linear(MemSel::L2, 0x100, 256));
  s.push(kShim, false, 0, 1);
  s.push(kShim, true, 0, 0);
  s.dev.run_until_idle(kIdle);

  auto pad = bd(MemSel::L2, 0x100 + 4 * 17, {5, 4, 3}, {1, 16, 70});
  pad.d0_pad_before = 2;
  pad.d0_pad_after = 1;
  pad.d1_pad_before = 1;
  pad.d2_pad_after = 2;
  pad.pad_value = 0xDEADBEEF;
  const uint32_t n = (2 + 5 + 1) * (1 + 4) * (3 + 2);
  s.write_bd(kMem, 0, pad);
  s.write_bd(kMem, 1, linear(MemSel::L2, 0x10000, n));
  s.push(kMem, false, 1, 1);
  s.push(kMem, true, 1, 0);
  s.dev.run_until_idle(kIdle);

  s.write_bd(kShim, 2, linear(MemSel::L2, 0x10000, n));
  s.write_bd(kShim, 3, linear(MemSel::DDR, dst, n));
  s.push(kShim, false, 1, 3);
  s.push(kShim, true, 1, 2);
  s.dev.run_until_idle(kIdle);

  std::vector<uint32_t> l2(256, 0);  // L2 bytes [0x100, 0x500) as SysDMA left them
  l2 = words;
  std::vector<uint32_t> expect(n, 0);
  ref_copy(pad, engine(kMem), l2, 0x100, linear(MemSel::L2, 0x10000, n), engine(kMem), expect, 0x10000);
  EXPECT_EQ(s.ddr_words(dst, n), expect);
  // One MEM_WRITE per innermost S2MM run: the final copy is one d0 run of n words.
  const auto mw = s.of(kShim, trace::dma_unit(false, 1), Kind::MEM_WRITE);
  ASSERT_EQ(mw.size(), 1u);
  EXPECT_EQ(mw[0].addr, dst);
  EXPECT_EQ(mw[0].bytes, 4 * n);
}

// repeat = 2 with an iteration dimension: run r uses iteration (iter_current + r) mod iter_size,
// and the engine writes iter_current back after each run.
TEST(RtlDma, RepeatWithIterationMatchesRef) {
  Sys s;
  const auto words = random_words(512, 9);
  const uint64_t src = 0x10000, dst = 0x20000;
  s.ddr_words(src, words);
  auto rd = linear(MemSel::DDR, src, 8);
  rd.iter_size = 3;
  rd.iter_current = 1;
  rd.iter_stride = 32;
  auto wr = linear(MemSel::DDR, dst, 8);
  wr.iter_size = 4;
  wr.iter_stride = 8;
  s.write_bd(kShim, 4, rd);
  s.write_bd(kShim, 5, wr);
  s.push(kShim, false, 0, 5, 2);
  s.push(kShim, true, 0, 4, 2);
  s.dev.run_until_idle(kIdle);
  std::vector<uint32_t> expect(32, 0);
  for (uint32_t run = 0; run < 3; ++run) ref_copy(rd, engine(kShim), words, src, wr, engine(kShim), expect, dst, run);
  EXPECT_EQ(s.ddr_words(dst, 32), expect);
  const auto w3 =
      spec::DmaBd::decode(std::array<uint32_t, 16>{0, 0, 0, s.dev.read32(addr(kShim, spec::shim::DMA_BD.at(4) + 12))});
  EXPECT_EQ(w3.iter_current, (1u + 3u) % 3u);
  // One token after the last run.
  EXPECT_EQ(s.token(kShim, true, 0).error, 0u);
  EXPECT_EQ(s.of(kShim, Unit::TOKEN, Kind::TOKEN).size(), 2u);
}

// A chain of three MM2S BDs feeding one S2MM BD; the chain costs one cycle per link.
TEST(RtlDma, ChainMatchesRefAndCostsOneCyclePerLink) {
  auto run = [](bool chained) {
    Sys s;
    const auto words = random_words(300, 1);
    s.l2_write(0, words);
    if (chained) {
      auto a = linear(MemSel::L2, 0, 100), b = linear(MemSel::L2, 400, 100), c = linear(MemSel::L2, 800, 100);
      a.use_next = 1;
      a.next_bd = 7;
      b.use_next = 1;
      b.next_bd = 3;
      s.write_bd(kMem, 0, a);
      s.write_bd(kMem, 7, b);
      s.write_bd(kMem, 3, c);
    } else {
      s.write_bd(kMem, 0, linear(MemSel::L2, 0, 300));
    }
    s.write_bd(kMem, 1, linear(MemSel::L2, 0x8100, 300));  // another bank than the reads
    s.push(kMem, false, 0, 1);
    s.push(kMem, true, 0, 0);
    s.dev.run_until_idle(kIdle);
    EXPECT_EQ(s.l2_read(0x8100, 300), words);
    const auto st = s.of(kMem, trace::dma_unit(true, 0), Kind::TASK_START);
    const auto dn = s.of(kMem, trace::dma_unit(false, 0), Kind::TASK_DONE);
    EXPECT_EQ(st.size(), 1u);
    EXPECT_EQ(dn.size(), 1u);
    EXPECT_EQ(dn.at(0).bytes, 1200u);
    return dn.at(0).cycle - st.at(0).cycle;
  };
  // Two links, and two beats more: the chained BDs start mid-row (words 100 and 200), so their
  // 300 words take 21 row beats against the linear BD's 19.
  EXPECT_EQ(run(true), run(false) + 2 + 2);
}

// On-chip copies move one beat (a 64-byte row) per cycle; DDR reads stream a row per cycle once
// the first burst's latency is paid (docs/timing.md "DMA and DDR").
TEST(RtlDma, BandwidthFollowsTheTimingContract) {
  auto duration = [](uint32_t latency, MemSel from, uint32_t n, uint64_t src = 0) {
    Sys s(latency);
    s.write_bd(kShim, 0, linear(from, src, n));
    s.write_bd(kShim, 1, linear(MemSel::L2, 0x20100, n));  // writes 4 banks away from the reads
    s.push(kShim, false, 0, 1);
    s.push(kShim, true, 0, 0);
    s.dev.run_until_idle(kIdle);
    const auto st = s.of(kShim, trace::dma_unit(true, 0), Kind::TASK_START);
    const auto dn = s.of(kShim, trace::dma_unit(false, 0), Kind::TASK_DONE);
    return dn.at(0).cycle - st.at(0).cycle;
  };
  EXPECT_EQ(duration(4, MemSel::L2, 8192) - duration(4, MemSel::L2, 4096), 4096u / 16);
  EXPECT_EQ(duration(4, MemSel::L2, 304), 304u / 16 + 7u);  // start 2, stream, write, drain, done
  // A beat never leaves its row: 16 words from word 8 of a row are two beats.
  EXPECT_EQ(duration(4, MemSel::L2, 16, 32) - duration(4, MemSel::L2, 16, 0), 1u);
  for (uint32_t lat : {1u, 4u, 100u}) {
    // 4 KiB bursts back to back: a row per cycle after the first burst's latency.
    EXPECT_EQ(duration(lat, MemSel::DDR, 8192) - duration(lat, MemSel::DDR, 4096), 4096u / 16) << "latency " << lat;
    EXPECT_EQ(duration(lat, MemSel::DDR, 16) - duration(1, MemSel::DDR, 16), lat - 1) << "latency " << lat;
  }
}

// Two channel pairs of two engines share L2 banks and the host debug port: every word arrives.
TEST(RtlDma, ConcurrentChannelsAndDebugTrafficDoNotCorrupt) {
  Sys s;
  const auto a = random_words(512, 21), b = random_words(512, 22);
  s.l2_write(0, a);
  s.l2_write(0x4000, b);
  s.write_bd(kMem, 0, linear(MemSel::L2, 0, 512));
  s.write_bd(kMem, 1, linear(MemSel::L2, 0x10000, 512));
  s.write_bd(kMem, 2, bd(MemSel::L2, 0x4000, {16, 32}, {32, 1}));  // transposing read
  s.write_bd(kMem, 3, linear(MemSel::L2, 0x20000, 512));
  s.write_bd(kShim, 0, linear(MemSel::L2, 0, 512));
  s.write_bd(kShim, 1, linear(MemSel::DDR, 0x9000, 512));
  s.push(kMem, false, 0, 1);
  s.push(kMem, false, 1, 3);
  s.push(kShim, false, 0, 1);
  s.push(kMem, true, 0, 0);
  s.push(kMem, true, 1, 2);
  s.push(kShim, true, 0, 0);
  // Host debug reads while the DMAs run (they win the bank; the DMA word retries).
  const auto mid = s.l2_read(0, 64);
  EXPECT_EQ(mid, std::vector<uint32_t>(a.begin(), a.begin() + 64));
  s.dev.run_until_idle(kIdle);
  EXPECT_EQ(s.l2_read(0x10000, 512), a);
  std::vector<uint32_t> bt(512);
  ref_copy(bd(MemSel::L2, 0x4000, {16, 32}, {32, 1}), engine(kMem), b, 0x4000, linear(MemSel::L2, 0x20000, 512),
           engine(kMem), bt, 0x20000);
  EXPECT_EQ(s.l2_read(0x20000, 512), bt);
  EXPECT_EQ(s.ddr_words(0x9000, 512), a);
}

// Tokens beyond the FIFO are dropped, counted and flagged; STATUS.tokens counts the rest.
TEST(RtlDma, TokenFifoOverflowIsCounted) {
  Sys s;
  s.write_bd(kMem, 0, linear(MemSel::L2, 0, 1));
  s.write_bd(kMem, 1, linear(MemSel::L2, 64, 1));
  const uint32_t extra = 3;
  for (uint32_t i = 0; i < (P::token_fifo_depth + extra) / 2 + 1; ++i) {
    s.push(kMem, false, 0, 1);
    s.push(kMem, true, 0, 0);
    s.dev.run_until_idle(kIdle);
  }
  const uint32_t issued = 2 * ((P::token_fifo_depth + extra) / 2 + 1);
  const auto st = spec::shim::Status::decode_word(s.dev.read32(addr(kShim, spec::shim::STATUS.offset)));
  EXPECT_EQ(st.tokens, P::token_fifo_depth);
  EXPECT_EQ(st.error, 1u);
  EXPECT_EQ(s.dev.read32(addr(kShim, spec::shim::TOKEN_DROPPED.offset)), issued - P::token_fifo_depth);
  const auto info = spec::shim::ErrorInfo::decode_word(s.dev.read32(addr(kShim, spec::shim::ERROR_INFO.offset)));
  EXPECT_EQ(info.code, spec::ErrorCode::TOKEN_OVERFLOW);
  EXPECT_EQ(s.of(kShim, Unit::TOKEN, Kind::TOKEN).size(), P::token_fifo_depth);
  // Soft reset empties the FIFO and clears the error.
  s.dev.write32(addr(kShim, spec::shim::CTRL.offset), 1);
  EXPECT_EQ(s.dev.read32(addr(kShim, spec::shim::STATUS.offset)), 0u);
  EXPECT_EQ(s.dev.read32(addr(kShim, spec::shim::TOKEN_POP.offset)), 0u);
}

}  // namespace
}  // namespace axcore::rtl::test
