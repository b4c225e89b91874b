// Helpers for the operator-reference tests: random arrays and the float18 rounding bound.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

#include "axcore/ref/ndarray.hpp"

namespace axcore::ref::testing {

// Unit roundoff of float18 (11 significant bits, round to nearest): 2^-11.
inline constexpr double kU18 = 1.0 / 2048;

inline NDArray<int8_t> random_i8(const Shape& s, std::mt19937& rng, int lo = -128, int hi = 127) {
  std::uniform_int_distribution<int> d(lo, hi);
  NDArray<int8_t> a(s);
  for (auto& v : a.data()) v = static_cast<int8_t>(d(rng));
  return a;
}

inline NDArray<float> random_f32(const Shape& s, std::mt19937& rng, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  NDArray<float> a(s);
  for (auto& v : a.data()) v = static_cast<float>(d(rng));
  return a;
}

// Flat C-order offset of idx in shape s, computed from explicit strides (independent of NDArray).
inline std::size_t flat(const Shape& s, const std::vector<std::size_t>& idx) {
  std::size_t off = 0, stride = 1;
  for (std::size_t k = s.size(); k-- > 0;) {
    off += idx[k] * stride;
    stride *= s[k];
  }
  return off;
}

}  // namespace axcore::ref::testing
