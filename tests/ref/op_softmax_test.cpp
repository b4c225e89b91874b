// Softmax and layer norm references (LUT based, as the DPU computes them): exact hand cases with
// hand-made tables that expose the algorithm (masking of pad lanes, block sums, the FMA), and
// random rows against double-precision loops. Bounds (measured maxima in docs/numerics.md):
//   softmax     |y - softmax(x)| <= 6e-3 * max(softmax(x)) + 1e-4   (measured 4.5e-3 * max)
//   layer norm  |y - ln(x)|      <= 4e-3 * (1 + |ln(x)|)            (measured 2.0e-3)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "axcore/ref/op/softmax.hpp"
#include "op_test_util.hpp"

namespace axcore::ref {
namespace {

num::PwordF18 const_table(float x_min, float slope, float offset) {
  num::LutParams p;
  p.x_min = x_min;
  p.inv_step = 1.0f;
  p.slope.fill(slope);
  p.offset.fill(offset);
  return num::load_lut_table(num::pack_lut_params_to_pword(p));
}

TEST(OpSoftmax, HandTablesExposeTheAlgorithm) {
  SoftmaxLuts l;
  l.exp_tables = {const_table(-16.0f, 0.0f, 1.0f)};  // exp(d) = 1
  l.exp_lo = num::f18_from_double(-16.0);
  l.recip_tables = {const_table(0.0f, 0.0f, 0.25f)};  // 1/s = 0.25
  const NDArray<float> x(Shape{1, 4}, {1.0f, -3.0f, 7.0f, 0.5f});
  EXPECT_EQ(softmax(x, l).data(), (std::vector<float>{0.25f, 0.25f, 0.25f, 0.25f}));
  // "1/s = s": y = e * s = the sum of the masked exps. 70 elements = 2 blocks; the 58 pad lanes
  // of the second block must not count (they would give 128).
  l.recip_tables = {const_table(0.0f, 1.0f, 0.0f)};
  const NDArray<float> x70(Shape{70}, 0.0f);
  const auto y70 = softmax(x70, l);
  for (float v : y70.data()) ASSERT_EQ(v, 70.0f);
  EXPECT_THROW(softmax(NDArray<float>(Shape{2, 0}), l), std::invalid_argument);
}

TEST(OpSoftmax, RandomRowsAgainstDouble) {
  const SoftmaxLuts l = make_softmax_luts(200);
  std::mt19937 rng(31);
  double worst = 0.0;
  for (int t = 0; t < 200; ++t) {
    const std::size_t n = 1 + rng() % 200;
    const double spread = 1.0 + rng() % 12;
    const auto x = testing::random_f32({2, n}, rng, -spread, spread);
    const auto y = softmax(x, l);
    for (std::size_t r = 0; r < 2; ++r) {
      double m = -HUGE_VAL, s = 0.0;
      for (std::size_t i = 0; i < n; ++i) m = std::max(m, static_cast<double>(x({r, i})));
      for (std::size_t i = 0; i < n; ++i) s += std::exp(x({r, i}) - m);
      for (std::size_t i = 0; i < n; ++i) {
        const double want = std::exp(x({r, i}) - m) / s, pmax = 1.0 / s;
        const double err = std::fabs(y({r, i}) - want);
        worst = std::max(worst, err / pmax);
        ASSERT_LE(err, 6e-3 * pmax + 1e-4) << n << " " << i;
      }
    }
  }
  std::printf("softmax: max |err| / max(p) = %.3e\n", worst);
}

TEST(OpLayerNorm, HandCases) {
  // Constant rsqrt table 2: y = f18(f18(d * 2) * gamma) + beta, exact here.
  LayerNormLuts l;
  l.rsqrt_tables = {const_table(0.0f, 0.0f, 2.0f)};
  l.lo = num::f18_from_double(1.0 / 256);
  l.hi = num::f18_from_double(256.0);
  const NDArray<float> x(Shape{4}, {1.0f, 2.0f, 3.0f, 4.0f});
  const NDArray<float> g(Shape{4}, 0.5f), b(Shape{4}, 1.0f);
  // mean 2.5, d = [-1.5, -0.5, 0.5, 1.5] -> d * 2 * 0.5 + 1
  EXPECT_EQ(layer_norm(x, g, b, 0.0f, l).data(), (std::vector<float>{-0.5f, 0.5f, 1.5f, 2.5f}));
  // With the fitted rsqrt: var 1.25, 1/sqrt(1.25) = 0.894427...
  const auto y =
      layer_norm(x, NDArray<float>(Shape{4}, 1.0f), NDArray<float>(Shape{4}, 0.0f), 0.0f, make_layernorm_luts());
  const double r = 1.0 / std::sqrt(1.25);
  const double want[4] = {-1.5 * r, -0.5 * r, 0.5 * r, 1.5 * r};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y.data()[static_cast<std::size_t>(i)], want[i], 3e-3);
  EXPECT_THROW(layer_norm(x, NDArray<float>(Shape{3}), b, 0.0f, l), std::invalid_argument);
}

TEST(OpLayerNorm, RandomRowsAgainstDouble) {
  const LayerNormLuts l = make_layernorm_luts();
  std::mt19937 rng(32);
  double worst = 0.0;
  for (int t = 0; t < 200; ++t) {
    const std::size_t n = 2 + rng() % 200;
    const double scale = std::ldexp(1.0, static_cast<int>(rng() % 7) - 2);
    const auto x = testing::random_f32({n}, rng, -scale, scale);
    const auto g = testing::random_f32({n}, rng, 0.5, 2.0);
    const auto b = testing::random_f32({n}, rng, -1.0, 1.0);
    const float eps = 1e-5f;
    const auto y = layer_norm(x, g, b, eps, l);
    double mean = 0.0, var = 0.0;
    for (float v : x.data()) mean += v;
    mean /= static_cast<double>(n);
    for (float v : x.data()) var += (v - mean) * (v - mean);
    var /= static_cast<double>(n);
    // The rsqrt table covers [1/256, 256]; outside it the reference clamps (by design).
    ASSERT_TRUE(var + eps > 1.0 / 256 && var + eps < 256.0) << var;
    const double rs = 1.0 / std::sqrt(var + eps);
    for (std::size_t i = 0; i < n; ++i) {
      const double want = (x.data()[i] - mean) * rs * g.data()[i] + b.data()[i];
      const double err = std::fabs(y.data()[i] - want) / (1.0 + std::fabs(want));
      worst = std::max(worst, err);
      ASSERT_LE(err, 4e-3) << n << " " << i;
    }
  }
  std::printf("layer_norm: max |err| / (1 + |y|) = %.3e\n", worst);
}

}  // namespace
}  // namespace axcore::ref
