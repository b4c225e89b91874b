// float18: the DPU's number format. 1 sign bit, 7 exponent bits (bias 63), 10 fraction bits.
//
// Bit layout (18 bits, held in the low bits of a uint32_t):
//   [17] sign   [16:10] biased exponent   [9:0] fraction
// Values: exponent field 1..126 is normal, (-1)^s * 1.f * 2^(e-63); field 0 is zero (any
// fraction is a subnormal encoding and reads as a zero of the same sign: flush on input);
// field 127 is infinity (fraction 0) or NaN (fraction != 0).
// Range: smallest normal 2^-62, largest finite (2 - 2^-10) * 2^63 (about 1.8447e19).
//
// Rounding: every conversion into float18 and every operation result is rounded to nearest,
// ties to even, as if the exponent range were unbounded; a rounded magnitude below 2^-62
// becomes a zero of the result's sign (flush to zero on output), one above the largest finite
// becomes infinity of the result's sign. Every NaN result is the canonical NaN kCanonicalNan
// (0x1FE00: sign 0, exponent 127, fraction 0x200). All of this is docs/numerics.md.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

#include "axcore/num/float16.hpp"

namespace axcore::num {

class Float18 {
 public:
  static constexpr uint32_t kBits = 18;
  static constexpr uint32_t kMask = (1u << kBits) - 1;
  static constexpr uint32_t kFracBits = 10;
  static constexpr uint32_t kExpBits = 7;
  static constexpr int kBias = 63;
  static constexpr int kMinExp = -62;  // smallest normal is 2^kMinExp
  static constexpr int kMaxExp = 63;   // largest finite is (2 - 2^-10) * 2^kMaxExp
  static constexpr uint32_t kSignBit = 1u << 17;
  static constexpr uint32_t kExpMask = 0x7Fu << kFracBits;
  static constexpr uint32_t kFracMask = (1u << kFracBits) - 1;
  static constexpr uint32_t kCanonicalNan = 0x1FE00;
  static constexpr uint32_t kPosInf = 0x1FC00;
  static constexpr uint32_t kNegInf = 0x3FC00;
  static constexpr uint32_t kMaxFinite = 0x1FBFF;
  static constexpr uint32_t kMinNormal = 0x00400;

  constexpr Float18() = default;
  // Any 18-bit pattern; higher bits are dropped. Subnormal and NaN encodings are kept as given
  // (they read as zero / NaN); every operation returns canonical results only.
  static constexpr Float18 from_bits(uint32_t bits) { return Float18(bits & kMask); }
  constexpr uint32_t bits() const { return bits_; }

  constexpr bool sign() const { return (bits_ & kSignBit) != 0; }
  constexpr uint32_t exp_field() const { return (bits_ & kExpMask) >> kFracBits; }
  constexpr uint32_t frac_field() const { return bits_ & kFracMask; }
  constexpr bool is_nan() const { return exp_field() == 0x7F && frac_field() != 0; }
  constexpr bool is_inf() const { return exp_field() == 0x7F && frac_field() == 0; }
  // Zero, including the subnormal encodings (they read as zero).
  constexpr bool is_zero() const { return exp_field() == 0; }
  constexpr bool is_finite() const { return exp_field() != 0x7F; }
  // The encoding an operation would produce for this value: NaN -> canonical NaN,
  // subnormal encodings -> zero of the same sign, everything else unchanged.
  constexpr Float18 canonical() const {
    if (is_nan()) return Float18(kCanonicalNan);
    if (is_zero()) return Float18(bits_ & kSignBit);
    return *this;
  }

  friend constexpr bool operator==(Float18 a, Float18 b) { return a.bits_ == b.bits_; }

