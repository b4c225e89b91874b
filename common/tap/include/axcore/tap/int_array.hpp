// A small N-D integer array (shape + row-major data), what accesses() returns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace axcore::tap {

struct IntArray {
  std::vector<int64_t> shape;
  std::vector<int64_t> data;  // row-major, prod(shape) entries

  // NumPy's tolist() spelling: `[[0, 1], [2, 3]]`.
  std::string to_list() const;
  bool operator==(const IntArray&) const = default;
};

// `[0, 1, 2]` for a flat list.
std::string to_list(const std::vector<int64_t>& values);

}  // namespace axcore::tap
