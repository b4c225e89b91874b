#include <axcore/spec.hpp>
#include <axcore/txn/compare.hpp>

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

std::string explain_txn(const Bundle& b) { return b.txn.empty() ? "" : txn::explain(b.txn, host_preset(b)); }

}  // namespace axcore::runtime
