// Barriers (CTRL queue) as the RTL's ax_cmdproc runs them: a barrier starts when every other
// queue of its core is idle and empty, then waits for the cores of its mask; tasks pushed after
// it are not held. A mask that omits this core or names a missing one is refused (BARRIER_MASK,
// TASK_DONE only).
#include <gtest/gtest.h>

#include <vector>

#include "axcore/cosim/stimulus.hpp"
#include "axcore/tlm/tlm_device.hpp"

namespace axcore {
namespace {

using spec::Queue;

constexpr uint32_t kLoadimcWord = 0x10, kBarrierWord = 0x40;

std::vector<uint32_t> barrier_words(uint32_t id, uint32_t mask) {
  spec::BarrierDesc b;
  b.magic = spec::magic::barrier;
  b.barrier_id = id;
  b.core_mask = mask;
  const auto w = b.encode();
  return {w.begin(), w.end()};
}

std::vector<uint32_t> loadimc_words(uint32_t tiles) {
  spec::LoadimcDesc l;
  l.magic = spec::magic::loadimc;
  l.matrix_id = 1;
  l.d0_size = tiles;
  l.d1_size = 1;
  l.row_stride = 1;
  l.d0_astride = 64;
  l.d0_tstride = 1;
  const auto w = l.encode();
  return {w.begin(), w.end()};
}

using Span = stim::TaskSpan;
using Recorder = stim::TaskSpans;

TEST(TlmBarrier, StartsWhenTheOtherQueuesAreIdleAndEmpty) {
  tlm::TlmDevice d;
  Recorder rec;
  rec.attach(d, spec::core_row(0));
  stim::write_cmd(d, 0, kLoadimcWord, loadimc_words(8));
  stim::write_cmd(d, 0, kBarrierWord, barrier_words(3, 1));
  stim::push_queue(d, 0, Queue::LOADIMC, stim::push_word(kLoadimcWord, 1, false));
  stim::push_queue(d, 0, Queue::CTRL, stim::push_word(kBarrierWord, 2));
  const auto t = stim::wait_queue_token(d, 0, Queue::CTRL);
  EXPECT_EQ(t.error, 0u) << spec::to_string(t.code);
  const Span li = rec.of(kLoadimcWord), bar = rec.of(kBarrierWord);
  ASSERT_TRUE(li.started && bar.started);
  EXPECT_GE(li.done - li.start, 8u * 64);
  // The LoadIMC queue is idle two cycles after its TASK_DONE (S_TOKEN, S_IDLE); the barrier of
  // one core is released in the cycle after its start.
  EXPECT_EQ(bar.start, li.done + 2);
  EXPECT_EQ(bar.done, bar.start + 1);
}

TEST(TlmBarrier, TasksPushedAfterItAreNotHeld) {
  tlm::TlmDevice d(tlm::TlmOptions{2});
  const uint32_t row0 = spec::core_row(0);
  for (unsigned c = 0; c < 2; ++c) stim::write_cmd(d, c, kBarrierWord, barrier_words(5, 3));
  stim::write_cmd(d, 0, kLoadimcWord, loadimc_words(2));
  stim::push_queue(d, 0, Queue::CTRL, stim::push_word(kBarrierWord, 1));
  d.advance(100);  // core 0 waits in the barrier: core 1 has not arrived
  EXPECT_EQ(
      spec::core::CoreStatus::decode_word(d.read32(stim::addr(row0, spec::core::CORE_STATUS.offset))).barrier_wait, 1u);
  // A LoadIMC pushed now runs while the barrier waits.
  stim::push_queue(d, 0, Queue::LOADIMC, stim::push_word(kLoadimcWord, 2));
  EXPECT_EQ(stim::wait_queue_token(d, 0, Queue::LOADIMC).error, 0u);
  EXPECT_EQ(
      spec::core::CoreStatus::decode_word(d.read32(stim::addr(row0, spec::core::CORE_STATUS.offset))).barrier_wait, 1u);
  // Core 1 arrives: both are released.
  stim::push_queue(d, 1, Queue::CTRL, stim::push_word(kBarrierWord, 3));
  EXPECT_EQ(stim::wait_queue_token(d, 0, Queue::CTRL).error, 0u);
  EXPECT_EQ(stim::wait_queue_token(d, 1, Queue::CTRL).error, 0u);
  EXPECT_EQ(
      spec::core::CoreStatus::decode_word(d.read32(stim::addr(row0, spec::core::CORE_STATUS.offset))).barrier_wait, 0u);
}

TEST(TlmBarrier, MaskWithoutThisCoreIsRefusedAtTheCheck) {
  tlm::TlmDevice d;
  Recorder rec;
  rec.attach(d, spec::core_row(0));
  stim::write_cmd(d, 0, kBarrierWord, barrier_words(1, 2));  // core 1 only, on a 1-core device
  stim::push_queue(d, 0, Queue::CTRL, stim::push_word(kBarrierWord, 4, false));
  const auto t = stim::wait_queue_token(d, 0, Queue::CTRL);
  EXPECT_EQ(t.error, 1u);
  EXPECT_EQ(t.code, spec::ErrorCode::BARRIER_MASK);
  EXPECT_FALSE(rec.of(kBarrierWord).started) << "a refused descriptor records only TASK_DONE";
}

}  // namespace
}  // namespace axcore
