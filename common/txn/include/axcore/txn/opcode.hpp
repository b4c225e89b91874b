// TXN opcodes (mlir-aie include/aie/Runtime/TxnEncoding.h, aie-rt XAie_TxnOpcode). The decoder
// dispatches on `word0 & 0xFF`; the custom ops from 0x80 carry their byte length in word 1.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace axcore::txn {

enum class Opcode : uint8_t {
  WRITE = 0,
  BLOCKWRITE = 1,
  BLOCKSET = 2,
  MASKWRITE = 3,
  MASKPOLL = 4,
  NOOP = 5,
  PREEMPT = 6,
  MASKPOLL_BUSY = 7,
  LOADPDI = 8,
  LOAD_PM_START = 9,
  CREATE_SCRATCHPAD = 10,
  UPDATE_STATE_TABLE = 11,
  UPDATE_REG = 12,
  UPDATE_SCRATCH = 13,
  CONFIG_SHIMDMA_BD = 14,
  CONFIG_SHIMDMA_DMABUF_BD = 15,
  TCT = 0x80,
  DDR_PATCH = 0x81,
  READ_REGS = 0x82,
  RECORD_TIMER = 0x83,
  MERGE_SYNC = 0x84,
};

// The opcode named by the low byte of an op's first word, if TXN defines one.
std::optional<Opcode> opcode_of(uint32_t word0);
// Lower-case name as `explain --raw` and `stats` print it ("write32", "ddr_patch", ...).
std::string_view to_string(Opcode op);
// Whether the decoder knows the op's word layout (the format leaves some opcodes without one).
bool has_layout(Opcode op);
constexpr bool is_custom(Opcode op) { return static_cast<uint8_t>(op) >= 0x80; }

}  // namespace axcore::txn
