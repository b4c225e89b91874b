// TLM ↔ RTL agreement (issue 7): the programs of cosim/agree (axcore/cosim/agree.hpp) run on TlmDevice
// and on the 1-core RtlDevice in the same process; the outputs must be bit-identical and the
// timed span (first TASK_START .. last TASK_DONE) within ±5 % of the RTL's, every task of
// 16 cycles or more within ±10 %. Each test prints its per-task table (docs/tlm.md quotes it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "axcore/cosim/agree.hpp"
#include "axcore/rtl/rtl_device.hpp"
#include "axcore/tlm/tlm_device.hpp"

namespace axcore {
namespace {

constexpr double kSpanTolerance = 0.05, kTaskTolerance = 0.10;

struct Both {
  agree::Run tlm, rtl;
  agree::Comparison cmp;
};

Both run_both(const agree::Program& p) {
  Both b;
  {
    tlm::TlmDevice t;
    b.tlm = agree::run(t, p);
  }
  rtl::RtlDevice r;
  b.rtl = agree::run(r, p);
  b.cmp = agree::compare(b.tlm, b.rtl);
  std::printf("%s (TLM vs RTL):\n%s", p.name.c_str(), b.cmp.table.c_str());
  return b;
}

void expect_agreement(const Both& b) {
  EXPECT_TRUE(b.cmp.same_tasks) << "the two backends ran different tasks or ended them with different tokens";
  EXPECT_EQ(b.tlm.out, b.rtl.out) << "outputs differ";
  EXPECT_NEAR(b.cmp.span_ratio, 1.0, kSpanTolerance);
  EXPECT_NEAR(b.cmp.worst_task_ratio, 1.0, kTaskTolerance);
}

TEST(TlmRtlAgree, SysDmaDdrToL2AndBack) { expect_agreement(run_both(agree::dma_ddr_l2_ddr(1024))); }

TEST(TlmRtlAgree, DmaWalksPaddingChainsAcrossTheTiles) { expect_agreement(run_both(agree::dma_walks())); }

TEST(TlmRtlAgree, TwoMemDmaPairsAtOnce) { expect_agreement(run_both(agree::dma_two_pairs(4096))); }

// An L2 -> L2 copy with source and destination in one bank: the MM2S and the S2MM alternate on
// the bank (round-robin) in lock step behind the MM2S's reorder buffer, 1.81 cycles/word.
TEST(TlmRtlAgree, SameBankL2CopyAlternatesOnTheBank) { expect_agreement(run_both(agree::dma_l2_bank_conflict(4096))); }

// SysDMA, MemDMA and CoreDMA at once, every L2 access in bank 0: the round-robin pointer runs
// over the initiators of all three engines.
TEST(TlmRtlAgree, ThreeEnginesShareOneL2Bank) { expect_agreement(run_both(agree::dma_engines_share_l2(1024))); }

TEST(TlmRtlAgree, SysDmaDdrToL2OneMiB) { expect_agreement(run_both(agree::dma_ddr_to_l2(1u << 18))); }

TEST(TlmRtlAgree, MemDmaL2ToL1QuarterMiB) { expect_agreement(run_both(agree::dma_l2_to_l1(1u << 16))); }

TEST(TlmRtlAgree, TwoEnginesOnOneL2Bank) { expect_agreement(run_both(agree::dma_two_engines_one_bank(2048))); }

TEST(TlmRtlAgree, DdrBurstsSplitAt4KiB) { expect_agreement(run_both(agree::dma_burst_crosses_4k())); }

TEST(TlmRtlAgree, DdrReadsWithEveryOutstandingSlotFull) {
  expect_agreement(run_both(agree::dma_reads_outstanding_full()));
}

// Issue 21 item 4: the compiler's overlapped schedules run a core's units and the DMA at once;
// the L1 banks arbitrate them (ODR > IFD0 > IFD1 > LoadIMC > DWPU weights > DMA word port). Each
// of these failed on the TLM before it modelled LoadIMC and the word port on the banks (span 0.60;
// tasks 0.76).
// SysDMA DDR -> L1 while LoadIMC reads its weight rows 8 apart (one bank per tile, 64 cycles):
// the copy's beats into that bank wait for the next tile, the copy follows the load bank by bank.
TEST(TlmRtlAgree, LoadImcHoldsBanksADmaIntoL1Waits) {
  expect_agreement(run_both(agree::loadimc_during_dma_to_l1(8192, 8, 8)));
}
TEST(TlmRtlAgree, LoadImcContiguousRowsBesideADmaIntoL1) {
  expect_agreement(run_both(agree::loadimc_during_dma_to_l1(8192, 8, 1)));
}
// A DWPU-queue L1 copy (IFD0 and ODR a row a cycle each) beside a LoadIMC: LoadIMC loses banks.
TEST(TlmRtlAgree, LoadImcLosesBanksToADwpuDatapath) {
  expect_agreement(run_both(agree::loadimc_beside_dwpu_copy(1024, 8)));
}
// A LoadIMC of contiguous rows started first, then a DWPU-queue copy whose IFD0 walks the banks at
// the same rate and in step with it (the fused mlp's LoadIMC beside its matmul's IFD0, 2026-12-07):
// the RTL's LoadIMC loses one cycle, retries that row, and is then a bank apart for the rest of the
// copy; the TLM lost every row the copy overlapped (its later rows kept their claimed cycles).
// Shift 6 puts the copy's first IFD0 read on the bank the LoadIMC reads that cycle. Before the TLM
// replayed the chain (l1_banks.hpp): LoadIMC 611 / copy 838 cycles on the TLM, 515 / 517 on the RTL
// (span ratio 1.525); after: equal.
constexpr uint32_t kInStepShift = 6;
TEST(TlmRtlAgree, LoadImcInStepWithALaterDatapathLosesOneCycle) {
  expect_agreement(run_both(agree::loadimc_beside_dwpu_copy(512, 8, 1, true, kInStepShift)));
}
// MemDMA L2 -> one L1 bank while a resident matmul's IFD0 walks x: the word port loses that bank.
TEST(TlmRtlAgree, DmaIntoL1LosesBanksToAMatmul) {
  expect_agreement(run_both(agree::matmul_during_dma_to_l1(64, 4, 4, 4096)));
}

// A depthwise CONV's weight fetch (72 rows at its start, the port below LoadIMC) beside a LoadIMC of
// row stride 8: each time the fetch reaches the bank LoadIMC holds it waits for the next tile
// (the DWPU task 1 683 cycles on the RTL; 1 267 on the TLM before it modelled the port).
TEST(TlmRtlAgree, DwpuWeightFetchLosesBanksToLoadImc) {
  expect_agreement(run_both(agree::dwpu_weights_beside_loadimc()));
}

// Both SysDMA channels DDR -> L1 at once (the compiler's alternating weight copies).
TEST(TlmRtlAgree, TwoSysDmaChannelsReadDdrIntoL1) {
  expect_agreement(run_both(agree::dma_two_channels_ddr_to_l1(8192)));
}

// MVMEXE and LoadIMC together (docs/timing.md "Command processor"): the second LoadIMC runs
// beside the matmul when it names the matmul's matrix_id and tiles it does not read; else the
// later task starts only after the earlier one's TASK_DONE. Either way the output and the IMC
// registers equal common/ref's (no stale read), on both backends.
struct CmdSpan {
  uint64_t start = 0, done = 0;
};
CmdSpan cmd_span(const agree::Run& r, uint64_t desc_word) {
  CmdSpan s{};
  for (const auto& rec : r.records)
    if (rec.unit == trace::Unit::CMDPROC && rec.addr == desc_word) {
      if (rec.kind == trace::Kind::TASK_START) s.start = rec.cycle;
      if (rec.kind == trace::Kind::TASK_DONE) s.done = rec.cycle;
    }
  return s;
}
void expect_beside(uint32_t tile_base, uint8_t matrix_id, bool loadimc_first, bool overlap) {
  const Both b = run_both(agree::loadimc_beside_matmul(tile_base, matrix_id, loadimc_first));
  expect_agreement(b);
  EXPECT_EQ(b.rtl.out, agree::loadimc_beside_matmul_reference(tile_base, matrix_id, loadimc_first))
      << "output or IMC registers";
  for (const agree::Run* r : {&b.tlm, &b.rtl}) {
    const CmdSpan li = cmd_span(*r, agree::kBesideLoadimcWord), mv = cmd_span(*r, agree::kBesideMatmulWord);
    const CmdSpan& first = loadimc_first ? li : mv;
    const CmdSpan& second = loadimc_first ? mv : li;
    ASSERT_GT(first.done, 0u) << r->backend;
    ASSERT_GT(second.done, 0u) << r->backend;
    if (overlap)
      EXPECT_LT(second.start, first.done) << r->backend << ": the second task waited for the first";
    else
      EXPECT_GT(second.start, first.done) << r->backend << ": the second task ran beside the first";
  }
}
TEST(TlmRtlAgree, LoadImcBesideMatmulOnOtherTiles) { expect_beside(8, 1, false, true); }
TEST(TlmRtlAgree, MatmulBesideLoadImcOnOtherTiles) { expect_beside(8, 1, true, true); }
TEST(TlmRtlAgree, LoadImcOnTilesTheMatmulReadsWaits) { expect_beside(4, 1, false, false); }
TEST(TlmRtlAgree, MatmulOnTilesTheLoadImcWritesWaits) { expect_beside(4, 1, true, false); }
TEST(TlmRtlAgree, LoadImcOfAnotherResidencyWaits) { expect_beside(8, 2, false, false); }

TEST(TlmRtlAgree, LoadImcAndResidentMatmul) { expect_agreement(run_both(agree::matmul(64, 4, 4))); }

// The DWPU ODR's lane transpose (A.vtrsp): 64 pops, then 64 stores per block (docs/timing.md).
TEST(TlmRtlAgree, LaneTransposeInt8Blocks) {
  expect_agreement(run_both(agree::lane_transpose(8, spec::Dtype::INT8, spec::Dtype::INT8)));
}
TEST(TlmRtlAgree, LaneTransposeFloat16ToFloat32) {  // 4 rows per store
  expect_agreement(run_both(agree::lane_transpose(2, spec::Dtype::FLOAT16, spec::Dtype::FLOAT32)));
}

// Tasks queued back to back on the MVMEXE, DWPU and LoadIMC queues: each fetches its descriptor
// (and its DPU program into the other bank) while its predecessor runs (docs/timing.md).
TEST(TlmRtlAgree, QueuedTasksPrefetchTheirDescriptors) { expect_agreement(run_both(agree::queued_tasks(160))); }

TEST(TlmRtlAgree, ResidentMatmulInt32Output) {  // the ODR writes 4 rows per element
  expect_agreement(run_both(agree::matmul(16, 4, 1, spec::Dtype::INT32)));
}

// The whole-core program: DMA in, LoadIMC, matmul with the ODR's int8 cast, DMA out;
// bit-identical on both backends and equal to common/ref.
TEST(TlmRtlAgree, WholeCoreProgramBitIdentical) {
  constexpr uint32_t M = 16, KB = 4, NB = 1;
  const Both b = run_both(agree::whole_core(M, KB, NB));
  expect_agreement(b);
  EXPECT_EQ(b.tlm.out, agree::whole_core_reference(M, KB, NB)) << "TLM output differs from common/ref";
}

// Mismatched push/pop counts: the watchdog ends the task on both backends with the same token,
// WDOG_STATUS/WDOG_WAITS and ERROR_INFO, and the TLM names the stalled units and streams.
TEST(TlmRtlAgree, DeadlockEndsWithTheSameWatchdogDiagnostic) {
  const auto p = agree::deadlock();
  agree::Run t;
  std::string report;
  {
    tlm::TlmDevice d;
    t = agree::run(d, p);
    report = d.watchdog_report(0);
  }
  rtl::RtlDevice r;
  const agree::Run rr = agree::run(r, p);
  EXPECT_EQ(t.out, rr.out) << "token / WDOG_* / ERROR_* differ";
  const auto tok = spec::Token::decode_word(t.out[0] | t.out[1] << 8 | t.out[2] << 16 | uint32_t{t.out[3]} << 24);
  EXPECT_EQ(tok.code, spec::ErrorCode::WATCHDOG);
  EXPECT_NE(report.find("MVMEXE"), std::string::npos) << report;
  EXPECT_NE(report.find("MVM/DWPU waits on its empty input stream (ifd0)"), std::string::npos) << report;
  EXPECT_NE(report.find("ODR waits on its empty input stream"), std::string::npos) << report;
  std::printf("TLM: %s\n%s", report.c_str(), agree::compare(t, rr).table.c_str());
}

TEST(TlmRtlAgree, OutOfRangeBdEndsWithTheSameErrorToken) {
  const Both b = run_both(agree::bd_out_of_range());
  EXPECT_EQ(b.tlm.out, b.rtl.out) << "token / ERROR_* / status differ";
  EXPECT_EQ(
      spec::Token::decode_word(b.tlm.out[0] | b.tlm.out[1] << 8 | b.tlm.out[2] << 16 | uint32_t{b.tlm.out[3]} << 24)
          .code,
      spec::ErrorCode::ADDR_RANGE);
}

TEST(TlmRtlAgree, SoftResetMidTransferThenTheEngineWorks) {
  const Both b = run_both(agree::soft_reset());
  EXPECT_EQ(b.tlm.out, b.rtl.out) << "status after the soft reset differs";
}

TEST(TlmRtlAgree, PausedChannelHoldsThenCompletes) {
  const Both b = run_both(agree::dma_pause());
  EXPECT_EQ(b.tlm.out, b.rtl.out);
  ASSERT_GE(b.tlm.out.size(), 4u);
  EXPECT_EQ(b.tlm.out[0], 1u) << "words moved while paused";
}

// A barrier starts when the core's other queues are idle and empty (ax_cmdproc): the same
// TASK_START and TASK_DONE cycles for the LoadIMC, the matmul and the barrier on both backends.
TEST(TlmRtlAgree, BarrierWaitsForTheOtherQueuesToBeIdle) {
  const Both b = run_both(agree::barrier_after_matmul());
  expect_agreement(b);
  const auto &t = b.tlm.tasks, &r = b.rtl.tasks;
  ASSERT_EQ(t.size(), 3u);
  ASSERT_EQ(r.size(), 3u);
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].start, r[i].start) << "task " << i;
    EXPECT_EQ(t[i].done, r[i].done) << "task " << i;
  }
  EXPECT_GT(t[2].start, t[1].done) << "the barrier started before the matmul was done";
}

