// The DMA fabric as the RTL runs it (rtl/mem/ax_word_xbar, ax_rr_arb, ax_axi_bridge, the
// harness DDR model, rtl/dma/ax_dma_chan's beat side; docs/timing.md "DMA and DDR"): every DMA
// channel of every engine is an initiator moving one beat (up to 16 words of one 64-byte row) a
// cycle; the targets (the AXI bridge to DDR, each L2 bank = 64-byte row mod l2_banks, each
// core's L1 port) take one request per cycle, chosen round-robin from a per-target pointer that
// moves past the winner. An MM2S allocates dma_rob_rows reorder slots per request (a DDR read
// is one burst up to the next 4 KiB boundary, a slot per row) and drains them in order into the
// pair's dma_stream_depth-word FIFO; an S2MM writes a beat when the FIFO holds its words (to
// DDR in bursts that hold the bridge's write path). The bridge keeps axi_max_reads /
// axi_max_writes bursts outstanding; the DDR model's R beats and W beats follow
// ddr_latency_cycles and ddr_bytes_per_cycle.
//
// One SC_THREAD steps all channels cycle by cycle in cycle order (so ties go where the RTL's
// round-robin sends them), skipping cycles in which nothing can change, and moves words through
// DMI. It runs ahead of SystemC time up to the end of the host's current sc_start window
// (host_horizon): no host push can start a channel before that. Channel threads (DmaEngine)
// keep the task level (queue, BD checks, chains, errors, tokens) and hand it one BD's walk at a
// time; while a channel decides its next step the stepper holds at that cycle.
#pragma once

#include <systemc>

#include <axcore/spec.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "axcore/ref/dma.hpp"
#include "l1_banks.hpp"
#include "memory.hpp"
#include "sim.hpp"

namespace axcore::tlm {

class WordFabric : public sc_core::sc_module {
 public:
  static constexpr unsigned kPorts = 2 * spec::param::dma_channels;  // initiators per engine

  // One BD's walk for a channel.
  struct Walk {
    ref::DmaRuns runs;  // the walk's words by d0 runs (e0, b0, s0, stride0: the beat rule's d0)
    MemWindow mem;
    spec::MemSel sel = spec::MemSel::L2;
    unsigned core = 0;
    uint32_t pad_value = 0;
    uint32_t run = 1;  // S2MM: words per MEM_WRITE record (the d0 run)
    uint32_t* task_bytes = nullptr;
    bool stride1() const { return runs.stride0 == 1; }
  };

  WordFabric(sc_core::sc_module_name n, unsigned cores, Tracer& tracer);
  // Initiator id of channel `index` (MM2S or S2MM) of the engine in tile row `row`.
  static unsigned id(uint32_t row, bool mm2s, unsigned index) {
    return row * kPorts + (mm2s ? 0 : spec::param::dma_channels) + index;
  }
  void attach(unsigned id, uint32_t* bytes);
  // Core `core`'s L1 row ports: the word port's beats lose a bank a unit holds (l1_banks.hpp).
  // `units_pending`: the core has a task queued or running, so a unit may still claim L1 rows
  // from the cycle after SystemC time on; the fabric then steps that L1's beats no further
  // ahead than SystemC time.
  void attach_l1(unsigned core, L1Banks* banks, std::function<bool()> units_pending);
  // Channel thread calls. walk: the BD's S_LOAD cycle is t - 1, its first request at t at the
  // earliest; returns with t = the cycle after its last word was issued. Throws StreamFailed
  // when the pair failed. drain: from cycle t (S_DRAIN) until the channel has nothing
  // outstanding; returns TASK_DONE's cycle. After either the stepper holds at that cycle until
  // the channel calls again or release()s it.
  void walk(unsigned id, Walk w, uint64_t& t);
  uint64_t drain(unsigned id, uint64_t t);
  void release(unsigned id);
  // Pair FIFO of channel pair `index` of the engine of row `row`.
  void fail_pair(uint32_t row, unsigned index, spec::ErrorCode code, uint64_t cycle);
  void clear_pair(uint32_t row, unsigned index);
  // Channel reset / soft reset: the running walk or drain ends now (its thread sees its epoch).
  void abort(unsigned id);
  // DMA_*_CTRL.pause written in cycle `cycle` (takes effect the next cycle, as pause_q).
  void pause(unsigned id, bool on, uint64_t cycle);

