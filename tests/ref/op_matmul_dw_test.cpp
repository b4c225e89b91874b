// Operator references of the MVM and DWPU datapaths (matmul / linear, conv2d, depthwise conv,
// pooling): hand-computed small cases and random cases against plain loops written here.
// The integer parts are exact (int64 sums wrapped to int32); the float18 epilogue is bounded by
// |ref - exact| <= u (4.01 |acc * scale| + 2.01 |bias|), u = 2^-11 (scale and bias rounded to
// float18 on load, then acc, product and sum rounded: docs/numerics.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "axcore/ref/op/depthwise.hpp"
#include "axcore/ref/op/matmul.hpp"
#include "op_test_util.hpp"

namespace axcore::ref {
namespace {

using testing::kU18;

int32_t wrap64(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

TEST(OpMatmul, HandCase) {
  // [[1, 2, 3], [-4, 5, -6]] @ [[1, -1], [0, 2], [3, 1]] = [[10, 6], [-22, 8]]
  const NDArray<int8_t> x(Shape{2, 3}, {1, 2, 3, -4, 5, -6});
  const NDArray<int8_t> w(Shape{3, 2}, {1, -1, 0, 2, 3, 1});
  EXPECT_EQ(matmul_int32(x, w).data(), (std::vector<int32_t>{10, 6, -22, 8}));
  Epilogue e;
  e.scale = NDArray<float>(Shape{2}, {0.5f, 0.25f});
  e.bias = NDArray<float>(Shape{1}, {1.0f});
  // [[10*0.5+1, 6*0.25+1], [-22*0.5+1, 8*0.25+1]]
  EXPECT_EQ(linear(x, w, e).data(), (std::vector<float>{6.0f, 2.5f, -10.0f, 3.0f}));
  // int8 output: round half to even, clip.
  e.scale = NDArray<float>(Shape{1}, {20.0f});
  e.bias.reset();
  EXPECT_EQ(linear<int8_t>(x, w, e).data(), (std::vector<int8_t>{127, 120, -128, 127}));
  // float18 rounding of the accumulator: 2049 -> 2048 (tie to even) on the way to float32.
  const NDArray<int8_t> x2(Shape{1, 17}, std::vector<int8_t>(17, 127));
  NDArray<int8_t> w2(Shape{17, 1}, std::vector<int8_t>(17, 1));
  w2.data()[16] = -1;  // 16 * 127 - 127 = 1905 (exact in float18: below 2^11)
  EXPECT_EQ(linear(x2, w2).data()[0], 1905.0f);
  const NDArray<int8_t> x3(Shape{1, 2}, {127, 1});
  const NDArray<int8_t> w3(Shape{2, 1}, {127, 16});  // 16129 + 16 = 16145
  EXPECT_EQ(matmul_int32(x3, w3).data()[0], 16145);
  EXPECT_EQ(linear(x3, w3).data()[0], 16144.0f);  // ulp 8 in [2^13, 2^14): 16145 -> 16144
}

TEST(OpMatmul, RandomAgainstPlainLoop) {
  std::mt19937 rng(11);
  for (int t = 0; t < 30; ++t) {
    const std::size_t B = 1 + rng() % 3, M = 1 + rng() % 5, K = 1 + rng() % 150, N = 1 + rng() % 70;
    const auto x = testing::random_i8({B, M, K}, rng);
    const auto w = testing::random_i8({K, N}, rng);
    Epilogue e;
    e.scale = testing::random_f32({N}, rng, -0.01, 0.01);
    e.bias = testing::random_f32({N}, rng, -50.0, 50.0);
    const auto acc = matmul_int32(x, w);
    const auto y = linear(x, w, e);
    ASSERT_EQ(acc.shape(), (Shape{B, M, N}));
    for (std::size_t r = 0; r < B * M; ++r) {
      for (std::size_t n = 0; n < N; ++n) {
        int64_t s = 0;
        for (std::size_t k = 0; k < K; ++k) s += int64_t{x.data()[r * K + k]} * w.data()[k * N + n];
        ASSERT_EQ(acc.data()[r * N + n], wrap64(s));
        const double sc = e.scale->data()[n], b = e.bias->data()[n];
        const double exact = static_cast<double>(s) * sc + b;
        const double tol = kU18 * (4.01 * std::fabs(static_cast<double>(s) * sc) + 2.01 * std::fabs(b));
        ASSERT_LE(std::fabs(static_cast<double>(y.data()[r * N + n]) - exact), tol) << r << " " << n;
      }
    }
  }
}

TEST(OpMatmul, AccumulatorWrapsAndShapesAreChecked) {
  const std::size_t K = 140000;  // 127 * 127 * K > 2^31
  const NDArray<int8_t> x(Shape{1, K}, std::vector<int8_t>(K, 127));
  const NDArray<int8_t> w(Shape{K, 1}, std::vector<int8_t>(K, 127));
  EXPECT_EQ(matmul_int32(x, w).data()[0], wrap64(int64_t{127 * 127} * static_cast<int64_t>(K)));
  EXPECT_LT(matmul_int32(x, w).data()[0], 0);
  EXPECT_THROW(matmul_int32(NDArray<int8_t>(Shape{2, 3}), NDArray<int8_t>(Shape{4, 2})), std::invalid_argument);
  Epilogue e;
  e.scale = NDArray<float>(Shape{3}, 1.0f);
  EXPECT_THROW(linear(NDArray<int8_t>(Shape{2, 3}), NDArray<int8_t>(Shape{3, 2}), e), std::invalid_argument);
}

// Plain conv2d over an explicitly zero-padded input.
std::vector<int64_t> plain_conv(const NDArray<int8_t>& x, const NDArray<int8_t>& w, const Conv2dParams& p,
                                std::size_t& OH, std::size_t& OW) {
  const std::size_t H = x.dim(0), W = x.dim(1), C = x.dim(2), KH = w.dim(0), KW = w.dim(1), CO = w.dim(3);
  const std::size_t PH = H + 2 * p.padding[0], PW = W + 2 * p.padding[1];
  std::vector<int64_t> padded(PH * PW * C, 0);
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t v = 0; v < W; ++v)
      for (std::size_t c = 0; c < C; ++c)
        padded[((h + p.padding[0]) * PW + v + p.padding[1]) * C + c] = x.data()[(h * W + v) * C + c];
  OH = (PH - p.dilation[0] * (KH - 1) - 1) / p.stride[0] + 1;
  OW = (PW - p.dilation[1] * (KW - 1) - 1) / p.stride[1] + 1;
  std::vector<int64_t> out(OH * OW * CO, 0);
  for (std::size_t oh = 0; oh < OH; ++oh)
    for (std::size_t ow = 0; ow < OW; ++ow)
      for (std::size_t co = 0; co < CO; ++co) {
        int64_t s = 0;
        for (std::size_t kh = 0; kh < KH; ++kh)
          for (std::size_t kw = 0; kw < KW; ++kw)
            for (std::size_t c = 0; c < C; ++c)
              s += padded[((oh * p.stride[0] + kh * p.dilation[0]) * PW + ow * p.stride[1] + kw * p.dilation[1]) * C +
                          c] *
                   w.data()[((kh * KW + kw) * C + c) * CO + co];
        out[(oh * OW + ow) * CO + co] = s;
      }
  return out;
}

TEST(OpConv2d, HandCase) {
  // 3x3 single channel 1..9, 2x2 kernel [[1, 0], [0, -1]], stride 1, no padding:
  // out[i][j] = x[i][j] - x[i+1][j+1] = -4 everywhere.
  const NDArray<int8_t> x(Shape{3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const NDArray<int8_t> w(Shape{2, 2, 1, 1}, {1, 0, 0, -1});
  const auto y = conv2d_int32(x, w, {});
  EXPECT_EQ(y.shape(), (Shape{2, 2, 1}));
  EXPECT_EQ(y.data(), (std::vector<int32_t>{-4, -4, -4, -4}));
  // Padding 1, stride 2: outputs at (0,0), (0,2), (2,0), (2,2) of the padded 5x5 grid.
  // (0,0): 0 - x[0][0] = -1; (0,2): 0 - x[0][2] = -3; (2,0): 0 - x[2][0] = -7; (2,2): x[1][1] - x[2][2] = -4.
  Conv2dParams p;
  p.stride = {2, 2};
  p.padding = {1, 1};
  EXPECT_EQ(conv2d_int32(x, w, p).data(), (std::vector<int32_t>{-1, -3, -7, -4}));
  // Dilation 2 with a 2x2 kernel spans 3x3: one output x[0][0] - x[2][2] = -8.
  p = {};
  p.dilation = {2, 2};
  EXPECT_EQ(conv2d_int32(x, w, p).data(), (std::vector<int32_t>{-8}));
}

TEST(OpConv2d, RandomAgainstPaddedLoop) {
  std::mt19937 rng(12);
  for (int t = 0; t < 40; ++t) {
    const std::size_t H = 3 + rng() % 6, W = 3 + rng() % 6, C = 1 + rng() % 9, CO = 1 + rng() % 7;
    const std::size_t KH = 1 + rng() % 3, KW = 1 + rng() % 3;
    Conv2dParams p;
    p.stride = {1 + rng() % 2, 1 + rng() % 3};
    p.padding = {rng() % 2, rng() % 3};
    p.dilation = {1 + rng() % 2, 1 + rng() % 2};
    if (H + 2 * p.padding[0] < p.dilation[0] * (KH - 1) + 1 || W + 2 * p.padding[1] < p.dilation[1] * (KW - 1) + 1)
      continue;
    const auto x = testing::random_i8({H, W, C}, rng);
    const auto w = testing::random_i8({KH, KW, C, CO}, rng);
    std::size_t OH = 0, OW = 0;
    const auto want = plain_conv(x, w, p, OH, OW);
    const auto got = conv2d_int32(x, w, p);
    ASSERT_EQ(got.shape(), (Shape{OH, OW, CO}));
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got.data()[i], wrap64(want[i])) << t << " " << i;
    // float32 output: one float18 rounding of the accumulator (no epilogue).
    const auto y = conv2d(x, w, p);
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_LE(std::fabs(static_cast<double>(y.data()[i]) - static_cast<double>(want[i])),
                kU18 * std::fabs(static_cast<double>(want[i])));
  }
}

TEST(OpConv2d, OneByOneKernelIsMatmul) {
  std::mt19937 rng(13);
  const auto x = testing::random_i8({4, 5, 70}, rng);
  const auto w = testing::random_i8({1, 1, 70, 9}, rng);
  const auto c = conv2d_int32(x, w, {});
  const auto m = matmul_int32(x, NDArray<int8_t>(Shape{70, 9}, w.data()));
  EXPECT_EQ(c.data(), m.data());
}

TEST(OpDepthwise, HandCases) {
  // 1-D, 2 channels, kernel 3, padding 1: y[i][c] = sum_t x[i - 1 + t][c] * w[t][c].
  const NDArray<int8_t> x(Shape{4, 2}, {1, 10, 2, 20, 3, 30, 4, 40});
  const NDArray<int8_t> w(Shape{3, 2}, {1, 0, 1, 1, 1, -1});
  // channel 0 (1,1,1): [0+1+2, 1+2+3, 2+3+4, 3+4+0] = [3, 6, 9, 7]
  // channel 1 (0,1,-1): [10-20, 20-30, 30-40, 40-0] = [-10, -10, -10, 40]
  EXPECT_EQ(dw_conv1d_int32(x, w, 1, 1).data(), (std::vector<int32_t>{3, -10, 6, -10, 9, -10, 7, 40}));
  // stride 2, dilation 2, no padding: span 5 > 4 -> rejected; span 3 with dilation 1 ok.
  EXPECT_THROW(dw_conv1d_int32(x, w, 2, 0, 2), std::invalid_argument);
  EXPECT_EQ(dw_conv1d_int32(x, w, 2, 0, 1).data(), (std::vector<int32_t>{6, -10}));
  // 2-D 3x3x1 with a 2x2 all-ones kernel, stride 1: window sums.
  const NDArray<int8_t> x2(Shape{3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const NDArray<int8_t> w2(Shape{2, 2, 1}, {1, 1, 1, 1});
  EXPECT_EQ(dw_conv2d_int32(x2, w2, {}).data(), (std::vector<int32_t>{12, 16, 24, 28}));
  EXPECT_EQ(dw_conv2d(x2, w2, {}).data(), (std::vector<float>{12, 16, 24, 28}));
}

TEST(OpPool, HandCasesPyTorchSemantics) {
  // 1-D, one channel, [1, -3, 5, 7, -2], kernel 2, stride 2.
  const NDArray<int8_t> x(Shape{5, 1}, {1, -3, 5, 7, -2});
  PoolParams p;
  p.kernel = {1, 2};
  p.type = PoolType::Max;
  EXPECT_EQ(pool1d_int32(x, p).data(), (std::vector<int32_t>{1, 7}));
  p.ceil_mode = true;  // a third window [-2] starts inside the input
  EXPECT_EQ(pool1d_int32(x, p).data(), (std::vector<int32_t>{1, 7, -2}));
  p.type = PoolType::Min;
  EXPECT_EQ(pool1d_int32(x, p).data(), (std::vector<int32_t>{-3, 5, -2}));
  p.type = PoolType::Sum;
  EXPECT_EQ(pool1d_int32(x, p).data(), (std::vector<int32_t>{-2, 12, -2}));
  p.type = PoolType::Average;  // -1, 6, -2 (the partial window divides by its 1 real tap)
  EXPECT_EQ(pool1d_int32(x, p).data(), (std::vector<int32_t>{-1, 6, -2}));
  p.divisor_override = 4;  // -0.5 -> 0 (even), 3, -0.5 -> 0
  EXPECT_EQ(pool1d_int32(x, p).data(), (std::vector<int32_t>{0, 3, 0}));
  // Padding 1 (kernel 2, stride 2): windows [pad, -100], [-3, 5], [7, -2]; max ignores the pad.
  p = {};
  p.kernel = {1, 2};
  p.padding = {0, 1};
  p.type = PoolType::Max;
  const NDArray<int8_t> neg(Shape{5, 1}, {-100, -3, 5, 7, -2});
  EXPECT_EQ(pool1d_int32(neg, p).data(), (std::vector<int32_t>{-100, 5, 7}));
  p.type = PoolType::Average;                                                  // count_include_pad = False: -100 / 1
  EXPECT_EQ(pool1d_int32(neg, p).data(), (std::vector<int32_t>{-100, 1, 2}));  // 2/2, 5/2 = 2.5 -> 2
  p.padding = {0, 2};                                                          // more than half the kernel
  EXPECT_THROW(pool1d_int32(neg, p), std::invalid_argument);
  // 2-D 2x2 max over a 4x4 single channel.
  NDArray<int8_t> x2(Shape{4, 4, 1});
  for (std::size_t i = 0; i < 16; ++i) x2.data()[i] = static_cast<int8_t>(i * 3 - 20);
  PoolParams q;
  q.kernel = {2, 2};
  EXPECT_EQ(pool2d(x2, q).data(), (std::vector<float>{-5, 1, 19, 25}));
}

// Independent PyTorch-style pooling over one channel of (H, W, C).
int64_t plain_pool(const NDArray<int8_t>& x, const PoolParams& p, const std::array<std::size_t, 2>& s, std::size_t oh,
                   std::size_t ow, std::size_t c) {
  const auto H = static_cast<int64_t>(x.dim(0)), W = static_cast<int64_t>(x.dim(1));
  int64_t mx = std::numeric_limits<int64_t>::min(), mn = std::numeric_limits<int64_t>::max(), sum = 0, cnt = 0;
  for (std::size_t kh = 0; kh < p.kernel[0]; ++kh)
    for (std::size_t kw = 0; kw < p.kernel[1]; ++kw) {
      const int64_t h = static_cast<int64_t>(oh * s[0] + kh * p.dilation[0]) - static_cast<int64_t>(p.padding[0]);
      const int64_t w = static_cast<int64_t>(ow * s[1] + kw * p.dilation[1]) - static_cast<int64_t>(p.padding[1]);
      if (h < 0 || w < 0 || h >= H || w >= W) continue;
      const int64_t v = x({static_cast<std::size_t>(h), static_cast<std::size_t>(w), c});
      mx = std::max(mx, v);
      mn = std::min(mn, v);
      sum += v;
      ++cnt;
    }
  switch (p.type) {
    case PoolType::Max: return mx;
    case PoolType::Min: return mn;
    case PoolType::Sum: return sum;
    case PoolType::Average: {
      if (cnt == 0 && p.divisor_override == 0) return 0;
      const double d = p.divisor_override != 0 ? p.divisor_override : static_cast<double>(cnt);
      return static_cast<int64_t>(std::nearbyint(static_cast<double>(sum) / d));  // FE_TONEAREST: half even
    }
  }
  return 0;
}

std::size_t torch_out(std::size_t n, std::size_t k, std::size_t s, std::size_t p, std::size_t d, bool ceil) {
  const double v = static_cast<double>(n + 2 * p - d * (k - 1) - 1) / static_cast<double>(s);
  auto out = static_cast<std::size_t>(ceil ? std::ceil(v) : std::floor(v)) + 1;
  if (ceil && (out - 1) * s >= n + p) --out;
  return out;
}

TEST(OpPool, RandomAgainstPlainLoop) {
  std::mt19937 rng(14);
  for (int t = 0; t < 300; ++t) {
    PoolParams p;
    p.type = static_cast<PoolType>(rng() % 4);
    p.kernel = {1 + rng() % 3, 1 + rng() % 4};
    p.stride = {rng() % 3, rng() % 3};
    p.padding = {rng() % (p.kernel[0] / 2 + 1), rng() % (p.kernel[1] / 2 + 1)};
    p.dilation = {1 + rng() % 2, 1};
    p.ceil_mode = rng() % 2 == 0;
    p.divisor_override = rng() % 4 == 0 ? 1 + rng() % 9 : 0;
    const std::size_t H = 4 + rng() % 6, W = 4 + rng() % 6, C = 1 + rng() % 5;
    if (H + 2 * p.padding[0] < p.dilation[0] * (p.kernel[0] - 1) + 1) continue;
    const auto x = testing::random_i8({H, W, C}, rng);
    const std::array<std::size_t, 2> s{p.stride[0] ? p.stride[0] : p.kernel[0],
                                       p.stride[1] ? p.stride[1] : p.kernel[1]};
    const std::size_t OH = torch_out(H, p.kernel[0], s[0], p.padding[0], p.dilation[0], p.ceil_mode);
    const std::size_t OW = torch_out(W, p.kernel[1], s[1], p.padding[1], p.dilation[1], p.ceil_mode);
    const auto got = pool2d_int32(x, p);
    ASSERT_EQ(got.shape(), (Shape{OH, OW, C})) << t;
    for (std::size_t oh = 0; oh < OH; ++oh)
      for (std::size_t ow = 0; ow < OW; ++ow)
        for (std::size_t c = 0; c < C; ++c)
          ASSERT_EQ(got({oh, ow, c}), plain_pool(x, p, s, oh, ow, c)) << t << " " << oh << " " << ow << " " << c;
  }
}

TEST(OpDepthwise, RandomAgainstPlainLoop) {
  std::mt19937 rng(15);
  for (int t = 0; t < 100; ++t) {
    const std::size_t H = 3 + rng() % 6, W = 3 + rng() % 6, C = 1 + rng() % 70, KH = 1 + rng() % 3, KW = 1 + rng() % 3;
    Window2d p;
    p.stride = {1 + rng() % 2, 1 + rng() % 2};
    p.padding = {rng() % 2, rng() % 2};
    p.dilation = {1 + rng() % 2, 1 + rng() % 2};
    if (H + 2 * p.padding[0] < p.dilation[0] * (KH - 1) + 1 || W + 2 * p.padding[1] < p.dilation[1] * (KW - 1) + 1)
      continue;
    const auto x = testing::random_i8({H, W, C}, rng);
    const auto w = testing::random_i8({KH, KW, C}, rng);
    // Depthwise = a dense conv whose weight is diagonal in (C_in, C_out).
    NDArray<int8_t> dense(Shape{KH, KW, C, C}, 0);
    for (std::size_t kh = 0; kh < KH; ++kh)
      for (std::size_t kw = 0; kw < KW; ++kw)
        for (std::size_t c = 0; c < C; ++c) dense({kh, kw, c, c}) = w({kh, kw, c});
    std::size_t OH = 0, OW = 0;
    const auto want = plain_conv(x, dense, Conv2dParams{p.stride, p.padding, p.dilation}, OH, OW);
    const auto got = dw_conv2d_int32(x, w, p);
    ASSERT_EQ(got.shape(), (Shape{OH, OW, C}));
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got.data()[i], wrap64(want[i]));
  }
}

// 1-D depthwise convolution against a plain 1-D loop (its own index arithmetic, not the 2-D
// walk dw_conv1d is built on): int32 exact, the float32 output within one float18 rounding.
TEST(OpDepthwise, Random1dAgainstPlainLoop) {
  std::mt19937 rng(16);
  int cases = 0;
  for (int t = 0; t < 200; ++t) {
    const std::size_t L = 1 + rng() % 20, C = 1 + rng() % 70, K = 1 + rng() % 5;
    const std::size_t stride = 1 + rng() % 3, pad = rng() % 3, dil = 1 + rng() % 3;
    const std::size_t span = dil * (K - 1) + 1;
    const auto x = testing::random_i8({L, C}, rng);
    const auto w = testing::random_i8({K, C}, rng);
    if (L + 2 * pad < span) {
      EXPECT_THROW(dw_conv1d_int32(x, w, stride, pad, dil), std::invalid_argument);
      continue;
    }
    const std::size_t OL = (L + 2 * pad - span) / stride + 1;
    const auto got = dw_conv1d_int32(x, w, stride, pad, dil);
    const auto y = dw_conv1d(x, w, stride, pad, dil);
    ASSERT_EQ(got.shape(), (Shape{OL, C}));
    for (std::size_t o = 0; o < OL; ++o)
      for (std::size_t c = 0; c < C; ++c) {
        int64_t s = 0;
        for (std::size_t k = 0; k < K; ++k) {
          const int64_t i = static_cast<int64_t>(o * stride + k * dil) - static_cast<int64_t>(pad);
          if (i >= 0 && i < static_cast<int64_t>(L))
            s += int64_t{x.data()[static_cast<std::size_t>(i) * C + c]} * w.data()[k * C + c];
        }
        ASSERT_EQ(got.data()[o * C + c], wrap64(s)) << t << " " << o << " " << c;
        ASSERT_LE(std::fabs(static_cast<double>(y.data()[o * C + c]) - static_cast<double>(s)),
                  kU18 * std::fabs(static_cast<double>(s)));
      }
    ++cases;
  }
  EXPECT_GT(cases, 100);
}

// 1-D pooling against a plain loop over (L, C) written from the DWPU's definition: every tap at
// o * stride + k * dilation - padding; a tap outside [0, L) holds the IFD pad value (-128 MAX,
// 127 MIN, 0 SUM/AVERAGE), AVERAGE divides by divisor_override or by the taps inside the input,
// rounding half to even. Output length as PyTorch (ceil_mode included, torch_out above).
TEST(OpPool, Random1dAgainstPlainLoop) {
  std::mt19937 rng(17);
  int cases = 0;
  for (int t = 0; t < 400; ++t) {
    PoolParams p;
    p.type = static_cast<PoolType>(rng() % 4);
    const std::size_t K = 1 + rng() % 5;
    p.kernel = {1 + rng() % 3, K};  // pool1d ignores the axis-0 fields
    p.stride = {rng() % 3, rng() % 4};
    p.padding = {rng() % 2, rng() % (K / 2 + 1)};
    p.dilation = {1 + rng() % 2, 1 + rng() % 3};
    p.ceil_mode = rng() % 2 == 0;
    p.divisor_override = rng() % 4 == 0 ? 1 + rng() % 9 : 0;
    const std::size_t L = 1 + rng() % 16, C = 1 + rng() % 70;
    const std::size_t s = p.stride[1] != 0 ? p.stride[1] : K, pad = p.padding[1], dil = p.dilation[1];
    const auto x = testing::random_i8({L, C}, rng);
    if (L + 2 * pad < dil * (K - 1) + 1) {
      EXPECT_THROW(pool1d_int32(x, p), std::invalid_argument);
      continue;
    }
    const std::size_t OL = torch_out(L, K, s, pad, dil, p.ceil_mode);
    const auto got = pool1d_int32(x, p);
    const auto y = pool1d(x, p);
    ASSERT_EQ(got.shape(), (Shape{OL, C})) << t;
    const int64_t pad_value = p.type == PoolType::Max ? -128 : (p.type == PoolType::Min ? 127 : 0);
    for (std::size_t o = 0; o < OL; ++o)
      for (std::size_t c = 0; c < C; ++c) {
        int64_t mx = std::numeric_limits<int64_t>::min(), mn = std::numeric_limits<int64_t>::max(), sum = 0, inside = 0;
        for (std::size_t k = 0; k < K; ++k) {
          const int64_t i = static_cast<int64_t>(o * s + k * dil) - static_cast<int64_t>(pad);
          const bool in = i >= 0 && i < static_cast<int64_t>(L);
          const int64_t v = in ? x.data()[static_cast<std::size_t>(i) * C + c] : pad_value;
          mx = std::max(mx, v);
          mn = std::min(mn, v);
          sum += v;
          inside += in ? 1 : 0;
        }
        int64_t want = 0;
        switch (p.type) {
          case PoolType::Max: want = mx; break;
          case PoolType::Min: want = mn; break;
          case PoolType::Sum: want = sum; break;
          case PoolType::Average: {
            const double d = p.divisor_override != 0 ? p.divisor_override : static_cast<double>(inside);
            want = d == 0 ? 0 : static_cast<int64_t>(std::nearbyint(static_cast<double>(sum) / d));  // half even
            break;
          }
        }
        ASSERT_EQ(got.data()[o * C + c], want) << t << " " << o << " " << c;
        ASSERT_EQ(static_cast<double>(y.data()[o * C + c]), static_cast<double>(want));  // |want| < 2^11: exact
      }
    ++cases;
  }
  EXPECT_GT(cases, 300);
}

}  // namespace
}  // namespace axcore::ref
