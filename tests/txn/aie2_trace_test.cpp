// AIE2 shim, memtile and core streams built by hand (BD words bit by bit, aie2_bd.hpp) and the
// explain lines and compare results the AIE2-TXN.md rules give for them.
#include <gtest/gtest.h>

#include "aie2_bd.hpp"
#include "axcore/txn/compare.hpp"
#include "axcore/txn/trace.hpp"
#include "axcore/txn/writer.hpp"
#include "sample_streams.hpp"

using namespace axcore::txn;
using namespace aie2;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const std::size_t nl = text.find('\n', start);
    out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

std::vector<std::string> explained(const Writer& w) { return lines(explain(w.words())); }

template <std::size_t N>
void put_bd(Writer& w, uint32_t addr, const std::array<uint32_t, N>& words) {
  w.blockwrite(addr, words);
}

}  // namespace

TEST(TxnAie2, PatchedLinearShimPushWithToken) {
  Writer w(Device::aie2());
  put_bd(w, tile(0, 0) | bd_addr(kShimBd, 0), ShimBd{.length = 256}.words());
  w.ddr_patch(tile(0, 0) | (bd_addr(kShimBd, 0) + 4), 1, 0x400);
  w.write32(tile(0, 0) | shim_queue(true, 0), push_word(0, 0, true));
  w.tct(Dir::MM2S, 0, 0, 0);
  EXPECT_EQ(explained(w), (std::vector<std::string>{
                              "   0 push (0,0) MM2S ch0 token ctrl=0x0: len=256 @arg1+0x400 dims=[linear] outer=1",
                              "   1 wait (0,0) MM2S ch0 cols=1 rows=1"}));
}

TEST(TxnAie2, MultiDimPushWithRepeatAndAbsoluteAddress) {
  Writer w(Device::aie2());
  // dims (16, 1), (8, 64): the second stride skips, so the walk is not linear; outer = 1024.
  const ShimBd bd{.length = 512,
                  .addr = 0x1'0001'0000ull,
                  .d0_wrap = 16,
                  .d0_step = 0,
                  .d1_wrap = 8,
                  .d1_step = 63,
                  .d2_step = 1023};
  put_bd(w, tile(1, 0) | bd_addr(kShimBd, 3), bd.words());
  w.write32(tile(1, 0) | (shim_queue(false, 1) - 4), 0x2);  // channel control
  w.write32(tile(1, 0) | shim_queue(false, 1), push_word(3, 3));
  EXPECT_EQ(explained(w), (std::vector<std::string>{"   0 push (1,0) S2MM ch1 repeat=3 ctrl=0x2: len=512 @0x100010000 "
                                                    "dims=[16x1 8x64] outer=1024"}));
}

TEST(TxnAie2, UnitWrapsDropAndContiguousDimsAreLinear) {
  Writer w(Device::aie2());
  // (1, 7) is a unit wrap; (32, 1), (4, 32) walk contiguously and the length fits the extent;
  // BD 1's (32, 1) repeats contiguously because outer == extent; BD 2's outer of 1 overlaps.
  put_bd(w, bd_addr(kShimBd, 0),
         ShimBd{.length = 128, .d0_wrap = 32, .d0_step = 0, .d1_wrap = 4, .d1_step = 31, .d2_step = 9}.words());
  put_bd(w, bd_addr(kShimBd, 1),
         ShimBd{.length = 128, .d0_wrap = 1, .d0_step = 6, .d1_wrap = 32, .d1_step = 0, .d2_step = 31}.words());
  put_bd(w, bd_addr(kShimBd, 2),
         ShimBd{.length = 128, .d0_wrap = 1, .d0_step = 6, .d1_wrap = 32, .d1_step = 0}.words());
  w.write32(shim_queue(true, 0), push_word(0));
  w.write32(shim_queue(true, 1), push_word(1));
  w.write32(shim_queue(false, 0), push_word(2));
  EXPECT_EQ(explained(w),
            (std::vector<std::string>{"   0 push (0,0) MM2S ch0 ctrl=0x0: len=128 @0x0 dims=[linear] outer=1",
                                      "   1 push (0,0) MM2S ch1 ctrl=0x0: len=128 @0x0 dims=[linear] outer=1",
                                      "   2 push (0,0) S2MM ch0 ctrl=0x0: len=128 @0x0 dims=[32x1] outer=1"}));
}

