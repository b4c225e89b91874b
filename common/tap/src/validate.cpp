#include "validate.hpp"

#include <algorithm>
#include <numeric>

#include "axcore/tap/errors.hpp"

namespace axcore::tap::detail {

SymInt product(const std::vector<SymInt>& values) {
  SymInt p(1);
  for (const auto& v : values) p = p * v;
  return p;
}

void validate_tensor_dims(const std::vector<SymInt>& dims, std::vector<Guard>& guards) {
  if (dims.empty()) { throw ValueError("Number of tensor dimensions must be >= 1 (dimensions=" + show(dims) + ")"); }
  for (const auto& d : dims) {
    require(ge(d, 1), "Each tensor dimension must be >= 1 (dimensions=" + show(dims) + ")", guards);
  }
}

void validate_offset(const SymInt& offset, const std::vector<SymInt>& dims, std::vector<Guard>& guards) {
  require(ge(offset, 0), "Offset must be >= 0 (offset=" + offset.str() + ")", guards);
  SymInt numel = product(dims);
  require(lt(offset, numel), "Offset too large: " + offset.str() + ". Max value allowed for tensor: " + numel.str(),
          guards);
}

void validate_and_clean_sizes_strides(const std::vector<SymInt>& sizes, std::vector<SymInt>& strides,
                                      std::vector<Guard>& guards) {
  if (sizes.empty()) throw ValueError("len(sizes) must be >0");
  if (strides.size() != sizes.size()) {
    throw ValueError("len(sizes) (" + std::to_string(sizes.size()) + ") != len(strides) (" +
                     std::to_string(strides.size()) + ")");
  }
  for (const auto& s : sizes) require(ge(s, 1), "All sizes must be >= 1, but got " + show(sizes), guards);
  for (const auto& s : strides) { require(ge(s, 0), "All strides must be >= 0, but got " + show(strides), guards); }
  zero_leading_unit_strides(sizes, strides);
}

void zero_leading_unit_strides(const std::vector<SymInt>& sizes, std::vector<SymInt>& strides) {
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
    if (sizes[i].constant() != 1) break;
    strides[i] = 0;
  }
}

std::string py_tuple(const std::vector<int>& values) {
  std::string out = "(";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + (values.size() == 1 ? ",)" : ")");
}

std::vector<int> validate_permutation(const std::vector<int>& axes, int rank, const char* what) {
  std::vector<int> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> expect(static_cast<std::size_t>(rank));
  std::iota(expect.begin(), expect.end(), 0);
  if (sorted != expect) {
    throw ValueError(std::string(what) + " must be a permutation of range(" + std::to_string(rank) + "), got " +
                     py_tuple(axes));
  }
  return axes;
}

}  // namespace axcore::tap::detail
