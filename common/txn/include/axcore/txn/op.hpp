// One TXN instruction: its raw words (a view into the decoded stream) and its typed fields.
// Layouts (words):
//   write32           [0, 0, addr, addr_hi, value, 24]
//   maskwrite32/poll  [op, 0, addr, addr_hi, value, mask, 28]   (maskpoll_busy alike)
//   blockwrite        [1, col | row << 8, addr, bytes, data...]  bytes = 16 + 4 n
//   tct               [0x80, 16, dir | row << 8 | col << 16, nrow << 8 | ncol << 16 | channel <<
//   24] ddr_patch         [0x81, 48, 0, 0, 0, action, regaddr, 0, arg_idx, 0, arg_plus_lo,
//   arg_plus_hi] loadpdi           [8 | id << 16, size, addr_lo, addr_hi] preempt           [6 |
//   level << 8] create_scratchpad [10 | usage << 8, size, 0, 0] update_reg        [12 | table << 8
//   | func << 16, arg, reg] noop              [5] read_regs, record_timer, merge_sync  [op, bytes,
//   payload...]
#pragma once

#include <cstdint>
#include <span>
#include <variant>

#include "axcore/txn/opcode.hpp"

namespace axcore::txn {

enum class Dir : uint8_t { S2MM = 0, MM2S = 1 };
std::string_view to_string(Dir d);

struct Write32 {
  uint64_t addr = 0;
  uint32_t value = 0;
  bool operator==(const Write32&) const = default;
};
struct MaskWrite32 {
  uint64_t addr = 0;
  uint32_t value = 0, mask = 0;
  bool operator==(const MaskWrite32&) const = default;
};
struct MaskPoll32 {
  uint64_t addr = 0;
  uint32_t value = 0, mask = 0;
  bool busy = false;  // MASKPOLL_BUSY
  bool operator==(const MaskPoll32&) const = default;
};
struct BlockWrite {
  uint32_t col = 0, row = 0;  // word 1 (informative; the address names the tile too)
  uint32_t addr = 0;
  std::span<const uint32_t> data;
  bool operator==(const BlockWrite& o) const;
};
struct Tct {
  Dir dir = Dir::S2MM;
  uint32_t col = 0, row = 0, channel = 0, ncol = 1, nrow = 1;
  bool operator==(const Tct&) const = default;
};
struct DdrPatch {
  uint32_t action = 0;
  uint32_t regaddr = 0;  // the register the runtime writes the host address into
  uint32_t arg_idx = 0;
  uint64_t arg_plus = 0;  // byte offset added to the argument's address
  bool operator==(const DdrPatch&) const = default;
};
struct LoadPdi {
  uint32_t id = 0, size = 0;
  uint64_t addr = 0;
  bool operator==(const LoadPdi&) const = default;
};
struct Preempt {
  uint32_t level = 0;
  bool operator==(const Preempt&) const = default;
};
struct CreateScratchpad {
  uint32_t usage = 0, size = 0;
  bool operator==(const CreateScratchpad&) const = default;
};
struct UpdateReg {
  uint32_t table = 0, func = 0, arg = 0, reg = 0;
  bool operator==(const UpdateReg&) const = default;
};
struct Noop {
  bool operator==(const Noop&) const = default;
};
// READ_REGS, RECORD_TIMER, MERGE_SYNC: kept as their payload (the words after the length).
struct CustomOp {
  Opcode opcode = Opcode::READ_REGS;
  std::span<const uint32_t> payload;
  bool operator==(const CustomOp& o) const;
};

using OpBody = std::variant<Write32, MaskWrite32, MaskPoll32, BlockWrite, Tct, DdrPatch, LoadPdi, Preempt,
                            CreateScratchpad, UpdateReg, Noop, CustomOp>;

struct Op {
  Opcode opcode = Opcode::NOOP;
  uint32_t pos = 0;                 // word index of the op in its stream
  std::span<const uint32_t> words;  // the op's words, verbatim
  OpBody body;
};

// "    12 write32 0x0001d004 <- 0x00000400" — one line of `explain --raw`.
std::string to_string(const Op& op);

}  // namespace axcore::txn