 private:
  enum class Phase { Idle, Load, Run, Drain, Await };
  struct Slot {
    uint32_t words[16];
    unsigned n;      // words of this slot the stream takes
    uint64_t ready;  // first cycle the slot can drain (fill_q)
  };
  struct Beat {
    bool pad;
    uint32_t n;      // row beat words
    uint32_t bn;     // DDR burst words (data, from here to the next 4 KiB boundary)
    unsigned brows;  // rows the burst touches
  };
  struct Port {
    bool mm2s = false;
    uint32_t row = 0;
    unsigned index = 0;
    Phase phase = Phase::Idle;
    Walk w;
    std::size_t next = 0;
    uint64_t at = 0;   // Load: the S_LOAD cycle; Drain: the first S_DRAIN cycle
    uint64_t end = 0;  // result cycle
    bool failed = false, aborted = false;
    spec::ErrorCode code = spec::ErrorCode::NONE;
    std::deque<uint64_t> resp;  // response cycles of the outstanding requests (kNever: not known yet)
    bool cls_ddr = false;
    std::deque<Slot> rob;  // MM2S reorder buffer, allocated slots in walk order
    unsigned bq_left = 0;  // S2MM to DDR: rows left in the write burst
    bool paused = false;
    uint64_t pause_from = 0, resume_at = 0;
    uint64_t hash = 0, run_addr = 0;
    uint32_t* bytes = nullptr;
    sc_core::sc_event done;
  };
  struct Pair {
    std::deque<uint32_t> fifo;
    bool failed = false;
    spec::ErrorCode code = spec::ErrorCode::NONE;
  };
  Pair& pair_of(const Port& p) { return pairs_[p.row * spec::param::dma_channels + p.index]; }
  unsigned target(const Port& p) const;
  Beat beat(const Port& p) const;
  void stepper();
  // Simulates cycle c; returns the next cycle in which anything can change (0: none).
  uint64_t step(uint64_t c);
  void finish(Port& p, uint64_t end);
  bool blocked() const;  // a channel decides its next step: hold
  bool busy() const;     // a channel walks, drains or has words in its reorder buffer

  Tracer& tracer_;
  unsigned cores_;
  std::vector<Port> ports_;
  std::vector<Pair> pairs_;
  std::vector<unsigned> rr_;  // per target: the round-robin pointer
  struct CoreL1 {
    L1Banks* banks = nullptr;
    std::function<bool()> units_pending;
  };
  std::vector<CoreL1> l1_;              // per core
  bool l1_contended(uint64_t c) const;  // a beat into an L1 whose units may still claim cycle c
  // AXI bridge and DDR model (target 0)
  std::deque<uint64_t> rd_done_, wr_done_;  // per outstanding burst: last row / B cycle (kNever: open)
  uint64_t r_free_ = 0;                     // first cycle the DDR model may present the next R beat
  uint64_t w_free_ = 0;                     // first cycle it takes the next W beat
  uint64_t wpath_free_ = 0;                 // first cycle the bridge takes the next write beat
  bool wlock_ = false;                      // a write burst holds the write path (from the next cycle)
  unsigned wlock_id_ = 0;
  uint64_t cur_ = 0;  // next cycle to simulate
  sc_core::sc_event work_;
  // per-cycle scratch: requesters per target, pads allocating, pair FIFO sizes (cnt_q)
  std::vector<std::vector<unsigned>> req_;
  std::vector<unsigned> pads_;
  std::vector<std::size_t> fsize_;
  std::vector<uint64_t> rows_ready_;  // a DDR read burst's rows: the cycle each slot fills
};

}  // namespace axcore::tlm
