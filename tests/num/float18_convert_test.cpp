// float18 encodings and conversions, against hand-rolled references that do not call the code
// under test.
#include <gtest/gtest.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "axcore/num/float16.hpp"
#include "axcore/num/float18.hpp"
#include "oracle.hpp"

namespace axcore::num {
namespace {

// Value of an encoding decoded by hand from its fields.
double hand_value(uint32_t bits) {
  const double s = (bits & 0x20000) != 0 ? -1.0 : 1.0;
  const uint32_t e = (bits >> 10) & 0x7F, f = bits & 0x3FF;
  if (e == 0) return s * 0.0;
  if (e == 0x7F) return f != 0 ? std::numeric_limits<double>::quiet_NaN() : s * HUGE_VAL;
  double v = 1.0 + f / 1024.0;
  for (int i = 0; i < static_cast<int>(e) - 63; ++i) v *= 2.0;
  for (int i = 0; i < 63 - static_cast<int>(e); ++i) v /= 2.0;
  return s * v;
}

// Correctly rounded float18 encoding of a double, by hand in double arithmetic: find the
// quantum 2^(E-10) of the value's binade, divide (exact), pick the nearest multiple with ties to
// even, then apply overflow and flush-to-zero. Independent of the library and of the oracle.
uint32_t hand_round(double v) {
  if (std::isnan(v)) return 0x1FE00;
  const uint32_t sign = std::signbit(v) ? 0x20000 : 0;
  double a = std::fabs(v);
  if (std::isinf(a)) return sign | 0x1FC00;
  if (a == 0.0) return sign;
  int E = 0;
  while (std::ldexp(1.0, E + 1) <= a) ++E;
  while (std::ldexp(1.0, E) > a) --E;
  const double n = a / std::ldexp(1.0, E - 10);  // in [1024, 2048)
  double lo = std::floor(n);
  const double frac = n - lo;
  double m = lo;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(lo, 2.0) != 0.0)) m = lo + 1.0;
  if (m == 2048.0) {
    m = 1024.0;
    ++E;
  }
  if (E > 63) return sign | 0x1FC00;
  if (E < -62) return sign;
  return sign | static_cast<uint32_t>(E + 63) << 10 | static_cast<uint32_t>(m - 1024.0);
}

uint32_t canonical_bits(uint32_t b) {
  const uint32_t e = (b >> 10) & 0x7F, f = b & 0x3FF;
  if (e == 0x7F && f != 0) return 0x1FE00;
  if (e == 0) return b & 0x20000;
  return b;
}

