// The reduction tree and the LUT packing / evaluation / fitting.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>

#include "axcore/num/lut.hpp"
#include "axcore/num/reduce.hpp"
#include "oracle.hpp"

namespace axcore::num {
namespace {

Float18 f(double v) { return f18_from_double(v); }

TEST(Reduce, TreeOrderHandCase) {
  // 2048 + 63 ones. Tree: (2048+1) ties to 2048; then +2, +4, +8, +16, +32 -> 2110.
  // Left to right it would stay 2048; the exact sum is 2111.
  PwordF18 a;
  a.fill(f(1.0));
  a[0] = f(2048.0);
  const PwordF18 r = add_reduce(a);
  for (Float18 v : r) EXPECT_EQ(to_double(v), 2110.0);
}

TEST(Reduce, TreeMatchesOracleOnRandomVectors) {
  std::mt19937 rng(3);
  std::normal_distribution<double> n(0.0, 100.0);
  for (int t = 0; t < 2000; ++t) {
    PwordF18 a;
    for (auto& v : a) v = f(n(rng));
    std::array<uint32_t, 64> lv{};
    for (std::size_t i = 0; i < 64; ++i) lv[i] = a[i].bits();
    for (std::size_t w = 64; w > 1; w /= 2)
      for (std::size_t i = 0; i < w / 2; ++i) lv[i] = oracle::add(lv[2 * i], lv[2 * i + 1]);
    const PwordF18 r = add_reduce(a);
    for (Float18 v : r) ASSERT_EQ(v.bits(), lv[0]);
    std::array<uint32_t, 64> mx{}, mn{};
    for (std::size_t i = 0; i < 64; ++i) mx[i] = mn[i] = a[i].bits();
    for (std::size_t w = 64; w > 1; w /= 2)
      for (std::size_t i = 0; i < w / 2; ++i) {
        mx[i] = oracle::max(mx[2 * i], mx[2 * i + 1]);
        mn[i] = oracle::min(mn[2 * i], mn[2 * i + 1]);
      }
    ASSERT_EQ(max_reduce(a)[17].bits(), mx[0]);
    ASSERT_EQ(min_reduce(a)[40].bits(), mn[0]);
  }
}

TEST(Reduce, NanAndSignedZeros) {
  PwordF18 a;
  a.fill(f(-0.0));
  EXPECT_EQ(add_reduce(a)[0].bits(), 0x20000u);
  a[9] = f(0.0);
  EXPECT_EQ(max_reduce(a)[0].bits(), 0u);
  EXPECT_EQ(min_reduce(a)[0].bits(), 0x20000u);
  a[33] = Float18::from_bits(Float18::kCanonicalNan);
  EXPECT_TRUE(max_reduce(a)[5].is_nan());
  EXPECT_TRUE(add_reduce(a)[5].is_nan());
}

// >= 10^6 tree nodes per reduction op against the oracle's node-by-node tree: 16 000 vectors of
// 63 nodes (1 008 000 nodes per op). A quarter of the vectors hold uniformly random encodings of
// every kind (zeros, subnormal encodings, normals, inf, NaN); the rest share an exponent range
// (+-4 binades) so that sums cancel and round at every level, a third of those with specials
// sprinkled in. Every lane of every result is compared.
TEST(Reduce, MillionNodesPerOpAgainstOracle) {
  constexpr int kVectors = 16'000;
  static const uint32_t kSpecials[] = {0x00000, 0x20000, 0x00001, 0x203FF, 0x00400, 0x20400,
                                       0x1FBFF, 0x3FBFF, 0x1FC00, 0x3FC00, 0x1FE00, 0x3FC01};
  std::mt19937 rng(4);
  for (int t = 0; t < kVectors; ++t) {
    const int mode = t % 4;
    const int e0 = 1 + static_cast<int>(rng() % 126);
    std::array<uint32_t, 64> lanes{};
    for (auto& b : lanes) {
      b = rng() & 0x3FFFF;
      if (mode != 0) {
        const int e = std::clamp(e0 + static_cast<int>(rng() % 9) - 4, 1, 126);
        b = (b & 0x203FF) | static_cast<uint32_t>(e) << 10;
        if (mode == 3 && rng() % 16 == 0) b = kSpecials[rng() % std::size(kSpecials)];
      }
    }
    PwordF18 a;
    for (std::size_t i = 0; i < 64; ++i) a[i] = Float18::from_bits(lanes[i]);
    std::array<uint32_t, 64> s = lanes, mx = lanes, mn = lanes;
    for (std::size_t w = 64; w > 1; w /= 2) {
      for (std::size_t i = 0; i < w / 2; ++i) {
        s[i] = oracle::add(s[2 * i], s[2 * i + 1]);
        mx[i] = oracle::max(mx[2 * i], mx[2 * i + 1]);
        mn[i] = oracle::min(mn[2 * i], mn[2 * i + 1]);
      }
    }
    const PwordF18 rs = add_reduce(a), rx = max_reduce(a), rn = min_reduce(a);
    for (std::size_t i = 0; i < 64; ++i) {
      ASSERT_EQ(rs[i].bits(), s[0]) << "add_reduce vector " << t << " lane " << i;
      ASSERT_EQ(rx[i].bits(), mx[0]) << "max_reduce vector " << t << " lane " << i;
      ASSERT_EQ(rn[i].bits(), mn[0]) << "min_reduce vector " << t << " lane " << i;
    }
  }
}

TEST(Reduce, OverflowInfinitiesAndFlushedInputs) {
  PwordF18 a;
  a.fill(Float18::from_bits(Float18::kMaxFinite));
  EXPECT_EQ(add_reduce(a)[0].bits(), Float18::kPosInf);  // level 1 already overflows
  EXPECT_EQ(max_reduce(a)[63].bits(), Float18::kMaxFinite);
  a.fill(Float18::from_bits(0x3FBFF));
  EXPECT_EQ(add_reduce(a)[0].bits(), Float18::kNegInf);
  a.fill(f(1.0));
  a[0] = Float18::from_bits(Float18::kPosInf);
  a[63] = Float18::from_bits(Float18::kNegInf);  // meet only at the root: inf + -inf = NaN
  EXPECT_EQ(add_reduce(a)[10].bits(), Float18::kCanonicalNan);
  EXPECT_EQ(max_reduce(a)[10].bits(), Float18::kPosInf);
  EXPECT_EQ(min_reduce(a)[10].bits(), Float18::kNegInf);
  a.fill(Float18::from_bits(0x203FF));  // negative subnormal encodings read as -0
  EXPECT_EQ(add_reduce(a)[0].bits(), 0x20000u);
  EXPECT_EQ(max_reduce(a)[0].bits(), 0x20000u);
  a[31] = Float18::from_bits(0x00001);  // one +0 (subnormal encoding): the sum is +0
  EXPECT_EQ(add_reduce(a)[0].bits(), 0u);
  EXPECT_EQ(max_reduce(a)[0].bits(), 0u);
  EXPECT_EQ(min_reduce(a)[0].bits(), 0x20000u);
}

LutParams ramp_table() {
  // x_min 0, step 1: segment j covers [j, j+1) with y = j * x - j.
  LutParams p;
  p.x_min = 0.0f;
  p.inv_step = 1.0f;
  for (std::size_t j = 0; j < kLutSegments; ++j) {
    p.slope[j] = static_cast<float>(j);
    p.offset[j] = -static_cast<float>(j);
  }
  return p;
}

TEST(Lut, PackingLayout) {
  const PwordF32 w = pack_lut_params_to_pword(ramp_table());
  EXPECT_EQ(w[0], 0.0f);
  EXPECT_EQ(w[1], 1.0f);
  EXPECT_EQ(w[2], 0.0f);
  EXPECT_EQ(w[4], 1.0f);
  EXPECT_EQ(w[5], -1.0f);
  EXPECT_EQ(w[62], 30.0f);
  EXPECT_EQ(w[63], -30.0f);
  const LutParams back = unpack_lut_pword(w);
  EXPECT_EQ(back.slope, ramp_table().slope);
  EXPECT_EQ(back.offset, ramp_table().offset);
}

TEST(Lut, EvaluationHandCases) {
  const std::vector<PwordF18> t = load_lut_tables(std::vector<LutParams>{ramp_table()});
  EXPECT_EQ(to_double(lut_eval(f(2.5), t)), 3.0);       // idx 2: 2*2.5 - 2
  EXPECT_EQ(to_double(lut_eval(f(0.75), t)), 0.0);      // idx 0: 0*x - 0
  EXPECT_EQ(to_double(lut_eval(f(-5.0), t)), 0.0);      // clamped to idx 0
  EXPECT_EQ(to_double(lut_eval(f(100.0), t)), 2970.0);  // clamped to idx 30: 30*100 - 30
  EXPECT_EQ(lut_segment(f(30.99), t[0]), 30u);
  EXPECT_EQ(lut_segment(f(29.99), t[0]), 29u);
  EXPECT_TRUE(lut_eval(Float18::from_bits(Float18::kCanonicalNan), t).is_nan());
  EXPECT_EQ(lut_segment(Float18::from_bits(Float18::kPosInf), t[0]), 30u);
  EXPECT_EQ(lut_segment(Float18::from_bits(Float18::kNegInf), t[0]), 0u);
  // Each step rounds: slope 3 at x = 1000.5 -> 3001.5 rounds to 3002 (ulp 2), then - 3 = 2999
  // rounds to 3000 (tie 2999 between 2998 and 3000 -> even mantissa).
  LutParams p = ramp_table();
  p.inv_step = 0.0f;  // every x in segment 0
  p.slope[0] = 3.0f;
  p.offset[0] = -3.0f;
  const auto t2 = load_lut_tables(std::vector<LutParams>{p});
  EXPECT_EQ(to_double(lut_eval(f(1000.5), t2)), to_double(add(mul(f(3), f(1000.5)), f(-3))));
  EXPECT_EQ(to_double(mul(f(3), f(1000.5))), 3002.0);
}

TEST(Lut, ParametersRoundToFloat18OnLoad) {
  LutParams p = ramp_table();
  p.slope[0] = 1.0f + std::ldexp(1.0f, -12);  // not a float18: loads as 1.0
  p.offset[0] = 0.0f;
  const PwordF18 reg = load_lut_table(pack_lut_params_to_pword(p));
  EXPECT_EQ(to_double(reg[2]), 1.0);
  EXPECT_EQ(to_double(lut_eval(f(0.5), std::span<const PwordF18>(&reg, 1))), 0.5);
}

TEST(Lut, ChainSelectsLastTableWithXminBelowX) {
  LutParams a = ramp_table(), b = ramp_table(), c = ramp_table();
  a.x_min = -10.0f;
  b.x_min = 0.0f;
  c.x_min = 10.0f;
  for (std::size_t j = 0; j < kLutSegments; ++j) {
    a.slope[j] = b.slope[j] = c.slope[j] = 0.0f;
    a.offset[j] = 1.0f;
    b.offset[j] = 2.0f;
    c.offset[j] = 3.0f;
  }
  const auto t = load_lut_tables(std::vector<LutParams>{a, b, c});
  EXPECT_EQ(to_double(lut_eval(f(-20.0), t)), 1.0);  // none: table 0
  EXPECT_EQ(to_double(lut_eval(f(-10.0), t)), 1.0);
  EXPECT_EQ(to_double(lut_eval(f(-0.001), t)), 1.0);
  EXPECT_EQ(to_double(lut_eval(f(0.0), t)), 2.0);
  EXPECT_EQ(to_double(lut_eval(f(9.99), t)), 2.0);
  EXPECT_EQ(to_double(lut_eval(f(10.0), t)), 3.0);
  EXPECT_EQ(to_double(lut_eval(f(1e6), t)), 3.0);
  EXPECT_THROW(lut_eval(f(1.0), std::span<const PwordF18>()), std::invalid_argument);
  std::vector<PwordF18> nine(9, t[0]);
  EXPECT_THROW(lut_eval(f(1.0), nine), std::invalid_argument);
}

double max_abs_error(double lo, double hi, int n, double (*fn)(double), LutSpacing s = LutSpacing::Uniform) {
  const auto params = compute_chained_lut_params(lo, hi, n, fn, s);
  const auto tables = load_lut_tables(params);
  double worst = 0.0;
  for (Float18 x : f18_values_in(lo, hi)) {
    worst = std::max(worst, std::fabs(to_double(lut_eval(x, tables)) - fn(to_double(x))));
  }
  return worst;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double texp(double x) { return std::exp(x); }
double ttanh(double x) { return std::tanh(x); }

TEST(Lut, FitsAreAccurateAndImproveWithChaining) {
  const double e1 = max_abs_error(-8.0, 8.0, 1, sigmoid);
  const double e4 = max_abs_error(-8.0, 8.0, 4, sigmoid);
  EXPECT_LT(e1, 1e-2);
  EXPECT_LT(e4, 3e-3);
  EXPECT_LT(e4, e1);
  EXPECT_LT(max_abs_error(-4.0, 4.0, 8, ttanh), 2e-3);
  EXPECT_LT(max_abs_error(-8.0, 0.0, 4, texp), 2e-3);
}

TEST(Lut, FitRejectsBadArguments) {
  EXPECT_THROW(compute_chained_lut_params(1.0, 1.0, 1, texp), std::invalid_argument);
  EXPECT_THROW(compute_chained_lut_params(0.0, 1.0, 0, texp), std::invalid_argument);
  EXPECT_THROW(compute_chained_lut_params(0.0, 1.0, 9, texp), std::invalid_argument);
  EXPECT_THROW(compute_chained_lut_params(0.0, 1.0, 2, texp, LutSpacing::Geometric), std::invalid_argument);
  EXPECT_THROW(compute_chained_lut_params(0.0, 1.0, 1, [](double x) { return 1.0 / x; }), std::invalid_argument);
  EXPECT_THROW(compute_chained_lut_params(0.0, HUGE_VAL, 1, texp), std::invalid_argument);
}

TEST(Lut, ValuesInRange) {
  const auto v = f18_values_in(1.0, 2.0);
  EXPECT_EQ(v.size(), 1025u);
  EXPECT_EQ(to_double(v.front()), 1.0);
  EXPECT_EQ(to_double(v.back()), 2.0);
  const auto z = f18_values_in(-1.0, 1.0);
  EXPECT_EQ(z.size(), 2u * 62 * 1024 + 2 + 1);  // binades 2^-62 .. 2^-1 per sign, +-1, one zero
}

}  // namespace
}  // namespace axcore::num