TEST(TxnAie2, ChainAndChainLoop) {
  Writer w(Device::aie2());
  put_bd(w, bd_addr(kShimBd, 2), ShimBd{.length = 64, .addr = 0x100, .use_next = true, .next = 3}.words());
  put_bd(w, bd_addr(kShimBd, 3), ShimBd{.length = 32, .addr = 0x200}.words());
  put_bd(w, bd_addr(kShimBd, 4), ShimBd{.length = 16, .addr = 0x300, .use_next = true, .next = 5}.words());
  put_bd(w, bd_addr(kShimBd, 5), ShimBd{.length = 16, .addr = 0x400, .use_next = true, .next = 4}.words());
  w.write32(shim_queue(false, 0), push_word(2));
  w.write32(shim_queue(false, 1), push_word(4));
  EXPECT_EQ(explained(w), (std::vector<std::string>{"   0 push (0,0) S2MM ch0 ctrl=0x0: len=64 @0x100 dims=[linear] "
                                                    "outer=1 -> len=32 @0x200 dims=[linear] outer=1",
                                                    "   1 push (0,0) S2MM ch1 ctrl=0x0: len=16 @0x300 dims=[linear] "
                                                    "outer=1 -> len=16 @0x400 dims=[linear] "
                                                    "outer=1 -> back to BD 0 of the chain"}));
  const Trace t = trace(w.words());
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[1].loop_to, 0u);
  EXPECT_EQ(t.events[1].chain.size(), 2u);
}

TEST(TxnAie2, PaddedMemtileWalk) {
  Writer w(Device::aie2());
  const MemBd bd{.length = 96,
                 .addr = 0x400,
                 .d0_wrap = 8,
                 .d0_step = 0,
                 .d1_wrap = 4,
                 .d1_step = 7,
                 .d2_step = 31,
                 .d1_before = 1,
                 .d1_after = 2};
  put_bd(w, tile(0, 1) | bd_addr(kMemBd, 0), bd.words());
  w.write32(tile(0, 1) | mem_queue(true, 0), push_word(0, 0, true));
  // Padding keeps every dimension, contiguous or not.
  EXPECT_EQ(explained(w),
            (std::vector<std::string>{"   0 push (0,1) MM2S ch0 token ctrl=0x0: len=96 @0x400 dims=[8x1 4x8] outer=32 "
                                      "pad=[0/0 1/2 0/0]"}));
}

TEST(TxnAie2, MemtileThirdDimAndIteration) {
  Writer w(Device::aie2());
  const MemBd bd{.length = 256,
                 .addr = 0x8000,
                 .d0_wrap = 4,
                 .d0_step = 0,
                 .d1_wrap = 4,
                 .d1_step = 15,
                 .d2_wrap = 4,
                 .d2_step = 3,
                 .d3_step = 63,
                 .iter_wrap = 2,
                 .iter_step = 255};
  put_bd(w, tile(2, 1) | bd_addr(kMemBd, 47), bd.words());
  w.write32(tile(2, 1) | mem_queue(false, 5), push_word(47));
  EXPECT_EQ(explained(w),
            (std::vector<std::string>{"   0 push (2,1) S2MM ch5 ctrl=0x0: len=256 @0x8000 dims=[4x1 4x16 4x4] outer=64 "
                                      "iter 2x256"}));
}

TEST(TxnAie2, CoreTileBd) {
  Writer w(Device::aie2());
  const CoreBd bd{.length = 64, .addr = 0x400, .d0_wrap = 8, .d0_step = 0, .d1_wrap = 8, .d1_step = 15, .d2_step = 0};
  put_bd(w, tile(0, 2) | bd_addr(kCoreBd, 1), bd.words());
  w.write32(tile(0, 2) | (bd_addr(kCoreBd, 1) + 0x18),
            5);  // past the core BD's 6 words: a register
  w.write32(tile(0, 2) | core_queue(false, 1), push_word(1));
  EXPECT_EQ(explained(w),
            (std::vector<std::string>{"   0 write (0,2) 0x1d038 <- 0x00000005",
                                      "   1 push (0,2) S2MM ch1 ctrl=0x0: len=64 @0x400 dims=[8x1 8x16] outer=1"}));
}

