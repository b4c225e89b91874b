// RtlDevice: the Verilated SystemVerilog device (rtl/) behind the runtime's Device interface.
// Registers go through the AXI4-Lite host port as real transactions (3 cycles a write, 4 a
// read, docs/timing.md); DDR is a C++ model behind the AXI4 master; the canonical trace comes
// from the RTL's monitor ports (DMA tasks and S2MM runs, core queue tasks, ODR/LoadIMC writes,
// tokens) plus one REG_WRITE per host write. One clock; cycle() counts rising edges since
// reset. The model is built for one configuration per executable build (cores = 0: the test
// top without core tiles, ax_sys_tb_top; 1 and 4: axcore_top).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "axcore/device/device.hpp"
#include "axcore/rtl/ddr_model.hpp"

namespace axcore::rtl {

struct RtlOptions {
  unsigned cores = 1;            // 0 (system test top), 1 or 4
  uint32_t ddr_latency_cycles;   // default: spec::param::ddr_latency_cycles
  uint32_t ddr_bytes_per_cycle;  // default: spec::param::ddr_bytes_per_cycle
  std::string fst_path;          // non-empty: dump an FST waveform there
  int fst_depth = 99;            // hierarchy levels traced
  uint64_t fst_from = 0;         // first device cycle dumped (reset cycles precede cycle 0, always dumped)
  uint64_t fst_to = UINT64_MAX;  // last device cycle dumped
  RtlOptions();
};

class Model;  // the Verilated top behind a uniform pin view (src/model.hpp)

class RtlDevice final : public device::Device {
 public:
  explicit RtlDevice(const RtlOptions& opt = {});
  ~RtlDevice() override;
  RtlDevice(const RtlDevice&) = delete;
  RtlDevice& operator=(const RtlDevice&) = delete;

  // Which configurations this build of axcore_rtl contains.
  static bool has_config(unsigned cores);

  std::string_view backend() const override { return "rtl"; }
  unsigned cores() const override { return cores_; }

  uint32_t read32(uint64_t addr) override;
  void write32(uint64_t addr, uint32_t value) override;

  uint64_t cycle() const override { return cycle_; }
  void advance(uint64_t cycles) override;
  void run_until_idle(uint64_t timeout_cycles) override;

  uint64_t ddr_size() const override { return ddr_.size(); }
  void ddr_write(uint64_t addr, std::span<const uint8_t> bytes) override;
  void ddr_read(uint64_t addr, std::span<uint8_t> bytes) override;

  void set_trace_sink(device::TraceSink sink) override { sink_ = std::move(sink); }

  // ---- harness extras (tests, benchmarks) ----
  bool busy() const;  // STATUS.busy as the top's port shows it this cycle
  const DdrModel& ddr() const { return ddr_; }
  uint64_t records() const { return seq_; }

  // Called by the DPI trace monitors (src/trace_dpi.cpp) during a rising edge.
  void on_task(unsigned row, unsigned unit, bool start, uint32_t addr, uint32_t bytes, uint32_t word);
  void on_write(unsigned row, unsigned unit, bool first, bool last, uint64_t addr, unsigned nbytes,
                const uint32_t* data);
  void on_token(uint32_t word);

 private:
  // The host port's outputs as they are before a cycle's edge (sampled by tick()).
  struct HostSample {
    bool awready = false, wready = false, bvalid = false, arready = false, rvalid = false;
    unsigned bresp = 0, rresp = 0;
    uint32_t rdata = 0;
  };
  // One clock cycle: settle, sample the AXI sides (and the host port into `host`), rising edge.
  void tick(HostSample* host = nullptr);
  void dump(unsigned half);  // the FST sample of this half cycle (0 low, 1 high), in the window
  void emit(trace::Record r);
  [[noreturn]] void bus_error(const char* what, uint64_t addr, unsigned resp);
  static void check_reg_addr(uint64_t addr);

  unsigned cores_;
  DdrModel ddr_;
  std::unique_ptr<Model> model_;
  device::TraceSink sink_;
  uint64_t cycle_ = 0, seq_ = 0;
  bool in_reset_ = true;                         // FST: reset ticks come before device cycle 0
  uint64_t fst_from_ = 0, fst_to_ = UINT64_MAX;  // FST window in device cycles
  struct Open {                                  // a MEM_WRITE record being assembled from beats
    bool open = false;
    uint64_t addr = 0, hash = 0;
    uint32_t bytes = 0;
  };
  std::unique_ptr<Open[]> open_;  // per (row, unit)
};

}  // namespace axcore::rtl
