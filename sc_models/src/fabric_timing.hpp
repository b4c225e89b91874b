// Timing of the DMA word fabric's targets (docs/timing.md "DMA", docs/rtl.md "Word fabric"):
// every target serves one word request per cycle — each L2 bank (bank = 64-byte row mod
// l2_banks), each core's L1 word port — and the AXI bridge to DDR holds one transaction at a
// time (a read occupies it ddr_latency_cycles + 2 cycles, a write 4). Channels run on their own
// local clocks, so a target is a table of reserved cycles: a request at cycle t takes the first
// free cycle >= t (a lost arbitration costs one cycle, as in the RTL's round-robin; who loses
// follows simulation order instead of the round-robin pointer).
#pragma once

#include <axcore/spec.hpp>
#include <algorithm>
#include <cstdint>
#include <vector>

namespace axcore::tlm {

class SlotTable {
 public:
  explicit SlotTable(unsigned log2_slots = 12) : slot_(std::size_t{1} << log2_slots, 0), mask_((uint64_t{1} << log2_slots) - 1) {}
  // Reserves the first run of `len` free cycles starting at or after t; returns its first cycle.
  uint64_t reserve(uint64_t t, unsigned len = 1) {
    for (;; ++t) {
      unsigned i = 0;
      while (i < len && slot_[(t + i) & mask_] != t + i + 1) ++i;
      if (i == len) break;
    }
    for (unsigned i = 0; i < len; ++i) slot_[(t + i) & mask_] = t + i + 1;
    return t;
  }
  void clear() { std::fill(slot_.begin(), slot_.end(), 0); }

 private:
  std::vector<uint64_t> slot_;  // slot_[c & mask] == c + 1: cycle c is taken
  uint64_t mask_;
};

class FabricTiming {
 public:
  static constexpr uint64_t kDdrRead = spec::param::ddr_latency_cycles + 2;  // bridge cycles per read word
  static constexpr uint64_t kDdrWrite = 4;                                  // per write word (docs/rtl.md)
  static constexpr uint64_t kL2RowBytes = 64;                               // l2_banks interleave on 64-byte rows
  explicit FabricTiming(unsigned cores) : l2_(spec::param::l2_banks), l1_(cores) {}
  // Cycle a request for the word at `byte_addr` of memory `mem` issued at t is granted.
  uint64_t grant(spec::MemSel mem, unsigned core, uint64_t byte_addr, uint64_t t, bool write) {
    switch (mem) {
      case spec::MemSel::DDR: return ddr_.reserve(t, static_cast<unsigned>(write ? kDdrWrite : kDdrRead));
      case spec::MemSel::L2: return l2_[byte_addr / kL2RowBytes % spec::param::l2_banks].reserve(t);
      default: return core < l1_.size() ? l1_[core].reserve(t) : t;
    }
  }

 private:
  SlotTable ddr_;
  std::vector<SlotTable> l2_, l1_;
};

}  // namespace axcore::tlm
