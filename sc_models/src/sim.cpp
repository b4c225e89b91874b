#include "sim.hpp"

namespace axcore::tlm {

void ErrorRecorder::report(const ErrorReport& e) {
  using C = spec::ErrorCode;
  const C c = e.code;
  uint32_t bits = 1;
  if (c == C::BD_INVALID || c == C::BD_MISALIGNED || c == C::ADDR_RANGE || c == C::BD_CHAIN_LOOP || c == C::PAD_ON_S2MM)
    bits |= 2;
  if (c == C::DESC_MAGIC || c == C::DESC_UNITS || c == C::DESC_RANGE || c == C::DPU_ILLEGAL || c == C::STREAM_DTYPE ||
      c == C::BARRIER_MASK || c == C::CMD_RANGE)
    bits |= 4;
  if (c == C::ADDR_RANGE || c == C::L1_RANGE || c == C::IMC_RANGE || c == C::CMD_RANGE) bits |= 8;
  if (c == C::QUEUE_OVERFLOW || c == C::TOKEN_OVERFLOW) bits |= 16;
  if (c == C::WATCHDOG) bits |= 32;
  if (status == 0) {
    info = static_cast<uint32_t>(c) | (e.dir & 1) << 5 | (e.channel & 0x1F) << 8 | (e.detail & 0xFFFF) << 16;
    addr = e.addr;
  }
  status |= bits;
}

}  // namespace axcore::tlm
