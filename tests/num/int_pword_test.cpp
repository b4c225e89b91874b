// int8/int32 casts, wrapping accumulation, and AnyPword casts / L1 images.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "axcore/num/int_cast.hpp"
#include "axcore/num/pword.hpp"

namespace axcore::num {
namespace {

using spec::Dtype;

TEST(IntCast, Int8RoundsHalfEvenThenClips) {
  EXPECT_EQ(saturate_to_int8(0.5), 0);
  EXPECT_EQ(saturate_to_int8(1.5), 2);
  EXPECT_EQ(saturate_to_int8(2.5), 2);
  EXPECT_EQ(saturate_to_int8(-0.5), 0);
  EXPECT_EQ(saturate_to_int8(-1.5), -2);
  EXPECT_EQ(saturate_to_int8(-2.5), -2);
  EXPECT_EQ(saturate_to_int8(2.4999), 2);
  EXPECT_EQ(saturate_to_int8(126.5), 126);
  EXPECT_EQ(saturate_to_int8(127.49), 127);
  EXPECT_EQ(saturate_to_int8(1e9), 127);
  EXPECT_EQ(saturate_to_int8(-1e9), -128);
  EXPECT_EQ(saturate_to_int8(HUGE_VAL), 127);
  EXPECT_EQ(saturate_to_int8(-HUGE_VAL), -128);
  EXPECT_EQ(saturate_to_int8(std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(clip_to_int8(300), 127);
  EXPECT_EQ(clip_to_int8(-300), -128);
  EXPECT_EQ(clip_to_int8(-7), -7);
}

// saturate_to_int8 rounds with the 1.5 * 2^52 add; the clip of round_half_even is the definition.
TEST(IntCast, SaturateToInt8EqualsRoundHalfEven) {
  auto expected = [](double v) -> int {
    if (std::isnan(v)) return 0;
    const double r = round_half_even(v);
    return r > 127.0 ? 127 : r < -128.0 ? -128 : static_cast<int>(r);
  };
  std::vector<double> vs;
  for (uint32_t b = 0; b <= Float18::kMask; ++b) vs.push_back(to_double(Float18::from_bits(b)));  // every float18
  for (int k = -600; k <= 600; ++k) {  // every half step and its neighbours
    const double h = k / 4.0;
    vs.insert(vs.end(), {h, std::nextafter(h, -1e9), std::nextafter(h, 1e9)});
  }
  std::mt19937_64 rng(27);
  std::uniform_real_distribution<double> u(-200.0, 200.0);
  for (int i = 0; i < 100000; ++i) vs.push_back(u(rng));
  for (double v : vs) ASSERT_EQ(int{saturate_to_int8(v)}, expected(v)) << v;
}

// to_f18 takes int8 and int32 PWORDs below 2^24 through float32; each lane must be the double's.
TEST(AnyPword, IntegerToF18EqualsTheDoubleRounding) {
  std::mt19937_64 rng(24);
  std::vector<int32_t> vs{
      0,         1,         -1,      2047,       2049,     -2049,   4097, (1 << 24) - 1, -(1 << 24) + 1, (1 << 24) - 3,
      INT32_MAX, INT32_MIN, 1 << 24, -(1 << 24), 16779264, 33554431};
  for (int i = 0; i < 20000; ++i) vs.push_back(static_cast<int32_t>(rng() >> (32 + rng() % 32)) * (rng() % 2 ? 1 : -1));
  for (std::size_t at = 0; at < vs.size(); at += kLanes) {
    for (const bool wide : {false, true}) {  // without / with one lane of 2^24 or more
      PwordI32 p{};
      for (std::size_t i = 0; i < kLanes && at + i < vs.size(); ++i) p[i] = vs[at + i];
      if (!wide)
        for (auto& x : p) x = std::clamp(x, -(1 << 24) + 1, (1 << 24) - 1);
      const PwordF18 r = to_f18(AnyPword::of(p));
      for (std::size_t i = 0; i < kLanes; ++i) ASSERT_EQ(r[i].bits(), f18_from_double(p[i]).bits()) << p[i];
    }
  }
  // Every lane past 2^24 and just above a float18 tie (2^k + 2^(k-11) + 1): through float32 it
  // would round to the tie first, then to even (down), where the exact value rounds up.
  PwordI32 ties{};
  for (std::size_t i = 0; i < kLanes; ++i) {
    const int k = 24 + static_cast<int>(i % 6);
    ties[i] = ((1 << k) + (1 << (k - 11)) + 1) * (i % 2 ? -1 : 1);
  }
  const PwordF18 rt = to_f18(AnyPword::of(ties));
  for (std::size_t i = 0; i < kLanes; ++i) ASSERT_EQ(rt[i].bits(), f18_from_double(ties[i]).bits()) << ties[i];
  PwordI8 q{};
  for (std::size_t i = 0; i < kLanes; ++i) q[i] = static_cast<int8_t>(4 * i - 128);
  const PwordF18 r = to_f18(AnyPword::of(q));
  for (std::size_t i = 0; i < kLanes; ++i) ASSERT_EQ(r[i].bits(), f18_from_double(q[i]).bits());
}

TEST(IntCast, Int32Saturates) {
  EXPECT_EQ(saturate_to_int32(2147483647.4), INT32_MAX);
  EXPECT_EQ(saturate_to_int32(3e10), INT32_MAX);
  EXPECT_EQ(saturate_to_int32(-3e10), INT32_MIN);
  EXPECT_EQ(saturate_to_int32(-2147483648.6), INT32_MIN);
  EXPECT_EQ(saturate_to_int32(1000000.5), 1000000);
  EXPECT_EQ(saturate_to_int32(1000001.5), 1000002);
  EXPECT_EQ(saturate_to_int32(std::numeric_limits<double>::quiet_NaN()), 0);
}

TEST(IntCast, WrappingAccumulation) {
  EXPECT_EQ(wrap_add(INT32_MAX, 1), INT32_MIN);
  EXPECT_EQ(wrap_add(INT32_MIN, -1), INT32_MAX);
  EXPECT_EQ(wrap_mul(65536, 65536), 0);
  EXPECT_EQ(wrap_int32(int64_t{1} << 32 | 5), 5);
  int32_t acc = 0;
  int64_t exact = 0;
  for (int i = 0; i < 200000; ++i) {  // 127 * 127 * 200000 > 2^31: must wrap
    acc = wrap_add(acc, wrap_mul(127, 127));
    exact += 127 * 127;
  }
  EXPECT_EQ(acc, static_cast<int32_t>(static_cast<uint32_t>(exact & 0xFFFFFFFF)));
  EXPECT_NE(static_cast<int64_t>(acc), exact);
}

TEST(IntCast, DivisionRoundsHalfEven) {
  EXPECT_EQ(div_round_half_even(5, 2), 2);
  EXPECT_EQ(div_round_half_even(7, 2), 4);
  EXPECT_EQ(div_round_half_even(-5, 2), -2);
  EXPECT_EQ(div_round_half_even(-7, 2), -4);
  EXPECT_EQ(div_round_half_even(1, 3), 0);
  EXPECT_EQ(div_round_half_even(2, 3), 1);
  EXPECT_EQ(div_round_half_even(-2, 3), -1);
  EXPECT_EQ(div_round_half_even(9, 9), 1);
  EXPECT_EQ(div_round_half_even(-1152, 9), -128);
  for (int64_t s = -300; s <= 300; ++s) {
    for (int64_t d = 1; d <= 12; ++d) {
      const double q = static_cast<double>(s) / static_cast<double>(d);
      ASSERT_EQ(div_round_half_even(s, d), static_cast<int32_t>(std::nearbyint(q))) << s << "/" << d;
    }
  }
}

TEST(AnyPword, SizesPerDtype) {
  EXPECT_EQ(element_bytes(Dtype::INT8), 64u);
  EXPECT_EQ(element_bytes(Dtype::FLOAT16), 128u);
  EXPECT_EQ(element_bytes(Dtype::INT32), 256u);
  EXPECT_EQ(element_rows(Dtype::FLOAT32), 4u);
  EXPECT_THROW(element_bytes(Dtype::FLOAT18), std::invalid_argument);
  EXPECT_THROW(element_bytes(static_cast<Dtype>(6)), std::invalid_argument);
}

TEST(AnyPword, LittleEndianImages) {
  PwordI32 v;
  for (std::size_t i = 0; i < kLanes; ++i) v[i] = static_cast<int32_t>(0x01020304 * (i + 1)) - 7;
  const AnyPword p = AnyPword::of(v);
  std::vector<uint8_t> bytes(256);
  store_element(p, bytes);
  EXPECT_EQ(bytes[0], static_cast<uint8_t>((0x01020304 - 7) & 0xFF));
  EXPECT_EQ(bytes[3], 0x01);
  EXPECT_EQ(load_element(Dtype::INT32, bytes), p);
  EXPECT_EQ(load_element(Dtype::INT32, bytes).as_i32(), v);
  EXPECT_THROW(load_element(Dtype::INT32, std::span<const uint8_t>(bytes).first(255)), std::invalid_argument);
  EXPECT_THROW((void)p.as_f32(), std::invalid_argument);
  PwordI8 s;
  for (std::size_t i = 0; i < kLanes; ++i) s[i] = static_cast<int8_t>(static_cast<int>(i) - 64);
  std::vector<uint8_t> b8(64);
  store_element(AnyPword::of(s), b8);
  EXPECT_EQ(b8[0], 0xC0);
  EXPECT_EQ(load_element(Dtype::INT8, b8).as_i8(), s);
  // Two-byte lanes: every lane's low byte first, lane after lane.
  std::vector<uint8_t> b16(128);
  for (std::size_t i = 0; i < b16.size(); ++i) b16[i] = static_cast<uint8_t>(i * 37 + 11);
  const AnyPword h = load_element(Dtype::FLOAT16, b16);
  EXPECT_EQ(h.lanes[5], uint32_t{b16[10]} | uint32_t{b16[11]} << 8);
  std::vector<uint8_t> back(128);
  store_element(h, back);
  EXPECT_EQ(back, b16);
}

TEST(AnyPword, Casts) {
  PwordF32 f{};
  f[0] = 2.5f;
  f[1] = -3.5f;
  f[2] = 1000.0f;
  f[3] = std::numeric_limits<float>::quiet_NaN();
  f[4] = 70000.0f;
  f[5] = 1.0f + std::ldexp(1.0f, -11);
  const AnyPword p = AnyPword::of(f);
  const PwordI8 i8 = convert(p, Dtype::INT8).as_i8();
  EXPECT_EQ(i8[0], 2);
  EXPECT_EQ(i8[1], -4);
  EXPECT_EQ(i8[2], 127);
  EXPECT_EQ(i8[3], 0);
  const PwordF16 h = convert(p, Dtype::FLOAT16).as_f16();
  EXPECT_EQ(h[4].bits, 0x7C00);  // overflow
  EXPECT_EQ(h[3].bits, 0x7E00);
  const PwordF18 r = to_f18(p);
  EXPECT_EQ(to_double(r[5]), 1.0);
  EXPECT_EQ(r[3].bits(), Float18::kCanonicalNan);
  const PwordF32 back = from_f18(r, Dtype::FLOAT32).as_f32();
  EXPECT_EQ(back[0], 2.5f);
  EXPECT_TRUE(std::isnan(back[3]));
  EXPECT_EQ(std::bit_cast<uint32_t>(back[3]), 0x7FC00000u);
  // int32 -> int8 saturates; int8 -> float32 exact.
  PwordI32 big{};
  big[0] = 1000;
  big[1] = -1000;
  big[2] = 5;
  const PwordI8 c = convert(AnyPword::of(big), Dtype::INT8).as_i8();
  EXPECT_EQ(c[0], 127);
  EXPECT_EQ(c[1], -128);
  EXPECT_EQ(c[2], 5);
  EXPECT_EQ(AnyPword::splat(Dtype::INT8, 0xFFFFFF80u).as_i8()[63], -128);
  // int32 -> float18 rounds, float18 -> int32 rounds back.
  PwordI32 odd{};
  odd[0] = 4097;  // 4096 + 1: tie at ulp 2... ulp at 2^12 is 4: 4097 -> 4096
  odd[1] = 4099;  // -> 4100
  const PwordF18 oddf = to_f18(AnyPword::of(odd));
  EXPECT_EQ(to_double(oddf[0]), 4096.0);
  EXPECT_EQ(to_double(oddf[1]), 4100.0);
}

// convert's integer paths (int32 -> int8 clip, int8 -> int32 sign extension) against the
// generic lane-wise decode to double and encode, on the extremes, the clip bounds and random lanes.
TEST(AnyPword, IntegerCastsEqualTheDoubleRoundTrip) {
  std::mt19937 rng(27);
  const std::array<uint32_t, 12> edges{0u,          1u,          0x7Fu,       0x80u,       0xFFu,       0x100u,
                                       0xFFFFFF80u, 0xFFFFFF7Fu, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0x12345678u};
  for (int round = 0; round < 64; ++round) {
    for (const Dtype from : {Dtype::INT32, Dtype::INT8}) {
      AnyPword p;
      p.dtype = from;
      for (std::size_t i = 0; i < kLanes; ++i) {
        const uint32_t v = round == 0 && i < edges.size() ? edges[i] : static_cast<uint32_t>(rng());
        p.lanes[i] = v & lane_mask(from);
      }
      const Dtype to = from == Dtype::INT32 ? Dtype::INT8 : Dtype::INT32;
      const AnyPword got = convert(p, to);
      EXPECT_EQ(got.dtype, to);
      for (std::size_t i = 0; i < kLanes; ++i)
        ASSERT_EQ(got.lanes[i], encode_lane(to, decode_lane(from, p.lanes[i]))) << "lane " << i << " of " << p.lanes[i];
    }
  }
}

}  // namespace
}  // namespace axcore::num
