// Matmul / linear and convolution references (MVMEXE datapath: IFD -> MVM -> DPU -> ODR).
//
// The MVM accumulates int8 x int8 in int32, wrapping (K is padded to a multiple of 64 with
// zeros, which adds nothing). The DPU epilogue then computes, per output element n:
//   y = f18(acc);  if scale: y = f18(y * f18(scale[n]));  if bias: y = f18(y + f18(bias[n]))
// (the same rounding as one FMA, which rounds twice), and PUSH casts y to the output type.
// scale and bias are float32 arrays of shape (N,) (per output column) or (1,) / () (shared).
#pragma once

#include <array>
#include <optional>

#include "axcore/ref/ndarray.hpp"
#include "axcore/ref/op/common.hpp"

namespace axcore::ref {

struct Epilogue {
  std::optional<NDArray<float>> scale;
  std::optional<NDArray<float>> bias;
};

// x (..., K) int8, w (K, N) int8 -> (..., N) int32.
NDArray<int32_t> matmul_int32(const NDArray<int8_t>& x, const NDArray<int8_t>& w);
// acc (..., N) -> the DPU's float18 result of the epilogue.
NDArray<num::Float18> apply_epilogue(const NDArray<int32_t>& acc, const Epilogue& e);

template <class Out = float>
NDArray<Out> linear(const NDArray<int8_t>& x, const NDArray<int8_t>& w, const Epilogue& e = {}) {
  return from_f18<Out>(apply_epilogue(matmul_int32(x, w), e));
}

struct Conv2dParams {
  std::array<std::size_t, 2> stride{1, 1};
  std::array<std::size_t, 2> padding{0, 0};  // zeros (the IFD pad value 0)
  std::array<std::size_t, 2> dilation{1, 1};
};

// x (H, W, C_in) int8 (NHWC without N), w (KH, KW, C_in, C_out) int8, groups = 1
// -> (OH, OW, C_out) int32 with OH = (H + 2 pad - dil (KH - 1) - 1) / stride + 1.
NDArray<int32_t> conv2d_int32(const NDArray<int8_t>& x, const NDArray<int8_t>& w, const Conv2dParams& p);

template <class Out = float>
NDArray<Out> conv2d(const NDArray<int8_t>& x, const NDArray<int8_t>& w, const Conv2dParams& p, const Epilogue& e = {}) {
  return from_f18<Out>(apply_epilogue(conv2d_int32(x, w, p), e));
}

// Output extent of a window of `k` taps (dilation d) over `n` with stride s and padding p on
// both sides; ceil_mode as PyTorch (a last window must start inside the input or left pad).
std::size_t window_out_size(std::size_t n, std::size_t k, std::size_t s, std::size_t p, std::size_t d,
                            bool ceil_mode = false);

}  // namespace axcore::ref
