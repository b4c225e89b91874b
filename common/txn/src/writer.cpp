#include "axcore/txn/writer.hpp"

#include <stdexcept>
#include <string>

namespace axcore::txn {
namespace {

uint32_t fit(uint64_t v, unsigned bits, const char* what) {
  if (bits < 64 && (v >> bits) != 0)
    throw std::out_of_range(std::string("TXN ") + what + " = " + std::to_string(v) + " does not fit in " +
                            std::to_string(bits) + " bits");
  return static_cast<uint32_t>(v);
}

uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
uint32_t op(Opcode o) { return static_cast<uint32_t>(o); }

struct Encoder {
  std::vector<uint32_t>& out;

  void operator()(const Write32& b) const {
    out.insert(out.end(), {op(Opcode::WRITE), 0, lo(b.addr), hi(b.addr), b.value, 24});
  }
  void operator()(const MaskWrite32& b) const {
    out.insert(out.end(), {op(Opcode::MASKWRITE), 0, lo(b.addr), hi(b.addr), b.value, b.mask, 28});
  }
  void operator()(const MaskPoll32& b) const {
    const Opcode o = b.busy ? Opcode::MASKPOLL_BUSY : Opcode::MASKPOLL;
    out.insert(out.end(), {op(o), 0, lo(b.addr), hi(b.addr), b.value, b.mask, 28});
  }
  void operator()(const BlockWrite& b) const {
    const uint64_t bytes = 16 + 4 * uint64_t{b.data.size()};
    out.insert(out.end(),
               {op(Opcode::BLOCKWRITE), fit(b.col, 8, "blockwrite col") | fit(b.row, 8, "blockwrite row") << 8, b.addr,
                fit(bytes, 32, "blockwrite bytes")});
    out.insert(out.end(), b.data.begin(), b.data.end());
  }
  void operator()(const Tct& b) const {
    out.insert(
        out.end(),
        {op(Opcode::TCT), 16,
         static_cast<uint32_t>(b.dir) | fit(b.row, 8, "tct row") << 8 | fit(b.col, 8, "tct col") << 16,
         fit(b.nrow, 8, "tct nrow") << 8 | fit(b.ncol, 8, "tct ncol") << 16 | fit(b.channel, 8, "tct channel") << 24});
  }
  void operator()(const DdrPatch& b) const {
    out.insert(out.end(), {op(Opcode::DDR_PATCH), 48, 0, 0, 0, b.action, b.regaddr, 0, b.arg_idx, 0, lo(b.arg_plus),
                           hi(b.arg_plus)});
  }
  void operator()(const LoadPdi& b) const {
    out.insert(out.end(), {op(Opcode::LOADPDI) | fit(b.id, 16, "loadpdi id") << 16, b.size, lo(b.addr), hi(b.addr)});
  }
  void operator()(const Preempt& b) const {
    out.push_back(op(Opcode::PREEMPT) | fit(b.level, 24, "preempt level") << 8);
  }
  void operator()(const CreateScratchpad& b) const {
    out.insert(out.end(), {op(Opcode::CREATE_SCRATCHPAD) | fit(b.usage, 8, "scratchpad usage") << 8, b.size, 0, 0});
  }
  void operator()(const UpdateReg& b) const {
    out.insert(out.end(), {op(Opcode::UPDATE_REG) | fit(b.table, 8, "update_reg table") << 8 |
                               fit(b.func, 8, "update_reg func") << 16,
                           b.arg, b.reg});
  }
  void operator()(const Noop&) const { out.push_back(op(Opcode::NOOP)); }
  void operator()(const CustomOp& b) const {
    if (b.opcode != Opcode::READ_REGS && b.opcode != Opcode::RECORD_TIMER && b.opcode != Opcode::MERGE_SYNC)
      throw std::invalid_argument("TXN custom op " + std::string(to_string(b.opcode)) +
                                  " has typed fields: use its own writer method");
    const uint64_t bytes = 8 + 4 * uint64_t{b.payload.size()};
    out.insert(out.end(), {op(b.opcode), fit(bytes, 32, "custom op bytes")});
    out.insert(out.end(), b.payload.begin(), b.payload.end());
  }
};

}  // namespace

Writer& Writer::blockwrite(uint32_t addr, std::span<const uint32_t> data) {
  return add(BlockWrite{(addr >> 25) & 0x7F, (addr >> 20) & 0x1F, addr, data});
}

Writer& Writer::add(const OpBody& body) {
  const std::size_t before = body_.size();
  try {
    std::visit(Encoder{body_}, body);
  } catch (...) {
    body_.resize(before);  // a refused op leaves the stream as it was
    throw;
  }
  ++ops_;
  return *this;
}

Writer& Writer::append(const Op& o) {
  body_.insert(body_.end(), o.words.begin(), o.words.end());
  ++ops_;
  return *this;
}

std::vector<uint32_t> Writer::words() const {
  const uint64_t bytes = 4 * uint64_t{word_count()};
  if (bytes > 0xFFFFFFFFu || ops_ > 0xFFFFFFFFu)
    throw std::length_error("TXN stream of " + std::to_string(bytes) + " bytes does not fit the header's 32-bit size");
  Header h{device_, static_cast<uint32_t>(ops_), static_cast<uint32_t>(bytes)};
  std::vector<uint32_t> out;
  out.reserve(word_count());
  const auto hw = h.words();
  out.insert(out.end(), hw.begin(), hw.end());
  out.insert(out.end(), body_.begin(), body_.end());
  return out;
}

}  // namespace axcore::txn
