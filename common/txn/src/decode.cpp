#include "axcore/txn/decode.hpp"

#include <algorithm>

#include "axcore/txn/text.hpp"

namespace axcore::txn {
namespace {

constexpr uint32_t kWrite32Words = 6, kMaskWords = 7;
constexpr uint32_t kTctBytes = 16, kDdrPatchBytes = 48;

[[noreturn]] void fail(const std::string& msg, std::size_t word) { throw DecodeError(msg, word); }

std::string op_at(Opcode op, std::size_t pos) {
  return "the " + std::string(to_string(op)) + " at word " + std::to_string(pos);
}

class Reader {
 public:
  explicit Reader(std::span<const uint32_t> w) : w_(w) {}
  // Ensures the op at `pos` has `count` words inside the stream.
  void need(std::size_t pos, uint64_t count) const {
    if (pos + count > w_.size()) fail("the op at word " + std::to_string(pos) + " runs past the stream", pos);
  }
  uint32_t at(std::size_t i) const { return w_[i]; }
  std::span<const uint32_t> slice(std::size_t pos, std::size_t count) const { return w_.subspan(pos, count); }

 private:
  std::span<const uint32_t> w_;
};

// Returns the op at `pos` and its length in words.
Op decode_op(const Reader& r, std::size_t pos) {
  const uint32_t w0 = r.at(pos);
  // An opcode TXN does not define, or one it defines without a word layout (blockset, ...), is
  // one this decoder does not handle: the seed's decoder names both alike.
  const auto known = opcode_of(w0);
  if (!known || !has_layout(*known)) fail("unknown TXN opcode " + hex(w0) + " at word " + std::to_string(pos), pos);
  const Opcode opc = *known;
  Op op;
  op.opcode = opc;
  op.pos = static_cast<uint32_t>(pos);
  auto take = [&](uint64_t count) {
    r.need(pos, count);
    op.words = r.slice(pos, static_cast<std::size_t>(count));
  };
  auto word = [&](std::size_t i) { return op.words[i]; };
  auto check_size_word = [&](std::size_t i, uint32_t bytes) {
    if (word(i) != bytes)
      fail(op_at(opc, pos) + " gives size " + std::to_string(word(i)) + ", its layout has " + std::to_string(bytes),
           pos + i);
  };
  auto addr64 = [&] { return uint64_t{word(3)} << 32 | word(2); };

  switch (opc) {
    case Opcode::WRITE:
      take(kWrite32Words);
      check_size_word(5, 4 * kWrite32Words);
      op.body = Write32{addr64(), word(4)};
      break;
    case Opcode::MASKWRITE:
      take(kMaskWords);
      check_size_word(6, 4 * kMaskWords);
      op.body = MaskWrite32{addr64(), word(4), word(5)};
      break;
    case Opcode::MASKPOLL:
    case Opcode::MASKPOLL_BUSY:
      take(kMaskWords);
      check_size_word(6, 4 * kMaskWords);
      op.body = MaskPoll32{addr64(), word(4), word(5), opc == Opcode::MASKPOLL_BUSY};
      break;
    case Opcode::BLOCKWRITE: {
      r.need(pos, 4);
      const uint32_t bytes = r.at(pos + 3);
      if (bytes < 16 || bytes % 4 != 0)
        fail(op_at(opc, pos) + " gives " + std::to_string(bytes) + " bytes; a blockwrite is 16 + 4 n bytes", pos + 3);
      take(bytes / 4);
      op.body = BlockWrite{word(1) & 0xFF, (word(1) >> 8) & 0xFF, word(2), op.words.subspan(4)};
      break;
    }
    case Opcode::LOADPDI:
      take(4);
      op.body = LoadPdi{(w0 >> 16) & 0xFFFF, word(1), addr64()};
      break;
    case Opcode::PREEMPT:
      take(1);
      op.body = Preempt{w0 >> 8};
      break;
    case Opcode::NOOP:
      take(1);
      op.body = Noop{};
      break;
    case Opcode::CREATE_SCRATCHPAD:
      take(4);
      op.body = CreateScratchpad{(w0 >> 8) & 0xFF, word(1)};
      break;
    case Opcode::UPDATE_REG:
      take(3);
      op.body = UpdateReg{(w0 >> 8) & 0xFF, (w0 >> 16) & 0xFF, word(1), word(2)};
      break;
    default: {  // custom ops: byte length in word 1
      r.need(pos, 2);
      const uint32_t bytes = r.at(pos + 1);
      const uint32_t fixed = opc == Opcode::TCT ? kTctBytes : opc == Opcode::DDR_PATCH ? kDdrPatchBytes : 0;
      if (fixed != 0 && bytes != fixed)
        fail(op_at(opc, pos) + " gives " + std::to_string(bytes) + " bytes, its layout has " + std::to_string(fixed),
             pos + 1);
      if (bytes < 8 || bytes % 4 != 0)
        fail(op_at(opc, pos) + " gives " + std::to_string(bytes) + " bytes; a custom op is 8 + 4 n bytes", pos + 1);
      take(bytes / 4);
      if (opc == Opcode::TCT) {
        const uint32_t w2 = word(2), w3 = word(3);
        op.body = Tct{(w2 & 0xFF) == 0 ? Dir::S2MM : Dir::MM2S,
                      (w2 >> 16) & 0xFF,
                      (w2 >> 8) & 0xFF,
                      (w3 >> 24) & 0xFF,
                      (w3 >> 16) & 0xFF,
                      (w3 >> 8) & 0xFF};
      } else if (opc == Opcode::DDR_PATCH) {
        op.body = DdrPatch{word(5), word(6), word(8), uint64_t{word(11)} << 32 | word(10)};
      } else {
        op.body = CustomOp{opc, op.words.subspan(2)};
      }
      break;
    }
  }
  return op;
}

}  // namespace

Header decode_header(std::span<const uint32_t> words) {
  if (words.size() < Header::kWords) fail("stream shorter than the 4-word TXN header", 0);
  return Header::of(words.first<4>());
}

Decoded decode(std::span<const uint32_t> words) {
  Decoded d;
  d.header = decode_header(words);
  const uint64_t bytes = 4 * uint64_t{words.size()};
  if (d.header.size != bytes)
    fail("TXN header gives " + std::to_string(d.header.size) + " bytes, the stream has " + std::to_string(bytes), 3);
  const Reader r(words);
  // A sane reservation only: the count comes from the input.
  d.ops.reserve(std::min<std::size_t>(d.header.num_ops, words.size() / 3));
  std::size_t pos = Header::kWords;
  while (pos < words.size()) {
    d.ops.push_back(decode_op(r, pos));
    pos += d.ops.back().words.size();
  }
  if (d.header.num_ops != d.ops.size())
    fail("TXN header counts " + std::to_string(d.header.num_ops) + " ops, the stream has " +
             std::to_string(d.ops.size()),
         2);
  return d;
}

}  // namespace axcore::txn
