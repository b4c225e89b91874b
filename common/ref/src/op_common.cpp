#include "axcore/ref/op/common.hpp"

#include <stdexcept>

namespace axcore::ref {

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const std::size_t r = std::max(a.size(), b.size());
  Shape out(r, 1);
  for (std::size_t i = 0; i < r; ++i) {
    const std::size_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const std::size_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw std::invalid_argument("shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::size_t broadcast_offset(const Shape& s, const std::vector<std::size_t>& idx) {
  const std::size_t lead = idx.size() - s.size();
  std::size_t off = 0;
  for (std::size_t k = 0; k < s.size(); ++k) off = off * s[k] + (s[k] == 1 ? 0 : idx[lead + k]);
  return off;
}

}  // namespace axcore::ref
