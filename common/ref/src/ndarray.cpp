#include "axcore/ref/ndarray.hpp"

#include <limits>

namespace axcore::ref {

std::string shape_str(const Shape& s) {
  std::string r = "(";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

std::size_t shape_numel(const Shape& s) {
  std::size_t n = 1;
  for (std::size_t d : s) {
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d) {
      throw std::overflow_error("shape " + shape_str(s) + " has more elements than fit in memory");
    }
    n *= d;
  }
  return n;
}

bool next_index(std::vector<std::size_t>& idx, const Shape& shape) {
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (++idx[k] < shape[k]) return true;
    idx[k] = 0;
  }
  return false;
}

std::size_t norm_axis(int axis, std::size_t rank) {
  const auto r = static_cast<int>(rank);
  const int a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r) {
    throw std::invalid_argument("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  }
  return static_cast<std::size_t>(a);
}

}  // namespace axcore::ref
