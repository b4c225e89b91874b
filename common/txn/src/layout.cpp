#include "axcore/txn/layout.hpp"

#include <axcore/spec.hpp>
#include <limits>

namespace axcore::txn {

const Layout* find_layout(uint32_t dev_gen) {
  if (dev_gen == 3) return &aie2_layout();
  if (dev_gen == 4) return &aie2p_layout();
  if (dev_gen == spec::kTxnDevGen) return &axcore_layout();
  return nullptr;
}

void normalize_walk(Transfer& t) {
  if (!t.padding.empty()) return;  // padding is per dimension: keep them all
  std::erase_if(t.dims, [](const Dim& d) { return d.wrap <= 1; });
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t extent = 1;
  for (const Dim& d : t.dims) {
    if (d.stride != extent) return;
    extent = extent > kMax / d.wrap ? kMax : extent * d.wrap;
  }
  if (t.length <= static_cast<uint64_t>(extent) || t.outer_stride == extent) {
    t.dims.clear();
    t.outer_stride = 1;
  }
}

}  // namespace axcore::txn
