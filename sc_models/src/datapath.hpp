// The datapath units of a core (IFD0/IFD1, MVM, DWPU, DPU, ODR; one set per pipeline kind, so a
// MVMEXE and a DWPU datapath overlap) and LoadIMC. Every unit computes by calling common/ref
// (walk cursors, run_mvm, run_dwpu, the Dpu interpreter, run_loadimc) through blocking TimedFifo
// callbacks, and annotates the cycles of docs/timing.md on its local clock.
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "axcore/device/device.hpp"
#include "axcore/ref/dpu.hpp"
#include "axcore/ref/imc.hpp"
#include "axcore/ref/walk.hpp"
#include "l1_banks.hpp"
#include "sim.hpp"
#include "timed_fifo.hpp"

namespace axcore::tlm {

using Stream = TimedFifo<ref::Element>;

// WDOG_WAITS bits.
enum WaitBit : uint32_t {
  kIfd0Out = 1,
  kIfd1Out = 2,
  kMainIn = 4,
  kMainOut = 8,
  kDpuIn0 = 16,
  kDpuIn1 = 32,
  kDpuOut = 64,
  kOdrIn = 128
};

// One task's run of a datapath: its streams, the block tracker, the first error.
struct Pipe {
  Pipe()
      : ifd0(spec::param::stream_depth),
        ifd1(spec::param::stream_depth),
        main(spec::param::stream_depth),
        dpu(spec::param::stream_depth) {}
  BlockTracker bt;
  Stream ifd0, ifd1, main, dpu;
  spec::ErrorCode err = spec::ErrorCode::NONE;
  uint32_t err_addr = 0;
  uint64_t end = 0;
  uint32_t bytes = 0;
  bool reset = false;  // aborted by a soft reset / queue reset (no error, no token)
};

// What a unit needs from its core.
struct UnitEnv {
  std::span<uint8_t> l1;
  ref::Imc* imc;
  Tracer* tracer;
  uint32_t row;
  std::array<device::UnitCounters, spec::param::perf_units>* perf;
  L1Banks* banks;  // the L1 row ports (bank conflicts between the datapath units)
};

// Base of every unit: its perf slot, trace unit and L1 port, and its counters of a run.
class Unit : public sc_core::sc_module {
 public:
  Unit(sc_core::sc_module_name n, UnitEnv env, unsigned perf) : sc_module(n), env_(env), perf_(perf) {}
  // Starts the unit's work for one run of `pipe` at cycle t0.
  virtual void launch(Pipe& pipe, uint64_t t0) = 0;

 protected:
  trace::Unit trace_unit() const {
    return static_cast<trace::Unit>(static_cast<unsigned>(trace::Unit::MVM_IFD0) + perf_);
  }
  // Row accesses of an element: `rows` consecutive L1 rows from `row`, requested one per cycle
  // from t on through this unit's L1 port; returns the cycles the last row came later than
  // t + rows - 1 (bank conflicts, plus the cycles the port lost earlier).
  uint64_t l1_rows(int64_t row, uint64_t rows, uint64_t t);
  void begin_run(Pipe& pipe);                         // a running unit of the pipe, counters cleared
  void end_run(Pipe& pipe, uint64_t t0, uint64_t t);  // its PERF_* of the run; the unit ends at t
  UnitEnv env_;
  unsigned perf_;
  uint64_t stall_in_ = 0, stall_out_ = 0;
  int64_t busy_ = -1;  // PERF_BUSY of the run when the unit counts it itself (else span - stalls)
};

// A unit with a thread (a SystemC process) that runs its body once per run and turns a reference
// error into the datapath's error and an abort. The thread is made once, at elaboration, and waits
// between runs: launch() wakes it in the same evaluation phase a process spawned per run started in
// (a spawn per run cost a coroutine stack, its name and mprotect every task).
class ThreadUnit : public Unit {
 public:
  ThreadUnit(sc_core::sc_module_name n, UnitEnv env, unsigned perf);
  void launch(Pipe& pipe, uint64_t t0) override;

 protected:
  virtual void body(Pipe& pipe, uint64_t& t) = 0;

 private:
  void serve();
  sc_core::sc_event start_;
  Pipe* pipe_ = nullptr;
  uint64_t t0_ = 0;
};

// The IFDs have no thread: each is its stream's InlineProducer, run inside the consumer's pops
// (TimedFifo::pop_ref), so a pipeline does not switch SystemC processes every few elements. It
// does what its thread did: builds its next element (the row requests through the L1 banks,
// then the element) and pushes it while the stream has a slot; a built element that finds the
// stream full waits, and the IFD counts as blocked on its output, until a pop makes room. It
// ends with its walk, or when the datapath is aborted.
//
// It is also the MVM's lookahead (ref::MvmLookahead): fetch reads elements of its walk from L1
// now, with a second cursor ahead of the first. An INT8 element it then builds from L1 bytes equal
// to their read-ahead copy is marked and left without its lanes (the MVM takes the copy's); every
// other element is built as ever. What it reads ahead decides nothing (the MVM checks every
// element against it, or the IFD does), so the unit's timing and records do not depend on it.
class IfdUnit : public Unit, public InlineProducer, public ref::MvmLookahead {
 public:
  IfdUnit(sc_core::sc_module_name n, UnitEnv env, unsigned perf, bool second) : Unit(n, env, perf), second_(second) {}
  std::vector<spec::Walk> walks;  // its segments (ref::ifd_walks), run one after the other without a gap
  Stream* out = nullptr;
  void launch(Pipe& pipe, uint64_t t0) override;
  void refill() override;
  uint64_t fetch(uint64_t first, std::span<num::PwordI8> xs) override;
  void release() override { expect_ = {}; }

