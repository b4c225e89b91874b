// The TLM ↔ RTL agreement programs (issue 7): device programs written against device::Device
// only, so the very same register writes, DDR contents and token waits run on TlmDevice and on
// RtlDevice. A program has an untimed setup (data in DDR, operands into L1 through DBG_MEM) and
// a timed part; `run` captures the canonical trace and pairs every TASK_START with its
// TASK_DONE per (row, unit), `compare` puts the two backends side by side: per-task durations,
// the timed span and the TLM/RTL ratios.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <axcore/spec.hpp>

#include "axcore/device/device.hpp"
#include "axcore/trace/record.hpp"

namespace axcore::agree {

struct Task {
  uint8_t row = 0;
  trace::Unit unit{};
  uint64_t start = 0, done = 0;  // cycles, relative to the timed part's first cycle
  uint32_t word = 0;             // TASK_DONE token word
  std::string name() const;
};

struct Run {
  std::string backend;
  uint64_t t0 = 0, t1 = 0;   // device cycles: start and end of the timed part
  double wall_s = 0;         // wall-clock of the timed part
  double cpu_s = 0;          // process CPU time of the timed part (fair on a loaded machine)
  std::vector<Task> tasks;   // tasks that started in the timed part, in TASK_DONE order
  std::vector<uint8_t> out;  // what the program reads back from DDR
  std::vector<trace::Record> records;
  uint64_t span() const;  // first TASK_START .. last TASK_DONE of the timed tasks
};

// A program: `setup` (untimed) then `timed`; `out` is filled by `readback` after both.
struct Program {
  std::string name;
  std::function<void(device::Device&)> setup, timed;
  std::function<std::vector<uint8_t>(device::Device&)> readback;
};

Run run(device::Device& d, const Program& p);

struct Comparison {
  double span_ratio = 0;        // TLM span / RTL span
  double worst_task_ratio = 1;  // the per-task duration ratio furthest from 1
  bool same_tasks = false;      // same (row, unit) sequence and token words
  std::string table;            // printable
};
Comparison compare(const Run& tlm, const Run& rtl);

// ---- the benchmark programs (docs/tlm.md lists what each exercises) -----------------------
Program dma_ddr_l2_ddr(uint32_t words);        // SysDMA DDR -> L2 -> DDR, linear
Program dma_walks();                           // DDR -> L2 (SysDMA), L2 -> L1 (MemDMA 3-D walk with
                                               // padding, iteration, repeat), L1 -> L2 (CoreDMA chain
                                               // of 3 strided BDs), L2 -> DDR (SysDMA)
Program dma_l2_bank_conflict(uint32_t words);  // MemDMA L2 -> L2 with source and destination in one bank
Program dma_two_pairs(uint32_t words);         // two MemDMA pairs at once, L2 -> L2
Program dma_engines_share_l2(
    uint32_t words);  // SysDMA, MemDMA and CoreDMA at once on L2 bank 0 (round-robin across engines)
// Issue 21 (docs/timing.md "DMA and DDR"): bandwidth and the bridge's limits.
Program dma_ddr_to_l2(uint32_t words);             // SysDMA DDR -> L2, linear (1 MiB: 262144 words)
Program dma_l2_to_l1(uint32_t words);              // MemDMA L2 -> L1 of core 0, linear (256 KiB: 65536 words)
Program dma_two_engines_one_bank(uint32_t words);  // MemDMA L2 -> L2 and CoreDMA L2 -> L1 at once, all on L2 bank 0
Program dma_burst_crosses_4k();        // DDR reads and writes whose runs cross 4 KiB boundaries (split bursts)
Program dma_reads_outstanding_full();  // 1-row DDR read bursts, one per 4 KiB page: axi_max_reads binds
// Issue 21 item 4 (the compiler's overlapped schedules): units of a core and DMA engines at once.
// SysDMA DDR -> L1 of core 0 while core 0 loads `tiles` IMC tiles whose rows are row_stride apart
// (the compiler's interleaved weights: stride 8 = l1_banks keeps LoadIMC on one bank per tile).
Program loadimc_during_dma_to_l1(uint32_t words, uint32_t tiles, uint32_t row_stride);
// A DWPU-queue datapath copying `rows` L1 rows (IFD0 -> ODR, one row read and one written a cycle)
// while core 0 loads `tiles` IMC tiles (rows `row_stride` apart): LoadIMC loses the banks the units
// hold. `loadimc_first` pushes the LoadIMC first (it claims its rows before the copy starts);
// `src_shift` moves the copy's rows (and so the banks it walks) by that many rows.
Program loadimc_beside_dwpu_copy(uint32_t rows, uint32_t tiles, uint32_t row_stride = spec::param::l1_banks,
                                 bool loadimc_first = false, uint32_t src_shift = 0);
// A resident matmul (MVMEXE: IFD0 reads x, the ODR writes int32 rows) while MemDMA streams `words`
// words L2 -> L1 of core 0: the DMA word port loses the banks the units hold.
Program matmul_during_dma_to_l1(uint32_t m, uint32_t kb, uint32_t nb, uint32_t words);
// A depthwise 3x3 CONV (8 channel blocks: 72 weight rows fetched at the DWPU task's start) beside
// a LoadIMC of 8 tiles with row stride 8: the weight fetch loses the bank LoadIMC holds.
Program dwpu_weights_beside_loadimc();
// Both SysDMA channels read DDR into L1 of core 0 at once (`words` each; the compiler alternates
// its weight copies over them): the bridge interleaves their bursts, the word port their beats.
Program dma_two_channels_ddr_to_l1(uint32_t words);
// Operands through DBG_MEM; LoadIMC + MVMEXE timed; the ODR stores `out` (int8: 1 row, int32: 4).
Program matmul(uint32_t m, uint32_t kb, uint32_t nb, spec::Dtype out = spec::Dtype::INT8);
Program whole_core(uint32_t m, uint32_t kb, uint32_t nb);  // DMA in, LoadIMC, matmul (int8 cast), DMA out
// DWPU IFD0 -> ODR with the lane transpose (A.vtrsp): `blocks` 64x64 blocks of `in` stored as `out`
Program lane_transpose(uint32_t blocks, spec::Dtype in, spec::Dtype out);
// Tasks queued back to back (the command processor's prefetch): three DPU datapaths of two
// programs on the MVMEXE queue, two on the DWPU queue, two LoadIMCs; n float16 elements each.
Program queued_tasks(uint32_t n);

// Error paths and control (readback = the registers software looks at, so both backends must
// give the same bytes):
Program deadlock();              // IFD0 yields 3 elements, the MVM pops 4: the watchdog fires
Program bd_out_of_range();       // an MM2S BD past the end of L2: ADDR_RANGE error token
Program soft_reset();            // CTRL.soft_reset in the middle of a DDR read; then a new copy works
Program dma_pause();             // MM2S paused mid-copy (no words move), resumed, completes
Program barrier_after_matmul();  // LoadIMC + matmul, then a 1-core barrier: it starts when both queues are idle
Program perf_counters();         // LoadIMC + matmul; readback = PERF_BUSY/STALL_IN/STALL_OUT/TASKS of every unit
// A 64 x 1152 x 256 int8 matmul whose IFD walk (`ifd`) or ODR walk leaves L1 half-way: the MVMEXE task
// ends with L1_RANGE. Readback: both tokens, ERROR_STATUS/INFO/ADDR (then cleared), every unit's counters.
Program matmul_leaving_l1(bool ifd);

// The common/ref result of whole_core's output (the bytes its readback returns).
std::vector<uint8_t> whole_core_reference(uint32_t m, uint32_t kb, uint32_t nb);

// The MVMEXE / LoadIMC overlap rule (docs/timing.md "Command processor"): a 64 x 256 x 128 matmul
// whose 8 tiles (0..7, matrix_id 1) were loaded in the setup runs while a second LoadIMC writes
// 8 tiles from `tile_base` with `matrix_id` (pushed before or after the MVMEXE task). Apart
// (matrix_id 1, tiles 8..15) they overlap; tiles 4..11 or another matrix_id wait. Readback: the
// matmul's int8 output, IMC_STATUS and IMC_STALE_READS.
Program loadimc_beside_matmul(uint32_t tile_base, uint8_t matrix_id, bool loadimc_first);
// Its readback on common/ref (the two tasks in push order; the descriptors sit at CMD_MEM words
// kBesideLoadimcWord and kBesideMatmulWord).
std::vector<uint8_t> loadimc_beside_matmul_reference(uint32_t tile_base, uint8_t matrix_id, bool loadimc_first);
inline constexpr uint32_t kBesideLoadimcWord = 0x20, kBesideMatmulWord = 0x100;

}  // namespace axcore::agree
