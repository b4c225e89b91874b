// Registers the simulator backends this build has. CMake compiles this file with AXCORE_HAVE_TLM /
// AXCORE_HAVE_RTL when the axcore::tlm / axcore::rtl targets exist; the device headers and
// constructors are those sc_models/ and rtl/sim/ publish (TlmDevice(cores), RtlDevice(cores, fst)).
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
    return std::unique_ptr<Device>(std::make_unique<axcore::tlm::TlmDevice>(c.cores));
  });
#endif
#ifdef AXCORE_WIRE_RTL
  register_device_factory("rtl", [](const BackendConfig& c) {
    return std::unique_ptr<Device>(std::make_unique<axcore::rtl::RtlDevice>(c.cores, c.fst));
  });
#endif
}

}  // namespace axcore::runtime
