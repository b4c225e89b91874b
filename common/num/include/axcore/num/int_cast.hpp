// Integer casts shared by every unit: int8 saturation, RNE float -> int, wrapping int32 math.
#pragma once

#include <cstdint>

namespace axcore::num {

// Round to nearest integer, ties to even, of a finite double (no range check).
double round_half_even(double v);
// RNE then clip to [-128, 127]; NaN gives 0. Exact for every float16/float18/float32 input.
int8_t saturate_to_int8(double v);
// RNE then saturate to [INT32_MIN, INT32_MAX]; +-inf saturate; NaN gives 0.
int32_t saturate_to_int32(double v);
// Clip an integer to [-128, 127].
int8_t clip_to_int8(int64_t v);

// Two's complement wrapping arithmetic (MVM and DWPU accumulators).
constexpr int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
constexpr int32_t wrap_mul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}
constexpr int32_t wrap_int32(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

// Integer division sum / divisor rounded to nearest, ties to even (divisor > 0).
// The DWPU AVERAGE uses it; exact for every int32 sum.
int32_t div_round_half_even(int64_t sum, int64_t divisor);

}  // namespace axcore::num
