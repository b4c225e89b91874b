// runtime::make_device, except that "regfile" and "tlm" (when this build has the TLM) are constructed
// directly:
// the runtime's factory registry re-enters its own static initialisation when a simulator is
// wired in (backend.cpp: factories() -> register_builtin_simulators() -> register_device_factory()
// -> factories(): __gnu_cxx::recursive_init_error). Remove once that is fixed.
#pragma once

#include <memory>
#include <string>

#include "axcore/runtime/backend.hpp"
#include "axcore/runtime/regfile_device.hpp"
#if defined(AXCORE_BRINGUP_HAVE_TLM) && __has_include("axcore/tlm/tlm_device.hpp")
#include "axcore/tlm/tlm_device.hpp"
#define AXCORE_BRINGUP_DIRECT_TLM 1
#endif

namespace axcore::bringup {

inline std::unique_ptr<runtime::Device> open_device(const std::string& name, const runtime::BackendConfig& cfg = {}) {
  if (name == "regfile") {
    runtime::RegFileOptions o;
    o.cores = cfg.cores;
    return std::make_unique<runtime::RegFileDevice>(o);
  }
#ifdef AXCORE_BRINGUP_DIRECT_TLM
  if (name == "tlm") {
    tlm::TlmOptions o;
    o.cores = cfg.cores;
    return std::make_unique<tlm::TlmDevice>(o);
  }
#endif
  return runtime::make_device(name, cfg);
}

}  // namespace axcore::bringup
