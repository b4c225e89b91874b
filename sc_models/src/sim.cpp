#include "sim.hpp"

namespace axcore::tlm {

void ErrorRecorder::report(const ErrorReport& e) {
  using C = spec::ErrorCode;
  const C c = e.code;
  spec::core::ErrorStatus bits = spec::core::ErrorStatus::decode_word(status);
  bits.any = 1;
  if (c == C::BD_INVALID || c == C::BD_MISALIGNED || c == C::ADDR_RANGE || c == C::BD_CHAIN_LOOP || c == C::PAD_ON_S2MM)
    bits.dma = 1;
  if (c == C::DESC_MAGIC || c == C::DESC_UNITS || c == C::DESC_RANGE || c == C::DPU_ILLEGAL || c == C::STREAM_DTYPE ||
      c == C::BARRIER_MASK || c == C::CMD_RANGE)
    bits.desc = 1;
  if (c == C::ADDR_RANGE || c == C::L1_RANGE || c == C::IMC_RANGE || c == C::CMD_RANGE) bits.range = 1;
  if (c == C::QUEUE_OVERFLOW || c == C::TOKEN_OVERFLOW) bits.overflow = 1;
  if (c == C::WATCHDOG) bits.watchdog = 1;
  if (status == 0) {
    spec::core::ErrorInfo i;
    i.code = c;
    i.dir = e.dir & 1;
    i.channel = e.channel & 0x1F;  // the field's width: a channel, or 8 + queue
    i.detail = e.detail & 0xFFFF;  // the low bits of a BD id or descriptor word address
    info = i.encode_word();
    addr = e.addr;
  }
  status = bits.encode_word();
}

}  // namespace axcore::tlm
