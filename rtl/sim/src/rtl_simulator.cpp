// The RTL harness's entry in the device floor's simulator list (axcore/device/simulators.hpp):
// the runtime's "rtl" backend builds its RtlDevice here.
#include "axcore/device/simulators.hpp"
#include "axcore/rtl/rtl_device.hpp"

namespace axcore::device {

bool rtl_has_config(unsigned cores) { return rtl::RtlDevice::has_config(cores); }

std::unique_ptr<Device> make_rtl_device(const SimulatorOptions& o) {
  rtl::RtlOptions r;
  r.cores = o.cores;
  r.fst_path = o.fst;
  r.fst_depth = o.fst_depth;
  r.fst_from = o.fst_from;
  r.fst_to = o.fst_to;
  return std::make_unique<rtl::RtlDevice>(r);
}

}  // namespace axcore::device
