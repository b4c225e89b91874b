// Elementwise references (IFD0/IFD1 -> DPU -> ODR). Every input is POP-cast to float18, the op
// is one float18 operation per element (rounded), and PUSH casts to the output type.
//   add/sub/mul_tensor(a, b)   a op b, NumPy broadcasting (per-channel: b of shape (C,))
//   cast<Out>(x)               Out(f18(x)) — float32 -> int8 rounds to float18 first
//   quantize(x, inv_scale, zp) int8(f18(f18(x * inv_scale) + zp))   (guide §13: mul, add, cast)
//   dequantize(q, zp, scale)   f18(f18(q - zp) * scale)              (sub, mul)
//   relu(x)                    max(x, +0) (so negative inputs give +0, NaN stays NaN)
//   prelu(x, slope)            x >= 0 ? x : f18(x * slope), slope broadcast
#pragma once

#include "axcore/ref/ndarray.hpp"
#include "axcore/ref/op/common.hpp"

namespace axcore::ref {

enum class BinaryOp { Add, Sub, Mul, Min, Max, Prelu };

NDArray<num::Float18> binary_f18(BinaryOp op, const NDArray<num::Float18>& a, const NDArray<num::Float18>& b);

template <class Out = float, class A, class B>
NDArray<Out> add_tensor(const NDArray<A>& a, const NDArray<B>& b) {
  return from_f18<Out>(binary_f18(BinaryOp::Add, to_f18(a), to_f18(b)));
}
template <class Out = float, class A, class B>
NDArray<Out> sub_tensor(const NDArray<A>& a, const NDArray<B>& b) {
  return from_f18<Out>(binary_f18(BinaryOp::Sub, to_f18(a), to_f18(b)));
}
template <class Out = float, class A, class B>
NDArray<Out> mul_tensor(const NDArray<A>& a, const NDArray<B>& b) {
  return from_f18<Out>(binary_f18(BinaryOp::Mul, to_f18(a), to_f18(b)));
}
template <class Out, class In>
NDArray<Out> cast(const NDArray<In>& x) {
  return from_f18<Out>(to_f18(x));
}
template <class In>
NDArray<int8_t> quantize(const NDArray<In>& x, const NDArray<float>& inv_scale, const NDArray<float>& zero_point) {
  return from_f18<int8_t>(
      binary_f18(BinaryOp::Add, binary_f18(BinaryOp::Mul, to_f18(x), to_f18(inv_scale)), to_f18(zero_point)));
}
template <class Out = float>
NDArray<Out> dequantize(const NDArray<int8_t>& q, const NDArray<float>& zero_point, const NDArray<float>& scale) {
  return from_f18<Out>(
      binary_f18(BinaryOp::Mul, binary_f18(BinaryOp::Sub, to_f18(q), to_f18(zero_point)), to_f18(scale)));
}
template <class Out = float, class In>
NDArray<Out> relu(const NDArray<In>& x) {
  return from_f18<Out>(binary_f18(BinaryOp::Max, to_f18(x), NDArray<num::Float18>(Shape{1})));
}
template <class Out = float, class In>
NDArray<Out> prelu(const NDArray<In>& x, const NDArray<float>& slope) {
  return from_f18<Out>(binary_f18(BinaryOp::Prelu, to_f18(x), to_f18(slope)));
}

}  // namespace axcore::ref