TEST(Float18Encodings, EveryEncodingRoundTripsThroughFloat32) {
  int identical = 0;
  for (uint32_t b = 0; b < (1u << 18); ++b) {
    const Float18 x = Float18::from_bits(b);
    const float f = to_float(x);
    const double h = hand_value(b);
    if (std::isnan(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
    } else {
      ASSERT_EQ(static_cast<double>(f), h) << std::hex << b;
      ASSERT_EQ(std::signbit(f), std::signbit(h)) << std::hex << b;
    }
    const uint32_t back = f18_from_float(f).bits();
    ASSERT_EQ(back, canonical_bits(b)) << std::hex << b;
    ASSERT_EQ(x.canonical().bits(), canonical_bits(b));
    if (back == b) ++identical;
  }
  // Everything but the 2*1023 subnormal encodings and the 2*1023 NaN encodings other than
  // the canonical one is reproduced bit for bit.
  EXPECT_EQ(identical, (1 << 18) - 2 * 1023 - (2 * 1023 - 1));
}

TEST(Float18Encodings, NamedConstants) {
  EXPECT_TRUE(Float18::from_bits(Float18::kCanonicalNan).is_nan());
  EXPECT_EQ(to_double(Float18::from_bits(Float18::kMaxFinite)), (2.0 - std::ldexp(1.0, -10)) * std::ldexp(1.0, 63));
  EXPECT_EQ(to_double(Float18::from_bits(Float18::kMinNormal)), std::ldexp(1.0, -62));
  EXPECT_EQ(to_double(Float18::from_bits(Float18::kPosInf)), HUGE_VAL);
  EXPECT_EQ(to_double(Float18::from_bits(Float18::kNegInf)), -HUGE_VAL);
  EXPECT_EQ(to_double(Float18::from_bits(0x10000)), 2.0);
  EXPECT_EQ(to_double(Float18::from_bits(0x0FC00)), 1.0);
  EXPECT_EQ(to_double(Float18::from_bits(0x2FE00)), -1.5);
}

uint32_t f32_bits_to_f18(uint32_t fb) { return f18_from_float(std::bit_cast<float>(fb)).bits(); }

TEST(Float18FromFloat32, AllExponentsRandomFractions) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<uint32_t> frac(0, (1u << 23) - 1);
  for (uint32_t sign = 0; sign < 2; ++sign) {
    for (uint32_t e = 0; e < 256; ++e) {
      for (int i = 0; i < 400; ++i) {
        const uint32_t fb = sign << 31 | e << 23 | frac(rng);
        const float f = std::bit_cast<float>(fb);
        ASSERT_EQ(f32_bits_to_f18(fb), hand_round(static_cast<double>(f))) << std::hex << fb;
      }
    }
  }
}

TEST(Float18FromFloat32, TiesRoundToEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: even is 1. 1 + 3*2^-11 -> 1 + 2^-9 (even).
  EXPECT_EQ(f18_from_float(1.0f + std::ldexp(1.0f, -11)).bits(), 0x0FC00u);
  EXPECT_EQ(f18_from_float(1.0f + 3 * std::ldexp(1.0f, -11)).bits(), 0x0FC02u);
  // Just above the tie rounds up, just below rounds down.
  EXPECT_EQ(f18_from_float(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -23)).bits(), 0x0FC01u);
  EXPECT_EQ(f18_from_float(1.0f + std::ldexp(1.0f, -11) - std::ldexp(1.0f, -23)).bits(), 0x0FC00u);
  // Negative tie, and a tie that carries into the next binade: 2 - 2^-11 -> 2.
  EXPECT_EQ(f18_from_float(-(1.0f + std::ldexp(1.0f, -11))).bits(), 0x2FC00u);
  EXPECT_EQ(f18_from_float(2.0f - std::ldexp(1.0f, -11)).bits(), 0x10000u);
  // Every float32 tie between consecutive float18 values in [1, 2): even wins.
  for (uint32_t m = 0; m < 1024; ++m) {
    const float tie = 1.0f + (static_cast<float>(m) + 0.5f) / 1024.0f;
    const uint32_t even = (m % 2 == 0) ? m : m + 1;
    const uint32_t expect = even == 1024 ? 0x10000u : (0x0FC00u | even);
    ASSERT_EQ(f18_from_float(tie).bits(), expect) << m;
  }
}

