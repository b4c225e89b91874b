// The DMA word fabric as the RTL runs it (rtl/mem/ax_word_xbar, ax_rr_arb, ax_axi_bridge,
// rtl/dma/ax_dma_chan's word side): every DMA channel of every engine is an initiator; the
// targets (the AXI bridge to DDR, each L2 bank = 64-byte row mod l2_banks, each core's L1 word
// port) take one request per cycle, chosen round-robin from a per-target pointer that moves past
// the winner. An MM2S allocates a slot of its 64-word reorder buffer per granted read (pads
// fill theirs at once) and drains it in order into the pair's dma_stream_depth-word FIFO; an
// S2MM requests a write while the FIFO has a word and takes it when granted.
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
#include <vector>

#include "axcore/ref/dma.hpp"
#include "memory.hpp"
#include "sim.hpp"

namespace axcore::tlm {

class WordFabric : public sc_core::sc_module {
 public:
  static constexpr uint64_t kDdrRead = spec::param::ddr_latency_cycles + 2;  // bridge cycles per read word
  static constexpr uint64_t kDdrWrite = 4;                                   // per write word (docs/rtl.md)
  static constexpr unsigned kPorts = 2 * spec::param::dma_channels;          // initiators per engine
  static constexpr unsigned kRobDepth = 64;                                  // ax_dma RobDepth

  // One BD's walk for a channel.
  struct Walk {
    std::vector<ref::DmaWord> words;
    MemWindow mem;
    spec::MemSel sel = spec::MemSel::L2;
    unsigned core = 0;
    uint32_t pad_value = 0;
    uint32_t run = 1;  // S2MM: words per MEM_WRITE record (the d0 run)
    uint32_t* task_bytes = nullptr;
  };

  WordFabric(sc_core::sc_module_name n, unsigned cores, Tracer& tracer);
  // Initiator id of channel `index` (MM2S or S2MM) of the engine in tile row `row`.
  static unsigned id(uint32_t row, bool mm2s, unsigned index) {
    return row * kPorts + (mm2s ? 0 : spec::param::dma_channels) + index;
  }
  void attach(unsigned id, uint32_t* bytes);
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
    uint32_t value;
    uint64_t ready;  // first cycle the slot is filled (fill_q)
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
    std::deque<uint64_t> resp;  // response cycles of the outstanding requests
    bool cls_ddr = false;
    std::deque<Slot> rob;  // MM2S reorder buffer, allocated slots in walk order
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
  uint64_t ddr_free_ = 0;     // first cycle the AXI bridge accepts a request
  uint64_t cur_ = 0;          // next cycle to simulate
  sc_core::sc_event work_;
  // per-cycle scratch: requesters per target, pads allocating, pair FIFO sizes (cnt_q)
  std::vector<std::vector<unsigned>> req_;
  std::vector<unsigned> pads_;
  std::vector<std::size_t> fsize_;
};

}  // namespace axcore::tlm
