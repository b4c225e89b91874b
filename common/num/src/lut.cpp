#include "axcore/num/lut.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace axcore::num {

PwordF32 pack_lut_params_to_pword(const LutParams& params) {
  PwordF32 p{};
  p[0] = params.x_min;
  p[1] = params.inv_step;
  for (std::size_t j = 0; j < kLutSegments; ++j) {
    p[2 + 2 * j] = params.slope[j];
    p[3 + 2 * j] = params.offset[j];
  }
  return p;
}

LutParams unpack_lut_pword(const PwordF32& p) {
  LutParams r;
  r.x_min = p[0];
  r.inv_step = p[1];
  for (std::size_t j = 0; j < kLutSegments; ++j) {
    r.slope[j] = p[2 + 2 * j];
    r.offset[j] = p[3 + 2 * j];
  }
  return r;
}

PwordF18 load_lut_table(const PwordF32& pword) { return to_f18(AnyPword::of(pword)); }

std::vector<PwordF18> load_lut_tables(std::span<const LutParams> params) {
  std::vector<PwordF18> r;
  r.reserve(params.size());
  for (const auto& p : params) r.push_back(load_lut_table(pack_lut_params_to_pword(p)));
  return r;
}

std::size_t lut_segment(Float18 x, const PwordF18& table) {
  const Float18 t = sub(x, table[0]);
  const Float18 u = mul(t, table[1]);
  if (u.is_nan()) return 0;
  const float d = detail::f18_to_f32(u);  // exact: every float18 is a float32
  if (d <= 0.0f) return 0;
  if (d >= static_cast<float>(kLutSegments - 1)) return kLutSegments - 1;
  return static_cast<std::size_t>(d);  // 0 < d < kLutSegments - 1: truncation is the floor
}

std::size_t lut_select_table(Float18 x, std::span<const PwordF18> tables) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (less_equal(tables[i][0], x)) k = i;
  }
  return k;
}

namespace {
void check_chain(std::size_t n) {
  if (n < 1 || n > kLutMaxChain) {
    throw std::invalid_argument("lut_eval: " + std::to_string(n) + " chained tables (1.." +
                                std::to_string(kLutMaxChain) + " allowed)");
  }
}
Float18 eval_one(Float18 x, std::span<const PwordF18> tables) {
  if (x.is_nan()) return Float18::from_bits(Float18::kCanonicalNan);
  const PwordF18& t = tables[lut_select_table(x, tables)];
  const std::size_t j = lut_segment(x, t);
  return add(mul(t[2 + 2 * j], x), t[3 + 2 * j]);
}
}  // namespace

Float18 lut_eval(Float18 x, std::span<const PwordF18> tables) {
  check_chain(tables.size());
  return eval_one(x, tables);
}

PwordF18 lut_eval(const PwordF18& x, std::span<const PwordF18> tables) {
  check_chain(tables.size());
  PwordF18 r;
  for (std::size_t i = 0; i < kLanes; ++i) r[i] = eval_one(x[i], tables);
  return r;
}

std::vector<Float18> f18_values_in(double lo, double hi) {
  std::vector<Float18> r;
  if (lo <= 0.0 && hi >= 0.0) r.push_back(Float18::from_bits(0));
  for (uint32_t mag = Float18::kMinNormal; mag <= Float18::kMaxFinite; ++mag) {
    for (uint32_t sign : {0u, Float18::kSignBit}) {
      const Float18 v = Float18::from_bits(mag | sign);
      const double d = to_double(v);
      if (d >= lo && d <= hi) r.push_back(v);
    }
  }
  std::sort(r.begin(), r.end(), [](Float18 a, Float18 b) { return to_double(a) < to_double(b); });
  return r;
}