 private:
  void abandon();                         // the datapath was aborted: end now
  std::optional<ref::WalkCursor> ahead_;  // fetch's cursor: element ahead_index_ of the run, in segment ahead_seg_
  std::size_t ahead_seg_ = 0;
  uint64_t ahead_index_ = 0;
  bool build_as_fetched(const spec::Walk& walk, const ref::WalkStep& st);  // the element marked, or false
  std::span<const num::PwordI8> expect_;   // the last fetch's copies: elements expect_first_ ...
  uint64_t expect_first_ = 0, built_ = 0;  // built_: the elements built this run
  bool second_;
  Pipe* pipe_ = nullptr;
  std::optional<ref::WalkCursor> cursor_;
  std::size_t seg_ = 0;  // the segment cursor_ walks
  uint64_t t0_ = 0, t_ = 0, want_ = 0;
  bool running_ = false, staged_ = false, blocked_ = false;
};

// The main unit of a pipeline: the MVM (MvmDesc) or the DWPU (DwpuDesc). Both pop IFD0 and push
// their output `mvm_latency` after the op that completes it (push_out).
template <class Desc>
class MainUnit : public ThreadUnit {
 public:
  using ThreadUnit::ThreadUnit;
  Desc desc;
  Stream* out = nullptr;
  ref::MvmLookahead* lookahead = nullptr;  // the MVM's: its IFD0 (reads x ahead for ref::MvmRun's blocks)

 private:
  void body(Pipe& pipe, uint64_t& t) override;
  void push_out(Pipe& pipe, uint64_t& t, const ref::Element& e);
};
using MvmUnit = MainUnit<spec::MvmDesc>;
using DwpuUnit = MainUnit<spec::DwpuDesc>;
template <>
void MvmUnit::body(Pipe& pipe, uint64_t& t);  // ref::run_mvm, one tile-op per 64 / mvm_rows_per_cycle cycles
template <>
void DwpuUnit::body(Pipe& pipe, uint64_t& t);  // ref::run_dwpu after the weight fetch

class DpuUnit : public ThreadUnit {
 public:
  using ThreadUnit::ThreadUnit;
  ref::DpuProgram program;
  ref::DpuConfig cfg;
  Stream* in0 = nullptr;

 private:
  void body(Pipe& pipe, uint64_t& t) override;
};

// Whether the MVM's or DWPU's thread may stand in for the ODR's behind it (no DPU; TimedFifo's
// virtual consumer): on unless AXCORE_TLM_ODR_INLINE=0 (read once; tests compare both).
bool& odr_inline();
// The ODR turns those threads took (take_inline), for tests.
uint64_t& odr_inline_turns();

// The ODR. Behind an MVM or DWPU it is its stream's InlineConsumer: where only the two threads
// would run, the main unit's thread takes the ODR's turns (take_inline) itself — the ODR's stores,
// bank claims, trace records and counters as its thread's, in the same order — and neither
// switches SystemC processes per element (TimedFifo::yield_point).
class OdrUnit : public ThreadUnit, public InlineConsumer {
 public:
  using ThreadUnit::ThreadUnit;
  spec::Walk walk;
  Stream* in = nullptr;
  bool inline_ok = false;  // in is the main unit's stream (set per run)
  bool take_inline() override;

 private:
  void body(Pipe& pipe, uint64_t& t) override;
  void body_transpose(Pipe& pipe, uint64_t& t);               // walk.transpose: 64 pops, then 64 stores
  void take(Pipe& pipe, const ref::Element& e, uint64_t at);  // a popped element (plain walk)
  uint64_t store(Pipe& pipe, const ref::WalkStep& st, const num::AnyPword& v, uint64_t c);
  // The plain walk's state (the thread's and take_inline's): the cursor, the cycle, whether the
  // previous element's last row write is in cycle t_, the elements not popped yet.
  std::optional<ref::WalkCursor> cursor_;
  uint64_t t_ = 0, left_ = 0;
  bool writing_ = false;
  Pipe* pipe_ = nullptr;
};

// LoadIMC: one 64-byte row per cycle, MEM_WRITE per tile (addr = tile * 4096).
// The watchdog's diagnostic: "watchdog: MVMEXE datapath made no progress ...: DPU waits on its
// main input (in0) stream; ODR waits on its input stream".
std::string watchdog_diagnostic(bool mvmexe, uint32_t wdog_waits, uint64_t cycle);

class LoadImcUnit : public sc_core::sc_module {
 public:
  LoadImcUnit(sc_core::sc_module_name n, UnitEnv env) : sc_module(n), env_(env) {}
  // Returns the error (NONE on success); t advances; bytes written added.
  spec::ErrorCode run(const spec::LoadimcDesc& d, uint64_t& t, uint32_t& bytes, uint32_t& err_addr);

 private:
  UnitEnv env_;
};

}  // namespace axcore::tlm
