#include "axcore/ref/op/softmax.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "axcore/num/reduce.hpp"

namespace axcore::ref {

using num::Float18;
using num::PwordF18;

namespace {

constexpr double kExpLo = -16.0;

// The row's blocks as registers; lanes past n hold `pad`.
std::vector<PwordF18> load_row(const Float18* row, std::size_t n, Float18 pad) {
  std::vector<PwordF18> b((n + num::kLanes - 1) / num::kLanes);
  for (auto& p : b) p.fill(pad);
  for (std::size_t i = 0; i < n; ++i) b[i / num::kLanes][i % num::kLanes] = row[i];
  return b;
}
PwordF18 splat(Float18 v) {
  PwordF18 p;
  p.fill(v);
  return p;
}
template <class F>
PwordF18 lanes(const PwordF18& a, const PwordF18& b, F f) {
  PwordF18 r;
  for (std::size_t i = 0; i < num::kLanes; ++i) r[i] = f(a[i], b[i]);
  return r;
}
PwordF18 add(const PwordF18& a, const PwordF18& b) { return lanes(a, b, num::add); }
PwordF18 sub(const PwordF18& a, const PwordF18& b) { return lanes(a, b, num::sub); }
PwordF18 mul(const PwordF18& a, const PwordF18& b) { return lanes(a, b, num::mul); }
PwordF18 vmax(const PwordF18& a, const PwordF18& b) {
  return lanes(a, b, [](Float18 x, Float18 y) { return num::max(x, y); });
}
PwordF18 vmin(const PwordF18& a, const PwordF18& b) {
  return lanes(a, b, [](Float18 x, Float18 y) { return num::min(x, y); });
}
// 1.0 in the real lanes of the last block, 0 in its pad lanes.
PwordF18 last_mask(std::size_t n) {
  PwordF18 m = splat(num::f18_from_double(1.0));
  const std::size_t used = n % num::kLanes;
  if (used != 0)
    for (std::size_t i = used; i < num::kLanes; ++i) m[i] = num::f18_from_double(0.0);
  return m;
}
PwordF18 block_sum(const std::vector<PwordF18>& b) {
  PwordF18 s = b[0];
  for (std::size_t j = 1; j < b.size(); ++j) s = add(s, b[j]);
  return num::add_reduce(s);
}
void check_rows(const NDArray<Float18>& x, const char* who) {
  if (x.rank() < 1 || x.dim(x.rank() - 1) == 0) {
    throw std::invalid_argument(std::string(who) + ": input " + shape_str(x.shape()) + " has no last axis to reduce");
  }
}

}  // namespace

SoftmaxLuts make_softmax_luts(std::size_t row_len, int n_exp, int n_recip) {
  SoftmaxLuts l;
  l.exp_tables =
      num::load_lut_tables(num::compute_chained_lut_params(kExpLo, 0.0, n_exp, [](double v) { return std::exp(v); }));
  l.exp_lo = num::f18_from_double(kExpLo);
  const double hi = std::max<double>(static_cast<double>(row_len), 2.0);
  l.recip_tables = num::load_lut_tables(num::compute_chained_lut_params(
      1.0, hi, n_recip, [](double v) { return 1.0 / v; }, num::LutSpacing::Geometric));
  return l;
}

NDArray<Float18> softmax_f18(const NDArray<Float18>& x, const SoftmaxLuts& luts) {
  check_rows(x, "softmax");
  const std::size_t n = x.dim(x.rank() - 1), rows = x.size() / n;
  const Float18 neg_inf = Float18::from_bits(Float18::kNegInf);
  const PwordF18 lo = splat(luts.exp_lo), zero = splat(num::f18_from_double(0.0)), mask = last_mask(n);
  NDArray<Float18> out(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    std::vector<PwordF18> b = load_row(&x.data()[r * n], n, neg_inf);
    PwordF18 m = b[0];
    for (std::size_t j = 1; j < b.size(); ++j) m = vmax(m, b[j]);
    m = num::max_reduce(m);
    for (std::size_t j = 0; j < b.size(); ++j) {
      const PwordF18 d = vmax(sub(b[j], m), lo);
      b[j] = vmax(num::lut_eval(d, luts.exp_tables), zero);
      if (j + 1 == b.size()) b[j] = mul(b[j], mask);
    }
    const PwordF18 rcp = num::lut_eval(block_sum(b), luts.recip_tables);
    for (std::size_t i = 0; i < n; ++i) {
      out.data()[r * n + i] = num::mul(b[i / num::kLanes][i % num::kLanes], rcp[i % num::kLanes]);
    }
  }
  return out;
}

LayerNormLuts make_layernorm_luts(double lo, double hi, int n) {
  LayerNormLuts l;
  l.rsqrt_tables = num::load_lut_tables(num::compute_chained_lut_params(
      lo, hi, n, [](double v) { return 1.0 / std::sqrt(v); }, num::LutSpacing::Geometric));
  l.lo = num::f18_from_double(lo);
  l.hi = num::f18_from_double(hi);
  return l;
}

NDArray<Float18> layer_norm_f18(const NDArray<Float18>& x, const NDArray<float>& gamma, const NDArray<float>& beta,
                                float eps, const LayerNormLuts& luts) {
  check_rows(x, "layer_norm");
  const std::size_t n = x.dim(x.rank() - 1), rows = x.size() / n;
  if (gamma.size() != n || beta.size() != n) {
    throw std::invalid_argument("layer_norm: gamma " + shape_str(gamma.shape()) + " and beta " +
                                shape_str(beta.shape()) + " must have " + std::to_string(n) + " elements");
  }
  const Float18 zero = num::f18_from_double(0.0);
  std::vector<Float18> g(n), bt(n);
  for (std::size_t i = 0; i < n; ++i) {
    g[i] = to_f18(gamma.data()[i]);
    bt[i] = to_f18(beta.data()[i]);
  }
  const std::vector<PwordF18> gb = load_row(g.data(), n, zero), bb = load_row(bt.data(), n, zero);
  const PwordF18 inv_n = splat(num::f18_from_double(1.0 / static_cast<double>(n)));
  const PwordF18 eps_r = splat(num::f18_from_float(eps)), lo = splat(luts.lo), hi = splat(luts.hi), mask = last_mask(n);
  NDArray<Float18> out(x.shape());
  for (std::size_t r = 0; r < rows; ++r) {
    std::vector<PwordF18> b = load_row(&x.data()[r * n], n, zero);
    const PwordF18 mean = mul(block_sum(b), inv_n);
    std::vector<PwordF18> sq(b.size());
    for (std::size_t j = 0; j < b.size(); ++j) {
      b[j] = sub(b[j], mean);
      if (j + 1 == b.size()) b[j] = mul(b[j], mask);
      sq[j] = mul(b[j], b[j]);
    }
    const PwordF18 var = mul(block_sum(sq), inv_n);
    const PwordF18 rs = num::lut_eval(vmin(vmax(add(var, eps_r), lo), hi), luts.rsqrt_tables);
    for (std::size_t j = 0; j < b.size(); ++j) {
      const PwordF18 y = add(mul(mul(b[j], rs), gb[j]), bb[j]);
      for (std::size_t l = 0; l < num::kLanes && j * num::kLanes + l < n; ++l)
        out.data()[r * n + j * num::kLanes + l] = y[l];
    }
  }
  return out;
}

}  // namespace axcore::ref