 private:
  constexpr explicit Float18(uint32_t bits) : bits_(bits) {}
  uint32_t bits_ = 0;
};

// ---- Conversions. Into float18: one rounding (RNE, FTZ, overflow to inf, canonical NaN). ----
// `double` is the exact interchange type: every float18, float16, float32 and int32 value is a
// double, so from_double(x) is the correctly rounded float18 of x for any of them.
// Defined below, inline: the DPU calls it once per lane of every instruction.
inline Float18 f18_from_double(double v);
Float18 f18_from_float(float v);
Float18 f18_from_int32(int32_t v);  // RNE (|v| > 2^11 may round)
Float18 f18_from_int8(int8_t v);    // exact
Float18 f18_from_f16(Float16 v);    // exact (binary16 subnormals are float18 normals)
constexpr Float18 f18_from_bits(uint32_t b) { return Float18::from_bits(b); }
inline double to_double(Float18 v);  // exact; subnormal encodings read as +-0 (inline, below)
float to_float(Float18 v);           // exact (float32 holds every float18)
// Rounds to nearest integer, ties to even, then saturates to [INT32_MIN, INT32_MAX].
// +-inf saturate; NaN gives 0.
int32_t to_int32(Float18 v);
// Rounds to nearest integer, ties to even, then clips to [-128, 127]. NaN gives 0.
int8_t to_int8(Float18 v);
// One rounding to binary16 (RNE, gradual underflow, overflow to +-inf, NaN -> 0x7E00).
Float16 to_f16(Float18 v);

// ---- Operations. Operands read with flush-to-zero; the result is rounded once (RNE). ----
// The operations but fma and neg are inline (below): the DPU runs them on 64 lanes per instruction.
inline Float18 add(Float18 a, Float18 b);
inline Float18 sub(Float18 a, Float18 b);
inline Float18 mul(Float18 a, Float18 b);
// a * b + c rounded TWICE: the product is rounded to float18, then the sum (spec dpu_op FMA).
Float18 fma(Float18 a, Float18 b, Float18 c);
// NaN if either operand is NaN (canonical); -0 orders below +0; otherwise the smaller/larger.
inline Float18 min(Float18 a, Float18 b);
inline Float18 max(Float18 a, Float18 b);
// a >= 0 ? a : a * b (so -0 passes through as -0, NaN gives NaN).
inline Float18 prelu(Float18 a, Float18 b);
Float18 neg(Float18 a);  // flips the sign of the canonical value; NaN stays canonical NaN
// IEEE comparisons on the flushed values (NaN compares false, -0 == +0).
inline bool less(Float18 a, Float18 b);
inline bool less_equal(Float18 a, Float18 b);

inline Float18 operator+(Float18 a, Float18 b) { return add(a, b); }
inline Float18 operator-(Float18 a, Float18 b) { return sub(a, b); }
inline Float18 operator*(Float18 a, Float18 b) { return mul(a, b); }

// Rounds a float32 to float18 precision and back: the guide's emu.rf18.
float rf18(float v);

// ---- Inline definitions (hot: per lane of every DPU instruction). ----
inline Float18 f18_from_double(double v) {
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

inline double to_double(Float18 v) {
  // Built from bits: float18 normals map to double normals with the same fraction.
  const uint64_t sign = v.sign() ? uint64_t{1} << 63 : 0;
  if (v.is_zero()) return std::bit_cast<double>(sign);
  if (v.is_nan()) return std::numeric_limits<double>::quiet_NaN();
  if (v.is_inf()) return std::bit_cast<double>(sign | uint64_t{0x7FF} << 52);
  const uint64_t exp = uint64_t{v.exp_field()} - Float18::kBias + 1023;
  return std::bit_cast<double>(sign | exp << 52 | uint64_t{v.frac_field()} << 42);
}

namespace detail {
// float18 <-> float32 by bits, without branches (the DPU's lane loops vectorise). Every float18
// is a float32: exponent field e (bias 63) is float32's e + 64; field 0 reads as a zero of its
// sign, 127 is infinity or (any fraction) NaN.
inline float f18_to_f32(Float18 v) {
  const uint32_t b = v.bits(), sign = (b & Float18::kSignBit) << 14, e = v.exp_field(), f = v.frac_field();
  uint32_t out = sign | (e + 64) << 23 | f << 13;
  out = e == 0 ? sign : out;
  out = e == 0x7F ? (f != 0 ? 0x7FC00000u : sign | 0x7F800000u) : out;
  return std::bit_cast<float>(out);
}
// The correctly rounded float18 of a float32 (RNE on the 13 dropped fraction bits, the carry
// moving into the exponent; FTZ below 2^-62, infinity above the largest finite, canonical NaN).
inline Float18 f18_from_f32(float x) {
  const uint32_t b = std::bit_cast<uint32_t>(x), sign = (b >> 14) & Float18::kSignBit, mag = b & 0x7FFFFFFFu;
  const uint32_t r = (mag + 0xFFFu + ((mag >> 13) & 1u)) >> 13;  // float32 exponent : 10 fraction bits
  const int32_t e = static_cast<int32_t>(r >> 10) - 64;          // float18's exponent field
  uint32_t out = sign | static_cast<uint32_t>(e) << 10 | (r & Float18::kFracMask);
  out = e <= 0 ? sign : out;
  out = e >= 0x7F ? sign | Float18::kPosInf : out;
  out = mag > 0x7F800000u ? Float18::kCanonicalNan : out;
  return Float18::from_bits(out);
}
}  // namespace detail

// In float32: a product of two 11-bit significands is exact in its 24 bits, and 24 >= 2 * 11 + 2,
// so rounding the float32 sum or difference to float18 gives the correctly rounded float18 of
// the exact result (double rounding is innocuous at that precision, Figueroa); the exponents of
// float18 operands, their sums and products stay inside float32's normal range or overflow
// where float18 does too. tests/num Float18Ops compares each with the exact oracle.
inline Float18 add(Float18 a, Float18 b) { return detail::f18_from_f32(detail::f18_to_f32(a) + detail::f18_to_f32(b)); }
inline Float18 sub(Float18 a, Float18 b) { return detail::f18_from_f32(detail::f18_to_f32(a) - detail::f18_to_f32(b)); }
inline Float18 mul(Float18 a, Float18 b) { return detail::f18_from_f32(detail::f18_to_f32(a) * detail::f18_to_f32(b)); }

inline Float18 min(Float18 a, Float18 b) {
  a = a.canonical();
  b = b.canonical();
  if (a.is_nan() || b.is_nan()) return Float18::from_bits(Float18::kCanonicalNan);
  if (a.is_zero() && b.is_zero()) return a.sign() ? a : b;  // -0 < +0
  return detail::f18_to_f32(a) <= detail::f18_to_f32(b) ? a : b;
}

inline Float18 max(Float18 a, Float18 b) {
  a = a.canonical();
  b = b.canonical();
  if (a.is_nan() || b.is_nan()) return Float18::from_bits(Float18::kCanonicalNan);
  if (a.is_zero() && b.is_zero()) return a.sign() ? b : a;
  return detail::f18_to_f32(a) >= detail::f18_to_f32(b) ? a : b;
}

inline Float18 prelu(Float18 a, Float18 b) {
  a = a.canonical();
  if (!a.is_nan() && detail::f18_to_f32(a) >= 0.0f) return a;
  return mul(a, b);
}

inline bool less(Float18 a, Float18 b) { return detail::f18_to_f32(a) < detail::f18_to_f32(b); }
inline bool less_equal(Float18 a, Float18 b) { return detail::f18_to_f32(a) <= detail::f18_to_f32(b); }

}  // namespace axcore::num
