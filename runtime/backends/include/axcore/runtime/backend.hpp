// One factory for every backend (issue 8): `ref` (operator graph through common/ref, no TXN),
// `tlm` (sc_models, when built), `rtl` (rtl/sim, when built), `fpga` (a board: UIO, or the fake
// board over a simulated device), `regfile` (the register-level device, for protocol tests) and
// `fsim` (the functional device, runtime/fsim).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "axcore/device/device.hpp"
#include "axcore/device/simulators.hpp"
#include "axcore/runtime/program.hpp"

namespace axcore::runtime {

// cores and the RTL's waveform settings (device::SimulatorOptions, what the simulator devices
// take), and the fpga board.
struct BackendConfig : device::SimulatorOptions {
  // fpga: "uio=/dev/uio0,dma=/dev/udmabuf0", "uio=/dev/uio0,mem=PHYS:BYTES", or
  // "fake=LOGFILE[,device=regfile|tlm|rtl]" (the fake board, logging the protocol to LOGFILE).
  std::string board;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual RunResult run(const Bundle& b, const Arrays& inputs, const RunOptions& opt) = 0;
  // The device a timed backend runs on (nullptr for ref).
  virtual device::Device* device() { return nullptr; }
};

using DeviceFactory = std::function<std::unique_ptr<device::Device>(const BackendConfig&)>;
// A device backend added at run time (the TLM/RTL wiring registers "tlm"/"rtl" when built).
void register_device_factory(const std::string& name, DeviceFactory f);

// Throws RunError naming the backends this build has when `name` is not one of them.
std::unique_ptr<Backend> make_backend(std::string_view name, const BackendConfig& cfg = {});
std::unique_ptr<device::Device> make_device(std::string_view name, const BackendConfig& cfg = {});
std::vector<std::string> backend_names();

}  // namespace axcore::runtime
