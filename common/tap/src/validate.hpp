// The seed's validation helpers (mlir-aie's taplib/utils.py), shared by the pattern's source files.
#pragma once

#include <string>
#include <vector>

#include "axcore/tap/sym_int.hpp"

namespace axcore::tap::detail {

SymInt product(const std::vector<SymInt>& values);
void validate_tensor_dims(const std::vector<SymInt>& dims, std::vector<Guard>& guards);
void validate_offset(const SymInt& offset, const std::vector<SymInt>& dims, std::vector<Guard>& guards);
// Checks sizes >= 1 and strides >= 0 and zeroes the strides of leading unit dimensions.
void validate_and_clean_sizes_strides(const std::vector<SymInt>& sizes, std::vector<SymInt>& strides,
                                      std::vector<Guard>& guards);
// Zeroes the stride of each unit dimension up to the first that steps (innermost left as is).
void zero_leading_unit_strides(const std::vector<SymInt>& sizes, std::vector<SymInt>& strides);
// `(1, 0)` / `(3,)`: a Python tuple.
std::string py_tuple(const std::vector<int>& values);
std::vector<int> validate_permutation(const std::vector<int>& axes, int rank, const char* what);

}  // namespace axcore::tap::detail
