// Registers the simulator backends this build has. CMake compiles this file with AXCORE_HAVE_TLM /
// AXCORE_HAVE_RTL when the axcore::tlm / axcore::rtl targets exist (and links them); the devices are
// built through the entry points the device floor declares and the models define
// (axcore/device/simulators.hpp), so the runtime includes no model header.
#include "axcore/device/simulators.hpp"
#include "axcore/runtime/backend.hpp"

namespace axcore::runtime {

void register_builtin_simulators() {
#ifdef AXCORE_HAVE_TLM
  register_device_factory("tlm", [](const BackendConfig& c) { return device::make_tlm_device(c); });
#endif
#ifdef AXCORE_HAVE_RTL
  register_device_factory("rtl", [](const BackendConfig& c) {
    if (!device::rtl_has_config(c.cores)) {
      std::string built;
      for (unsigned n : {0u, 1u, 4u})
        if (device::rtl_has_config(n)) built += (built.empty() ? "" : ", ") + std::to_string(n);
      throw UnavailableError("rtl: this build has no Verilated model with " + std::to_string(c.cores) +
                             " cores; it has cores = " + built + " (0 = the shim/mem test top)");
    }
    return device::make_rtl_device(c);
  });
#endif
}

}  // namespace axcore::runtime
