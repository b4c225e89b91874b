// How far a run is from its roofline (issue 21 item 5): the work a bundle asks for, counted from
// its TXN stream (and the command streams the runtime preloads) with the spec's numbers, the
// roofline cycles it implies, and the check of those counts against the device's counters.
//   roofline_cycles = max(macs / (pword_lanes * mvm_rows_per_cycle * cores),   (4096 MAC/cycle/core)
//                         ddr_bytes / axi_data_bytes, dpu_instructions / cores)
//   mvm_utilization = macs / (pword_lanes * mvm_rows_per_cycle * cores * cycles)
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "axcore/runtime/bundle.hpp"
#include "axcore/runtime/program.hpp"

namespace axcore::runtime {

// What a bundle's TXN makes the device do, counted per task push (each run of a repeated push).
struct Work {
  unsigned cores = 1;             // the TXN header's core count
  uint64_t tile_ops = 0;          // MVM tile-ops (int8x64 . 64x64): k_blocks x output elements
  uint64_t macs = 0;              // tile_ops x 64 x 64
  uint64_t dpu_instructions = 0;  // issued: init once, body x iterations, LOOP once, ENDLOOP per trip
  uint64_t ddr_bytes = 0;         // bytes DMA BDs with mem = DDR read (MM2S) or write (S2MM)
  // Bytes per DMA channel, keyed "(row) mm2s0" as DmaUse::name: what DMA_*_BYTES must read.
  std::map<std::string, uint64_t> dma_bytes;
  bool exact = true;  // false when a BD chain loops forever (its bytes are not counted)
};
Work count_work(const Bundle& b);

struct RunStats {
  uint64_t cycles = 0, macs = 0, ddr_bytes = 0, dpu_instructions = 0;
  double roofline_cycles = 0;
  double mvm_utilization = 0;           // 0 without cycles (the ref backend)
  double of_roofline = 0;               // roofline_cycles / cycles (0 without cycles)
  std::vector<std::string> mismatches;  // counts the device's counters contradict (empty: checked)
  bool checked = false;                 // the device had counters to check against
  StickyStatus sticky;                  // RunResult::sticky: the sticky status registers after the run
};
// `res` = the run (cycles, and where the device counts: per-unit counters and DMA channel bytes).
RunStats run_stats(const Work& w, const RunResult& res);

// {"cycles", "macs", "ddr_bytes", "dpu_instructions", "roofline_cycles", "mvm_utilization", ...,
//  "sticky": {"core0.IMC_STALE_READS": 0, ...}}
std::string stats_json(const RunStats& s);
// "roofline: 5 712 cycles (max of MVM 2 560, DDR 5 712, DPU 64) = 0.2% of 2 980 465; MVM util 0.1%"
std::string stats_line(const Work& w, const RunStats& s);

}  // namespace axcore::runtime
