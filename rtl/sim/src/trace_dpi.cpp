// The DPI functions the trace monitors (rtl/top/ax_trace_mon.sv, ax_trace_tok.sv) call during a
// rising edge. They report to the device whose model is being evaluated on this thread.
#include "Vax_sys_tb_top__Dpi.h"
#include "axcore/rtl/rtl_device.hpp"
#include "model.hpp"

namespace axcore::rtl {
namespace {
thread_local RtlDevice* t_target = nullptr;
}
void set_trace_target(RtlDevice* dev) { t_target = dev; }
}  // namespace axcore::rtl

using axcore::rtl::t_target;

extern "C" void ax_trace_task(unsigned int row, unsigned int unit, svBit start, unsigned int addr, unsigned int bytes,
                              unsigned int word) {
  if (t_target) t_target->on_task(row, unit, start != 0, addr, bytes, word);
}

extern "C" void ax_trace_write(unsigned int row, unsigned int unit, svBit first, svBit last, unsigned long long addr,
                               unsigned int nbytes, const svBitVecVal* data) {
  if (t_target) t_target->on_write(row, unit, first != 0, last != 0, addr, nbytes, data);
}

extern "C" void ax_trace_token(unsigned int word) {
  if (t_target) t_target->on_token(word);
}
