// Softmax and layer norm over the last axis, as the DPU computes them (LUT based).
//
// A row of n elements is ceil(n/64) PWORD blocks x_0 .. x_{B-1} (element j*64 + l in lane l);
// lanes past n are padding. All arithmetic is float18, rounded at each step; + over blocks is
// sequential from block 0; *_reduce is the pairwise lane tree (num/reduce.hpp).
//
// softmax(x):
//   m   = max_reduce(max(...max(x_0, x_1)..., x_{B-1}))     (pad lanes hold -inf)
//   d_j = max(x_j - m, exp_lo)                                (clamp into the exp table)
//   e_j = max(lut(d_j, exp_tables), 0) * mask_j               (mask: 1 real lane, 0 pad lane)
//   s   = add_reduce(e_0 + e_1 + ... + e_{B-1})
//   r   = lut(s, recip_tables)
//   y_j = e_j * r
// layer_norm(x, gamma, beta, eps):
//   mean = add_reduce(x_0 + ... + x_{B-1}) * f18(1/n)         (pad lanes hold 0)
//   d_j  = (x_j - mean) * mask_j
//   var  = add_reduce(d_0*d_0 + ... ) * f18(1/n)              (each square rounded)
//   r    = lut(min(max(var + f18(eps), lo), hi), rsqrt_tables)
//   y_j  = f18(f18(d_j * r) * gamma_j) + beta_j               (one FMA: rounded twice)
// The mask multiply only changes the last block; it makes the result independent of what the
// pad lanes held. Only the real lanes of y are returned.
#pragma once

#include <vector>

#include "axcore/num/lut.hpp"
#include "axcore/ref/ndarray.hpp"
#include "axcore/ref/op/common.hpp"

namespace axcore::ref {

struct SoftmaxLuts {
  std::vector<num::PwordF18> exp_tables;  // exp over [exp_lo, 0]
  num::Float18 exp_lo;
  std::vector<num::PwordF18> recip_tables;  // 1/x over [1, row length]
};
// exp over [-16, 0] (uniform), 1/x over [1, max(row_len, 2)] (geometric), 1..8 tables each.
SoftmaxLuts make_softmax_luts(std::size_t row_len, int n_exp = 8, int n_recip = 8);

NDArray<num::Float18> softmax_f18(const NDArray<num::Float18>& x, const SoftmaxLuts& luts);
template <class Out = float, class In>
NDArray<Out> softmax(const NDArray<In>& x, const SoftmaxLuts& luts) {
  return from_f18<Out>(softmax_f18(to_f18(x), luts));
}

struct LayerNormLuts {
  std::vector<num::PwordF18> rsqrt_tables;  // 1/sqrt over [lo, hi]
  num::Float18 lo, hi;
};
// 1/sqrt(x) over [lo, hi] (geometric), n tables.
LayerNormLuts make_layernorm_luts(double lo = 1.0 / 256, double hi = 256.0, int n = 8);

// x (..., n); gamma, beta (n,) float32.
NDArray<num::Float18> layer_norm_f18(const NDArray<num::Float18>& x, const NDArray<float>& gamma,
                                     const NDArray<float>& beta, float eps, const LayerNormLuts& luts);
template <class Out = float, class In>
NDArray<Out> layer_norm(const NDArray<In>& x, const NDArray<float>& gamma, const NDArray<float>& beta, float eps,
                        const LayerNormLuts& luts) {
  return from_f18<Out>(layer_norm_f18(to_f18(x), gamma, beta, eps, luts));
}

}  // namespace axcore::ref
