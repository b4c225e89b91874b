#include "axcore/tap/int_array.hpp"

#include <cstddef>

namespace axcore::tap {

namespace {

void append(const IntArray& a, std::size_t dim, std::size_t& pos, std::string& out) {
  out += '[';
  for (int64_t i = 0; i < a.shape[dim]; ++i) {
    if (i) out += ", ";
    if (dim + 1 == a.shape.size()) {
      out += std::to_string(a.data[pos++]);
    } else {
      append(a, dim + 1, pos, out);
    }
  }
  out += ']';
}

}  // namespace

std::string IntArray::to_list() const {
  if (shape.empty()) return data.empty() ? "[]" : std::to_string(data[0]);
  std::string out;
  std::size_t pos = 0;
  append(*this, 0, pos, out);
  return out;
}

std::string to_list(const std::vector<int64_t>& values) {
  return IntArray{{static_cast<int64_t>(values.size())}, values}.to_list();
}

}  // namespace axcore::tap