TEST(TxnAie2, TileKindComesFromTheHeader) {
  // The same words under two headers: numMemTileRows decides whether a row is a memtile or a
  // core, and so which of its registers are BD words and queues.
  auto kinds = [](const Trace& t) {
    std::string s;
    for (const Event& e : t.events) s += std::string(to_string(e.kind)) + " ";
    return s;
  };
  auto memtile_row2 = [](Device d) {
    Writer w(d);
    put_bd(w, tile(0, 2) | bd_addr(kMemBd, 40), MemBd{.length = 16, .addr = 0x100}.words());
    w.write32(tile(0, 2) | mem_queue(true, 5), push_word(40));
    return w;
  };
  Device two = Device::aie2();
  two.num_mem_tile_rows = 2;
  EXPECT_EQ(explained(memtile_row2(two)),
            std::vector<std::string>{"   0 push (0,2) MM2S ch5 ctrl=0x0: len=16 @0x100 dims=[linear] outer=1"});
  // One memtile row: row 2 is a core, where 0xA0500.. and 0xA0674 are plain registers.
  EXPECT_EQ(kinds(trace(memtile_row2(Device::aie2()).words())),
            "write write write write write write write write write ");

  auto core_row1 = [](Device d) {
    Writer w(d);
    put_bd(w, tile(0, 1) | bd_addr(kCoreBd, 1), CoreBd{.length = 32, .addr = 0x40}.words());
    w.write32(tile(0, 1) | core_queue(false, 0), push_word(1));
    return w;
  };
  Device none = Device::aie2();
  none.num_mem_tile_rows = 0;
  EXPECT_EQ(explained(core_row1(none)),
            std::vector<std::string>{"   0 push (0,1) S2MM ch0 ctrl=0x0: len=32 @0x40 dims=[linear] outer=1"});
  // Under the default header row 1 is a memtile: 0x1D020.. and 0x1DE04 are plain registers there.
  EXPECT_EQ(kinds(trace(core_row1(Device::aie2()).words())), "write write write write write write write ");
}

TEST(TxnAie2, MaskedWriteOutsideTheDmaRegisters) {
  Writer w(Device::aie2());
  w.maskwrite32(tile(0, 2) | 0x1F000, 0xFFFFFFC1, 0x3F);
  w.write32(tile(0, 2) | 0x1F004, 7);
  w.maskwrite32(tile(0, 0) | (shim_queue(true, 0) - 4), 0x2, 0x2);  // channel control: state only
  w.maskpoll32(tile(0, 0) | 0x1D220, 0, 0x1F);                      // polls are not events
  EXPECT_EQ(explained(w), (std::vector<std::string>{"   0 write (0,2) 0x1f000 <- 0x00000001 & 0x0000003f",
                                                    "   1 write (0,2) 0x1f004 <- 0x00000007"}));
}

TEST(TxnAie2, OnlyAWrite32ToAQueueRegisterIsAPush) {
  // The seed pushes on write32 only: a maskwrite32 or a blockwrite reaching a queue register
  // updates its state and is neither a push nor a write event.
  Writer w(Device::aie2());
  put_bd(w, bd_addr(kShimBd, 0), ShimBd{.length = 16, .addr = 0x4000}.words());
  w.maskwrite32(shim_queue(true, 0), push_word(0), 0xF);
  w.blockwrite(shim_queue(false, 1) - 4, std::array<uint32_t, 2>{0x2, push_word(0)});  // ctrl, then queue
  w.write32(shim_queue(true, 1), push_word(0));
  EXPECT_EQ(explained(w),
            (std::vector<std::string>{"   0 push (0,0) MM2S ch1 ctrl=0x0: len=16 @0x4000 dims=[linear] outer=1"}));
  // A maskwrite32 to an unwritten BD's queue is no push, so it is not the unwritten-BD error either.
  Writer m(Device::aie2());
  m.maskwrite32(tile(0, 1) | mem_queue(false, 2), push_word(9), 0xFFFFFFFF);
  EXPECT_TRUE(trace(m.words()).events.empty());
}

TEST(TxnAie2, RepeatFold) {
  Writer w(Device::aie2());
  // A linear BD re-run repeat + 1 = 4 times, its iteration (wrap + 1 = 4) advancing by its length.
  put_bd(w, bd_addr(kShimBd, 0), ShimBd{.length = 256, .iter_wrap = 3, .iter_step = 255}.words());
  w.ddr_patch(bd_addr(kShimBd, 0) + 4, 0, 0);
  w.write32(shim_queue(true, 0), push_word(0, 3, true));
  // The same BD with repeat 2 does not fold: its iteration says 4 runs.
  w.write32(shim_queue(true, 1), push_word(0, 2));
  EXPECT_EQ(explained(w), (std::vector<std::string>{
                              "   0 push (0,0) MM2S ch0 token ctrl=0x0: len=1024 @arg0+0x0 dims=[linear] outer=1",
                              "   1 push (0,0) MM2S ch1 repeat=2 ctrl=0x0: len=256 @arg0+0x0 dims=[linear] outer=1 "
                              "iter 3x256"}));
}

