#include "axcore/txn/opcode.hpp"

namespace axcore::txn {

std::optional<Opcode> opcode_of(uint32_t word0) {
  const uint32_t b = word0 & 0xFF;
  if (b <= 15 || (b >= 0x80 && b <= 0x84)) return static_cast<Opcode>(b);
  return std::nullopt;
}

std::string_view to_string(Opcode op) {
  switch (op) {
    case Opcode::WRITE: return "write32";
    case Opcode::BLOCKWRITE: return "blockwrite";
    case Opcode::BLOCKSET: return "blockset";
    case Opcode::MASKWRITE: return "maskwrite32";
    case Opcode::MASKPOLL: return "maskpoll32";
    case Opcode::NOOP: return "noop";
    case Opcode::PREEMPT: return "preempt";
    case Opcode::MASKPOLL_BUSY: return "maskpoll_busy";
    case Opcode::LOADPDI: return "loadpdi";
    case Opcode::LOAD_PM_START: return "load_pm_start";
    case Opcode::CREATE_SCRATCHPAD: return "create_scratchpad";
    case Opcode::UPDATE_STATE_TABLE: return "update_state_table";
    case Opcode::UPDATE_REG: return "update_reg";
    case Opcode::UPDATE_SCRATCH: return "update_scratch";
    case Opcode::CONFIG_SHIMDMA_BD: return "config_shimdma_bd";
    case Opcode::CONFIG_SHIMDMA_DMABUF_BD: return "config_shimdma_dmabuf_bd";
    case Opcode::TCT: return "tct";
    case Opcode::DDR_PATCH: return "ddr_patch";
    case Opcode::READ_REGS: return "read_regs";
    case Opcode::RECORD_TIMER: return "record_timer";
    case Opcode::MERGE_SYNC: return "merge_sync";
  }
  return "?";
}

bool has_layout(Opcode op) {
  switch (op) {
    case Opcode::BLOCKSET:
    case Opcode::LOAD_PM_START:
    case Opcode::UPDATE_STATE_TABLE:
    case Opcode::UPDATE_SCRATCH:
    case Opcode::CONFIG_SHIMDMA_BD:
    case Opcode::CONFIG_SHIMDMA_DMABUF_BD: return false;
    default: return true;
  }
}

}  // namespace axcore::txn
