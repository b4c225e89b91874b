// Builds a TXN stream: ops are appended in order, the header (op count, byte size) is computed.
// Every field is range-checked: a value that does not fit its bits throws std::out_of_range
// instead of being truncated.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "axcore/txn/header.hpp"
#include "axcore/txn/op.hpp"

namespace axcore::txn {

class Writer {
 public:
  explicit Writer(Device device) : device_(device) {}

  const Device& device() const { return device_; }
  std::size_t op_count() const { return ops_; }
  std::size_t word_count() const { return Header::kWords + body_.size(); }

  Writer& write32(uint64_t addr, uint32_t value) { return add(Write32{addr, value}); }
  Writer& maskwrite32(uint64_t addr, uint32_t value, uint32_t mask) { return add(MaskWrite32{addr, value, mask}); }
  Writer& maskpoll32(uint64_t addr, uint32_t value, uint32_t mask, bool busy = false) {
    return add(MaskPoll32{addr, value, mask, busy});
  }
  // Word 1 gets the tile (col, row) the address names.
  Writer& blockwrite(uint32_t addr, std::span<const uint32_t> data);
  Writer& tct(Dir dir, uint32_t col, uint32_t row, uint32_t channel, uint32_t ncol = 1, uint32_t nrow = 1) {
    return add(Tct{dir, col, row, channel, ncol, nrow});
  }
  Writer& ddr_patch(uint32_t regaddr, uint32_t arg_idx, uint64_t arg_plus, uint32_t action = 0) {
    return add(DdrPatch{action, regaddr, arg_idx, arg_plus});
  }
  Writer& loadpdi(uint32_t id, uint32_t size, uint64_t addr) { return add(LoadPdi{id, size, addr}); }
  Writer& preempt(uint32_t level) { return add(Preempt{level}); }
  Writer& create_scratchpad(uint32_t usage, uint32_t size) { return add(CreateScratchpad{usage, size}); }
  Writer& update_reg(uint32_t table, uint32_t func, uint32_t arg, uint32_t reg) {
    return add(UpdateReg{table, func, arg, reg});
  }
  Writer& noop() { return add(Noop{}); }
  Writer& custom(Opcode opcode, std::span<const uint32_t> payload) { return add(CustomOp{opcode, payload}); }

  // Any op from its fields (the canonical encoding: reserved words are 0).
  Writer& add(const OpBody& body);
  // An op exactly as decoded, reserved bits included.
  Writer& append(const Op& op);

  // Header + ops. Throws std::length_error if the stream exceeds the header's 32-bit byte count.
  std::vector<uint32_t> words() const;

 private:
  Device device_;
  std::vector<uint32_t> body_;
  std::size_t ops_ = 0;
};

}  // namespace axcore::txn
