#include "axcore/txn/op.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "axcore/txn/text.hpp"

namespace axcore::txn {

std::string_view to_string(Dir d) { return d == Dir::S2MM ? "S2MM" : "MM2S"; }

bool BlockWrite::operator==(const BlockWrite& o) const {
  return col == o.col && row == o.row && addr == o.addr && std::ranges::equal(data, o.data);
}
bool CustomOp::operator==(const CustomOp& o) const {
  return opcode == o.opcode && std::ranges::equal(payload, o.payload);
}

namespace {

std::string at(uint64_t addr) { return "@" + hex_width(addr, 10); }

std::string words_text(std::span<const uint32_t> w) {
  std::string s;
  for (uint32_t v : w) s += " " + hex_width(v, 10);
  return s;
}

struct Printer {
  std::string operator()(const Write32& b) const { return at(b.addr) + " <- " + hex_width(b.value, 10); }
  std::string operator()(const MaskWrite32& b) const {
    return at(b.addr) + " <- " + hex_width(b.value, 10) + " & " + hex_width(b.mask, 10);
  }
  std::string operator()(const MaskPoll32& b) const {
    return at(b.addr) + " until & " + hex_width(b.mask, 10) + " == " + hex_width(b.value, 10);
  }
  std::string operator()(const BlockWrite& b) const {
    return at(b.addr) + " (" + std::to_string(b.col) + "," + std::to_string(b.row) + ") " +
           std::to_string(b.data.size()) + " words:" + words_text(b.data);
  }
  std::string operator()(const Tct& b) const {
    return "(" + std::to_string(b.col) + "," + std::to_string(b.row) + ") " + std::string(to_string(b.dir)) + " ch" +
           std::to_string(b.channel) + " cols=" + std::to_string(b.ncol) + " rows=" + std::to_string(b.nrow);
  }
  std::string operator()(const DdrPatch& b) const {
    return at(b.regaddr) + " <- arg" + std::to_string(b.arg_idx) + "+" + hex(b.arg_plus) +
           " action=" + std::to_string(b.action);
  }
  std::string operator()(const LoadPdi& b) const {
    return "id=" + std::to_string(b.id) + " size=" + std::to_string(b.size) + " addr=" + hex(b.addr);
  }
  std::string operator()(const Preempt& b) const { return "level=" + std::to_string(b.level); }
  std::string operator()(const CreateScratchpad& b) const {
    return "usage=" + std::to_string(b.usage) + " size=" + std::to_string(b.size);
  }
  std::string operator()(const UpdateReg& b) const {
    return "table=" + std::to_string(b.table) + " func=" + std::to_string(b.func) + " arg=" + hex(b.arg) +
           " reg=" + hex(b.reg);
  }
  std::string operator()(const Noop&) const { return ""; }
  std::string operator()(const CustomOp& b) const { return hex_list(b.payload); }
};

}  // namespace

std::string to_string(const Op& op) {
  char pos[32];
  std::snprintf(pos, sizeof pos, "%6u ", static_cast<unsigned>(op.pos));
  std::string fields = std::visit(Printer{}, op.body);
  return pos + std::string(to_string(op.opcode)) + (fields.empty() ? "" : " " + fields);
}

}  // namespace axcore::txn
