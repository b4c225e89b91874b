// Rows 2..: one AI core. L1 (a DMI memory on the fabric), the IMC, CoreDMA, the two datapath
// pipelines and LoadIMC, the command processor (one SC_THREAD per queue: MVMEXE, DWPU,
// LOADIMC, CTRL) with descriptor fetch from CMD_MEM, the watchdog, perf counters and the
// IMC/debug/status registers.
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <memory>

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
};

class CoreTile : public Tile {
 public:
  CoreTile(sc_core::sc_module_name n, unsigned core, Tracer& tracer, uint32_t cores, TokenSink token, BarrierHub& hub);
  bool busy() const override;
  Memory l1;
  ref::Imc imc;
  std::unique_ptr<DmaEngine> dma;
  // Barrier id this core waits in (-1: none).
  int barrier_id = -1;

 private:
  struct Task {
    spec::QueuePush push;
    uint64_t accepted, seq;
  };
  struct Queue {
    unsigned q = 0;
    std::deque<Task> tasks;
    bool running = false, last_error = false;
    uint32_t done = 0;
    sc_core::sc_event wake;
  };
  struct Pipeline {
    std::unique_ptr<IfdUnit> ifd0, ifd1;
    std::unique_ptr<MvmUnit> mvm;
    std::unique_ptr<DwpuUnit> dwpu;
    std::unique_ptr<DpuUnit> dpu;
    std::unique_ptr<OdrUnit> odr;
  };
  struct Failure {
    spec::ErrorCode code;
    uint32_t addr;
  };
  void queue_thread(Queue& q);
  spec::ErrorCode run_task(Queue& q, const Task& task, uint64_t& t, uint32_t& bytes, uint32_t& err_addr);
  spec::ErrorCode run_datapath(Queue& q, uint32_t start, uint32_t repeat, uint64_t& t, uint32_t& bytes, uint32_t& err_addr);
  spec::ErrorCode run_barrier(const spec::BarrierDesc& b, uint64_t& t, uint64_t seq);
  uint32_t cmd_word(uint32_t a);
  bool earlier_barrier_pending(uint64_t seq) const;

  unsigned core_;
  uint32_t cores_;
  TokenSink token_;
  BarrierHub& hub_;
  std::array<Queue, spec::param::core_queues> queues_;
  std::array<runtime::UnitCounters, spec::param::perf_units> perf_{};
  std::array<Pipeline, 2> pipes_;
  std::unique_ptr<LoadImcUnit> loadimc_;
  uint64_t seq_ = 0;
  std::deque<uint64_t> barrier_seqs_;
  sc_core::sc_event resource_ev_;
  uint64_t cmdproc_busy_ = 0;
};

}  // namespace axcore::tlm
