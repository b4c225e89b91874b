#include <axcore/spec.hpp>
#include <cstdio>

#include "axcore/runtime/trace_tools.hpp"
#include "axcore/text/hex.hpp"

namespace axcore::runtime {
namespace {

using text::hex;

// The register at `offset` of a tile kind: NAME, NAME[i], NAME word k (spec::find_register).
std::string register_at(spec::TileKind kind, uint32_t offset) {
  const spec::RegisterAt r = spec::find_register(kind, offset);
  if (!r) return "";
  std::string s(r.reg->name);
  if (r.reg->memory) return s + " word " + std::to_string(r.word);
  if (r.reg->count > 1) s += "[" + std::to_string(r.index) + "]";
  if (r.reg->words > 1) s += " word " + std::to_string(r.word);
  return s;
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
  const spec::TileAddr t = spec::decode_addr32(static_cast<uint32_t>(addr));
  const std::string tile =
      t.kind == spec::TileKind::Core ? "core" + std::to_string(t.core) : std::string(spec::to_string(t.kind));
  const std::string name = register_at(t.kind, t.offset);
  return tile + " " + (name.empty() ? "offset " + hex(t.offset) + " (no register)" : name);
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