TEST(Float18FromFloat32, RangeEdges) {
  const double max = (2.0 - std::ldexp(1.0, -10)) * std::ldexp(1.0, 63);
  EXPECT_EQ(f18_from_double(max).bits(), 0x1FBFFu);
  EXPECT_EQ(f18_from_double(-max).bits(), 0x3FBFFu);
  // Halfway between max and 2^64 rounds to even = 2^64 = overflow; just below stays max.
  const double half_up = (2.0 - std::ldexp(1.0, -11)) * std::ldexp(1.0, 63);
  EXPECT_EQ(f18_from_double(half_up).bits(), 0x1FC00u);
  EXPECT_EQ(f18_from_double(std::nextafter(half_up, 0.0)).bits(), 0x1FBFFu);
  EXPECT_EQ(f18_from_float(std::numeric_limits<float>::max()).bits(), 0x1FC00u);
  EXPECT_EQ(f18_from_float(-std::numeric_limits<float>::max()).bits(), 0x3FC00u);
  // Smallest normal 2^-62, and the flush boundary: values round first, then flush.
  const double tiny = std::ldexp(1.0, -62);
  EXPECT_EQ(f18_from_double(tiny).bits(), 0x00400u);
  EXPECT_EQ(f18_from_double(tiny - std::ldexp(1.0, -74)).bits(), 0x00400u);  // tie -> even 2^-62
  EXPECT_EQ(f18_from_double(std::nextafter(tiny - std::ldexp(1.0, -74), 0.0)).bits(), 0u);
  EXPECT_EQ(f18_from_double(-tiny / 2).bits(), 0x20000u);  // FTZ keeps the sign
  EXPECT_EQ(f18_from_float(std::numeric_limits<float>::denorm_min()).bits(), 0u);
  EXPECT_EQ(f18_from_float(-std::numeric_limits<float>::denorm_min()).bits(), 0x20000u);
  EXPECT_EQ(f18_from_float(0.0f).bits(), 0u);
  EXPECT_EQ(f18_from_float(-0.0f).bits(), 0x20000u);
  EXPECT_EQ(f18_from_float(HUGE_VALF).bits(), 0x1FC00u);
  EXPECT_EQ(f18_from_float(-HUGE_VALF).bits(), 0x3FC00u);
  EXPECT_EQ(f18_from_float(std::numeric_limits<float>::quiet_NaN()).bits(), 0x1FE00u);
  EXPECT_EQ(f18_from_float(-std::numeric_limits<float>::quiet_NaN()).bits(), 0x1FE00u);
  EXPECT_EQ(f18_from_float(std::bit_cast<float>(0x7F800001u)).bits(), 0x1FE00u);  // sNaN
  // Subnormal encodings read as signed zero.
  EXPECT_EQ(to_double(Float18::from_bits(0x00001)), 0.0);
  EXPECT_TRUE(std::signbit(to_double(Float18::from_bits(0x203FF))));
}

// Every tie of the format, from float32: the midpoint between every two consecutive finite
// float18 magnitudes (and between the largest finite and 2^64, the overflow tie) has 12
// significant bits, so it is a float32; it and its two float32 neighbours, of both signs, go
// through f18_from_float and are compared with the hand rounding. Then the flush boundary in
// float32: 2^-62 - 2^-74 is a tie that rounds up to the smallest normal, the float32 below it
// flushes to a signed zero.
TEST(Float18FromFloat32, EveryMidpointAndItsFloat32Neighbours) {
  std::size_t checked = 0;
  for (uint32_t mag = Float18::kMinNormal; mag <= Float18::kMaxFinite; ++mag) {
    const double lo = hand_value(mag);
    const double hi = mag == Float18::kMaxFinite ? std::ldexp(1.0, 64) : hand_value(mag + 1);
    const double mid = (lo + hi) / 2;
    const auto m = static_cast<float>(mid);
    ASSERT_EQ(static_cast<double>(m), mid) << std::hex << mag;
    for (const float v : {m, std::nextafter(m, 0.0f), std::nextafter(m, HUGE_VALF)}) {
      for (const float sv : {v, -v}) {
        ASSERT_EQ(f18_from_float(sv).bits(), hand_round(static_cast<double>(sv))) << sv;
        ++checked;
      }
    }
    // The tie itself goes to the even neighbour.
    const uint32_t even = (mag & 1) == 0 ? mag : mag + 1;
    ASSERT_EQ(f18_from_float(m).bits(), even == 0x1FC00u ? Float18::kPosInf : even) << std::hex << mag;
  }
  EXPECT_EQ(checked, 6u * (Float18::kMaxFinite - Float18::kMinNormal + 1));
  const auto tie = static_cast<float>(std::ldexp(1.0, -62) - std::ldexp(1.0, -74));
  ASSERT_EQ(static_cast<double>(tie), std::ldexp(1.0, -62) - std::ldexp(1.0, -74));
  EXPECT_EQ(f18_from_float(tie).bits(), Float18::kMinNormal);
  EXPECT_EQ(f18_from_float(-tie).bits(), Float18::kMinNormal | Float18::kSignBit);
  EXPECT_EQ(f18_from_float(std::nextafter(tie, 0.0f)).bits(), 0u);
  EXPECT_EQ(f18_from_float(-std::nextafter(tie, 0.0f)).bits(), Float18::kSignBit);
  EXPECT_EQ(f18_from_float(std::numeric_limits<float>::min()).bits(), 0u);  // 2^-126: FTZ
}

