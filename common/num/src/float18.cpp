#include "axcore/num/float18.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include "axcore/num/int_cast.hpp"

namespace axcore::num {

Float18 f18_from_double(double v) {
  const uint64_t b = std::bit_cast<uint64_t>(v);
  const uint32_t sign = (b >> 63) != 0 ? Float18::kSignBit : 0;
  const uint32_t e = static_cast<uint32_t>(b >> 52) & 0x7FF;
  const uint64_t m = b & ((uint64_t{1} << 52) - 1);
  if (e == 0x7FF) return Float18::from_bits(m != 0 ? Float18::kCanonicalNan : sign | Float18::kPosInf);
  if (e == 0) return Float18::from_bits(sign);  // zero or a double subnormal: far below 2^-62
  // Keep 11 significant bits (1 implicit + 10 fraction) of the 53, round to nearest even.
  constexpr int kDrop = 52 - static_cast<int>(Float18::kFracBits);
  const uint64_t sig = (uint64_t{1} << 52) | m;
  uint64_t keep = sig >> kDrop;
  const uint64_t rem = sig & ((uint64_t{1} << kDrop) - 1);
  const uint64_t half = uint64_t{1} << (kDrop - 1);
  if (rem > half || (rem == half && (keep & 1) != 0)) ++keep;
  int exp = static_cast<int>(e) - 1023;
  if ((keep >> (Float18::kFracBits + 1)) != 0) {  // rounded up to the next binade
    keep >>= 1;
    ++exp;
  }
  if (exp > Float18::kMaxExp) return Float18::from_bits(sign | Float18::kPosInf);
  if (exp < Float18::kMinExp) return Float18::from_bits(sign);  // flush to zero, keep the sign
  const auto biased = static_cast<uint32_t>(exp + Float18::kBias);
  return Float18::from_bits(sign | biased << Float18::kFracBits | (static_cast<uint32_t>(keep) & Float18::kFracMask));
}

Float18 f18_from_float(float v) { return f18_from_double(static_cast<double>(v)); }
Float18 f18_from_int32(int32_t v) { return f18_from_double(static_cast<double>(v)); }
Float18 f18_from_int8(int8_t v) { return f18_from_double(static_cast<double>(v)); }
Float18 f18_from_f16(Float16 v) { return f18_from_double(to_double(v)); }
Float16 to_f16(Float18 v) { return f16_from_double(to_double(v)); }

double to_double(Float18 v) {
  // Built from bits: float18 normals map to double normals with the same fraction.
  const uint64_t sign = v.sign() ? uint64_t{1} << 63 : 0;
  if (v.is_zero()) return std::bit_cast<double>(sign);
  if (v.is_nan()) return std::numeric_limits<double>::quiet_NaN();
  if (v.is_inf()) return std::bit_cast<double>(sign | uint64_t{0x7FF} << 52);
  const uint64_t exp = uint64_t{v.exp_field()} - Float18::kBias + 1023;
  return std::bit_cast<double>(sign | exp << 52 | uint64_t{v.frac_field()} << 42);
}

float to_float(Float18 v) { return static_cast<float>(to_double(v)); }
int32_t to_int32(Float18 v) { return saturate_to_int32(to_double(v)); }
int8_t to_int8(Float18 v) { return saturate_to_int8(to_double(v)); }

// Every float18 is a double, and 53 >= 2 * 11 + 2, so rounding the double sum, difference or
// product to float18 gives the correctly rounded float18 of the exact result (double rounding
// is innocuous at that precision; products of 11-bit significands are even exact in double).
Float18 add(Float18 a, Float18 b) { return f18_from_double(to_double(a) + to_double(b)); }
Float18 sub(Float18 a, Float18 b) { return f18_from_double(to_double(a) - to_double(b)); }
Float18 mul(Float18 a, Float18 b) { return f18_from_double(to_double(a) * to_double(b)); }
Float18 fma(Float18 a, Float18 b, Float18 c) { return add(mul(a, b), c); }

Float18 min(Float18 a, Float18 b) {
  a = a.canonical();
  b = b.canonical();
  if (a.is_nan() || b.is_nan()) return Float18::from_bits(Float18::kCanonicalNan);
  if (a.is_zero() && b.is_zero()) return a.sign() ? a : b;  // -0 < +0
  return to_double(a) <= to_double(b) ? a : b;
}

Float18 max(Float18 a, Float18 b) {
  a = a.canonical();
  b = b.canonical();
  if (a.is_nan() || b.is_nan()) return Float18::from_bits(Float18::kCanonicalNan);
  if (a.is_zero() && b.is_zero()) return a.sign() ? b : a;
  return to_double(a) >= to_double(b) ? a : b;
}

Float18 prelu(Float18 a, Float18 b) {
  a = a.canonical();
  if (!a.is_nan() && to_double(a) >= 0.0) return a;
  return mul(a, b);
}

Float18 neg(Float18 a) {
  a = a.canonical();
  if (a.is_nan()) return a;
  return Float18::from_bits(a.bits() ^ Float18::kSignBit);
}

bool less(Float18 a, Float18 b) { return to_double(a) < to_double(b); }
bool less_equal(Float18 a, Float18 b) { return to_double(a) <= to_double(b); }

float rf18(float v) { return to_float(f18_from_float(v)); }

}  // namespace axcore::num
