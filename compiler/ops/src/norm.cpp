// Row reductions in one DPU program per row (guide §7, §8.5): softmax and layer_norm over the
// last axis. The row's PWORD blocks are read into a register file, reduced blockwise with the
// DPU's elementwise ops then across the lanes (max_reduce / add_reduce), transcendentals through
// LUTs (one table each, packed as the DPU reads it), the constants loaded once by A.init.
// References: common/ref/op/softmax.hpp (the ref backend's "softmax" and "layer_norm", with the
// same single-table LUTs).
#include <axcore/num/lut.hpp>
#include <cmath>
#include <map>
#include <tuple>

#include "util.hpp"

namespace axcore::compiler::ops::detail {
namespace {

constexpr double kExpLo = -16.0;  // the exp table's domain [-16, 0] (common/ref softmax)

// One LUT table of f over [lo, hi], packed as the DPU reads it. Fitting is costly (every float18
// input of the range is evaluated), so tables are kept per (function, range) in this process.
std::vector<double> table(const std::string& fn, double lo, double hi, int n, const std::function<double(double)>& f,
                          num::LutSpacing sp) {
  static thread_local std::map<std::tuple<std::string, double, double, int>, std::vector<double>> cache;
  auto [it, fresh_entry] = cache.try_emplace({fn, lo, hi, n});
  if (fresh_entry)
    for (const auto& p : num::compute_chained_lut_params(lo, hi, n, f, sp)) {
      const num::PwordF32 w = num::pack_lut_params_to_pword(p);
      it->second.insert(it->second.end(), w.begin(), w.end());
    }
  return it->second;
}

// Chained tables per LUT: as many as the registers left over allow, up to lut_max_chain.
int chain(int64_t free_registers, int luts) {
  return static_cast<int>(std::clamp<int64_t>(free_registers / luts, 1, spec::param::lut_max_chain));
}
int softmax_tables(int64_t nb) { return chain(static_cast<int64_t>(spec::param::dpu_registers) - 5 - nb, 2); }
int layernorm_tables(int64_t nb) { return chain(static_cast<int64_t>(spec::param::dpu_registers) - 7 - 3 * nb, 1); }
// A scalar in every lane, as the float32 whose float18 rounding the reference uses.
std::vector<double> splat18(double v) { return std::vector<double>(64, num::to_double(num::f18_from_double(v))); }

void append(std::vector<double>& a, const std::vector<double>& b) { a.insert(a.end(), b.begin(), b.end()); }

// x (..., n) viewed as rows of NB blocks.
std::pair<Tensor, Tensor> rows(const Tensor& x, const Tensor& out) {
  int64_t r = 1;
  for (std::size_t k = 0; k + 1 < x.shape().size(); ++k) r *= x.shape()[k];
  const int64_t nb = x.shape().back();
  if (x.shape().size() == 2) return {x, out};
  return {x.reshape({r, nb}), out.reshape({r, nb})};
}

// The datapath skeleton: IFD0 streams the rows, IFD1 the constants once, the DPU's preamble loads
// them into register files of `files` sizes (in order), then runs `body` per row; the ODR stores.
void row_program(const Tensor& x, const Tensor& out, const Tensor& consts, const std::vector<int64_t>& files,
                 const std::function<void(const A::StreamHandle& in, const A::StreamHandle& res,
                                          const std::vector<A::Reg>& c)>& body) {
  const auto [xr, orows] = rows(x, out);
  const int64_t r = xr.shape()[0], nb = xr.shape()[1], nc = consts.shape()[0];
  A::Datapath([&] {
    auto in = A::decl_stream(x.dtype());
    auto side = A::decl_stream("float32x64");
    auto res = A::decl_stream(out.dtype());
    A::IFD(0, [&] {
      for (auto [i, j] : A::grid(r, nb)) in.push(xr(i, j));
    });
    A::IFD(1, [&] {
      for (auto j : A::serial(nc)) side.push(consts(j));
    });
    A::DPU([&] {
      std::vector<A::Reg> c;
      for (std::size_t f = 0; f < files.size(); ++f)
        c.push_back(A::array("float18x64", files[f], "c" + std::to_string(f)));
      A::init([&] {
        for (const auto& file : c)
          for (auto j : A::serial(file.node()->shape[0])) file[j] = A::cast(side.pop(), "float18x64");
      });
      for (auto i : A::serial(r)) {
        (void)i;
        body(in, res, c);
      }
    });
    A::ODR([&] {
      for (auto [i, j] : A::grid(r, nb)) orows(i, j) = res.pop();
    });
  });
}

OpDef softmax_op() {
  OpDef d;
  d.name = "core.softmax";
  d.level = Level::Core;
  d.doc = "softmax over the last axis: running max, exp LUT, add_reduce, 1/x LUT (one DPU program per row)";
  d.args = {{"input", ArgKind::Tensor, true, {}, "(..., n) float16 or float32; n/64 <= 24 blocks (DPU registers)"},
            {"dim", ArgKind::Int, false, int64_t{-1}, "the last axis (-1)"}};
  d.validate = [](const Call& c) {
    require_dtype(c, "input", {"float16x64", "float32x64"});
    const Tensor x = c.tensor("input");
    const int64_t r = static_cast<int64_t>(x.shape().size());
    if (c.i("dim") != -1 && c.i("dim") != r - 1) c.refuse("dim", "softmax reduces the last (packed) axis only, dim=-1");
    const int64_t nb = x.shape().back(), limit = static_cast<int64_t>(spec::param::dpu_registers) - 8;
    if (nb > limit)
      c.refuse(
          "input",
          "a row of " + std::to_string(nb * 64) + " elements is " + std::to_string(nb) +
              " PWORDs; one DPU program holds " + std::to_string(limit) + " in its registers (dpu_registers " +
              std::to_string(spec::param::dpu_registers) + ")",
          "a longer row is staged through memory across datapaths (guide §14), which this library does not do yet");
  };
  d.infer_output = [](const Call& c) { return BufferInfo{c.tensor("input").shape(), "float32x64"}; };
  d.implementation = [](const Call& c, const Tensor& out) {
    const Tensor x = c.tensor("input");
    const int64_t nb = x.shape().back(), n = nb * 64;
    const int nt = softmax_tables(nb);
    std::vector<double> k;
    append(k, table(
                  "exp", kExpLo, 0.0, nt, [](double v) { return std::exp(v); },
                  num::LutSpacing::Uniform));  // c[0, nt) exp
    append(k, splat18(kExpLo));                // c[nt] exp_lo
    append(k, splat18(0.0));                   // c[nt + 1] zero
    append(k, table(
                  "recip", 1.0, std::max<double>(static_cast<double>(n), 2.0), nt, [](double v) { return 1.0 / v; },
                  num::LutSpacing::Geometric));  // c[nt + 2, 2 nt + 2) 1/x
    const Tensor consts = make_constant(out.name() + "_luts", {2 * nt + 2}, "float32x64", std::move(k));
    row_program(x, out, consts, {2 * nt + 2},
                [nb, nt](const A::StreamHandle& in, const A::StreamHandle& res, const std::vector<A::Reg>& regs) {
                  const A::Reg& cr = regs[0];
                  auto xr = A::array("float18x64", nb, "x");
                  auto m = A::var("float18x64", "m");
                  auto e = A::var("float18x64", "e");
                  auto s = A::var("float18x64", "s");
                  for (auto j : A::serial(nb)) xr[j] = A::cast(in.pop(), "float18x64");
                  m = xr[0];
                  if (nb > 1)  // (a zero-extent loop would drop the whole datapath in drop-empty-loops)
                    for (auto j : A::serial(1, nb)) m = A::Max(m, xr[j]);
                  m = A::dpu::max_reduce(m);
                  for (auto j : A::serial(nb)) {
                    e = xr[j] - m;
                    e = A::Max(e, cr[nt]);
                    e = A::dpu::lut(e, cr[0], nt);
                    xr[j] = A::Max(e, cr[nt + 1]);
                  }
                  s = xr[0];
                  if (nb > 1)  // (a zero-extent loop would drop the whole datapath in drop-empty-loops)
                    for (auto j : A::serial(1, nb)) s = A::Value(s) + xr[j];
                  s = A::dpu::add_reduce(s);
                  s = A::dpu::lut(s, cr[nt + 2], nt);
                  for (auto j : A::serial(nb)) res.push(A::cast(xr[j] * s, "float32x64"));
                });
  };
  d.emulate = [](const Call& c, const Tensor& out) {
    Node n = node("softmax", {c.tensor("input").name()}, {out.name()});
    const double nt = softmax_tables(c.tensor("input").shape().back());
    n.num_attrs = {{"exp_tables", {nt}}, {"recip_tables", {nt}}};
    return std::vector<Node>{n};
  };
  return d;
}

OpDef layer_norm_op() {
  OpDef d;
  d.name = "core.layer_norm";
  d.level = Level::Core;
  d.doc = "layer norm over the last axis: mean and variance by add_reduce, 1/sqrt LUT, weight and bias by one FMA";
  d.args = {{"input", ArgKind::Tensor, true, {}, "(..., n) float16 or float32; n/64 <= 7 blocks (DPU registers)"},
            {"weight", ArgKind::Tensor, true, {}, "(n,) float32 constant (gamma)"},
            {"bias", ArgKind::Tensor, true, {}, "(n,) float32 constant (beta)"},
            {"eps", ArgKind::Float, false, 1e-5, "added to the variance"}};
  d.validate = [](const Call& c) {
    require_dtype(c, "input", {"float16x64", "float32x64"});
    const Tensor x = c.tensor("input");
    const int64_t nb = x.shape().back(), limit = (static_cast<int64_t>(spec::param::dpu_registers) - 8) / 3;
    if (nb > limit)
      c.refuse("input", "a row of " + std::to_string(nb) + " PWORDs needs " + std::to_string(3 * nb + 8) +
                            " DPU registers; the DPU has " + std::to_string(spec::param::dpu_registers) +
                            " (rows of at most " + std::to_string(limit * 64) + " elements)");
    for (const char* a : {"weight", "bias"}) {
      require_dtype(c, a, {"float32x64"});
      if (logical(c.tensor(a)) != std::vector<int64_t>{nb * 64})
        c.refuse(a, c.tensor(a).name() + " has shape " + shape_str(logical(c.tensor(a))) + "; layer_norm takes (" +
                        std::to_string(nb * 64) + ",)");
      (void)constant_values(c, a);
    }
    if (!(c.f("eps") >= 0)) c.refuse("eps", "must be >= 0");
  };
  d.infer_output = [](const Call& c) { return BufferInfo{c.tensor("input").shape(), "float32x64"}; };
  d.implementation = [](const Call& c, const Tensor& out) {
    const Tensor x = c.tensor("input");
    const int64_t nb = x.shape().back(), n = nb * 64;
    const double lo = 1.0 / 256, hi = 256.0;
    std::vector<double> k;
    append(k, constant_values(c, "weight"));  // gamma, nb PWORDs
    append(k, constant_values(c, "bias"));    // beta, nb PWORDs
    const int nt = layernorm_tables(nb);
    append(k, table(
                  "rsqrt", lo, hi, nt, [](double v) { return 1.0 / std::sqrt(v); },
                  num::LutSpacing::Geometric));                                               // 1/sqrt, nt tables
    append(k, splat18(1.0 / static_cast<double>(n)));                                         // 1/n
    append(k, std::vector<double>(64, static_cast<double>(static_cast<float>(c.f("eps")))));  // eps
    append(k, splat18(lo));
    append(k, splat18(hi));
    const Tensor consts = make_constant(out.name() + "_consts", {2 * nb + nt + 4}, "float32x64", std::move(k));
    // gamma and beta get register files of their own, so each is indexed by the block loop alone.
    row_program(x, out, consts, {nb, nb, nt + 4},
                [nb, nt](const A::StreamHandle& in, const A::StreamHandle& res, const std::vector<A::Reg>& cr) {
                  const A::Reg& g = cr[0];
                  const A::Reg& bt = cr[1];
                  const A::Reg& k5 = cr[2];
                  auto xr = A::array("float18x64", nb, "x");
                  auto s = A::var("float18x64", "s");
                  auto v = A::var("float18x64", "v");
                  auto y = A::var("float18x64", "y");
                  for (auto j : A::serial(nb)) xr[j] = A::cast(in.pop(), "float18x64");
                  s = xr[0];
                  if (nb > 1)  // (a zero-extent loop would drop the whole datapath in drop-empty-loops)
                    for (auto j : A::serial(1, nb)) s = A::Value(s) + xr[j];
                  s = A::dpu::add_reduce(s);
                  s = A::Value(s) * k5[nt];  // the mean
                  for (auto j : A::serial(nb)) xr[j] = xr[j] - s;
                  v = xr[0] * xr[0];
                  if (nb > 1)  // (a zero-extent loop would drop the whole datapath in drop-empty-loops)
                    for (auto j : A::serial(1, nb))
                      v = A::dpu::fma(xr[j], xr[j], v);  // each square rounded, then summed
                  v = A::dpu::add_reduce(v);
                  v = A::Value(v) * k5[nt];
                  v = A::Value(v) + k5[nt + 1];
                  v = A::Max(v, k5[nt + 2]);
                  v = A::Min(v, k5[nt + 3]);
                  v = A::dpu::lut(v, k5[0], nt);
                  for (auto j : A::serial(nb)) {
                    y = xr[j] * v;
                    y = A::dpu::fma(y, g[j], bt[j]);
                    res.push(A::cast(y, "float32x64"));
                  }
                });
  };
  d.emulate = [](const Call& c, const Tensor& out) {
    Node n = node("layer_norm", {c.tensor("input").name(), c.tensor("weight").name(), c.tensor("bias").name()},
                  {out.name()});
    n.num_attrs = {{"eps", {static_cast<double>(static_cast<float>(c.f("eps")))}},
                   {"lut_lo", {1.0 / 256}},
                   {"lut_hi", {256.0}},
                   {"lut_tables", {static_cast<double>(layernorm_tables(c.tensor("input").shape().back()))}}};
    return std::vector<Node>{n};
  };
  return d;
}

}  // namespace

void add_norm_ops(std::vector<OpDef>& r) {
  r.push_back(softmax_op());
  r.push_back(layer_norm_op());
}

}  // namespace axcore::compiler::ops::detail
