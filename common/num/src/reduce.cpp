#include "axcore/num/reduce.hpp"

namespace axcore::num {

namespace {
PwordF18 broadcast(Float18 v) {
  PwordF18 r;
  r.fill(v);
  return r;
}
}  // namespace

PwordF18 add_reduce(const PwordF18& a) {
  return broadcast(tree_reduce(a, [](Float18 x, Float18 y) { return add(x, y); }));
}
PwordF18 max_reduce(const PwordF18& a) {
  return broadcast(tree_reduce(a, [](Float18 x, Float18 y) { return max(x, y); }));
}
PwordF18 min_reduce(const PwordF18& a) {
  return broadcast(tree_reduce(a, [](Float18 x, Float18 y) { return min(x, y); }));
}

}  // namespace axcore::num
