#include "axcore/ref/op/matmul.hpp"

#include <stdexcept>

#include "axcore/num/int_cast.hpp"

namespace axcore::ref {

NDArray<int32_t> matmul_int32(const NDArray<int8_t>& x, const NDArray<int8_t>& w) {
  if (x.rank() < 1 || w.rank() != 2 || x.dim(x.rank() - 1) != w.dim(0)) {
    throw std::invalid_argument("matmul: x " + shape_str(x.shape()) + " and w " + shape_str(w.shape()) +
                                " do not fit (x (..., K), w (K, N))");
  }
  const std::size_t K = w.dim(0), N = w.dim(1), M = K == 0 ? 0 : x.size() / K;
  Shape shape = x.shape();
  shape.back() = N;
  NDArray<int32_t> out(shape, 0);
  for (std::size_t m = 0; m < M; ++m) {
    for (std::size_t n = 0; n < N; ++n) {
      int32_t acc = 0;
      for (std::size_t k = 0; k < K; ++k) {
        acc = num::wrap_add(acc, int32_t{x.data()[m * K + k]} * int32_t{w.data()[k * N + n]});
      }
      out.data()[m * N + n] = acc;
    }
  }
  return out;
}

namespace {
// The per-column parameter n of a (N,), (1,) or () array, as its float18 register value.
std::vector<num::Float18> column_params(const NDArray<float>& p, std::size_t N, const char* what) {
  if (!(p.size() == 1 || (p.rank() == 1 && p.dim(0) == N))) {
    throw std::invalid_argument(std::string("epilogue ") + what + " has shape " + shape_str(p.shape()) +
                                "; expected (" + std::to_string(N) + ",) or (1,)");
  }
  std::vector<num::Float18> r(N);
  for (std::size_t n = 0; n < N; ++n) r[n] = to_f18(p.data()[p.size() == 1 ? 0 : n]);
  return r;
}
}  // namespace

NDArray<num::Float18> apply_epilogue(const NDArray<int32_t>& acc, const Epilogue& e) {
  if (acc.rank() < 1) throw std::invalid_argument("epilogue: accumulator of rank 0");
  const std::size_t N = acc.dim(acc.rank() - 1);
  std::vector<num::Float18> scale, bias;
  if (e.scale) scale = column_params(*e.scale, N, "scale");
  if (e.bias) bias = column_params(*e.bias, N, "bias");
  NDArray<num::Float18> y(acc.shape());
  for (std::size_t i = 0; i < acc.size(); ++i) {
    num::Float18 v = num::f18_from_int32(acc.data()[i]);
    if (e.scale) v = num::mul(v, scale[i % N]);
    if (e.bias) v = num::add(v, bias[i % N]);
    y.data()[i] = v;
  }
  return y;
}

std::size_t window_out_size(std::size_t n, std::size_t k, std::size_t s, std::size_t p, std::size_t d, bool ceil_mode) {
  if (k == 0 || s == 0 || d == 0) throw std::invalid_argument("window: kernel, stride and dilation must be >= 1");
  const std::size_t span = d * (k - 1) + 1;
  if (n + 2 * p < span) {
    throw std::invalid_argument("window: a window spanning " + std::to_string(span) + " does not fit an input of " +
                                std::to_string(n) + " padded by " + std::to_string(p));
  }
  const std::size_t room = n + 2 * p - span;
  std::size_t out = (ceil_mode ? (room + s - 1) / s : room / s) + 1;
  if (ceil_mode && (out - 1) * s >= n + p) --out;  // the last window must start inside input or left pad
  return out;
}

NDArray<int32_t> conv2d_int32(const NDArray<int8_t>& x, const NDArray<int8_t>& w, const Conv2dParams& p) {
  if (x.rank() != 3 || w.rank() != 4 || w.dim(2) != x.dim(2)) {
    throw std::invalid_argument("conv2d: x " + shape_str(x.shape()) + " (H, W, C_in) and w " + shape_str(w.shape()) +
                                " (KH, KW, C_in, C_out) do not fit");
  }
  const std::size_t H = x.dim(0), W = x.dim(1), C = x.dim(2), KH = w.dim(0), KW = w.dim(1), CO = w.dim(3);
  const std::size_t OH = window_out_size(H, KH, p.stride[0], p.padding[0], p.dilation[0]);
  const std::size_t OW = window_out_size(W, KW, p.stride[1], p.padding[1], p.dilation[1]);
  NDArray<int32_t> out(Shape{OH, OW, CO}, 0);
  for (std::size_t oh = 0; oh < OH; ++oh)
    for (std::size_t ow = 0; ow < OW; ++ow)
      for (std::size_t kh = 0; kh < KH; ++kh)
        for (std::size_t kw = 0; kw < KW; ++kw) {
          const auto ih =
              static_cast<int64_t>(oh * p.stride[0] + kh * p.dilation[0]) - static_cast<int64_t>(p.padding[0]);
          const auto iw =
              static_cast<int64_t>(ow * p.stride[1] + kw * p.dilation[1]) - static_cast<int64_t>(p.padding[1]);
          if (ih < 0 || iw < 0 || ih >= static_cast<int64_t>(H) || iw >= static_cast<int64_t>(W)) continue;  // pad 0
          const int8_t* xi = &x.data()[(static_cast<std::size_t>(ih) * W + static_cast<std::size_t>(iw)) * C];
          for (std::size_t ci = 0; ci < C; ++ci) {
            const int8_t* wr = &w.data()[((kh * KW + kw) * C + ci) * CO];
            int32_t* o = &out.data()[(oh * OW + ow) * CO];
            for (std::size_t co = 0; co < CO; ++co) o[co] = num::wrap_add(o[co], int32_t{xi[ci]} * int32_t{wr[co]});
          }
        }
  return out;
}

}  // namespace axcore::ref