TEST(Float18FromFloat32, HandRoundMatchesOracle) {
  // The two test references agree with each other on random doubles as well.
  std::mt19937_64 rng(99);
  for (int i = 0; i < 200000; ++i) {
    const double v = std::bit_cast<double>(rng());
    ASSERT_EQ(hand_round(v), oracle::from_double(v)) << v;
  }
}

TEST(Float18Float16, EveryFloat16ConvertsExactly) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const Float16 x{static_cast<uint16_t>(h)};
    // Hand decode of binary16.
    const double s = (h & 0x8000) != 0 ? -1.0 : 1.0;
    const uint32_t e = (h >> 10) & 0x1F, f = h & 0x3FF;
    double v;
    if (e == 0x1F)
      v = f != 0 ? std::numeric_limits<double>::quiet_NaN() : s * HUGE_VAL;
    else if (e == 0)
      v = s * f * std::ldexp(1.0, -24);
    else
      v = s * (1024 + f) * std::ldexp(1.0, static_cast<int>(e) - 25);
    const double got = to_double(x);
    if (std::isnan(v)) {
      ASSERT_TRUE(std::isnan(got));
      ASSERT_EQ(f18_from_double(got).bits(), 0x1FE00u);
      continue;
    }
    ASSERT_EQ(got, v) << h;
    ASSERT_EQ(std::signbit(got), std::signbit(v));
    // float16 -> float18 is exact (float16 subnormals are float18 normals).
    ASSERT_EQ(to_double(f18_from_double(got)), v) << h;
    ASSERT_EQ(f16_from_double(v).bits, h) << h;  // and back
  }
}

// Correctly rounded binary16 by hand (gradual underflow), for float18 -> float16.
uint16_t hand_f16(double v) {
  if (std::isnan(v)) return 0x7E00;
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  if (std::isinf(a)) return sign | 0x7C00;
  if (a == 0.0) return sign;
  int E = 0;
  while (std::ldexp(1.0, E + 1) <= a) ++E;
  while (std::ldexp(1.0, E) > a) --E;
  const int qe = (E < -14 ? -14 : E) - 10;
  const double n = a / std::ldexp(1.0, qe);
  const double lo = std::floor(n), fr = n - lo;
  double m = lo;
  if (fr > 0.5 || (fr == 0.5 && std::fmod(lo, 2.0) != 0.0)) m = lo + 1.0;
  const double r = m * std::ldexp(1.0, qe);
  if (r >= 65536.0) return sign | 0x7C00;
  if (r < std::ldexp(1.0, -14)) return static_cast<uint16_t>(sign | static_cast<uint16_t>(m));
  int re = 0;
  while (std::ldexp(1.0, re + 1) <= r) ++re;
  while (std::ldexp(1.0, re) > r) --re;
  return static_cast<uint16_t>(sign | (re + 15) << 10 | static_cast<uint16_t>(r / std::ldexp(1.0, re - 10) - 1024.0));
}

