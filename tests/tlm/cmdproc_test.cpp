// The command processor's descriptor prefetch (docs/timing.md "Command processor"), as the RTL's
// ax_cmdproc runs it: a task queued behind a running one fetches its descriptor while that one
// runs and is checked two cycles after its TASK_DONE; datapaths queued back to back run their
// own DPU programs (two program banks); a host write over a prefetched descriptor makes the
// task fetch it again and run the new words.
#include <gtest/gtest.h>

#include <algorithm>
#include <axcore/rtl/mm_layout.hpp>
#include <vector>

#include "axcore/cosim/stimulus.hpp"
#include "axcore/ref/imc.hpp"
#include "axcore/tlm/tlm_device.hpp"

namespace axcore {
namespace {

using spec::Queue;

constexpr uint32_t kLiA = 0x10, kLiB = 0x30;

std::vector<uint32_t> loadimc_words(uint32_t tiles, uint32_t tile_base) {
  const auto w = rtlcore::tile_load(tiles, tile_base, 64 * tile_base).encode();
  return {w.begin(), w.end()};
}

using Span = stim::TaskSpan;

// Core 0's command processor tasks; LoadIMC A (8 tiles from tile 0) and B (`b_tiles` from tile
// 8) written and pushed back to back.
void push_two_loads(tlm::TlmDevice& d, stim::TaskSpans& rec, uint32_t b_tiles) {
  rec.attach(d, spec::core_row(0));
  stim::write_cmd(d, 0, kLiA, loadimc_words(8, 0));
  stim::write_cmd(d, 0, kLiB, loadimc_words(b_tiles, 8));
  stim::push_queue(d, 0, Queue::LOADIMC, stim::push_word(kLiA, 1));
  stim::push_queue(d, 0, Queue::LOADIMC, stim::push_word(kLiB, 2));
}

// A LoadIMC queued behind a longer one fetches its 4 read words while that one runs: it starts two
// cycles after the first one's TASK_DONE (S_TOKEN, then its check), where a fetch after the pop
// would take 3 + 4 + 2 cycles.
TEST(TlmCmdproc, QueuedLoadImcStartsTwoCyclesAfterItsPredecessor) {
  tlm::TlmDevice d;
  stim::TaskSpans rec;
  push_two_loads(d, rec, 2);
  EXPECT_EQ(stim::wait_queue_token(d, 0, Queue::LOADIMC).tag, 1u);
  EXPECT_EQ(stim::wait_queue_token(d, 0, Queue::LOADIMC).tag, 2u);
  const Span a = rec.of(kLiA), b = rec.of(kLiB);
  EXPECT_GE(a.done - a.start, 8u * 64);
  EXPECT_EQ(b.start, a.done + 2);
}

// Three DPU datapaths queued back to back on the MVMEXE queue and two on the DWPU queue, with
// different programs: each starts two cycles after its predecessor's TASK_DONE (its 100-odd
// descriptor words were fetched while that one ran) and every output equals the reference.
TEST(TlmCmdproc, QueuedDatapathsRunTheirOwnProgramsWithoutAFetchGap) {
  tlm::TlmDevice d;
  stim::TaskSpans rec;
  rec.attach(d, spec::core_row(0));
  constexpr uint32_t n = 160;
  auto l1 = d.l1(0);
  struct Job {
    stim::Datapath dp;
    uint32_t word;
    Queue q;
  };
  std::vector<Job> jobs;
  for (uint32_t i = 0; i < 5; ++i) {
    const bool dw = i >= 3;
    const uint32_t x = 1000 * i, y = 1000 * i + 400;
    const auto bytes = stim::f16_elements(n, i);
    std::copy(bytes.begin(), bytes.end(), l1.begin() + std::ptrdiff_t{x} * 64);
    jobs.push_back({stim::dpu_f16(dw ? spec::DpKind::DWPU : spec::DpKind::MVMEXE, n, x, y, i % 2 == 0),
                    0x400 + 0x100 * i, dw ? Queue::DWPU : Queue::MVMEXE});
  }
  std::vector<uint8_t> expect(l1.begin(), l1.end());
  for (const Job& j : jobs) {
    stim::reference_datapath(j.dp, expect, nullptr);
    stim::write_cmd(d, 0, j.word, j.dp.words());
  }
  for (uint32_t i = 0; i < jobs.size(); ++i) stim::push_queue(d, 0, jobs[i].q, stim::push_word(jobs[i].word, i));
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(stim::wait_queue_token(d, 0, Queue::MVMEXE).error, 0u);
  for (uint32_t i = 0; i < 2; ++i) EXPECT_EQ(stim::wait_queue_token(d, 0, Queue::DWPU).error, 0u);
  EXPECT_TRUE(std::equal(expect.begin(), expect.end(), l1.begin())) << "L1 differs from the reference";
  for (const uint32_t i : {1u, 2u, 4u}) {
    const Span prev = rec.of(jobs[i - 1].word), cur = rec.of(jobs[i].word);
    EXPECT_EQ(cur.start, prev.done + 2) << "task " << i;
  }
}

// A host write over the descriptor of a task that was already prefetched (its predecessor still
// runs) drops the prefetch: the task fetches the new words and loads 3 tiles, not the 1 it was
// pushed with, still without a gap after its predecessor.
TEST(TlmCmdproc, RewriteOfAPrefetchedDescriptorRunsTheNewOne) {
  tlm::TlmDevice d;
  stim::TaskSpans rec;
  push_two_loads(d, rec, 1);
  d.advance(100);  // B's words were read long ago; A loads for 512 cycles
  stim::write_cmd(d, 0, kLiB, loadimc_words(3, 8));
  EXPECT_EQ(stim::wait_queue_token(d, 0, Queue::LOADIMC).tag, 1u);
  EXPECT_EQ(stim::wait_queue_token(d, 0, Queue::LOADIMC).tag, 2u);
  const Span a = rec.of(kLiA), b = rec.of(kLiB);
  EXPECT_EQ(b.start, a.done + 2);
  EXPECT_EQ(b.done - b.start, a.done - a.start - 5 * 64);  // 3 tiles, A's 8
  EXPECT_EQ(spec::core::ImcStatus::decode_word(d.read32(stim::addr(spec::core_row(0), spec::core::IMC_STATUS.offset)))
                .valid_tiles,
            11u);
}

// The port reads only the words the device uses (docs/timing.md "Fetched words"): a datapath
// pushed to an idle queue starts as many cycles after its push as its descriptor has such words,
// plus the fixed overhead a LoadIMC (4 read words) shows; the other words hold garbage here and
// the output still equals the reference. A guard that is always true adds its 3 words.
TEST(TlmCmdproc, FetchReadsOnlyTheWordsTheDeviceUses) {
  tlm::TlmDevice d;
  stim::TaskSpans rec;
  rec.attach(d, spec::core_row(0));
  constexpr uint32_t n = 64, kDp = 0x400, kDpGuard = 0x600, kDpSeg = 0x800;
  auto l1 = d.l1(0);
  const auto bytes = stim::f16_elements(n, 3);
  std::copy(bytes.begin(), bytes.end(), l1.begin());
  stim::Datapath dp = stim::dpu_f16(spec::DpKind::MVMEXE, n, 0, 1000, true);
  stim::Datapath guarded = dp;
  guarded.odr.base_row = 2000;
  guarded.odr.nguards = 1;
  guarded.odr.g0_extent = 0xFFFF;                          // 0 <= 0 < 65535: every element stored
  stim::Datapath segmented = stim::split_ifd0(dp, n / 2);  // IFD0 as two segments (§8.3)
  segmented.odr.base_row = 3000;
  std::vector<uint8_t> expect(l1.begin(), l1.end());
  stim::reference_datapath(dp, expect, nullptr);
  stim::reference_datapath(guarded, expect, nullptr);
  stim::reference_datapath(segmented, expect, nullptr);
  const auto [w_dp, reads_dp] = stim::garble_unread_words(dp, Queue::MVMEXE);
  const auto [w_guarded, reads_guarded] = stim::garble_unread_words(guarded, Queue::MVMEXE);
  const auto [w_seg, reads_seg] = stim::garble_unread_words(segmented, Queue::MVMEXE);
  EXPECT_EQ(reads_guarded, reads_dp + 3);
  EXPECT_EQ(reads_seg, reads_dp + 4);  // the seg walk's word 0, sizes, stride and pad value
  EXPECT_LT(reads_dp, w_dp.size() / 2);
  stim::write_cmd(d, 0, kDp, w_dp);
  stim::write_cmd(d, 0, kDpGuard, w_guarded);
  stim::write_cmd(d, 0, kDpSeg, w_seg);
  stim::write_cmd(d, 0, kLiA, loadimc_words(1, 0));
  // each pushed to its idle queue: TASK_START - push = overhead + words read
  auto latency = [&](Queue q, uint32_t word, uint32_t tag) {
    const uint64_t c = d.cycle();
    stim::push_queue(d, 0, q, stim::push_word(word, tag));
    EXPECT_EQ(stim::wait_queue_token(d, 0, q).error, 0u);
    return rec.of(word).start - c;
  };
  const uint64_t li = latency(Queue::LOADIMC, kLiA, 1);
  EXPECT_EQ(latency(Queue::MVMEXE, kDp, 2), li - 4 + reads_dp);
  EXPECT_EQ(latency(Queue::MVMEXE, kDpGuard, 3), li - 4 + reads_guarded);
  EXPECT_EQ(latency(Queue::MVMEXE, kDpSeg, 4), li - 4 + reads_seg);
  EXPECT_TRUE(std::equal(expect.begin() + std::ptrdiff_t{1000} * 64, expect.begin() + std::ptrdiff_t{3000 + 2 * n} * 64,
                         l1.begin() + std::ptrdiff_t{1000} * 64))
      << "L1 differs from the reference";
}

}  // namespace
}  // namespace axcore