// The same performance counters as the RTL: PERF_TASKS equal, PERF_BUSY and the stall counters
// of every unit within 3 % (+ 4 cycles: a read that lost its L1 bank counts as busy on the TLM's
// IFD, the RTL's counts it otherwise; MVM/ODR input stalls differ by one).
TEST(TlmRtlAgree, PerfCountersOfEveryUnit) {
  const Both b = run_both(agree::perf_counters());
  ASSERT_EQ(b.tlm.out.size(), b.rtl.out.size());
  auto word = [](const std::vector<uint8_t>& v, std::size_t at) {
    return v[at] | v[at + 1] << 8 | v[at + 2] << 16 | static_cast<uint32_t>(v[at + 3]) << 24;
  };
  const char* what[] = {"busy", "stall_in", "stall_out", "tasks"};
  for (std::size_t i = 0; i < b.tlm.out.size(); i += 4) {
    const double t = word(b.tlm.out, i), r = word(b.rtl.out, i);
    const std::size_t unit = i / 16, k = i / 4 % 4;
    if (k == 3)
      EXPECT_EQ(t, r) << "PERF_TASKS of unit " << unit;
    else
      EXPECT_LE(std::abs(t - r), 4 + 0.03 * r) << "PERF_" << what[k] << " of unit " << unit << ": " << t << " vs " << r;
  }
}

}  // namespace
}  // namespace axcore
