// The one interface every backend implements (docs/architecture.md §1, issue 8): a 32-bit register
// window addressed `col << 25 | row << 20 | offset`, a byte-addressed DDR the host also sees, a
// cycle clock, and the canonical trace. The TXN player, the firmware MMIO bridge, the regression
// runner and the bring-up scripts all talk to a device through this and nothing else.
//
// Backends: `regfile` and `fsim` (runtime/regfile, runtime/fsim), `tlm` (sc_models:
// axcore::tlm::TlmDevice), `rtl` (rtl/sim: axcore::rtl::RtlDevice), `fpga` (runtime/backends).
// The device floor (device/, docs/architecture.md §8) sits below the runtime and the models, so
// they depend on it without a cycle; header-only, link CMake target `axcore::device`. The names
// live in axcore::device and every user spells them so (device::Device, ...).
//
// Errors: every call throws DeviceError (with a message naming the address / what timed out) for
// an access outside the map, an unmapped tile, or a timeout; a backend never crashes or returns
// made-up data.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "axcore/text/hex.hpp"
#include "axcore/trace/record.hpp"

namespace axcore::device {

class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class TimeoutError : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

using TraceSink = std::function<void(const trace::Record&)>;

// Counters of one unit of one core, as the PERF_* registers hold them.
struct UnitCounters {
  uint32_t busy = 0, stall_in = 0, stall_out = 0, tasks = 0;
};

class Device {
 public:
  virtual ~Device() = default;

  // ---- identity --------------------------------------------------------------------------
  virtual std::string_view backend() const = 0;  // "ref", "tlm", "rtl", "fpga"
  virtual unsigned cores() const = 0;            // core tiles (rows 2 .. 2 + cores - 1, col 0)

  // ---- registers (addr = col << 25 | row << 20 | offset, 4-byte aligned) ------------------
  virtual uint32_t read32(uint64_t addr) = 0;
  virtual void write32(uint64_t addr, uint32_t value) = 0;
  // Writes `words` to consecutive addresses starting at addr (TXN BLOCKWRITE). Backends may
  // override with a faster path; the effect must equal successive write32 calls.
  virtual void block_write(uint64_t addr, std::span<const uint32_t> words) {
    for (size_t i = 0; i < words.size(); ++i) write32(addr + 4 * i, words[i]);
  }
  void mask_write32(uint64_t addr, uint32_t value, uint32_t mask) {
    write32(addr, (read32(addr) & ~mask) | (value & mask));
  }
  // Polls until (read32(addr) & mask) == (value & mask); advances the clock between reads.
  // Throws TimeoutError after `timeout_cycles` device cycles.
  virtual void poll32(uint64_t addr, uint32_t value, uint32_t mask, uint64_t timeout_cycles) {
    const uint64_t start = cycle();
    for (;;) {
      if ((read32(addr) & mask) == (value & mask)) return;
      if (cycle() - start >= timeout_cycles)
        throw TimeoutError("poll32: register " + text::hex(addr) + " did not reach " + text::hex(value & mask) +
                           " under mask " + text::hex(mask) + " within " + std::to_string(timeout_cycles) +
                           " cycles (last " + text::hex(read32(addr) & mask) + ")");
      advance(poll_interval_cycles);
    }
  }

  // ---- time ------------------------------------------------------------------------------
  virtual uint64_t cycle() const = 0;         // device cycles since reset
  virtual void advance(uint64_t cycles) = 0;  // let the device run
  // Runs until no unit is busy and no task is queued; throws TimeoutError naming what was busy.
  virtual void run_until_idle(uint64_t timeout_cycles) = 0;

  // ---- DDR (byte addressed, the host's view of the device's AXI master space) -------------
  virtual uint64_t ddr_size() const = 0;
  // Device (bus) address of DDR byte 0: where the device sees the host's ddr_write(0, ...).
  // 0 for the simulators; the fpga backend's DMA buffer sits at its physical address. ddr_read/
  // ddr_write take offsets from it; TXN arguments are bound to ddr_base() + offset.
  virtual uint64_t ddr_base() const { return 0; }
  virtual void ddr_write(uint64_t addr, std::span<const uint8_t> bytes) = 0;
  virtual void ddr_read(uint64_t addr, std::span<uint8_t> bytes) = 0;

  // ---- trace -----------------------------------------------------------------------------
  // Every committed transaction is passed to the sink, in commit order. Empty = tracing off.
  virtual void set_trace_sink(TraceSink sink) = 0;

  // ---- tokens (shim TOKEN_POP), shared by all backends -------------------------------------
  // Waits for the completion token of (col, row, dir, channel) (TXN TCT semantics: dir 0 = S2MM;
  // channel 8 + q for core queue q). Tokens of other tasks popped while waiting are kept and
  // returned by later waits, so waits may come in any order. Returns the token word.
  uint32_t wait_token(unsigned col, unsigned row, unsigned dir, unsigned channel, uint64_t timeout_cycles);
  // Tokens popped but not yet claimed by a wait.
  const std::vector<uint32_t>& stashed_tokens() const { return stash_; }

  // ---- counters ----------------------------------------------------------------------------
  UnitCounters counters(unsigned core, unsigned perf_unit);

  uint64_t poll_interval_cycles = 16;

 private:
  std::vector<uint32_t> stash_;
};

}  // namespace axcore::device

#include "axcore/device/device_inl.hpp"
