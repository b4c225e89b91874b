// axcore::tlm::TlmDevice — the SystemC TLM-2.0 backend of device::Device (issue 7): the shim,
// mem and `cores` core tiles of sc_models/, loosely timed (1 cycle = 1 ns), registers through
// TLM target sockets, DDR as a DMI memory the host reads and writes directly.
//
// SystemC elaborates once per process: construct at most one TlmDevice per process (a second one
// throws device::DeviceError). Tests run each simulation in its own process.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "axcore/device/device.hpp"

namespace axcore::tlm {

struct TlmOptions {
  unsigned cores = 1;                // 1 .. spec::param::max_cores
  uint64_t ddr_bytes = 64ull << 20;  // DDR model size (addresses beyond it are refused)
};

class TlmDevice : public device::Device {
 public:
  explicit TlmDevice(TlmOptions opt = {});
  ~TlmDevice() override;
  TlmDevice(const TlmDevice&) = delete;
  TlmDevice& operator=(const TlmDevice&) = delete;

  std::string_view backend() const override { return "tlm"; }
  unsigned cores() const override;
  uint32_t read32(uint64_t addr) override;
  void write32(uint64_t addr, uint32_t value) override;
  uint64_t cycle() const override;
  // Runs lazily: the cycles are simulated (their trace records emitted) by the next register or
  // memory access, busy(), run_until_idle(), set_trace_sink() or watchdog_report(), in one
  // sc_start with the host accesses' cycles around them (a poll loop's read, advance, read: one
  // sc_start, not three). cycle() counts them at once; the destructor does not run them.
  void advance(uint64_t cycles) override;
  void run_until_idle(uint64_t timeout_cycles) override;
  uint64_t ddr_size() const override;
  void ddr_write(uint64_t addr, std::span<const uint8_t> bytes) override;
  void ddr_read(uint64_t addr, std::span<uint8_t> bytes) override;
  void set_trace_sink(device::TraceSink sink) override;

  // Direct views of a core's L1 and the L2 (test and benchmark setup; no simulated time).
  std::span<uint8_t> l1(unsigned core);
  std::span<uint8_t> l2();
  bool busy() const;
  // The last watchdog firing of a core in words — the datapath and, for every unit that was
  // stalled, the stream it waited on (WDOG_WAITS spelled out); empty if it never fired.
  std::string watchdog_report(unsigned core) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace axcore::tlm
