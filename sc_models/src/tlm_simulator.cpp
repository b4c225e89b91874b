// The TLM's entry in the device floor's simulator list (axcore/device/simulators.hpp): the
// runtime's "tlm" backend builds its TlmDevice here.
#include "axcore/device/simulators.hpp"
#include "axcore/tlm/tlm_device.hpp"

namespace axcore::device {

std::unique_ptr<Device> make_tlm_device(const SimulatorOptions& o) {
  tlm::TlmOptions t;
  t.cores = o.cores;
  return std::make_unique<tlm::TlmDevice>(t);
}

}  // namespace axcore::device
