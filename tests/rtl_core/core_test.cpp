// The whole core tile through its register bus: a hand-assembled program (CMD_MEM descriptors,
// L1 data through DBG_MEM, queue pushes) doing LoadIMC and a matmul datapath, checked against
// common/ref; tokens, TASK_START/DONE order, refused descriptors, queue overflow, barriers, the
// descriptor prefetch of a queued task, the watchdog registers and perf counters.
#include <gtest/gtest.h>
#include <array>

#include <axcore/ref/imc.hpp>
#include <axcore/ref/walk.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <span>

#include "tile_bench.hpp"

namespace {

namespace ref = axcore::ref;
namespace core = axcore::spec::core;
using rtlcore::datapath_words;
using rtlcore::kBarWord;
using rtlcore::kDpWord;
using rtlcore::kLiWord;
using rtlcore::kW0;
using rtlcore::kX0;
using rtlcore::kY0;
using rtlcore::Matmul;
using rtlcore::Tile;
using rtlcore::token_of;

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
  core::ImcStatus imc_status;
  imc_status.matrix_id = mm.matrix_id;
  imc_status.valid_tiles = mm.kb * mm.nb;
  EXPECT_EQ(t.read(core::IMC_STATUS.offset), imc_status.encode_word());
  EXPECT_EQ(core::QStatus::decode_word(t.read(core::Q_STATUS.at(0))).done, 1u);
  EXPECT_EQ(core::QStatus::decode_word(t.read(core::Q_STATUS.at(2))).done, 1u);
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

// Clock gating: the tile's clocks run only while it has work (and the 8-cycle tail after it).
// During a matmul the tile and MVMEXE clocks rise every cycle and the DWPU's never; once the
// tokens are out, no clock of the tile rises; a register read runs the tile's clock (and
// CoreDMA's, whose registers share the bus) for that access and its tail only.
TEST(CoreTileTest, IdleTileStopsItsClocks) {
  Tile t;
  Matmul mm{5, 3, 2};
  t.write_cmd(kLiWord, mm.load().encode());
  t.write_cmd(kDpWord, datapath_words(mm));
  t.push(2, kLiWord, 1);
  t.push(0, kDpWord, 2);
  // clk_on_o = {tile, MVMEXE, DWPU, CoreDMA}: a gated clock is high after its rising edge
  constexpr unsigned kTile = 3, kMvm = 2, kDw = 1;
  std::array<int, 4> busy{}, idle{}, after{};
  auto count = [&](std::array<int, 4>& n) {
    t.tick();
    for (unsigned b = 0; b < 4; ++b) n[b] += static_cast<int>((t.sim->clk_on_o >> b) & 1u);
  };
  int busy_cycles = 0;
  for (; busy_cycles < 100000 && t.tokens.size() < 2; ++busy_cycles) count(busy);  // LoadIMC, then the matmul
  ASSERT_EQ(t.tokens.size(), 2u);
  EXPECT_EQ(busy[kTile], busy_cycles) << "the tile clock runs while the tile is busy";
  EXPECT_GT(busy[kMvm], 0) << "the MVMEXE datapath's clock runs for the matmul";
  EXPECT_LT(busy[kMvm], busy_cycles) << "and not while only LoadIMC runs";
  EXPECT_EQ(busy[kDw], 0) << "the DWPU datapath's clock stays off while only the MVMEXE datapath runs";
  for (int i = 0; i < 20; ++i) t.tick();  // the tail
  for (int i = 0; i < 200; ++i) count(idle);
  EXPECT_EQ(idle, (std::array<int, 4>{0, 0, 0, 0})) << "an idle tile's clocks stay off";
  EXPECT_EQ(t.read(core::ERROR_STATUS.offset), 0u);
  for (int i = 0; i < 30; ++i) count(after);
  EXPECT_GT(after[kTile], 0) << "the read's tail runs the tile clock";
  EXPECT_LE(after[kTile], 8) << "and stops after the 8-cycle tail";
  EXPECT_EQ(after[kMvm] + after[kDw], 0) << "a register read does not clock the datapaths";
}

// Speed of the whole tile with the MVM busy: a resident matmul M = 64, K = 1152, N = 256 run
// ten times (one push, repeat 9) through the command processor (operands loaded through DBG_MEM
// beforehand). Prints the simulated cycles per second (wall and CPU time of the timed run) and
// the cycles against the ideal runs * M * K_BLOCKS * N_BLOCKS.
TEST(CoreTileTest, MatmulRunSpeed) {
  Tile t;
  std::mt19937 rng(22);
  Matmul mm{64, 18, 4};
  constexpr uint32_t kRuns = 10;
  std::vector<uint8_t> x(std::size_t{mm.m} * mm.kb * 64), w(std::size_t{mm.kb} * mm.nb * 64 * 64);
  for (auto& v : x) v = static_cast<uint8_t>(rng());
  for (auto& v : w) v = static_cast<uint8_t>(rng());
  t.write_l1(uint64_t{kX0} * 64, x);
  t.write_l1(uint64_t{kW0} * 64, w);
  t.write_cmd(kLiWord, mm.load().encode());
  t.write_cmd(kDpWord, datapath_words(mm));
  t.push(2, kLiWord, 1);
  ASSERT_TRUE(t.wait_tokens(1));
  t.push(0, kDpWord, 2, true, kRuns - 1);
  const uint64_t c0 = t.sim.cycle();
  const auto w0 = std::chrono::steady_clock::now();
  const std::clock_t cpu0 = std::clock();
  ASSERT_TRUE(t.wait_tokens(2));
  const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  const uint64_t cycles = t.sim.cycle() - c0;
  const uint64_t ideal = uint64_t{kRuns} * mm.m * mm.kb * mm.nb;
  std::printf(
      "core tile MVMEXE M=64 K=1152 N=256 x %u runs through the command processor: %llu cycles "
      "(push to token), ideal %llu, ratio %.4f; %.0f simulated cycles/s (%.0f per CPU second)\n",
      kRuns, static_cast<unsigned long long>(cycles), static_cast<unsigned long long>(ideal),
      static_cast<double>(cycles) / static_cast<double>(ideal), static_cast<double>(cycles) / secs,
      static_cast<double>(cycles) / cpu);
  EXPECT_FALSE(token_of(t.tokens[1]).error);
  // 92 descriptor words, the pipeline fill of each run and the ODR tail on top of the tile-ops
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
  EXPECT_EQ(core::ErrorInfo::decode_word(t.read(core::ERROR_INFO.offset)).code, axcore::spec::ErrorCode::DESC_MAGIC);
  EXPECT_EQ(core::ErrorInfo::decode_word(t.read(core::ERROR_INFO.offset)).detail, kLiWord);
  t.write(core::ERROR_STATUS.offset, st);
  EXPECT_EQ(t.read(core::ERROR_STATUS.offset), 0u);
  EXPECT_TRUE(core::QStatus::decode_word(t.read(core::Q_STATUS.at(2))).error);  // error of the last task

  // IFD1 without the DPU is not a legal unit set: DESC_UNITS, without a token push flag
  Matmul mm{1, 1, 1};
  auto w = datapath_words(mm);
  w[0] |= 1u << 11;  // has_ifd1
  t.write_cmd(kDpWord, w);
  t.push(0, kDpWord, 4, false);
  ASSERT_TRUE(t.wait_tokens(2, 1000));
  EXPECT_EQ(token_of(t.tokens[1]).code, axcore::spec::ErrorCode::DESC_UNITS);

  // a descriptor running past CMD_MEM
  t.push(2, axcore::spec::param::cmd_mem_bytes / 4 - 4, 5);
  ASSERT_TRUE(t.wait_tokens(3, 1000));
  EXPECT_EQ(token_of(t.tokens[2]).code, axcore::spec::ErrorCode::CMD_RANGE);

  // a DWPU-kind datapath on the MVMEXE queue: DESC_MAGIC, as the TLM ("descriptor magic does not
  // match the queue"; the DWPU queue's MVMEXE case is in dwpu_core_test)
  w = datapath_words(mm);
  auto h = axcore::spec::DpHeader::decode(std::span<const uint32_t>(w).first(axcore::spec::DpHeader::kWords));
  h.kind = axcore::spec::DpKind::DWPU;
  h.encode_to(std::span<uint32_t>(w).first(axcore::spec::DpHeader::kWords));
  t.write_cmd(kDpWord, w);
  t.push(0, kDpWord, 6);
  ASSERT_TRUE(t.wait_tokens(4, 1000));
  EXPECT_TRUE(token_of(t.tokens[3]).error);
  EXPECT_EQ(token_of(t.tokens[3]).code, axcore::spec::ErrorCode::DESC_MAGIC);
  EXPECT_EQ(token_of(t.tokens[3]).tag, 6u);
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
  EXPECT_TRUE(core::ErrorStatus::decode_word(t.read(core::ERROR_STATUS.offset)).overflow);
  EXPECT_EQ(core::ErrorInfo::decode_word(t.read(core::ERROR_INFO.offset)).code,
            axcore::spec::ErrorCode::QUEUE_OVERFLOW);
}

// The command processor's prefetch (docs/timing.md "Command processor"): a LoadIMC queued behind
// a longer one fetches its descriptor while that one runs and starts two cycles after its
// TASK_DONE (a fetch after the pop would take 3 + 4 + 2). A host write over a descriptor already
// prefetched (its predecessor still runs) drops the prefetch: the task runs the new words (3
// tiles, not the 1 it was pushed with), still without a gap.
TEST(CoreTileTest, QueuedTaskPrefetchesItsDescriptorAndARewriteIsFetchedAgain) {
  Tile t;
  constexpr uint32_t kA = kLiWord, kB = kLiWord + 0x20;
  auto load = [](uint32_t tiles, uint32_t tile_base) {
    return rtlcore::tile_load(tiles, tile_base, 64 * tile_base).encode();
  };
  // the cmd_events entry of the n-th event of queue 2 at descriptor `word`, as (cycle)
  auto cycle_of = [&](uint32_t word, bool start, unsigned nth) -> uint64_t {
    for (std::size_t i = 0; i < t.cmd_events[2].size(); ++i)
      if (t.cmd_events[2][i] == std::make_pair(start, word) && nth-- == 0) return t.cmd_cycles[2][i];
    ADD_FAILURE() << "no event for word " << word;
    return 0;
  };
  t.write_cmd(kA, load(8, 0));
  t.write_cmd(kB, load(2, 8));
  t.push(2, kA, 1);
  t.push(2, kB, 2);
  ASSERT_TRUE(t.wait_tokens(2, 5000));
  EXPECT_GE(cycle_of(kA, false, 0) - cycle_of(kA, true, 0), 8u * 64);
  EXPECT_EQ(cycle_of(kB, true, 0), cycle_of(kA, false, 0) + 2);

  t.write_cmd(kB, load(1, 8));
  t.push(2, kA, 3);
  t.push(2, kB, 4);
  for (int i = 0; i < 100; ++i) t.tick();  // B's words were read long ago; A loads for 512 cycles
  t.write_cmd(kB, load(3, 8));
  ASSERT_TRUE(t.wait_tokens(4, 5000));
  EXPECT_EQ(token_of(t.tokens[3]).tag, 4u);
  const uint64_t a0 = cycle_of(kA, true, 1), a1 = cycle_of(kA, false, 1);
  const uint64_t b0 = cycle_of(kB, true, 1), b1 = cycle_of(kB, false, 1);
  EXPECT_EQ(b0, a1 + 2);
  EXPECT_EQ(b1 - b0, a1 - a0 - 5 * 64);  // 3 tiles, A's 8
  EXPECT_EQ(core::ImcStatus::decode_word(t.read(core::IMC_STATUS.offset)).valid_tiles, 11u);
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