namespace {

// The float18 `k` steps away from v in value order (k < 0: smaller), skipping the subnormal
// encodings and staying finite. Rank 0 is zero, rank r > 0 the r-th normal magnitude.
Float18 step_f18(Float18 v, int k) {
  v = v.canonical();
  const int64_t mag = v.bits() & ~Float18::kSignBit;
  const int64_t rank = mag == 0 ? 0 : mag - Float18::kMinNormal + 1;
  const int64_t lim = Float18::kMaxFinite - Float18::kMinNormal + 1;
  const int64_t o = std::clamp((v.sign() ? -rank : rank) + k, -lim, lim);
  const int64_t r = o < 0 ? -o : o;
  const auto m = static_cast<uint32_t>(r == 0 ? 0 : r - 1 + Float18::kMinNormal);
  return Float18::from_bits(o < 0 ? m | Float18::kSignBit : m);
}

struct Segment {
  Float18 slope, offset;
};

// Error weight: relative error where |f| is large, absolute error below `floor`.
struct Points {
  std::vector<Float18> x;
  std::vector<double> xd, fx, w;
};

// Largest weighted error of the hardware evaluation on all points; NaN counts as the worst.
double hw_error(const Points& p, Float18 s, Float18 o) {
  double worst = 0.0;
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    const double e = std::fabs(to_double(add(mul(s, p.x[i]), o)) - p.fx[i]) * p.w[i];
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

// Golden-section minimisation of a convex function on [lo, hi].
template <class F>
double golden_min(double lo, double hi, int iters, F&& g) {
  constexpr double kInv = 0.6180339887498949;
  double a = lo, b = hi, c = b - kInv * (b - a), d = a + kInv * (b - a);
  double gc = g(c), gd = g(d);
  for (int i = 0; i < iters; ++i) {
    if (gc < gd) {
      b = d;
      d = c;
      gd = gc;
      c = b - kInv * (b - a);
      gc = g(c);
    } else {
      a = c;
      c = d;
      gc = gd;
      d = a + kInv * (b - a);
      gd = g(d);
    }
  }
  return 0.5 * (a + b);
}

// Weighted minimax line through the segment's points: the error max_i w_i |f_i - s x_i - o| is
// jointly convex in (s, o), so nested golden sections find it (on at most 512 sampled points);
// then the hardware's rounding is put in the loop by searching the neighbouring float18 slopes
// and offsets on every point.
Segment fit_segment(const Points& all) {
  if (all.x.size() == 1) return {Float18::from_bits(0), f18_from_double(all.fx[0])};
  Points smp;
  const std::size_t n = all.x.size(), m = std::min<std::size_t>(n, 512);
  for (std::size_t k = 0; k < m; ++k) {
    const std::size_t i = m == 1 ? 0 : k * (n - 1) / (m - 1);
    smp.xd.push_back(all.xd[i]);
    smp.fx.push_back(all.fx[i]);
    smp.w.push_back(all.w[i]);
  }
  auto err_at = [&](double s, double o) {
    double worst = 0.0;
    for (std::size_t i = 0; i < smp.xd.size(); ++i)
      worst = std::max(worst, smp.w[i] * std::fabs(smp.fx[i] - s * smp.xd[i] - o));
    return worst;
  };
  auto best_offset = [&](double s) {
    double rmin = std::numeric_limits<double>::infinity(), rmax = -rmin;
    for (std::size_t i = 0; i < smp.xd.size(); ++i) {
      const double r = smp.fx[i] - s * smp.xd[i];
      rmin = std::min(rmin, r);
      rmax = std::max(rmax, r);
    }
    if (!(rmax > rmin)) return rmin;
    return golden_min(rmin, rmax, 60, [&](double o) { return err_at(s, o); });
  };
  const double chord = (all.fx.back() - all.fx.front()) / (all.xd.back() - all.xd.front());
  const double width = 0.25 * std::fabs(chord) + 1e-9;
  const double s_opt =
      golden_min(chord - width, chord + width, 50, [&](double s) { return err_at(s, best_offset(s)); });
  const Float18 s0 = f18_from_double(s_opt);
  Segment best{s0, f18_from_double(best_offset(s_opt))};
  double best_err = hw_error(all, best.slope, best.offset);
  for (int ds = -2; ds <= 2; ++ds) {
    const Float18 s = step_f18(s0, ds);
    const Float18 o0 = f18_from_double(best_offset(to_double(s)));
    for (int dof = -2; dof <= 2; ++dof) {
      const Float18 o = step_f18(o0, dof);
      const double e = hw_error(all, s, o);
      if (e < best_err) {
        best_err = e;
        best = {s, o};
      }
    }
  }
  return best;
}

}  // namespace

std::vector<LutParams> compute_chained_lut_params(double x_min, double x_max, int n_luts,
                                                  const std::function<double(double)>& f, LutSpacing spacing) {
  if (!std::isfinite(x_min) || !std::isfinite(x_max) || !(x_min < x_max)) {
    throw std::invalid_argument("compute_chained_lut_params: need finite x_min < x_max, got [" + std::to_string(x_min) +
                                ", " + std::to_string(x_max) + "]");
  }
  if (n_luts < 1 || n_luts > static_cast<int>(kLutMaxChain)) {
    throw std::invalid_argument("compute_chained_lut_params: n_luts = " + std::to_string(n_luts) + " (1.." +
                                std::to_string(kLutMaxChain) + " allowed)");
  }
  if (spacing == LutSpacing::Geometric && !(x_min > 0.0)) {
    throw std::invalid_argument("compute_chained_lut_params: geometric spacing needs x_min > 0");
  }
  const auto n = static_cast<std::size_t>(n_luts);
  std::vector<double> bounds(n + 1);
  for (std::size_t k = 0; k <= n; ++k) {
    const double a = static_cast<double>(k) / static_cast<double>(n);
    bounds[k] = spacing == LutSpacing::Uniform ? x_min + (x_max - x_min) * a : x_min * std::pow(x_max / x_min, a);
  }
  bounds[n] = x_max;

  std::vector<LutParams> params(n);
  for (std::size_t k = 0; k < n; ++k) {
    const double lo = to_double(f18_from_double(bounds[k]));
    const double step = (bounds[k + 1] - lo) / static_cast<double>(kLutSegments);
    params[k].x_min = static_cast<float>(lo);
    params[k].inv_step = to_float(f18_from_double(1.0 / step));
  }

  // Bucket every float18 input of the domain by the (table, segment) the hardware picks.
  const std::vector<PwordF18> tables = load_lut_tables(params);
  std::vector<Points> pts(n * kLutSegments);
  const std::vector<Float18> domain = f18_values_in(x_min, x_max);
  std::vector<double> fvals(domain.size());
  double fmax = 0.0;
  for (std::size_t i = 0; i < domain.size(); ++i) {
    fvals[i] = f(to_double(domain[i]));
    if (!std::isfinite(fvals[i])) {
      throw std::invalid_argument("compute_chained_lut_params: f(" + std::to_string(to_double(domain[i])) +
                                  ") is not finite");
    }
    fmax = std::max(fmax, std::fabs(fvals[i]));
  }
  const double floor = std::max(fmax * kLutRelFloor, std::numeric_limits<double>::min());
  for (std::size_t i = 0; i < domain.size(); ++i) {
    const Float18 x = domain[i];
    const std::size_t k = lut_select_table(x, tables);
    Points& p = pts[k * kLutSegments + lut_segment(x, tables[k])];
    p.x.push_back(x);
    p.xd.push_back(to_double(x));
    p.fx.push_back(fvals[i]);
    p.w.push_back(1.0 / std::max(std::fabs(fvals[i]), floor));
  }
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t j = 0; j < kLutSegments; ++j) {
      const std::size_t b = k * kLutSegments + j;
      Segment s{Float18::from_bits(0), Float18::from_bits(0)};
      if (!pts[b].x.empty()) {
        s = fit_segment(pts[b]);
      } else {  // no float18 input selects it: hold the function's value at the segment start
        const double x =
            static_cast<double>(params[k].x_min) + static_cast<double>(j) / static_cast<double>(params[k].inv_step);
        const double y = f(std::clamp(x, x_min, x_max));
        s.offset = f18_from_double(std::isfinite(y) ? y : 0.0);
      }
      params[k].slope[j] = to_float(s.slope);
      params[k].offset[j] = to_float(s.offset);
    }
  }
  return params;
}

}  // namespace axcore::num
