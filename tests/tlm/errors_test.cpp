// Error paths: error tokens and ERROR_INFO / ERROR_ADDR for a bad descriptor, out-of-range and
// invalid BDs, a queue overflow, and the watchdog on a deadlocked datapath (WDOG_WAITS names
// the stalled units and streams).
#include <gtest/gtest.h>

#include "axcore/cosim/stimulus.hpp"
#include "axcore/tlm/tlm_device.hpp"

namespace axcore {
namespace {

using spec::ErrorCode;
using spec::Queue;

uint32_t perf_tasks(device::Device& d, spec::PerfUnit u) {
  return d.read32(stim::addr(spec::core_row(0), spec::core::PERF_TASKS.at(static_cast<unsigned>(u))));
}

// A copy of 2 int8 elements from L1 row 0 to row `to` through IFD0 and the ODR.
stim::Datapath copy_datapath(spec::DpKind kind, uint32_t to = 100) {
  stim::Datapath dp;
  dp.header.kind = kind;
  dp.header.has_ifd0 = dp.header.has_odr = 1;
  dp.ifd0 = stim::linear_walk(0, 2, spec::Dtype::INT8, spec::Dtype::INT8);
  dp.odr = stim::linear_walk(to, 2, spec::Dtype::INT8, spec::Dtype::INT8);
  return dp;
}

template <class Info>
Info info_of(device::Device& d, uint32_t row) {
  return Info::decode_word(d.read32(stim::addr(row, spec::core::ERROR_INFO.offset)));
}

TEST(TlmErrors, BadDescriptorMagicEndsWithErrorToken) {
  tlm::TlmDevice d;
  const uint32_t w[4] = {0x77, 0, 0, 0};
  stim::write_cmd(d, 0, 40, w);
  stim::push_queue(d, 0, Queue::MVMEXE, stim::push_word(40, 3));
  const auto t = stim::wait_queue_token(d, 0, Queue::MVMEXE);
  EXPECT_EQ(t.error, 1u);
  EXPECT_EQ(t.code, ErrorCode::DESC_MAGIC);
  const uint32_t row = spec::core_row(0);
  const auto info = info_of<spec::core::ErrorInfo>(d, row);
  EXPECT_EQ(info.code, ErrorCode::DESC_MAGIC);
  EXPECT_EQ(info.channel, spec::param::core_queue_channel_base + 0);
  EXPECT_EQ(info.detail, 40u);
  const auto st = spec::core::ErrorStatus::decode_word(d.read32(stim::addr(row, spec::core::ERROR_STATUS.offset)));
  EXPECT_EQ(st.any, 1u);
  EXPECT_EQ(st.desc, 1u);
  EXPECT_EQ(spec::core::QStatus::decode_word(d.read32(stim::addr(row, spec::core::Q_STATUS.at(0)))).error, 1u);
  // w1c clears; the next error is recorded again.
  d.write32(stim::addr(row, spec::core::ERROR_STATUS.offset), 0xFFFFFFFF);
  EXPECT_EQ(d.read32(stim::addr(row, spec::core::ERROR_STATUS.offset)), 0u);
  EXPECT_EQ(spec::shim::Status::decode_word(d.read32(stim::addr(0, spec::shim::STATUS.offset))).error, 0u);
}

TEST(TlmErrors, OutOfRangeBdEndsWithAddrRangeToken) {
  tlm::TlmDevice d;
  const uint32_t row = spec::param::mem_row;
  // 64 words starting 128 bytes before the end of L2.
  stim::write_bd(d, row, 5, stim::linear_bd(spec::MemSel::L2, spec::param::l2_bytes - 128, 64));
  stim::push_dma(d, row, true, 1, stim::push_word(5, 4));
  const auto t = stim::wait_dma_token(d, row, true, 1);
  EXPECT_EQ(t.error, 1u);
  EXPECT_EQ(t.code, ErrorCode::ADDR_RANGE);
  const auto info = info_of<spec::mem::ErrorInfo>(d, row);
  EXPECT_EQ(info.code, ErrorCode::ADDR_RANGE);
  EXPECT_EQ(info.dir, 1u);
  EXPECT_EQ(info.channel, 1u);
  EXPECT_EQ(info.detail, 5u);
  EXPECT_GE(d.read32(stim::addr(row, spec::mem::ERROR_ADDR.offset)), spec::param::l2_bytes);
  EXPECT_EQ(spec::shim::Status::decode_word(d.read32(stim::addr(0, spec::shim::STATUS.offset))).error, 1u);
}

TEST(TlmErrors, InvalidBdAndPaddingOnS2mm) {
  tlm::TlmDevice d;
  const uint32_t row = spec::param::mem_row;
  auto bd = stim::linear_bd(spec::MemSel::L2, 0, 16);
  bd.length = 15;  // != product of sizes
  stim::write_bd(d, row, 0, bd);
  stim::push_dma(d, row, true, 0, stim::push_word(0, 1));
  EXPECT_EQ(stim::wait_dma_token(d, row, true, 0).code, ErrorCode::BD_INVALID);
  auto pad = stim::linear_bd(spec::MemSel::L2, 0, 16);
  pad.d0_pad_before = 2;
  stim::write_bd(d, row, 1, pad);
  stim::push_dma(d, row, false, 1, stim::push_word(1, 2));
  EXPECT_EQ(stim::wait_dma_token(d, row, false, 1).code, ErrorCode::PAD_ON_S2MM);
  EXPECT_EQ(info_of<spec::mem::ErrorInfo>(d, row).code, ErrorCode::BD_INVALID);  // the first error is kept
}

TEST(TlmErrors, QueueOverflowDropsThePush) {
  tlm::TlmDevice d;
  const uint32_t row = spec::param::shim_row;
  // A DDR read that takes a while, then more pushes than the queue holds.
  stim::write_bd(d, row, 0, stim::linear_bd(spec::MemSel::DDR, 0, 2048));
  for (uint32_t i = 0; i < spec::param::queue_depth + 1; ++i)
    stim::push_dma(d, row, true, 0, stim::push_word(0, i, false));
  const auto info = info_of<spec::shim::ErrorInfo>(d, row);
  EXPECT_EQ(info.code, ErrorCode::QUEUE_OVERFLOW);
  EXPECT_EQ(info.dir, 1u);
  EXPECT_EQ(info.channel, 0u);
  const auto st = spec::shim::ErrorStatus::decode_word(d.read32(stim::addr(row, spec::shim::ERROR_STATUS.offset)));
  EXPECT_EQ(st.overflow, 1u);
  EXPECT_EQ(
      spec::shim::DmaMm2sStatus::decode_word(d.read32(stim::addr(row, spec::shim::DMA_MM2S_STATUS.at(0)))).pending,
      spec::param::queue_depth);
}

TEST(TlmErrors, WatchdogReportsTheStalledUnitsOnMismatchedPushPop) {
  tlm::TlmDevice d;
  const uint32_t row = spec::core_row(0);
  d.write32(stim::addr(row, spec::core::WDOG_LIMIT.offset), 1000);
  // IFD0 pushes 4 elements, the DPU pops 8: the DPU starves on its main input, the ODR on its.
  stim::Datapath dp;
  dp.header.kind = spec::DpKind::MVMEXE;
  dp.header.has_ifd0 = dp.header.has_dpu = dp.header.has_odr = 1;
  dp.ifd0 = stim::linear_walk(0, 4, spec::Dtype::INT8, spec::Dtype::INT8);
  dp.dpu = spec::DpuDesc{};
  dp.dpu.in0_dtype = dp.dpu.out_dtype = spec::Dtype::INT8;
  dp.dpu.iterations = 8;
  dp.program = {ref::dpu_instr(spec::DpuOp::POP), ref::dpu_instr(spec::DpuOp::PUSH)};
  dp.dpu.body_len = 2;
  dp.odr = stim::linear_walk(100, 8, spec::Dtype::INT8, spec::Dtype::INT8);
  stim::write_cmd(d, 0, 0, dp.words());
  stim::push_queue(d, 0, Queue::MVMEXE, stim::push_word(0, 9));
  const auto t = stim::wait_queue_token(d, 0, Queue::MVMEXE, 100000);
  EXPECT_EQ(t.code, ErrorCode::WATCHDOG);
  const auto ws = spec::core::WdogStatus::decode_word(d.read32(stim::addr(row, spec::core::WDOG_STATUS.offset)));
  EXPECT_EQ(ws.fired, 1u);
  EXPECT_EQ(ws.kind, 0u);
  const auto waits = spec::core::WdogWaits::decode_word(d.read32(stim::addr(row, spec::core::WDOG_WAITS.offset)));
  EXPECT_EQ(waits.dpu_in0, 1u);
  EXPECT_EQ(waits.odr_in, 1u);
  EXPECT_EQ(waits.ifd0_out, 0u);
  EXPECT_EQ(waits.dpu_out, 0u);
  EXPECT_EQ(info_of<spec::core::ErrorInfo>(d, row).code, ErrorCode::WATCHDOG);
  EXPECT_GE(d.cycle(), 1000u);
  // PERF_TASKS counts tasks completed without an error: no unit counts this one, nor does the
  // command processor.
  EXPECT_EQ(perf_tasks(d, spec::PerfUnit::MVM_IFD0), 0u);
  EXPECT_EQ(perf_tasks(d, spec::PerfUnit::MVM_DPU), 0u);
  EXPECT_EQ(perf_tasks(d, spec::PerfUnit::MVM_ODR), 0u);
  EXPECT_EQ(perf_tasks(d, spec::PerfUnit::CMDPROC), 0u);
}

// A datapath descriptor of the other kind ends with DESC_MAGIC ("descriptor magic does not match
// the queue"), on both datapath queues; nothing runs, no unit counts a task.
TEST(TlmErrors, DatapathKindOfTheOtherQueueIsDescMagic) {
  tlm::TlmDevice d;
  const uint32_t row = spec::core_row(0);
  stim::write_cmd(d, 0, 0, copy_datapath(spec::DpKind::DWPU).words());
  stim::write_cmd(d, 0, 200, copy_datapath(spec::DpKind::MVMEXE).words());
  stim::push_queue(d, 0, Queue::MVMEXE, stim::push_word(0, 1));
  auto t = stim::wait_queue_token(d, 0, Queue::MVMEXE);
  EXPECT_EQ(t.error, 1u);
  EXPECT_EQ(t.code, ErrorCode::DESC_MAGIC);
  EXPECT_EQ(info_of<spec::core::ErrorInfo>(d, row).code, ErrorCode::DESC_MAGIC);
  stim::push_queue(d, 0, Queue::DWPU, stim::push_word(200, 2));
  t = stim::wait_queue_token(d, 0, Queue::DWPU);
  EXPECT_EQ(t.error, 1u);
  EXPECT_EQ(t.code, ErrorCode::DESC_MAGIC);
  // The right kind on the right queue runs and is counted once by IFD0 and ODR.
  stim::push_queue(d, 0, Queue::MVMEXE, stim::push_word(200, 3));
  t = stim::wait_queue_token(d, 0, Queue::MVMEXE);
  EXPECT_EQ(t.error, 0u);
  EXPECT_EQ(perf_tasks(d, spec::PerfUnit::MVM_IFD0), 1u);
  EXPECT_EQ(perf_tasks(d, spec::PerfUnit::MVM_ODR), 1u);
  EXPECT_EQ(perf_tasks(d, spec::PerfUnit::MVM_DPU), 0u);
  EXPECT_EQ(perf_tasks(d, spec::PerfUnit::DW_IFD0), 0u);
  EXPECT_EQ(perf_tasks(d, spec::PerfUnit::CMDPROC), 1u);  // the two refused ones are not counted
}

// A task with repeat counts once per unit; a task that faults at run time (the ODR's walk runs
// past L1) is not counted by any unit, though IFD0 finished its part.
TEST(TlmErrors, PerfTasksCountTasksWithoutError) {
  tlm::TlmDevice d;
  stim::write_cmd(d, 0, 0, copy_datapath(spec::DpKind::MVMEXE).words());
  const uint32_t last_row = spec::param::l1_bytes / spec::param::l1_row_bytes - 1;
  stim::write_cmd(d, 0, 200, copy_datapath(spec::DpKind::MVMEXE, last_row).words());
  stim::push_queue(d, 0, Queue::MVMEXE, stim::push_word(0, 1, true, 2));  // 3 runs
  EXPECT_EQ(stim::wait_queue_token(d, 0, Queue::MVMEXE).error, 0u);
  stim::push_queue(d, 0, Queue::MVMEXE, stim::push_word(200, 2));
  EXPECT_EQ(stim::wait_queue_token(d, 0, Queue::MVMEXE).code, ErrorCode::L1_RANGE);
  EXPECT_EQ(perf_tasks(d, spec::PerfUnit::MVM_IFD0), 1u);
  EXPECT_EQ(perf_tasks(d, spec::PerfUnit::MVM_ODR), 1u);
  EXPECT_EQ(perf_tasks(d, spec::PerfUnit::CMDPROC), 1u);
}

}  // namespace
}  // namespace axcore
