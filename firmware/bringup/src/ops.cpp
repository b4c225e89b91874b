#include "ops.hpp"

#include <iomanip>
#include <sstream>
#include "axcore/text/hex.hpp"

namespace axcore::bringup::detail {

std::string hex(uint64_t v, int w) { return text::hex_width(v, w + 2); }

S::DmaBd linear(const Device& d, const Loc& l, uint32_t words) {
  S::DmaBd bd;
  bd.valid = 1;
  bd.mem = l.mem;
  bd.core = l.core;
  bd.length = words;
  bd.d0_size = words;
  bd.d0_stride = 1;
  const uint64_t a = l.mem == S::MemSel::DDR ? d.ddr_base() + l.addr : l.addr;
  bd.addr_lo = static_cast<uint32_t>(a);
  bd.addr_hi = static_cast<uint32_t>(a >> 32);
  return bd;
}

void write_bd(Device& d, uint32_t row, uint32_t bd, const S::DmaBd& v) {
  const auto w = v.encode();
  for (uint32_t i = 0; i < w.size(); ++i) d.write32(reg(row, S::shim::DMA_BD.at(bd) + 4 * i), w[i]);
}

uint32_t push_word(uint32_t start, uint32_t tag) {
  S::QueuePush p;
  p.start = start;
  p.tag = tag;
  p.token = 1;
  return p.encode_word();
}

uint32_t wait(Device& d, uint32_t row, uint32_t dir, uint32_t ch, const std::string& what, uint64_t timeout) {
  uint32_t t = 0;
  try {
    t = d.wait_token(0, row, dir, ch, timeout);
  } catch (const device::TimeoutError& e) {
    throw StepFail(what + ": no completion token (" + e.what() + ")",
                   "the DMA engine of row " + std::to_string(row) + " (clock, AXI master, queue registers)");
  }
  const auto tok = S::Token::decode_word(t);
  if (tok.error)
    throw StepFail(what + ": task ended with " + std::string(S::to_string(tok.code)) + " (token " + hex(t) + ")",
                   "the BD fields and the memory map of row " + std::to_string(row));
  return t;
}

void transfer(Device& d, uint32_t row, uint32_t ch, const S::DmaBd& src, const S::DmaBd& dst, const std::string& what) {
  write_bd(d, row, 2 * ch, src);
  write_bd(d, row, 2 * ch + 1, dst);
  d.write32(reg(row, S::shim::DMA_S2MM_QUEUE.at(ch)), push_word(2 * ch + 1, 1));
  d.write32(reg(row, S::shim::DMA_MM2S_QUEUE.at(ch)), push_word(2 * ch, 2));
  wait(d, row, 0, ch, what + " (S2MM)");
  wait(d, row, 1, ch, what + " (MM2S)");
}

void ddr_put_bytes(Device& d, uint64_t off, const std::vector<uint8_t>& b) { d.ddr_write(off, b); }
std::vector<uint8_t> ddr_get_bytes(Device& d, uint64_t off, size_t n) {
  std::vector<uint8_t> b(n);
  d.ddr_read(off, b);
  return b;
}

void ddr_put(Device& d, uint64_t off, const std::vector<uint32_t>& w) {
  std::vector<uint8_t> b(4 * w.size());
  for (size_t i = 0; i < w.size(); ++i)
    for (size_t k = 0; k < 4; ++k) b[4 * i + k] = static_cast<uint8_t>(w[i] >> (8 * k));
  d.ddr_write(off, b);
}
std::vector<uint32_t> ddr_get(Device& d, uint64_t off, size_t n) {
  const auto b = ddr_get_bytes(d, off, 4 * n);
  std::vector<uint32_t> w(n);
  for (size_t i = 0; i < n; ++i)
    w[i] =
        uint32_t{b[4 * i]} | uint32_t{b[4 * i + 1]} << 8 | uint32_t{b[4 * i + 2]} << 16 | uint32_t{b[4 * i + 3]} << 24;
  return w;
}

void compare(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want, const std::string& what,
             const std::string& check) {
  uint32_t ones = 0, zeros = 0;
  size_t first = got.size(), bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      if (first == got.size()) first = i;
      ++bad;
      ones |= got[i] & ~want[i];
      zeros |= want[i] & ~got[i];
    }
  if (!bad) return;
  std::ostringstream o;
  o << what << ": " << bad << " of " << got.size() << " words differ; first at word " << first << ": read "
    << hex(got[first]) << ", expected " << hex(want[first]) << "; bits read 1 instead of 0: " << hex(ones)
    << ", read 0 instead of 1: " << hex(zeros);
  if (ones && !zeros) o << " (bits stuck at 1?)";
  if (zeros && !ones) o << " (bits stuck at 0?)";
  throw StepFail(o.str(), check);
}

Ddr ddr_regions(const Device& d) {
  const uint64_t q = (d.ddr_size() - (2u << 20)) / 4;
  if (q < 0x40000)
    throw StepFail("DDR of " + std::to_string(d.ddr_size()) + " bytes is too small", "the u-dma-buf size");
  return {q, 2 * q, 3 * q};
}

}  // namespace axcore::bringup::detail
