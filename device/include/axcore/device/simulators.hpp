// The simulator devices of the models on the floor above (docs/architecture.md §8): declared here,
// defined by the model libraries — make_tlm_device by sc_models/ (CMake target axcore::tlm),
// make_rtl_device and rtl_has_config by rtl/sim (axcore::rtl). The runtime's backend factory builds
// "tlm" and "rtl" through these declarations and links the model targets, so it includes no model
// header. A program that calls one links that model's target.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "axcore/device/device.hpp"

namespace axcore::device {

struct SimulatorOptions {
  unsigned cores = 1;
  std::string fst;               // rtl: FST waveform file ("" = none)
  int fst_depth = 99;            // rtl: hierarchy levels the FST traces
  uint64_t fst_from = 0;         // rtl: first device cycle dumped (0 = from reset)
  uint64_t fst_to = UINT64_MAX;  // rtl: last device cycle dumped
};

// sc_models: a TlmDevice of o.cores (one per process: SystemC elaborates once).
std::unique_ptr<Device> make_tlm_device(const SimulatorOptions& o);

// rtl/sim: whether this build of axcore_rtl holds a Verilated model of `cores` cores (0 = the
// shim/mem test top), and an RtlDevice of o.cores with o's waveform settings.
bool rtl_has_config(unsigned cores);
std::unique_ptr<Device> make_rtl_device(const SimulatorOptions& o);

}  // namespace axcore::device
