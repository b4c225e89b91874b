#include <axcore/spec.hpp>
#include <axcore/txn/compare.hpp>

#include "axcore/runtime/bundle.hpp"

namespace axcore::runtime {

std::vector<txn::Preset> host_preset(const Bundle& b) {
  std::vector<txn::Preset> out;
  for (const auto& [t, bits] : program_txn(b, {}).before) out.push_back({t.addr, bits << t.shift, t.mask});
  return out;
}

std::string explain_txn(const Bundle& b) {
  return b.txn.empty() ? "" : txn::explain(program_txn(b, {}).txn, host_preset(b));
}

}  // namespace axcore::runtime
