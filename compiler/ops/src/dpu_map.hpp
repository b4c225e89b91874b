// The elementwise datapath shape every DPU-only operator shares: IFD0 -> DPU -> ODR over a
// tensor, an optional IFD1 side operand streamed alongside, and optional constants streamed once
// on IFD1 into registers by the DPU's A.init preamble (guide §8.5).
#pragma once

#include "util.hpp"

namespace axcore::compiler::ops::detail {

// A constant of n float32x64 PWORDs for the preamble, each the given value in every lane.
Tensor preamble_constants(const std::string& stem, const std::vector<double>& scalars);

// Per element: `f(x, side, k)` emits any DPU statements it needs and returns the value to push
// (float18x64; the push casts it to out's dtype). x is the element popped from `in` as float18;
// side the element of `side` at the broadcast index (when given), k the preamble registers.
using MapFn = std::function<A::Value(const A::Value& x, const A::Value& side, const A::Reg& k)>;
void dpu_map(const Tensor& in, const Tensor& out, const Tensor& side, const Tensor& consts, const MapFn& f);

// The index into `b` that broadcasting (trailing axes aligned, extents 1 or equal) maps `i` to.
std::vector<A::Value> broadcast_index(const Tensor& b, const std::vector<A::Value>& i);

}  // namespace axcore::compiler::ops::detail