TEST(Float18Float16, EveryFloat18ToFloat16) {
  for (uint32_t b = 0; b < (1u << 18); ++b) {
    const double v = hand_value(b);
    ASSERT_EQ(f16_from_double(to_double(Float18::from_bits(b))).bits, hand_f16(v)) << std::hex << b;
  }
  EXPECT_EQ(f16_from_double(65504.0).bits, 0x7BFF);
  EXPECT_EQ(f16_from_double(65520.0).bits, 0x7C00);               // tie to even overflows
  EXPECT_EQ(f16_from_double(std::ldexp(1.0, -25)).bits, 0x0000);  // tie to even: 0
  EXPECT_EQ(f16_from_double(std::ldexp(3.0, -26)).bits, 0x0001);
}

TEST(Float18Float16, DirectConversionsMatchTheExactPath) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const Float16 x{static_cast<uint16_t>(h)};
    ASSERT_EQ(f18_from_f16(x).bits(), hand_round(to_double(x))) << h;
  }
  for (uint32_t b = 0; b < (1u << 18); ++b) {
    ASSERT_EQ(to_f16(Float18::from_bits(b)).bits, hand_f16(hand_value(b))) << std::hex << b;
  }
  for (int v = -128; v <= 127; ++v) {
    ASSERT_EQ(f18_from_int8(static_cast<int8_t>(v)).bits(), hand_round(v)) << v;
    ASSERT_EQ(to_double(f18_from_int8(static_cast<int8_t>(v))), v);
  }
}

TEST(Float18Int, Int32ToFloat18) {
  std::mt19937 rng(7);
  for (int i = 0; i < 300000; ++i) {
    const auto v = static_cast<int32_t>(rng());
    ASSERT_EQ(f18_from_int32(v).bits(), hand_round(static_cast<double>(v))) << v;
  }
  EXPECT_EQ(to_double(f18_from_int32(2049)), 2048.0);  // tie -> even
  EXPECT_EQ(to_double(f18_from_int32(2051)), 2052.0);
  EXPECT_EQ(to_double(f18_from_int32(INT32_MIN)), -2147483648.0);
  EXPECT_EQ(to_double(f18_from_int32(INT32_MAX)), 2147483648.0);
  EXPECT_EQ(f18_from_int32(0).bits(), 0u);
}

TEST(Float18Int, EveryFloat18ToInt32AndInt8) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  for (uint32_t b = 0; b < (1u << 18); ++b) {
    const double v = hand_value(b);
    int64_t i32 = 0, i8 = 0;
    if (!std::isnan(v)) {
      const double r = std::nearbyint(std::fmax(std::fmin(v, 4e9), -4e9));  // RNE in FE_TONEAREST
      i32 = static_cast<int64_t>(std::fmax(std::fmin(r, 2147483647.0), -2147483648.0));
      i8 = static_cast<int64_t>(std::fmax(std::fmin(r, 127.0), -128.0));
    }
    const Float18 x = Float18::from_bits(b);
    ASSERT_EQ(to_int32(x), i32) << std::hex << b;
    ASSERT_EQ(to_int8(x), i8) << std::hex << b;
  }
  EXPECT_EQ(to_int8(f18_from_double(2.5)), 2);
  EXPECT_EQ(to_int8(f18_from_double(3.5)), 4);
  EXPECT_EQ(to_int8(f18_from_double(-2.5)), -2);
  EXPECT_EQ(to_int8(f18_from_double(127.5)), 127);
  EXPECT_EQ(to_int8(f18_from_double(-128.5)), -128);
  EXPECT_EQ(to_int8(Float18::from_bits(Float18::kCanonicalNan)), 0);
  EXPECT_EQ(to_int32(Float18::from_bits(Float18::kPosInf)), INT32_MAX);
  EXPECT_EQ(to_int32(Float18::from_bits(Float18::kNegInf)), INT32_MIN);
  // Every int8 survives the round trip through float18.
  for (int v = -128; v <= 127; ++v) EXPECT_EQ(to_int8(f18_from_int32(v)), v);
}

}  // namespace
}  // namespace axcore::num
