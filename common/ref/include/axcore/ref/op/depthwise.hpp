// Depthwise convolution and pooling references (DWPU datapath: IFD -> DWPU -> DPU -> ODR).
//
// Per channel (lane): int8 taps, int32 accumulation (wrapping), then the DPU casts the int32
// result to float18 and PUSH casts to the output type (float32 by default, guide §6.3).
// Padded taps hold the IFD pad value: 0 for convolution, SUM and AVERAGE; -128 for MAX; 127 for
// MIN. AVERAGE is round_half_even(sum / divisor) in integers, divisor = divisor_override if
// non-zero, else the number of taps inside the input (PyTorch count_include_pad=False; pass
// divisor_override = window area for count_include_pad=True). ceil_mode follows PyTorch:
// taps past the padded input are padding too.
#pragma once

#include <array>

#include "axcore/ref/ndarray.hpp"
#include "axcore/ref/op/common.hpp"

namespace axcore::ref {

struct Window2d {
  std::array<std::size_t, 2> stride{1, 1};
  std::array<std::size_t, 2> padding{0, 0};
  std::array<std::size_t, 2> dilation{1, 1};
};

// x (H, W, C) int8, w (KH, KW, C) int8 -> (OH, OW, C) int32.
NDArray<int32_t> dw_conv2d_int32(const NDArray<int8_t>& x, const NDArray<int8_t>& w, const Window2d& p);
// x (L, C) int8, w (K, C) int8 -> (OL, C) int32.
NDArray<int32_t> dw_conv1d_int32(const NDArray<int8_t>& x, const NDArray<int8_t>& w, std::size_t stride = 1,
                                 std::size_t padding = 0, std::size_t dilation = 1);

enum class PoolType { Max, Min, Sum, Average };

struct PoolParams {
  PoolType type = PoolType::Max;
  std::array<std::size_t, 2> kernel{1, 1};
  std::array<std::size_t, 2> stride{0, 0};  // 0 = the kernel size (PyTorch's default)
  std::array<std::size_t, 2> padding{0, 0};
  std::array<std::size_t, 2> dilation{1, 1};
  bool ceil_mode = false;
  uint32_t divisor_override = 0;
};

// x (H, W, C) int8 -> (OH, OW, C) int32.
NDArray<int32_t> pool2d_int32(const NDArray<int8_t>& x, const PoolParams& p);
// x (L, C) int8 -> (OL, C) int32; uses kernel[1], stride[1], padding[1], dilation[1].
NDArray<int32_t> pool1d_int32(const NDArray<int8_t>& x, const PoolParams& p);

// The int32 -> float18 -> Out path of the DPU.
template <class Out = float>
NDArray<Out> dwpu_output(const NDArray<int32_t>& acc) {
  return from_f18<Out>(to_f18(acc));
}
template <class Out = float>
NDArray<Out> dw_conv2d(const NDArray<int8_t>& x, const NDArray<int8_t>& w, const Window2d& p) {
  return dwpu_output<Out>(dw_conv2d_int32(x, w, p));
}
template <class Out = float>
NDArray<Out> dw_conv1d(const NDArray<int8_t>& x, const NDArray<int8_t>& w, std::size_t stride = 1,
                       std::size_t padding = 0, std::size_t dilation = 1) {
  return dwpu_output<Out>(dw_conv1d_int32(x, w, stride, padding, dilation));
}
template <class Out = float>
NDArray<Out> pool2d(const NDArray<int8_t>& x, const PoolParams& p) {
  return dwpu_output<Out>(pool2d_int32(x, p));
}
template <class Out = float>
NDArray<Out> pool1d(const NDArray<int8_t>& x, const PoolParams& p) {
  return dwpu_output<Out>(pool1d_int32(x, p));
}

}  // namespace axcore::ref
