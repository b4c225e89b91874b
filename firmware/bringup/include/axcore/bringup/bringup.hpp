// Board bring-up (issue 11): ordered steps against any Device (fpga board, tlm, rtl, regfile),
// each PASS/FAIL/SKIP/WARN with a log (streamed as each step ends); the run stops at the first failure and says what to
// check. A step whose unit the device lacks (the device refuses it, DESC_UNITS) is SKIP with the reason. `FaultyDevice`
// breaks one thing on purpose so tests can see each step catch its fault.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "axcore/device/device.hpp"

namespace axcore::bringup {

// WARN: the step's check passed but its figure is far from the spec's (the performance step below
// kWarnBelowPeak of the peak bandwidth); the run goes on and passes, naming the warnings.
enum class Status { PASS, FAIL, SKIP, WARN };
const char* to_string(Status s);
inline constexpr double kWarnBelowPeak = 0.5;
// The performance step's verdict for a measured fraction of the spec's peak bandwidth.
Status performance_status(double fraction_of_peak);

struct StepResult {
  std::string name;
  Status status = Status::FAIL;
  std::string detail;  // PASS: what was checked / measured; FAIL: what went wrong; SKIP: why
  std::string check;   // FAIL: what to check on the board
  bool failed() const { return status == Status::FAIL; }
};

struct Options {
  uint32_t seed = 1;
  uint32_t mem_words = 1024;  // words per memory-test window
};

// Runs the steps in order, printing "[n/N] name ... PASS|FAIL" and details to `log`.
// Returns every step run (the last one is the failure, if any).
std::vector<StepResult> run(device::Device& dev, const Options& opt, std::ostream& log);
std::vector<std::string> step_names();

// One fault per step (all_faults() in step order); the kernel faults flip bit 0 of lane 3 of the
// kernel's output as the host reads it.
enum class Fault {
  NONE,
  SPEC_HASH,
  RESET_VALUE,
  SCRATCH_BIT,
  STUCK_DDR_BIT,
  DMA_DROP,
  TOKEN_TAG,
  COPY_BIT,
  MVM_BIT,
  DPU_BIT,
  DWPU_BIT,
  PERF_TIMER,
  NO_DWPU  // not a fault: the device refuses DWPU datapaths (DESC_UNITS), as a build without the unit
};
Fault parse_fault(const std::string& s);  // throws std::invalid_argument listing the names
std::string to_string(Fault f);
std::vector<Fault> all_faults();  // one per step, in step order (NO_DWPU excluded)

// A Device that forwards to another one, except for the one fault it injects.
class FaultyDevice : public device::Device {
 public:
  FaultyDevice(device::Device& inner, Fault f) : d_(inner), f_(f) {}
  std::string_view backend() const override { return d_.backend(); }
  unsigned cores() const override { return d_.cores(); }
  uint32_t read32(uint64_t addr) override;
  void write32(uint64_t addr, uint32_t value) override;
  uint64_t cycle() const override { return d_.cycle(); }
  void advance(uint64_t c) override { d_.advance(c); }
  void run_until_idle(uint64_t t) override { d_.run_until_idle(t); }
  uint64_t ddr_size() const override { return d_.ddr_size(); }
  uint64_t ddr_base() const override { return d_.ddr_base(); }
  void ddr_write(uint64_t a, std::span<const uint8_t> b) override { d_.ddr_write(a, b); }
  void ddr_read(uint64_t a, std::span<uint8_t> b) override;
  void set_trace_sink(device::TraceSink s) override { d_.set_trace_sink(std::move(s)); }

 private:
  device::Device& d_;
  Fault f_;
};

}  // namespace axcore::bringup
