// Rows 2..: one AI core. L1 (a DMI memory on the fabric), the IMC, CoreDMA, the two datapath
// pipelines and LoadIMC, the command processor (one SC_THREAD per queue: MVMEXE, DWPU,
// LOADIMC, CTRL) with descriptor fetch from CMD_MEM and the prefetch of the task queued behind
// the head (docs/timing.md "Command processor"), the watchdog, perf counters and the
// IMC/debug/status registers.
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "datapath.hpp"
#include "dma_engine.hpp"
#include "memory.hpp"
#include "tile.hpp"

namespace axcore::tlm {

class CoreTile;
// Barrier matching across cores.
struct BarrierHub {
  std::vector<CoreTile*> cores;
  sc_core::sc_event changed;
  // Per (barrier id, core mask): participants arrived so far and the release generation. The last
  // to arrive resets the count and bumps the generation, so a waiter's release does not depend on
  // seeing the others still at the barrier (they may already have left and reset their state).
  struct Rendezvous {
    unsigned arrived = 0;
    uint64_t generation = 0;
  };
  std::map<std::pair<uint32_t, uint32_t>, Rendezvous> rendezvous;
};

class CoreTile : public Tile {
 public:
  CoreTile(sc_core::sc_module_name n, unsigned core, Tracer& tracer, uint32_t cores, TokenSink token, BarrierHub& hub,
           WordFabric* fabric);
  bool busy() const override;
  // CORE_CTRL.soft_reset (and the shim's CTRL.soft_reset): queues dropped, running tasks ended
  // without tokens, CoreDMA reset, error and watchdog registers cleared; memories, CMD_MEM and
  // the IMC keep their contents.
  void soft_reset();
  // The last watchdog firing in words: the datapath, each unit that waited and on which stream
  // (empty when the watchdog never fired).
  const std::string& watchdog_report() const { return wdog_report_; }
  Memory l1;
  ref::Imc imc;
  std::unique_ptr<DmaEngine> dma;
  // Barrier id this core waits in (-1: none).
  int barrier_id = -1;

 private:
  struct Task {
    spec::QueuePush push;
    uint64_t accepted;
  };
  // A descriptor fetch through the CMD_MEM read port: picked in cycle p, word i read in p + 1 + i,
  // `words` words (0 when it ran past CMD_MEM: the head fetch then reports it).
  struct Fetch {
    bool valid = false;
    uint64_t p = 0;
    uint32_t start = 0, words = 0;
    std::vector<uint32_t> w;
    std::vector<uint32_t> reads;                           // the words the port reads, in order (txn::queue_read_words)
    uint64_t end() const { return p + reads.size() + 2; }  // the cycle the task can be checked
    // The word the port reads in cycle c (read i in p + 1 + i); past the last read: `words`.
    uint32_t reading(uint64_t c) const {
      const uint64_t i = c - p - 1;
      return c < p + 1 ? 0 : i < reads.size() ? reads[i] : words;
    }
  };
  struct Queue {
    unsigned q = 0;
    std::deque<Task> tasks;
    bool running = false, last_error = false;
    bool in_run = false;  // the head task is past its check (the RTL's S_RUN)
    // The IMC use of the head task once decoded (MVMEXE: has_mvm, mvm; LOADIMC: li), for the
    // MVMEXE / LoadIMC overlap rule (ref::imc_tasks_apart, the RTL's descriptor buffers).
    bool has_mvm = false;
    spec::MvmDesc mvm{};
    spec::LoadimcDesc li{};
    uint32_t done = 0;
    uint32_t epoch = 0;      // bumped by a reset: the running task ends without a token
    uint64_t next_pick = 0;  // first cycle the next task may enter the fetch engine
    // The head is past its fetch from this cycle on (the RTL's S_CHECK): the task behind it may
    // prefetch its descriptor (pf) from then; ~0 while the head fetches or the queue is idle.
    uint64_t head_checked = ~uint64_t{0};
    Fetch pf, head;         // the prefetch of tasks[1]; the head's own fetch (fetch_thread fills them)
    bool pf_asked = false;  // a prefetch request waits for the port
    sc_core::sc_event fetched;
    sc_core::sc_event wake;
  };
  struct Pipeline {
    std::unique_ptr<IfdUnit> ifd0, ifd1;
    std::unique_ptr<MvmUnit> mvm;
    std::unique_ptr<DwpuUnit> dwpu;
    std::unique_ptr<DpuUnit> dpu;
    std::unique_ptr<OdrUnit> odr;
    spec::DpHeader header;  // of the task being run
    Pipe* current = nullptr;
  };
  struct Failure {
    spec::ErrorCode code;
    uint32_t addr;
  };
  void queue_thread(Queue& q);
  spec::ErrorCode run_task(Queue& q, const Task& task, uint64_t& t, uint64_t& t_begin, uint32_t& bytes,
                           uint32_t& err_addr);
  spec::ErrorCode prepare_datapath(Queue& q, std::span<const uint32_t> words, uint32_t n);
  spec::ErrorCode run_datapath(Queue& q, uint32_t repeat, uint64_t& t, uint32_t& bytes, uint32_t& err_addr);
  bool resources_free(const Queue& q) const;
  void reset_queue(Queue& q, bool running_too);
  spec::ErrorCode run_barrier(const spec::BarrierDesc& b, uint64_t& t);
  uint32_t cmd_word(uint32_t a);
  // Reads a descriptor of queue q at `start` through the read port from cycle p (fetch_free_ is
  // moved past it); words 0 when it runs past CMD_MEM.
  Fetch fetch(const Queue& q, uint32_t start, uint64_t p);
  // The read port: requests (a head's fetch, or the prefetch of the task behind a head past its
  // fetch) from their ready cycle; when the port is free it picks the lowest queue ready, as
  // ax_cmdproc does, in that cycle.
  struct FetchRequest {
    unsigned q;
    bool prefetch;
    uint32_t start;
    uint64_t ready;
  };
  void ask_fetch(Queue& q, bool prefetch, uint32_t start, uint64_t ready);
  void cancel_fetch(Queue& q);  // drops the queue's waiting prefetch request (a head fetch completes)
  void fetch_thread();
  // Asks for the prefetch of the task behind the head when it may (head past its fetch, none yet).
  void try_prefetch(Queue& q, uint64_t earliest);
  void cmd_mem_written(uint32_t word);

  unsigned core_;
  uint32_t cores_;
  TokenSink token_;
  BarrierHub& hub_;
  std::array<Queue, spec::param::core_queues> queues_;
  std::array<device::UnitCounters, spec::param::perf_units> perf_{};
  L1Banks l1_banks_;
  std::array<Pipeline, 2> pipes_;
  std::unique_ptr<LoadImcUnit> loadimc_;
  sc_core::sc_event resource_ev_;
  uint64_t cmdproc_busy_ = 0, cmdproc_busy_until_ = 0;
  uint64_t fetch_free_ = 0;  // first cycle the CMD_MEM fetch engine can pick a queue
  std::vector<FetchRequest> fetch_requests_;
  sc_core::sc_event fetch_request_ev_;
  std::string wdog_report_;
};

}  // namespace axcore::tlm
