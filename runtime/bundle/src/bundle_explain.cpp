#include <axcore/spec.hpp>
#include <axcore/txn/compare.hpp>
#include <axcore/txn/decode.hpp>
#include <map>

#include "axcore/runtime/bundle.hpp"

namespace axcore::runtime {

std::vector<txn::Preset> host_preset(const Bundle& b) {
  std::vector<txn::Preset> out;
  for (const auto& c : b.commands)
    for (size_t i = 0; i < c.words.size(); ++i)
      out.push_back({spec::tile_addr(0, spec::core_row(c.core), spec::core::CMD_MEM.at(c.word)) + 4 * i, c.words[i]});
  for (const auto& p : b.params)
    for (const auto& t : p.targets) out.push_back({t.addr, p.default_bits << t.shift, t.mask});
  return out;
}

std::vector<CommandStream> command_memory(const Bundle& b) {
  std::map<uint32_t, std::vector<uint32_t>> mem;  // per core, from word 0
  auto put = [&](uint32_t core, uint32_t word, uint32_t value) {
    auto& m = mem[core];
    if (m.size() <= word) m.resize(word + 1);
    m[word] = value;
  };
  for (const auto& c : b.commands)
    for (size_t i = 0; i < c.words.size(); ++i) put(c.core, c.word + static_cast<uint32_t>(i), c.words[i]);
  // A TXN write into CMD_MEM: column 0, a core row, an offset inside the command memory.
  auto written = [&](uint64_t addr, uint32_t value) {
    if (addr >> 32 || addr >> spec::param::addr_col_shift) return;
    const uint32_t row = static_cast<uint32_t>(addr >> spec::param::addr_row_shift) & 0x1F;
    const uint32_t off = static_cast<uint32_t>(addr) & ((1u << spec::param::addr_row_shift) - 1);
    const auto& cm = spec::core::CMD_MEM;
    if (row < spec::param::first_core_row || off < cm.offset || off >= cm.offset + 4 * cm.count || off % 4) return;
    put(row - spec::param::first_core_row, (off - cm.offset) / 4, value);
  };
  if (!b.txn.empty())
    for (const txn::Op& op : txn::decode(b.txn).ops) {
      if (const auto* w = std::get_if<txn::Write32>(&op.body)) written(w->addr, w->value);
      if (const auto* w = std::get_if<txn::BlockWrite>(&op.body))
        for (size_t i = 0; i < w->data.size(); ++i) written(uint64_t{w->addr} + 4 * i, w->data[i]);
    }
  std::vector<CommandStream> out;
  for (auto& [core, words] : mem)
    out.push_back({"core" + std::to_string(core) + ".cmd_mem", core, 0, std::move(words)});
  return out;
}

std::string explain_txn(const Bundle& b) { return b.txn.empty() ? "" : txn::explain(b.txn, host_preset(b)); }

}  // namespace axcore::runtime
