// Cross-lane reductions of the DPU (ADD_REDUCE, MAX_REDUCE, MIN_REDUCE).
//
// The order is a fixed pairwise tree over the 64 lanes, rounding at each step:
//   level 1: v1[i] = op(v0[2i], v0[2i+1])   for i < 32  (v0 = the lanes)
//   level 2: v2[i] = op(v1[2i], v1[2i+1])   for i < 16
//   ... level 6: v6[0] = op(v5[0], v5[1]); the result v6[0] is broadcast to all 64 lanes.
// The left operand is always the lower-numbered lane group. The RTL implements this tree.
#pragma once

#include "axcore/num/pword.hpp"

namespace axcore::num {

PwordF18 add_reduce(const PwordF18& a);
PwordF18 max_reduce(const PwordF18& a);
PwordF18 min_reduce(const PwordF18& a);

// The tree itself, for any binary float18 op; returns the scalar before broadcast.
template <class Op>
Float18 tree_reduce(const PwordF18& a, Op op) {
  PwordF18 v = a;
  for (std::size_t n = kLanes / 2; n >= 1; n /= 2) {
    for (std::size_t i = 0; i < n; ++i) v[i] = op(v[2 * i], v[2 * i + 1]);
  }
  return v[0];
}

}  // namespace axcore::num
