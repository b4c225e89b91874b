// Shrinks a failing random program to a smaller one that still fails: removes hops, chained BDs,
// repeats, padding and dimensions, halves sizes, moves hops to SysDMA — keeping each edit that is
// legal (normalize) and still fails, until no edit helps (a fixpoint).
#pragma once

#include <functional>
#include <string>

#include "program.hpp"

namespace axcore::rand {

using FailPredicate = std::function<bool(const Program&)>;  // true: the failure is still there

struct ReduceStats {
  unsigned tried = 0, kept = 0;
  std::size_t bds_before = 0, bds_after = 0;
};

Program reduce(Program p, const FailPredicate& fails, ReduceStats* stats = nullptr,
               const std::function<void(const std::string&)>& log = {});

}  // namespace axcore::rand
