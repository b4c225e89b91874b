// Elementwise operator references (add/sub/mul with broadcast, cast, quantize, dequantize,
// relu, prelu): hand cases and random cases against double loops. Bounds (u = 2^-11, inputs
// rounded to float18 on POP, one rounding per DPU op; docs/numerics.md):
//   add/sub   |y - (a +- b)| <= 2.01 u (|a| + |b|)
//   mul       |y - a b|      <= 3.01 u |a b|
//   dequant   |y - (q - zp) s| <= 2.01 u |(q - zp) s|     (q - zp is exact in float18)
//   quantize  |q - clip(rne(x s + zp))| <= 1, exact away from the rounding boundaries
#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <limits>

#include "axcore/ref/op/elementwise.hpp"
#include "op_test_util.hpp"

namespace axcore::ref {
namespace {

using testing::kU18;

TEST(OpElementwise, HandCases) {
  const NDArray<float> a(Shape{2, 3}, {1.0f, 2.0f, 3.0f, -4.0f, 0.5f, 1e-30f});
  const NDArray<float> b(Shape{3}, {10.0f, -2.0f, 0.25f});  // per-channel (last axis) broadcast
  EXPECT_EQ(add_tensor(a, b).data(), (std::vector<float>{11.0f, 0.0f, 3.25f, 6.0f, -1.5f, 0.25f}));
  EXPECT_EQ(sub_tensor(a, b).data(), (std::vector<float>{-9.0f, 4.0f, 2.75f, -14.0f, 2.5f, -0.25f}));
  // 1e-30 is below 2^-62 (about 2.2e-19): POP flushes it to +0, so the product is +0.
  EXPECT_EQ(mul_tensor(a, b).data(), (std::vector<float>{10.0f, -4.0f, 0.75f, -40.0f, -1.0f, 0.0f}));
  // 1 + 2^-11 is not a float18: POP rounds it to 1 (tie to even), so 1 + 2^-11 - 1 = 0.
  const NDArray<float> c(Shape{1}, {1.0f + std::ldexp(1.0f, -11)});
  EXPECT_EQ(sub_tensor(c, NDArray<float>(Shape{1}, {1.0f})).data()[0], 0.0f);
  // Overflow: 2^62 * 8 = 2^65 > float18 max -> inf.
  EXPECT_EQ(mul_tensor(NDArray<float>(Shape{1}, {std::ldexp(1.0f, 62)}), NDArray<float>(Shape{1}, {8.0f})).data()[0],
            HUGE_VALF);
  EXPECT_THROW(add_tensor(a, NDArray<float>(Shape{4})), std::invalid_argument);
  // int8 inputs and outputs: saturating.
  const NDArray<int8_t> i(Shape{3}, {100, -100, 7});
  EXPECT_EQ((add_tensor<int8_t>(i, i).data()), (std::vector<int8_t>{127, -128, 14}));
}

TEST(OpElementwise, CastsRoundThroughFloat18) {
  // float32 -> int8 goes through float18: 2.5004 POPs as 2.5 and then rounds to even 2.
  const NDArray<float> x(Shape{6}, {2.5004f, 3.5f, -0.5f, 300.0f, -1e9f, std::numeric_limits<float>::quiet_NaN()});
  EXPECT_EQ((cast<int8_t>(x).data()), (std::vector<int8_t>{2, 4, 0, 127, -128, 0}));
  // float32 -> float16 through float18: 65519 rounds to 65504 in float18 (ulp 32), then exact.
  const NDArray<float> h(Shape{2}, {65519.0f, 1e-7f});
  const auto y = cast<num::Float16>(h);
  EXPECT_EQ(y.data()[0].bits, 0x7BFF);
  EXPECT_EQ(num::to_double(y.data()[1]),
            num::to_double(num::f16_from_double(num::to_double(num::f18_from_float(1e-7f)))));
  // int32 -> float32: 2^24 + 1 is not a float18; the result is the float18 rounding.
  const NDArray<int32_t> big(Shape{2}, {(1 << 24) + 1, 2049});
  EXPECT_EQ((cast<float>(big).data()), (std::vector<float>{16777216.0f, 2048.0f}));
}

// cast<Out>(x) = Out(f18(x)) against double loops on float32 inputs spread over binades 2^-70 ..
// 2^70 (so the flush below 2^-62 and the overflow at 2^64 are crossed) plus +-0, +-inf, NaN.
//   float32: |y - x| <= u |x| when 2^-62 <= |x| < (2 - 2^-11) 2^63; 0 of x's sign below
//            2^-62 (1 - 2^-12); inf of x's sign from (2 - 2^-11) 2^63 on
//   float16: equal to the float32 result where that is a float16 normal (same 11-bit
//            precision), within 2^-25 (half a float16 subnormal step) below 2^-14, inf at >= 65520
//   int8:    within 1 of clip(rne(x)), and equal to it unless x lies within u |x| of a half-integer
//   int32:   within u |x| + 1/2 of x below 2^30, saturated from 2^32 on
// int8 and float16 inputs to float32 are exact; int32 -> float32 is one float18 rounding.
TEST(OpElementwise, CastsRandomAgainstDoubleLoops) {
  std::mt19937 rng(22);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  NDArray<float> x(Shape{40000});
  for (auto& v : x.data()) {
    const double sign = rng() % 2 == 0 ? 1.0 : -1.0;
    v = static_cast<float>(sign * std::ldexp(mant(rng), static_cast<int>(rng() % 141) - 70));
  }
  const float specials[] = {0.0f, -0.0f, HUGE_VALF, -HUGE_VALF, std::numeric_limits<float>::quiet_NaN()};
  for (std::size_t i = 0; i < std::size(specials); ++i) x.data()[i] = specials[i];
  const auto f32 = cast<float>(x);
  const auto f16 = cast<num::Float16>(x);
  const auto i8 = cast<int8_t>(x);
  const auto i32 = cast<int32_t>(x);
  const double min_normal = std::ldexp(1.0, -62), overflow = (2.0 - std::ldexp(1.0, -11)) * std::ldexp(1.0, 63);
  int i8_exact_required = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x.data()[i], a = std::fabs(v);
    const double y = f32.data()[i];
    if (std::isnan(v)) {
      ASSERT_TRUE(std::isnan(y));
      ASSERT_TRUE(std::isnan(num::to_double(f16.data()[i])));
      ASSERT_EQ(i8.data()[i], 0);
      ASSERT_EQ(i32.data()[i], 0);
      continue;
    }
    ASSERT_EQ(std::signbit(y), std::signbit(v)) << v;
    if (a >= overflow) {
      ASSERT_TRUE(std::isinf(y)) << v;
    } else if (a < min_normal * (1.0 - std::ldexp(1.0, -12))) {
      ASSERT_EQ(y, 0.0) << v;
    } else {
      ASSERT_LE(std::fabs(y - v), kU18 * a) << v;
    }
    // float16
    const double h = num::to_double(f16.data()[i]);
    ASSERT_EQ(std::signbit(h), std::signbit(v)) << v;
    if (std::fabs(y) >= 65520.0) {
      ASSERT_TRUE(std::isinf(h)) << v;
    } else if (std::fabs(y) >= std::ldexp(1.0, -14)) {
      ASSERT_EQ(h, y) << v;
    } else {
      ASSERT_LE(std::fabs(h - y), std::ldexp(1.0, -25)) << v;
    }
    // int8
    const double want8 = std::fmax(-128.0, std::fmin(127.0, std::nearbyint(std::fmax(std::fmin(v, 1e3), -1e3))));
    ASSERT_LE(std::fabs(i8.data()[i] - want8), 1.0) << v;
    const double to_half = std::fabs(v - (std::floor(v) + 0.5));
    if (to_half > kU18 * a || a > 200.0) {
      ASSERT_EQ(i8.data()[i], want8) << v;
      ++i8_exact_required;
    }
    // int32
    if (a < std::ldexp(1.0, 30)) {
      ASSERT_LE(std::fabs(i32.data()[i] - v), kU18 * a + 0.5) << v;
    } else if (a >= std::ldexp(1.0, 32)) {
      ASSERT_EQ(i32.data()[i], v > 0 ? INT32_MAX : INT32_MIN) << v;
    }
  }
  EXPECT_GT(i8_exact_required, 39000);
  // Narrow inputs: int8 and float16 are float18 values, int32 rounds once.
  std::uniform_int_distribution<int> d8(-128, 127);
  NDArray<int8_t> q(Shape{1000});
  for (auto& v : q.data()) v = static_cast<int8_t>(d8(rng));
  const auto qf = cast<float>(q);
  for (std::size_t i = 0; i < q.size(); ++i) ASSERT_EQ(qf.data()[i], static_cast<float>(q.data()[i]));
  NDArray<num::Float16> hf(Shape{65536});
  for (std::size_t i = 0; i < hf.size(); ++i) hf.data()[i] = num::Float16{static_cast<uint16_t>(i)};
  const auto hff = cast<float>(hf);
  for (std::size_t i = 0; i < hf.size(); ++i) {
    const double want = num::to_double(hf.data()[i]);
    if (std::isnan(want))
      ASSERT_TRUE(std::isnan(hff.data()[i]));
    else
      ASSERT_EQ(static_cast<double>(hff.data()[i]), want) << i;
  }
  NDArray<int32_t> w(Shape{1000});
  for (auto& v : w.data()) v = static_cast<int32_t>(rng());
  const auto wf = cast<float>(w);
  for (std::size_t i = 0; i < w.size(); ++i)
    ASSERT_LE(std::fabs(static_cast<double>(wf.data()[i]) - w.data()[i]),
              kU18 * std::fabs(static_cast<double>(w.data()[i])));
}

TEST(OpElementwise, QuantizeDequantizeHand) {
  // q = int8(f18(f18(x * 10) + 3)): 0.25 -> 5.5 -> 6 (tie to even), -0.35 -> about -0.5 -> 0.
  const NDArray<float> x(Shape{4}, {0.25f, -0.35f, 100.0f, 0.0f});
  const auto q = quantize(x, NDArray<float>(Shape{1}, {10.0f}), NDArray<float>(Shape{1}, {3.0f}));
  EXPECT_EQ(q.data(), (std::vector<int8_t>{6, 0, 127, 3}));
  const auto d = dequantize(q, NDArray<float>(Shape{1}, {3.0f}), NDArray<float>(Shape{1}, {0.1f}));
  // (6 - 3) * f18(0.1): 0.1 rounds to 0.0999755859375 in float18, then * 3 rounds again.
  EXPECT_EQ(d.data()[0],
            static_cast<float>(num::to_double(num::mul(num::f18_from_double(3), num::f18_from_float(0.1f)))));
  EXPECT_NEAR(d.data()[0], 0.3f, 3e-4);
  EXPECT_EQ(d.data()[3], 0.0f);
  EXPECT_NEAR(d.data()[2], 12.4f, 0.01f);
}

TEST(OpElementwise, ReluPreluHand) {
  const NDArray<float> x(Shape{2, 2}, {-2.0f, 3.0f, -0.0f, std::numeric_limits<float>::quiet_NaN()});
  const auto r = relu(x);
  EXPECT_EQ(r.data()[0], 0.0f);
  EXPECT_FALSE(std::signbit(r.data()[0]));
  EXPECT_EQ(r.data()[1], 3.0f);
  EXPECT_EQ(r.data()[2], 0.0f);
  EXPECT_TRUE(std::isnan(r.data()[3]));
  const auto p = prelu(x, NDArray<float>(Shape{2}, {0.25f, 0.5f}));
  EXPECT_EQ(p.data()[0], -0.5f);
  EXPECT_EQ(p.data()[1], 3.0f);
  EXPECT_TRUE(std::signbit(p.data()[2]));  // -0 >= 0 passes through as -0
  EXPECT_TRUE(std::isnan(p.data()[3]));
}

TEST(OpElementwise, RandomAgainstDoubleLoops) {
  std::mt19937 rng(21);
  for (int t = 0; t < 50; ++t) {
    const std::size_t H = 1 + rng() % 4, W = 1 + rng() % 5, C = 1 + rng() % 130;
    const auto a = testing::random_f32({H, W, C}, rng, -1000.0, 1000.0);
    const auto b = testing::random_f32({C}, rng, -10.0, 10.0);
    const auto s = add_tensor(a, b), d = sub_tensor(a, b), m = mul_tensor(a, b);
    const auto pr = prelu(a, b), re = relu(a);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double x = a.data()[i], y = b.data()[i % C];
      ASSERT_LE(std::fabs(s.data()[i] - (x + y)), 2.01 * kU18 * (std::fabs(x) + std::fabs(y)));
      ASSERT_LE(std::fabs(d.data()[i] - (x - y)), 2.01 * kU18 * (std::fabs(x) + std::fabs(y)));
      ASSERT_LE(std::fabs(m.data()[i] - x * y), 3.01 * kU18 * std::fabs(x * y));
      ASSERT_LE(std::fabs(pr.data()[i] - (x >= 0 ? x : x * y)), 3.01 * kU18 * std::fabs(x >= 0 ? x : x * y));
      ASSERT_LE(std::fabs(re.data()[i] - std::max(x, 0.0)), kU18 * std::fabs(x));
    }
    // quantize / dequantize with per-channel scales and integer zero points.
    const auto inv = testing::random_f32({C}, rng, 0.05, 0.2);
    NDArray<float> zp(Shape{C});
    for (auto& z : zp.data()) z = static_cast<float>(static_cast<int>(rng() % 21) - 10);
    const auto q = quantize(a, inv, zp);
    int exact = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double v = static_cast<double>(a.data()[i]) * inv.data()[i % C] + zp.data()[i % C];
      const double want = std::fmax(-128.0, std::fmin(127.0, std::nearbyint(v)));
      ASSERT_LE(std::fabs(q.data()[i] - want), 1.0) << v;
      exact += q.data()[i] == want ? 1 : 0;
    }
    EXPECT_GE(exact, static_cast<int>(a.size() * 9 / 10));
    const auto sc = testing::random_f32({C}, rng, 0.001, 0.1);
    const auto dq = dequantize(q, zp, sc);
    for (std::size_t i = 0; i < q.size(); ++i) {
      const double want = (static_cast<double>(q.data()[i]) - zp.data()[i % C]) * sc.data()[i % C];
      ASSERT_LE(std::fabs(dq.data()[i] - want), 2.01 * kU18 * std::fabs(want));
    }
  }
}

}  // namespace
}  // namespace axcore::ref
