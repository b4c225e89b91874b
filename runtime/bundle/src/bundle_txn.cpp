// The one TXN a device plays for a bundle (program_txn) and what a bundle leaves in command
// memory (command_memory). See bundle.hpp.
#include <axcore/spec.hpp>
#include <axcore/txn/decode.hpp>
#include <axcore/txn/writer.hpp>

#include "axcore/runtime/bundle.hpp"

namespace axcore::runtime {
namespace {

// A parameter target with the bits it gets.
struct Target {
  ParamTarget t;
  uint32_t bits = 0;
  uint32_t apply(uint32_t reg) const { return (reg & ~t.mask) | ((bits << t.shift) & t.mask); }
};

std::vector<Target> targets(const Bundle& b, const ParamBits& bits) {
  std::vector<Target> out;
  for (const auto& p : b.params) {
    const auto it = bits.find(p.name);
    for (const auto& t : p.targets) out.push_back({t, it == bits.end() ? p.default_bits : it->second});
  }
  return out;
}

uint64_t cmd_mem_addr(uint32_t core, uint32_t word) {
  return spec::tile_addr(0, spec::core_row(core), spec::core::CMD_MEM.at(word));
}

}  // namespace

ProgramTxn program_txn(const Bundle& b, const ParamBits& bits) {
  ProgramTxn out;
  const auto all = targets(b, bits);
  if (b.txn.empty()) {
    for (const auto& t : all) out.before.push_back({t.t, t.bits});
    return out;
  }
  const txn::Decoded d = txn::decode(b.txn);
  std::vector<bool> in_txn(all.size(), false);  // a TXN write carries the target
  auto patch = [&](uint64_t addr, uint32_t& value) {
    bool hit = false;
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i].t.addr == addr) value = all[i].apply(value), in_txn[i] = hit = true;
    return hit;
  };
  txn::Writer w(d.header.device);
  bool changed = !b.commands.empty();
  for (const auto& c : b.commands) {
    std::vector<uint32_t> words = c.words;
    for (std::size_t i = 0; i < words.size(); ++i) patch(cmd_mem_addr(c.core, c.word) + 4 * i, words[i]);
    w.blockwrite(static_cast<uint32_t>(cmd_mem_addr(c.core, c.word)), words);
  }
  for (const txn::Op& op : d.ops) {
    if (const auto* x = std::get_if<txn::Write32>(&op.body)) {
      uint32_t v = x->value;
      if (patch(x->addr, v)) {
        w.write32(x->addr, v);
        changed = true;
        continue;
      }
    } else if (const auto* bw = std::get_if<txn::BlockWrite>(&op.body)) {
      std::vector<uint32_t> words(bw->data.begin(), bw->data.end());
      bool hit = false;
      for (std::size_t i = 0; i < words.size(); ++i) hit = patch(uint64_t{bw->addr} + 4 * i, words[i]) || hit;
      if (hit) {
        w.blockwrite(bw->addr, words);
        changed = true;
        continue;
      }
    } else if (const auto* mw = std::get_if<txn::MaskWrite32>(&op.body)) {
      uint32_t v = mw->value, m = mw->mask;
      for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].t.addr == mw->addr) v = all[i].apply(v), m |= all[i].t.mask, in_txn[i] = true;
      if (v != mw->value || m != mw->mask) {
        w.maskwrite32(mw->addr, v, m);
        changed = true;
        continue;
      }
    }
    w.append(op);
  }
  out.txn = changed ? w.words() : b.txn;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (!in_txn[i]) out.before.push_back({all[i].t, all[i].bits});
  return out;
}

std::vector<CommandStream> command_memory(const Bundle& b) {
  std::map<uint32_t, std::vector<uint32_t>> mem;  // per core, from word 0
  // A TXN write into CMD_MEM: column 0, a core row, an offset inside the command memory.
  auto written = [&](uint64_t addr, uint32_t value) {
    const auto t = spec::decode_addr(addr);
    if (!t || t->col != 0 || t->kind != spec::TileKind::Core || t->offset % 4) return;
    const spec::RegisterAt r = spec::find_register(t->kind, t->offset);
    if (!r || r.reg->offset != spec::core::CMD_MEM.offset) return;
    auto& m = mem[t->core];
    const uint32_t word = r.word;
    if (m.size() <= word) m.resize(word + 1);
    m[word] = value;
  };
  const auto prog = program_txn(b, {});
  for (const auto& [t, bits] : prog.before) written(t.addr, (bits << t.shift) & t.mask);
  if (!prog.txn.empty())
    for (const txn::Op& op : txn::decode(prog.txn).ops) {
      if (const auto* w = std::get_if<txn::Write32>(&op.body)) written(w->addr, w->value);
      if (const auto* w = std::get_if<txn::BlockWrite>(&op.body))
        for (size_t i = 0; i < w->data.size(); ++i) written(uint64_t{w->addr} + 4 * i, w->data[i]);
    }
  std::vector<CommandStream> out;
  for (auto& [core, words] : mem)
    out.push_back({"core" + std::to_string(core) + ".cmd_mem", core, 0, std::move(words)});
  return out;
}

}  // namespace axcore::runtime
