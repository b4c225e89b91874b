#include "axcore/ref/op/depthwise.hpp"

#include <algorithm>
#include <stdexcept>

#include "axcore/num/int_cast.hpp"
#include "axcore/ref/op/matmul.hpp"

namespace axcore::ref {

namespace {

// Generic 2-D window walk over (H, W, C); `tap` gets (value or pad flag) per tap.
struct Geometry {
  std::size_t H, W, C, KH, KW, OH, OW;
  std::array<std::size_t, 2> stride, padding, dilation;
};

template <class Tap, class Finish>
NDArray<int32_t> windowed(const NDArray<int8_t>& x, const Geometry& g, Tap tap, Finish finish) {
  NDArray<int32_t> out(Shape{g.OH, g.OW, g.C}, 0);
  for (std::size_t oh = 0; oh < g.OH; ++oh)
    for (std::size_t ow = 0; ow < g.OW; ++ow)
      for (std::size_t c = 0; c < g.C; ++c) {
        int64_t state[3] = {0, 0, 0};  // acc, count, first
        for (std::size_t kh = 0; kh < g.KH; ++kh)
          for (std::size_t kw = 0; kw < g.KW; ++kw) {
            const auto ih =
                static_cast<int64_t>(oh * g.stride[0] + kh * g.dilation[0]) - static_cast<int64_t>(g.padding[0]);
            const auto iw =
                static_cast<int64_t>(ow * g.stride[1] + kw * g.dilation[1]) - static_cast<int64_t>(g.padding[1]);
            const bool inside = ih >= 0 && iw >= 0 && ih < static_cast<int64_t>(g.H) && iw < static_cast<int64_t>(g.W);
            const int8_t v =
                inside ? x.data()[(static_cast<std::size_t>(ih) * g.W + static_cast<std::size_t>(iw)) * g.C + c] : 0;
            tap(state, inside, v, kh, kw, c);
          }
        out.data()[(oh * g.OW + ow) * g.C + c] = finish(state);
      }
  return out;
}

}  // namespace

NDArray<int32_t> dw_conv2d_int32(const NDArray<int8_t>& x, const NDArray<int8_t>& w, const Window2d& p) {
  if (x.rank() != 3 || w.rank() != 3 || w.dim(2) != x.dim(2)) {
    throw std::invalid_argument("dw_conv2d: x " + shape_str(x.shape()) + " (H, W, C) and w " + shape_str(w.shape()) +
                                " (KH, KW, C) do not fit");
  }
  Geometry g{x.dim(0), x.dim(1), x.dim(2), w.dim(0), w.dim(1), 0, 0, p.stride, p.padding, p.dilation};
  g.OH = window_out_size(g.H, g.KH, p.stride[0], p.padding[0], p.dilation[0]);
  g.OW = window_out_size(g.W, g.KW, p.stride[1], p.padding[1], p.dilation[1]);
  return windowed(
      x, g,
      [&](int64_t* s, bool, int8_t v, std::size_t kh, std::size_t kw, std::size_t c) {
        s[0] = num::wrap_add(static_cast<int32_t>(s[0]), int32_t{v} * w.data()[(kh * g.KW + kw) * g.C + c]);
      },
      [](const int64_t* s) { return static_cast<int32_t>(s[0]); });
}

NDArray<int32_t> dw_conv1d_int32(const NDArray<int8_t>& x, const NDArray<int8_t>& w, std::size_t stride,
                                 std::size_t padding, std::size_t dilation) {
  if (x.rank() != 2 || w.rank() != 2 || w.dim(1) != x.dim(1)) {
    throw std::invalid_argument("dw_conv1d: x " + shape_str(x.shape()) + " (L, C) and w " + shape_str(w.shape()) +
                                " (K, C) do not fit");
  }
  const NDArray<int32_t> r = dw_conv2d_int32(NDArray<int8_t>(Shape{1, x.dim(0), x.dim(1)}, x.data()),
                                             NDArray<int8_t>(Shape{1, w.dim(0), w.dim(1)}, w.data()),
                                             Window2d{{1, stride}, {0, padding}, {1, dilation}});
  return NDArray<int32_t>(Shape{r.dim(1), r.dim(2)}, r.data());
}

NDArray<int32_t> pool2d_int32(const NDArray<int8_t>& x, const PoolParams& p) {
  if (x.rank() != 3) throw std::invalid_argument("pool2d: x " + shape_str(x.shape()) + " is not (H, W, C)");
  const std::array<std::size_t, 2> stride{p.stride[0] == 0 ? p.kernel[0] : p.stride[0],
                                          p.stride[1] == 0 ? p.kernel[1] : p.stride[1]};
  for (int a = 0; a < 2; ++a) {
    const auto i = static_cast<std::size_t>(a);
    if (p.padding[i] * 2 > p.kernel[i]) {
      throw std::invalid_argument("pool2d: padding " + std::to_string(p.padding[i]) + " exceeds half the kernel " +
                                  std::to_string(p.kernel[i]));
    }
  }
  Geometry g{x.dim(0), x.dim(1), x.dim(2), p.kernel[0], p.kernel[1], 0, 0, stride, p.padding, p.dilation};
  g.OH = window_out_size(g.H, g.KH, stride[0], p.padding[0], p.dilation[0], p.ceil_mode);
  g.OW = window_out_size(g.W, g.KW, stride[1], p.padding[1], p.dilation[1], p.ceil_mode);
  const int8_t pad = p.type == PoolType::Max ? -128 : (p.type == PoolType::Min ? 127 : 0);
  const PoolType type = p.type;
  const uint32_t divisor = p.divisor_override;
  return windowed(
      x, g,
      [&](int64_t* s, bool inside, int8_t v, std::size_t, std::size_t, std::size_t) {
        const int8_t t = inside ? v : pad;
        if (type == PoolType::Max) s[0] = s[2] == 0 ? t : std::max<int64_t>(s[0], t);
        if (type == PoolType::Min) s[0] = s[2] == 0 ? t : std::min<int64_t>(s[0], t);
        if (type == PoolType::Sum || type == PoolType::Average) s[0] += t;
        s[1] += inside ? 1 : 0;
        s[2] = 1;
      },
      [&](const int64_t* s) {
        if (type != PoolType::Average) return num::wrap_int32(s[0]);
        const int64_t d = divisor != 0 ? int64_t{divisor} : s[1];
        return d == 0 ? 0 : num::div_round_half_even(s[0], d);
      });
}

NDArray<int32_t> pool1d_int32(const NDArray<int8_t>& x, const PoolParams& p) {
  if (x.rank() != 2) throw std::invalid_argument("pool1d: x " + shape_str(x.shape()) + " is not (L, C)");
  PoolParams q = p;
  q.kernel[0] = 1;
  q.stride[0] = 1;
  q.padding[0] = 0;
  q.dilation[0] = 1;
  const NDArray<int32_t> r = pool2d_int32(NDArray<int8_t>(Shape{1, x.dim(0), x.dim(1)}, x.data()), q);
  return NDArray<int32_t>(Shape{r.dim(1), r.dim(2)}, r.data());
}

}  // namespace axcore::ref
