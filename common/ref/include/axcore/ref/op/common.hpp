// Shared pieces of the operator references: the DPU's casts on array elements and NumPy-style
// broadcasting.
#pragma once

#include <axcore/spec.hpp>
#include <bit>
#include <type_traits>

#include "axcore/num/float18.hpp"
#include "axcore/num/pword.hpp"
#include "axcore/ref/ndarray.hpp"

namespace axcore::ref {

template <class T>
constexpr spec::Dtype dtype_of() {
  if constexpr (std::is_same_v<T, float>)
    return spec::Dtype::FLOAT32;
  else if constexpr (std::is_same_v<T, num::Float16>)
    return spec::Dtype::FLOAT16;
  else if constexpr (std::is_same_v<T, int8_t>)
    return spec::Dtype::INT8;
  else if constexpr (std::is_same_v<T, int32_t>)
    return spec::Dtype::INT32;
  else
    static_assert(sizeof(T) == 0, "element type must be float, Float16, int8_t or int32_t");
}

template <class T>
double value_of(T v) {
  if constexpr (std::is_same_v<T, num::Float16>)
    return num::to_double(v);
  else
    return static_cast<double>(v);
}

// The DPU POP cast of one element: T -> float18 (one rounding).
template <class T>
num::Float18 to_f18(T v) {
  return num::f18_from_double(value_of(v));
}

// The DPU PUSH cast: float18 -> T (one rounding: RNE, saturating for integers, NaN -> 0).
template <class T>
T from_f18(num::Float18 v) {
  const uint32_t raw = num::encode_lane(dtype_of<T>(), num::to_double(v));
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<float>(raw);
  else if constexpr (std::is_same_v<T, num::Float16>)
    return num::Float16{static_cast<uint16_t>(raw)};
  else if constexpr (std::is_same_v<T, int8_t>)
    return static_cast<int8_t>(static_cast<uint8_t>(raw));
  else
    return static_cast<int32_t>(raw);
}

template <class T>
NDArray<num::Float18> to_f18(const NDArray<T>& a) {
  NDArray<num::Float18> r(a.shape());
  for (std::size_t i = 0; i < a.size(); ++i) r.data()[i] = to_f18(a.data()[i]);
  return r;
}

template <class T>
NDArray<T> from_f18(const NDArray<num::Float18>& a) {
  NDArray<T> r(a.shape());
  for (std::size_t i = 0; i < a.size(); ++i) r.data()[i] = from_f18<T>(a.data()[i]);
  return r;
}

// NumPy broadcasting of two shapes (trailing axes aligned; extents equal or 1).
Shape broadcast_shapes(const Shape& a, const Shape& b);
// The flat offset into an array of shape `s` that broadcasting maps output index `idx` to.
std::size_t broadcast_offset(const Shape& s, const std::vector<std::size_t>& idx);

}  // namespace axcore::ref
