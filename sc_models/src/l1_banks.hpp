// The row ports of a core's L1 banks (bank = row % l1_banks), as rtl/core/ax_l1 arbitrates them:
// each bank serves one row request per cycle, in fixed priority over the ports (ax_core_pkg
// L1P_*: MVM_ODR > DW_ODR > MVM_IFD0 > DW_IFD0 > MVM_IFD1 > DW_IFD1 > ...); a port that loses
// its bank retries the next cycle. The units run on their own clocks, so a bank is a table of
// the cycles already taken and by which port. A request that finds its cycle taken by a
// higher-priority port takes the next free one. One that finds it taken by a lower-priority port
// takes it anyway, and the loser (which already ran past that cycle in simulation) owes one
// cycle: `take_debt` hands it to the loser's next request, so the pipeline ends as late as the
// RTL's (the loser's requests in between keep their early cycles).
//
// A LoadIMC claims its rows at its start, ahead of a datapath that starts later, as a *chain*:
// each row is asked `gap` cycles after the previous one's grant. A unit that takes a chained
// row's cycle pushes that row to the next free cycle and every later row of the chain with it
// (replay), as ax_loadimc retries the lost row and only then asks the next: a debt would leave the
// later rows where they were, in step with a unit walking the banks at the same rate, which then
// takes every one of them (the fused mlp's LoadIMC beside a matmul's IFD0: 135 cycles lost on the
// TLM, 1 on the RTL; 2026-12-07).
//
// Below the datapath ports: LoadIMC (its rows one per cycle while no unit port holds the bank),
// the DWPU weight fetch (at a DWPU task's start), and last the DMA word port (sc_models/src/word_fabric), which steps
// in cycle order: it asks `word_free` in each cycle it has a beat for this L1 and is not granted when a unit holds the
// bank (the fabric's grant then stays, as ax_word_xbar's arbiter without an ack). A unit that later takes a cycle the
// word port already had hands the word port a debt, paid by its next beat.
#pragma once

#include <algorithm>
#include <array>
#include <axcore/spec.hpp>
#include <cstdint>
#include <vector>

namespace axcore::tlm {

class L1Banks {
 public:
  static constexpr unsigned kNoPort = 0xFF;
  // ax_core_pkg L1P_LOADIMC, L1P_DWPU_W, L1P_WORD
  static constexpr unsigned kLoadimc = 6, kDwpuWeights = 7, kWord = 8;
  // The L1 port of a datapath unit by its perf unit index (kNoPort: the unit reads no rows here).
  static constexpr unsigned port_of(unsigned perf_unit) {
    switch (static_cast<spec::PerfUnit>(perf_unit)) {
      case spec::PerfUnit::MVM_ODR: return 0;
      case spec::PerfUnit::DW_ODR: return 1;
      case spec::PerfUnit::MVM_IFD0: return 2;
      case spec::PerfUnit::DW_IFD0: return 3;
      case spec::PerfUnit::MVM_IFD1: return 4;
      case spec::PerfUnit::DW_IFD1: return 5;
      default: return kNoPort;
    }
  }
  // The cycle at or after t at which `port` gets the bank of `row`.
  uint64_t access(unsigned port, uint64_t row, uint64_t t) {
    const uint64_t bank = row % spec::param::l1_banks;
    for (;; ++t) {
      uint64_t& s = slot(t, bank);
      if (s >> kPortBits != t + 1) {  // free
        s = (t + 1) << kPortBits | port;
        return t;
      }
      const unsigned holder = static_cast<unsigned>(s & kPortMask);
      if (holder > port) {  // a lower-priority port had it: it loses the cycle, later
        s = (t + 1) << kPortBits | port;
        if (!replay_chain(holder, t)) ++debt_[holder];
        return t;
      }
    }
  }
  // Starts the chain of `port` (kLoadimc): its rows asked with chain_access, each at least `gap`
  // cycles after the previous one's grant.
  void chain_begin(unsigned port, uint64_t gap) {
    chain_.clear();
    chain_port_ = port;
    chain_gap_ = gap;
  }
  // The next row of the chain, asked at cycle t: the cycle it is granted (access).
  uint64_t chain_access(uint64_t row, uint64_t t) {
    const uint64_t g = access(chain_port_, row, t);
    chain_.push_back({row, g});
    return g;
  }
  // The grant cycle of the chain's last row as it stands (replays move it later).
  uint64_t chain_last() const { return chain_.empty() ? 0 : chain_.back().cycle; }
  // Ends the chain: a unit that takes one of its cycles from now on leaves a debt, as before.
  void chain_end() {
    chain_.clear();
    chain_port_ = kNoPort;
  }
  // The DMA word port in cycle t (the fabric's cycle order): false when a unit port holds the
  // bank of `row` or the word port owes a cycle; else the word port takes the bank.
  bool word_free(uint64_t row, uint64_t t) {
    if (debt_[kWord] > 0) {
      --debt_[kWord];
      return false;
    }
    uint64_t& s = slot(t, row % spec::param::l1_banks);
    if (s >> kPortBits == t + 1) return false;
    s = (t + 1) << kPortBits | kWord;
    return true;
  }
  // Cycles the port lost since it last asked (added to its next request).
  uint64_t take_debt(unsigned port) {
    const uint64_t d = debt_[port];
    debt_[port] = 0;
    return d;
  }

 private:
  struct Claim {
    uint64_t row, cycle;
  };
  // A unit took cycle t from `holder`: if that was a row of the open chain, the row is asked again
  // at t + 1 and each later row (its cycle given up first) `gap` after its predecessor's new grant.
  bool replay_chain(unsigned holder, uint64_t t) {
    if (holder != chain_port_) return false;
    const auto first =
        std::lower_bound(chain_.begin(), chain_.end(), t, [](const Claim& c, uint64_t x) { return c.cycle < x; });
    if (first == chain_.end() || first->cycle != t) return false;
    for (auto it = first + 1; it != chain_.end(); ++it) {
      uint64_t& s = slot(it->cycle, it->row % spec::param::l1_banks);
      if (s == ((it->cycle + 1) << kPortBits | chain_port_)) s = 0;
    }
    uint64_t want = t + 1;
    for (auto it = first; it != chain_.end(); ++it) {
      it->cycle = access(chain_port_, it->row, want);
      want = it->cycle + chain_gap_;
    }
    return true;
  }
  std::vector<Claim> chain_;
  unsigned chain_port_ = kNoPort;
  uint64_t chain_gap_ = 1;

  // A slot: (taken cycle + 1) << kPortBits | the port (0: free). The table is cycle-major (the
  // banks of one cycle side by side), so units stepping through nearby cycles touch nearby memory
  // (bank-major, every request was a cache miss: 11 % of a matmul's TLM time). Zeroed at
  // construction (a calloc'd table faulted each page in during the run twice, read then write; in
  // an `axrun --serve` child a page a job writes is copied once instead).
  static constexpr unsigned kPortBits = 8;
  static constexpr uint64_t kPortMask = (uint64_t{1} << kPortBits) - 1;
  static constexpr uint64_t kWindow = 16384;  // cycles a bank remembers (units run at most this far apart)
  uint64_t& slot(uint64_t t, uint64_t bank) { return table_[(t % kWindow) * spec::param::l1_banks + bank]; }
  std::vector<uint64_t> table_ = std::vector<uint64_t>(kWindow * spec::param::l1_banks);
  std::array<uint64_t, kWord + 1> debt_{};
};

}  // namespace axcore::tlm