TEST(TxnAie2, VerbatimEventsAndSymbolicPatch) {
  Writer w(Device::aie2());
  w.loadpdi(1, 0x100, 0x2000).preempt(2).create_scratchpad(1, 4096).update_reg(3, 4, 0x10, 0x1D000);
  w.ddr_patch(tile(0, 2) | 0x4000, 2, 0x80);  // not a BD address word: a register gets the address
  w.noop();
  EXPECT_EQ(explained(w),
            (std::vector<std::string>{
                "   0 loadpdi id=1 size=256 addr=0x2000", "   1 preempt level=2", "   2 scratchpad usage=1 size=4096",
                "   3 update_reg table=3 func=4 arg=0x10 reg=0x1d000", "   4 write (0,2) 0x04000 <- arg2+0x80"}));
}

TEST(TxnAie2, PushOfAnUnwrittenBdIsAnError) {
  Writer w(Device::aie2());
  w.write32(shim_queue(true, 0), push_word(5));
  try {
    trace(w.words());
    FAIL() << "expected TraceError";
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(),
                 "the push at word 4 runs BD 5 of tile (0,0), but the stream never writes its words "
                 "[0, 1, 2, 3, 4, 5, 6, 7]");
    EXPECT_EQ(e.word(), 4u);
  }
  // Written word by word except word 3; the patch supplies word 1.
  Writer p(Device::aie2());
  const auto words = ShimBd{.length = 4}.words();
  for (uint32_t i = 0; i < 8; ++i)
    if (i != 1 && i != 3) p.write32(bd_addr(kShimBd, 2) + 4 * i, words[i]);
  p.ddr_patch(bd_addr(kShimBd, 2) + 4, 0, 0);
  p.write32(shim_queue(false, 0), push_word(2));
  EXPECT_THROW(
      {
        try {
          trace(p.words());
        } catch (const TraceError& e) {
          EXPECT_STREQ(e.what(),
                       "the push at word 52 runs BD 2 of tile (0,0), but the stream never writes "
                       "its words [3]");
          throw;
        }
      },
      TraceError);
}

TEST(TxnAie2, PushOfABdTheTileDoesNotHaveIsAnError) {
  Writer w(Device::aie2());
  w.write32(tile(0, 1) | mem_queue(true, 0), push_word(50));
  EXPECT_THROW(trace(w.words()), TraceError);
}

TEST(TxnAie2, BlockwriteSupersedesAnEarlierPatch) {
  Writer w(Device::aie2());
  const auto words = ShimBd{.length = 8, .addr = 0x5000}.words();
  put_bd(w, bd_addr(kShimBd, 0), words);
  w.ddr_patch(bd_addr(kShimBd, 0) + 4, 3, 0x40);
  put_bd(w, bd_addr(kShimBd, 0), words);  // a fresh BD image
  w.write32(shim_queue(true, 0), push_word(0));
  EXPECT_EQ(explained(w),
            (std::vector<std::string>{"   0 push (0,0) MM2S ch0 ctrl=0x0: len=8 @0x5000 dims=[linear] outer=1"}));
}

TEST(TxnAie2, AnyLaterWriteOfThePatchedWordDropsThePatch) {
  // docs/txn.md: the register then holds what was written, as the runtime player plays it.
  Writer w(Device::aie2());
  put_bd(w, bd_addr(kShimBd, 0), ShimBd{.length = 8, .addr = 0x5000}.words());
  w.ddr_patch(bd_addr(kShimBd, 0) + 4, 3, 0x40);
  w.write32(shim_queue(true, 0), push_word(0));
  w.write32(bd_addr(kShimBd, 0) + 4, 0x6000);
  w.write32(shim_queue(true, 0), push_word(0));
  w.ddr_patch(bd_addr(kShimBd, 0) + 4, 1, 0x80);
  w.maskwrite32(bd_addr(kShimBd, 0) + 4, 0x7000, 0xFF00);
  w.write32(shim_queue(true, 0), push_word(0));
  EXPECT_EQ(explained(w),
            (std::vector<std::string>{"   0 push (0,0) MM2S ch0 ctrl=0x0: len=8 @arg3+0x40 dims=[linear] outer=1",
                                      "   1 push (0,0) MM2S ch0 ctrl=0x0: len=8 @0x6000 dims=[linear] outer=1",
                                      "   2 push (0,0) MM2S ch0 ctrl=0x0: len=8 @0x7000 dims=[linear] outer=1"}));
}

