#include "axcore/num/int_cast.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace axcore::num {

double round_half_even(double v) {
  if (!(std::fabs(v) < 4503599627370496.0)) return v;  // >= 2^52 (or NaN): already integral
  const double fl = std::floor(v);
  const double d = v - fl;  // exact below 2^52
  if (d > 0.5) return fl + 1.0;
  if (d < 0.5) return fl;
  return std::fmod(fl, 2.0) == 0.0 ? fl : fl + 1.0;
}

int8_t saturate_to_int8(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 127.0) return 127;
  if (v <= -128.0) return -128;
  // |v| < 2^51: 1.5 * 2^52 + v lies in [2^52, 2^53), where doubles are the integers, so the add
  // rounds v to an integer (RNE, the default rounding mode) and the subtraction is exact: the
  // same integer as round_half_even(v), without its floor and fmod calls (every int8 output of
  // the DPU passes here).
  constexpr double kMagic = 6755399441055744.0;                         // 1.5 * 2^52
  return static_cast<int8_t>(static_cast<int>((v + kMagic) - kMagic));  // no fast-math: kept as written
}

int32_t saturate_to_int32(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  if (v <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(round_half_even(v));
}

int8_t clip_to_int8(int64_t v) {
  if (v > 127) return 127;
  if (v < -128) return -128;
  return static_cast<int8_t>(v);
}

int32_t div_round_half_even(int64_t sum, int64_t divisor) {
  const bool negative = sum < 0;
  const int64_t mag = negative ? -sum : sum;
  int64_t q = mag / divisor;
  const int64_t r2 = 2 * (mag % divisor);
  if (r2 > divisor || (r2 == divisor && (q & 1) != 0)) ++q;
  return wrap_int32(negative ? -q : q);
}

}  // namespace axcore::num
