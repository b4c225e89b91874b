// A BD engine (SysDMA, MemDMA, CoreDMA): dma_channels pairs, MM2S ch n feeding S2MM ch n through
// a dma_stream_depth-word TimedFifo. Each channel is an SC_THREAD running its queue in order:
// BD checks with the reference (common/ref dma validate_bd / dma_walk / dma_chain rules) plus the
// RTL's load-time range check, beats moved through DMI at the contract's rates (docs/timing.md),
// iter_current written back per BD run, one MEM_WRITE record per S2MM d0 run, a token per task.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <array>
#include <deque>
#include <functional>
#include <memory>

#include "axcore/ref/dma.hpp"
#include "memory.hpp"
#include "regfile.hpp"
#include "sim.hpp"
#include "timed_fifo.hpp"
#include "word_fabric.hpp"

namespace axcore::tlm {

using TokenSink = std::function<void(uint32_t token, uint64_t cycle)>;

struct DmaContext {
  RegFile* regs;
  ErrorRecorder* errors;
  Tracer* tracer;
  TokenSink token;
  uint32_t row;
  uint32_t cores;
  WordFabric* fabric;
};

class DmaEngine : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<DmaEngine> socket;
  DmaEngine(sc_core::sc_module_name n, ref::DmaEngine eng, DmaContext ctx);
  bool busy() const;
  // Soft reset: every channel drops its queue and ends its running task without a token;
  // iteration state, byte counters and done counts return to 0 (BD contents stay).
  void reset();

 private:
  struct Task {
    spec::QueuePush push;
    uint64_t accepted;
  };
  struct Channel {
    bool mm2s = false;
    unsigned index = 0;
    std::deque<Task> queue;
    bool running = false, last_error = false, paused = false;
    uint32_t done = 0, bytes = 0, cur_bd = 0;
    uint64_t next_free = 0;   // first cycle the channel may start its next task
    uint32_t epoch = 0;       // bumped by a reset: the running task ends without a token
    uint32_t task_epoch = 0;  // epoch the running task started in
    sc_core::sc_event wake;
  };
  struct Reset {};  // thrown out of a running task by a channel or soft reset
  unsigned port(const Channel& ch) const { return WordFabric::id(ctx_.row, ch.mm2s, ch.index); }
  void reset_channel(Channel& ch);
  spec::ErrorCode reset_end(Channel& ch, uint64_t& t);
  void channel_thread(Channel& ch);
  // Runs one task; returns the error code (NONE on success) and adds written bytes.
  spec::ErrorCode run_task(Channel& ch, const Task& task, uint64_t& t, uint32_t& task_bytes, ErrorReport& err);
  void move_bd(Channel& ch, const spec::DmaBd& bd, uint32_t bd_id, uint64_t& t, uint32_t& task_bytes, uint32_t epoch);
  void check_range(const spec::DmaBd& bd, const ref::DmaRuns& walk, uint32_t bd_id);
  MemWindow window(const spec::DmaBd& bd);
  uint32_t status_word(const Channel& ch) const;

  ref::DmaEngine eng_;
  DmaContext ctx_;
  std::array<Channel, 2 * spec::param::dma_channels> ch_;  // [0, n) S2MM, [n, 2n) MM2S
};

}  // namespace axcore::tlm
