#include <axcore/spec.hpp>
#include <cstdio>

#include "axcore/runtime/trace_tools.hpp"
#include "axcore/text/hex.hpp"

namespace axcore::runtime {
namespace {

using text::hex;

template <size_t N>
std::string find_register(const std::array<spec::RegisterInfo, N>& regs, uint32_t off) {
  for (const auto& r : regs) {
    const uint32_t span = r.memory ? r.bytes : r.count * r.stride;
    if (off < r.offset || off >= r.offset + std::max(span, 4u)) continue;
    const uint32_t rel = off - r.offset;
    std::string s(r.name);
    if (r.memory) return s + " word " + std::to_string(rel / 4);
    const uint32_t i = r.stride ? rel / r.stride : 0, in = r.stride ? rel % r.stride : rel;
    if (in >= 4 * std::max(r.words, 1u)) continue;  // a gap between the elements of an array
    if (r.count > 1) s += "[" + std::to_string(i) + "]";
    if (r.words > 1) s += " word " + std::to_string(in / 4);
    return s;
  }
  return "";
}

std::string task_start_text(const trace::Record& r) {
  const auto p = spec::QueuePush::decode_word(r.token);
  const bool dma = r.unit >= trace::Unit::DMA_MM2S0 && r.unit <= trace::Unit::DMA_S2MM3;
  return std::string(dma ? "BD " : "descriptor at word ") + std::to_string(r.addr) + ", push " + hex(r.token) +
         " (start " + std::to_string(p.start) + ", repeat " + std::to_string(p.repeat) + ", tag " +
         std::to_string(p.tag) + (p.token ? ", token" : "") + ")";
}

std::string token_text(uint32_t word) {
  const auto t = spec::Token::decode_word(word);
  return hex(word) + " (tile (" + std::to_string(t.col) + "," + std::to_string(t.row) + ") " +
         (t.dir ? "MM2S" : "S2MM") + " ch" + std::to_string(t.channel) + ")";
}

}  // namespace

std::string register_name(uint64_t addr) {
  const uint32_t row = static_cast<uint32_t>(addr >> spec::param::addr_row_shift) & 0x1F;
  const uint32_t off = static_cast<uint32_t>(addr) & ((1u << spec::param::addr_row_shift) - 1);
  std::string name, tile;
  if (row == spec::param::shim_row) {
    tile = "shim";
    name = find_register(spec::shim::kRegisters, off);
  } else if (row == spec::param::mem_row) {
    tile = "mem";
    name = find_register(spec::mem::kRegisters, off);
  } else {
    tile = "core" + std::to_string(row - spec::param::first_core_row);
    name = find_register(spec::core::kRegisters, off);
  }
  return tile + " " + (name.empty() ? "offset " + hex(off) + " (no register)" : name);
}

std::string describe_record(const trace::Record& r) {
  std::string s = "record " + std::to_string(r.seq) + " at cycle " + std::to_string(r.cycle) + ": tile (" +
                  std::to_string(r.col) + "," + std::to_string(r.row) + ") " + std::string(trace::to_string(r.unit)) +
                  " " + std::string(trace::to_string(r.kind));
  switch (r.kind) {
    case trace::Kind::TASK_START: return s + " " + task_start_text(r);
    case trace::Kind::TASK_DONE:
      return s + " addr " + std::to_string(r.addr) + ", bytes " + std::to_string(r.bytes) + ", token " +
             token_text(r.token);
    case trace::Kind::MEM_WRITE:
      return s + " addr " + hex(r.addr) + ", bytes " + std::to_string(r.bytes) + ", data_hash " + hex(r.data_hash);
    case trace::Kind::TOKEN: return s + " token " + token_text(r.token);
    case trace::Kind::REG_WRITE:
      return s + " addr " + hex(r.addr) + " (" + register_name(r.addr) + "), value " + hex(r.data_hash);
  }
  return s;
}

std::string record_difference(const trace::Record& a, const trace::Record& b) {
  if (a.kind != b.kind)
    return "kind: " + std::string(trace::to_string(a.kind)) + " vs " + std::string(trace::to_string(b.kind));
  const uint8_t f = trace::defined_fields(a.kind);
  std::string d;
  auto add = [&](const std::string& x) { d += (d.empty() ? "" : "; ") + x; };
  if ((f & trace::kFieldAddr) && a.addr != b.addr) {
    std::string x = "addr: " + hex(a.addr) + " vs " + hex(b.addr);
    if (a.kind == trace::Kind::REG_WRITE) x += " (" + register_name(a.addr) + " vs " + register_name(b.addr) + ")";
    if (a.kind == trace::Kind::MEM_WRITE)
      x += " (" + std::to_string(static_cast<int64_t>(b.addr - a.addr)) + " bytes apart)";
    add(x);
  }
  if ((f & trace::kFieldBytes) && a.bytes != b.bytes)
    add("bytes: " + std::to_string(a.bytes) + " vs " + std::to_string(b.bytes));
  if ((f & trace::kFieldHash) && a.data_hash != b.data_hash)
    add(a.kind == trace::Kind::REG_WRITE ? "value: " + hex(a.data_hash) + " vs " + hex(b.data_hash)
                                         : "data_hash: " + hex(a.data_hash) + " vs " + hex(b.data_hash) +
                                               " (same address and length, different bytes: the trace keeps a hash, "
                                               "not the data; --fst or the outputs show the bytes)");
  if ((f & trace::kFieldToken) && a.token != b.token) {
    if (a.kind == trace::Kind::TASK_START) {
      const auto p = spec::QueuePush::decode_word(a.token), q = spec::QueuePush::decode_word(b.token);
      std::string x = "push word: " + hex(a.token) + " vs " + hex(b.token);
      if (p.start != q.start) x += ", start " + std::to_string(p.start) + " vs " + std::to_string(q.start);
      if (p.repeat != q.repeat) x += ", repeat " + std::to_string(p.repeat) + " vs " + std::to_string(q.repeat);
      if (p.tag != q.tag) x += ", tag " + std::to_string(p.tag) + " vs " + std::to_string(q.tag);
      add(x);
    } else {
      add("token: " + token_text(a.token) + " vs " + token_text(b.token));
    }
  }
  if (a.col != b.col || a.row != b.row || a.unit != b.unit) add("tile or unit differ");
  return d.empty() ? "no defined field differs" : d;
}

}  // namespace axcore::runtime
