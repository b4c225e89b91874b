// Registers the simulator backends this build has. CMake compiles this file with AXCORE_HAVE_TLM /
// AXCORE_HAVE_RTL when the axcore::tlm / axcore::rtl targets exist; the device headers and
// constructors are those sc_models/ and rtl/sim/ publish (TlmDevice(TlmOptions), RtlDevice(RtlOptions)).
#include "axcore/runtime/backend.hpp"

#if defined(AXCORE_HAVE_TLM) && __has_include("axcore/tlm/tlm_device.hpp")
#include "axcore/tlm/tlm_device.hpp"
#define AXCORE_WIRE_TLM 1
#endif
#if defined(AXCORE_HAVE_RTL) && __has_include("axcore/rtl/rtl_device.hpp")
#include "axcore/rtl/rtl_device.hpp"
#define AXCORE_WIRE_RTL 1
#endif

namespace axcore::runtime {

void register_builtin_simulators() {
#ifdef AXCORE_WIRE_TLM
  register_device_factory("tlm", [](const BackendConfig& c) {
    axcore::tlm::TlmOptions o;
    o.cores = c.cores;
    return std::unique_ptr<Device>(std::make_unique<axcore::tlm::TlmDevice>(o));
  });
#endif
#ifdef AXCORE_WIRE_RTL
  register_device_factory("rtl", [](const BackendConfig& c) {
    if (!axcore::rtl::RtlDevice::has_config(c.cores)) {
      std::string built;
      for (unsigned n : {0u, 1u, 4u})
        if (axcore::rtl::RtlDevice::has_config(n)) built += (built.empty() ? "" : ", ") + std::to_string(n);
      throw UnavailableError("rtl: this build has no Verilated model with " + std::to_string(c.cores) +
                             " cores; it has cores = " + built + " (0 = the shim/mem test top" +
                             (c.cores == 4 ? "; the 4-core model is built with -DAXCORE_RTL_CORES4=ON)" : ")"));
    }
    axcore::rtl::RtlOptions o;
    o.cores = c.cores;
    o.fst_path = c.fst;
    o.fst_depth = c.fst_depth;
    o.fst_from = c.fst_from;
    o.fst_to = c.fst_to;
    return std::unique_ptr<Device>(std::make_unique<axcore::rtl::RtlDevice>(o));
  });
#endif
}

}  // namespace axcore::runtime