// The dispatch-time path draws a BD from a pool, polls for room in the queue, assembles BD
// words one by one and leaves the address word to the patch; the static path blockwrites BD 0
// and folds the repeat into the length (sample_streams.cpp). They program the same transfers.
using txn_samples::aie2_dynamic;
using txn_samples::aie2_static;

TEST(TxnAie2, DynamicAndStaticEmissionsAreEquivalent) {
  const auto s = aie2_static(), d = aie2_dynamic();
  EXPECT_NE(s, d);
  EXPECT_EQ(compare(s, d), std::vector<std::string>{});
  EXPECT_EQ(explain(s), explain(d));
  EXPECT_EQ(lines(explain(s))[1], "   1 push (0,0) S2MM ch0 token ctrl=0x0: len=64 @arg1+0x0 dims=[8x16] outer=8");
}

TEST(TxnAie2, CompareReportsAHiddenFieldDifference) {
  // A lock value is not printed, but it is part of the transfer.
  const auto diffs = compare(aie2_static(2), aie2_dynamic());
  ASSERT_EQ(diffs.size(), 1u);
  const std::string line = "push (0,0) MM2S ch0 token ctrl=0x0: len=1024 @arg0+0x1000 dims=[linear] outer=1";
  EXPECT_EQ(diffs[0], "event 0 differs:\n  a: " + line + "\n  b: " + line + "\n  (chain[0].lock_acq_value: 2 vs 1)");
}

TEST(TxnAie2, CompareReportsTheFirstDivergenceAndTheLengths) {
  Writer a(Device::aie2()), b(Device::aie2());
  for (Writer* w : {&a, &b}) w->write32(tile(0, 2) | 0x400, 1);
  a.write32(tile(0, 2) | 0x404, 2).write32(tile(0, 2) | 0x408, 3);
  b.write32(tile(0, 2) | 0x404, 9);
  const auto diffs = compare(a.words(), b.words());
  EXPECT_EQ(diffs, (std::vector<std::string>{"event 1 differs:\n  a: write (0,2) 0x00404 <- 0x00000002\n"
                                             "  b: write (0,2) 0x00404 <- 0x00000009",
                                             "a has 3 events, b has 2"}));
  Writer c(Device::aie2());
  c.write32(tile(0, 2) | 0x400, 1);
  EXPECT_EQ(compare(a.words(), c.words(), {"x.bin", "y.bin"}),
            std::vector<std::string>{"x.bin has 3 events, y.bin has 1"});
}

TEST(TxnAie2, CompareNeedsTheSameDevice) {
  Writer a(Device::aie2()), b(Device::aie2p());
  const auto diffs = compare(a.words(), b.words());
  EXPECT_EQ(diffs, std::vector<std::string>{"headers differ:\n  a: Header(devGen=0x3, rows=6, "
                                            "cols=4, memTileRows=1, version=0.1, ops=0, "
                                            "bytes=16)\n  b: Header(devGen=0x4, rows=6, cols=8, "
                                            "memTileRows=1, version=0.1, ops=0, bytes=16)"});
}

TEST(TxnAie2, Aie2pUsesTheSameLayout) {
  Writer w(Device::aie2p());
  put_bd(w, bd_addr(kShimBd, 0), ShimBd{.length = 16}.words());
  w.write32(shim_queue(true, 0), push_word(0));
  EXPECT_EQ(explained(w),
            std::vector<std::string>{"   0 push (0,0) MM2S ch0 ctrl=0x0: len=16 @0x0 dims=[linear] outer=1"});
  EXPECT_EQ(trace(w.words()).layout->name(), "aie2p");
}

TEST(TxnAie2, UnknownDeviceHasNoLayout) {
  Device d = Device::aie2();
  d.dev_gen = 7;
  Writer w(d);
  try {
    trace(w.words());
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(), "no device layout for TXN devGen 0x7 (known: 0x3 AIE2 npu1, 0x4 AIE2p npu2, 0x41 axcore)");
  }
}
