// Reads the descriptor an axcore core-queue push runs from the replayed command memory.
#pragma once

#include <axcore/spec.hpp>

#include "axcore/txn/layout.hpp"

namespace axcore::txn::detail {

// Words of a spec struct that hold fields (the rest are reserved and never read).
template <class S>
constexpr uint32_t field_words() {
  uint32_t n = 0;
  for (const auto& f : S::kFields) n = f.word + 1 > n ? f.word + 1 : n;
  return n;
}

TaskRead read_axcore_task(spec::Queue queue, uint32_t start, const TileState& state);

}  // namespace axcore::txn::detail
