// Depthwise operators on the DP_DWPU datapath (guide §6.3): IFD0 streams each output's window
// (one PWORD of 64 channels per tap), the DWPU reduces it per lane (CONV against the resident
// filter, MAX / MIN / SUM / AVERAGE), the DPU casts the int32 result to float32, the ODR stores.
// The guide's padding rule holds: padding must be zero; ceil_mode's windows past the input's end
// read pads (the IFD pad form). References: the ref backend's "dw_conv2d" / "pool2d".
#include <axcore/ref/op/matmul.hpp>

#include "util.hpp"

namespace axcore::compiler::ops::detail {
namespace {

struct Win {
  int64_t h, w, cb;  // input (1-D: h = 1)
  int64_t kh, kw;
  int64_t sh, sw, dh, dw;
  int64_t oh, ow;
  bool two_d;
};

void emit(const Tensor& x3, const Tensor& out3, const Win& g, spec::DwpuOp op, const Tensor& weights, int64_t divisor,
          int64_t pad) {
  const int64_t taps = g.kh * g.kw;
  const bool guard = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh >= g.h || (g.ow - 1) * g.sw + (g.kw - 1) * g.dw >= g.w;
  A::Datapath(A::DP_DWPU, [&] {
    auto in = A::decl_stream("int8x64");
    auto dw = A::decl_stream("int32x64");
    auto res = A::decl_stream("float32x64");
    A::IFD(0, [&] {
      A::grid_nest({g.oh, g.ow, g.cb, g.kh, g.kw}, [&](const std::vector<A::Value>& i) {
        const A::Value ih = i[0] * g.sh + i[3] * g.dh, iw = i[1] * g.sw + i[4] * g.dw;
        if (guard)
          in.push(A::if_then_else(A::all({ih < g.h, iw < g.w}), x3(ih, iw, i[2]), A::Broadcast(A::int8(pad), 64)));
        else
          in.push(x3(ih, iw, i[2]));
      });
    });
    A::detail::Depthwise(op, taps, weights, divisor, [&] {
      A::grid_nest({g.oh, g.ow, g.cb}, [&](const std::vector<A::Value>& i) {
        dw.push(
            A::detail::dwpu_window(in.pop(), i[2] * taps));  // channel block cb's filter: taps PWORDs from cb * taps
      });
    });
    A::DPU([&] {
      A::grid_nest({g.oh, g.ow, g.cb},
                   [&](const std::vector<A::Value>&) { res.push(A::cast(dw.pop(), "float32x64")); });
    });
    A::ODR([&] {
      A::grid_nest({g.oh, g.ow, g.cb}, [&](const std::vector<A::Value>& i) { out3(i[0], i[1], i[2]) = res.pop(); });
    });
  });
}

// ---- dw_convolution_2d / 1d -------------------------------------------------------------------------
// The weight comes in one of two layouts:
//   the guide's (§6.3): (C_BLOCKS, KH, KW, 1) int8x64, or (C_BLOCKS, K, 1) in 1-D: one PWORD per
//     channel block and tap, the order in which the DWPU reads its filters (channel block cb's
//     taps at PWORDs cb * taps + t), so any buffer serves as is: an input, or a constant;
//   channels last: (KH, KW, C) int8, or (K, C) in 1-D (logical shapes), a constant the operator
//     lays out for the DWPU when it builds.
bool guide_layout(const Tensor& w, bool two_d) { return w.shape().size() == (two_d ? 4u : 3u); }

Win conv_geometry(const Call& c, bool two_d) {
  const Tensor x = c.tensor("input"), w = c.tensor("weight");
  const bool guide = guide_layout(w, two_d);
  Win g{};
  g.two_d = two_d;
  const auto s = c.ints("stride", two_d ? 2 : 1), d = c.ints("dilation", two_d ? 2 : 1);
  if (two_d) {
    g.h = x.shape()[0], g.w = x.shape()[1], g.cb = x.shape()[2];
    g.kh = guide ? w.shape()[1] : logical(w)[0], g.kw = guide ? w.shape()[2] : logical(w)[1];
    g.sh = s[0], g.sw = s[1], g.dh = d[0], g.dw = d[1];
  } else {
    g.h = 1, g.w = x.shape()[0], g.cb = x.shape()[1];
    g.kh = 1, g.kw = guide ? w.shape()[1] : logical(w)[0];
    g.sh = 1, g.sw = s[0], g.dh = 1, g.dw = d[0];
  }
  g.oh = (g.h - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  g.ow = (g.w - g.dw * (g.kw - 1) - 1) / g.sw + 1;
  return g;
}

void check_padding_zero(const Call& c, std::size_t n) {
  for (int64_t p : c.ints("padding", n))
    if (p != 0)
      c.refuse("padding", "must be zero in every depthwise operator (guide §6.3), got " + std::to_string(p),
               "pad the input first (atomic.full + a copy into the interior), or use core.convolution");
}

void check_window(const Call& c, const Win& g, const std::string& window_arg) {
  if (g.sh < 1 || g.sw < 1) c.refuse("stride", "must be >= 1");
  if (g.dh < 1 || g.dw < 1) c.refuse("dilation", "must be >= 1");
  if (g.oh < 1 || g.ow < 1) c.refuse("input", "the window is larger than the input");
  if (g.kh * g.kw > spec::param::dwpu_max_taps)
    c.refuse(window_arg, "the window has " + std::to_string(g.kh * g.kw) + " taps; the DWPU takes at most " +
                             std::to_string(spec::param::dwpu_max_taps) + " (dwpu_max_taps)");
}

OpDef dw_conv_op(bool two_d) {
  OpDef d;
  d.name = two_d ? "core.dw_convolution_2d" : "core.dw_convolution_1d";
  d.level = Level::Core;
  d.doc = two_d ? "depthwise 2-D convolution on the DWPU, float32 out"
                : "depthwise 1-D convolution on the DWPU, float32 out";
  d.args = {{"input", ArgKind::Tensor, true, {}, two_d ? "(H, W, C) int8" : "(L, C) int8"},
            {"weight",
             ArgKind::Tensor,
             true,
             {},
             two_d ? "(C_BLOCKS, KH, KW, 1) int8x64, one filter per channel in the lanes (the guide's layout, any "
                     "buffer), or (KH, KW, C) int8 constant"
                   : "(C_BLOCKS, K, 1) int8x64 (any buffer), or (K, C) int8 constant"},
            {"stride", ArgKind::Ints, false, std::vector<int64_t>{1}, ">= 1"},
            {"dilation", ArgKind::Ints, false, std::vector<int64_t>{1}, ">= 1"},
            {"padding", ArgKind::Ints, false, std::vector<int64_t>{0}, "must be 0 (guide §6.3)"}};
  d.validate = [two_d](const Call& c) {
    require_dtype(c, "input", {"int8x64"});
    require_rank(c, "input", two_d ? 3 : 2, two_d ? 3 : 2);
    require_dtype(c, "weight", {"int8x64"});
    require_rank(c, "weight", two_d ? 3 : 2, two_d ? 4 : 3);
    const Tensor w = c.tensor("weight"), x = c.tensor("input");
    const bool guide = guide_layout(w, two_d);
    if (guide && w.shape().back() != 1)
      c.refuse("weight",
               "is " + shape_str(w.shape()) + " PWORDs: the last axis of " +
                   (two_d ? "(C_BLOCKS, KH, KW, 1)" : "(C_BLOCKS, K, 1)") + " holds one PWORD per tap, so it is 1",
               "the weight of channel block cb, tap (kh, kw), as w[cb, kh, kw, 0] (64 channels in the lanes)");
    const int64_t w_channels = guide ? w.shape()[0] * 64 : logical(w).back();
    if (w_channels != logical(x).back())
      c.refuse("weight",
               "has " + std::to_string(w_channels) + " channels, the input " + std::to_string(logical(x).back()));
    check_padding_zero(c, two_d ? 2 : 1);
    const Win g = conv_geometry(c, two_d);
    check_window(c, g, "weight");
    if (g.cb * g.kh * g.kw > spec::param::dwpu_weight_pwords)
      c.refuse("weight", "the filters are " + std::to_string(g.cb * g.kh * g.kw) + " PWORDs; the DWPU holds " +
                             std::to_string(spec::param::dwpu_weight_pwords) + " (dwpu_weight_pwords)");
    if (!guide) (void)constant_values(c, "weight");  // channels last is laid out for the DWPU at build time
  };
  d.infer_output = [two_d](const Call& c) {
    const Win g = conv_geometry(c, two_d);
    return two_d ? BufferInfo{{g.oh, g.ow, g.cb}, "float32x64"} : BufferInfo{{g.ow, g.cb}, "float32x64"};
  };
  d.implementation = [two_d](const Call& c, const Tensor& out) {
    const Win g = conv_geometry(c, two_d);
    const Tensor x = c.tensor("input");
    const Tensor x3 = two_d ? x : x.reshape({1, g.w, g.cb});
    const Tensor o3 = two_d ? out : out.reshape({1, g.ow, g.cb});
    if (guide_layout(c.tensor("weight"), two_d)) {  // already the DWPU's order
      emit(x3, o3, g, spec::DwpuOp::CONV, c.tensor("weight"), 0, 0);
      return;
    }
    // The filters as the DWPU reads them: channel block cb's taps at PWORDs cb * taps + t.
    const auto& v = constant_values(c, "weight");
    const int64_t taps = g.kh * g.kw, ch = g.cb * 64;
    std::vector<double> dev(static_cast<std::size_t>(g.cb * taps * 64));
    for (int64_t cb = 0; cb < g.cb; ++cb)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t l = 0; l < 64; ++l)
          dev[static_cast<std::size_t>((cb * taps + t) * 64 + l)] = v[static_cast<std::size_t>(t * ch + cb * 64 + l)];
    const Tensor wdev = make_constant(out.name() + "_filters", {g.cb * taps}, "int8x64", std::move(dev));
    emit(x3, o3, g, spec::DwpuOp::CONV, wdev, 0, 0);
  };
  d.emulate = [two_d](const Call& c, const Tensor& out) {
    const Win g = conv_geometry(c, two_d);
    auto pair = [](int64_t a, int64_t b) {
      return std::vector<double>{static_cast<double>(a), static_cast<double>(b)};
    };
    // The reference takes the weight channels last: the guide's layout is permuted first,
    // (C_BLOCKS, KH, KW, 64) -> (KH, KW, C_BLOCKS, 64) -> (KH, KW, C) (1-D: (C_BLOCKS, K, 64) -> (K, C)).
    std::vector<Node> nodes;
    std::string w = c.tensor("weight").name();
    if (guide_layout(c.tensor("weight"), two_d)) {
      const std::string wp = out.name() + "_wperm", wc = out.name() + "_wcl";
      Node p = node("permute", {w}, {wp});
      p.num_attrs["dims"] = two_d ? std::vector<double>{1, 2, 0, 3} : std::vector<double>{1, 0, 2};
      Node r = node("reshape", {wp}, {wc});
      r.num_attrs["shape"] = two_d ? std::vector<double>{static_cast<double>(g.kh), static_cast<double>(g.kw),
                                                         static_cast<double>(g.cb * 64)}
                                   : std::vector<double>{static_cast<double>(g.kw), static_cast<double>(g.cb * 64)};
      nodes = {p, r};
      w = wc;
    }
    Node n = node("dw_conv2d", {c.tensor("input").name(), w}, {out.name()});
    n.num_attrs = {{"stride", pair(g.sh, g.sw)}, {"dilation", pair(g.dh, g.dw)}, {"padding", pair(0, 0)}};
    if (two_d) {
      nodes.push_back(n);
      return nodes;
    }
    // The 1-D reference is the 2-D one over a height of 1.
    const std::string x1 = out.name() + "_x2d", w1 = out.name() + "_w2d", y1 = out.name() + "_y2d";
    Node rx = node("reshape", {c.tensor("input").name()}, {x1}), rw = node("reshape", {w}, {w1});
    rx.num_attrs["shape"] = {1, static_cast<double>(g.w), static_cast<double>(g.cb * 64)};
    rw.num_attrs["shape"] = {1, static_cast<double>(g.kw), static_cast<double>(g.cb * 64)};
    n.inputs = {x1, w1};
    n.outputs = {y1};
    Node ry = node("reshape", {y1}, {out.name()});
    ry.num_attrs["shape"] = {static_cast<double>(g.ow), static_cast<double>(g.cb * 64)};
    nodes.insert(nodes.end(), {rx, rw, n, ry});
    return nodes;
  };
  return d;
}

// ---- dwpu_pool --------------------------------------------------------------------------------------
spec::DwpuOp pool_op_of(const Call& c) {
  const std::string t = c.s("pool_type");
  if (t == "max" || t == "MAX") return spec::DwpuOp::MAX;
  if (t == "min" || t == "MIN") return spec::DwpuOp::MIN;
  if (t == "sum" || t == "SUM") return spec::DwpuOp::SUM;
  if (t == "average" || t == "AVERAGE" || t == "avg") return spec::DwpuOp::AVERAGE;
  c.refuse("pool_type", "'" + t + "' is not MAX, MIN, SUM or AVERAGE");
}

Win pool_geometry(const Call& c) {
  const Tensor x = c.tensor("input");
  const auto k = c.ints("kernel");
  const bool two_d = k.size() == 2;
  const std::size_t n = two_d ? 2 : 1;
  Win g{};
  g.two_d = two_d;
  const auto s = c.has("stride") ? c.ints("stride", n) : k;
  const auto d = c.ints("dilation", n);
  const bool ceil = c.b("ceil_mode");
  if (two_d) {
    g.h = x.shape()[0], g.w = x.shape()[1], g.cb = x.shape()[2];
    g.kh = k[0], g.kw = k[1], g.sh = s[0], g.sw = s[1], g.dh = d[0], g.dw = d[1];
  } else {
    g.h = 1, g.w = x.shape()[0], g.cb = x.shape()[1];
    g.kh = 1, g.kw = k[0], g.sh = 1, g.sw = s[0], g.dh = 1, g.dw = d[0];
  }
  if (g.kh < 1 || g.kw < 1 || g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1) return g;
  g.oh = static_cast<int64_t>(ref::window_out_size(static_cast<std::size_t>(g.h), static_cast<std::size_t>(g.kh),
                                                   static_cast<std::size_t>(g.sh), 0, static_cast<std::size_t>(g.dh),
                                                   ceil));
  g.ow = static_cast<int64_t>(ref::window_out_size(static_cast<std::size_t>(g.w), static_cast<std::size_t>(g.kw),
                                                   static_cast<std::size_t>(g.sw), 0, static_cast<std::size_t>(g.dw),
                                                   ceil));
  return g;
}

OpDef pool_op() {
  OpDef d;
  d.name = "core.dwpu_pool";
  d.level = Level::Core;
  d.doc = "MAX / MIN / SUM / AVERAGE pooling on the DWPU (kernel's length picks 1-D or 2-D), float32 out";
  d.args = {
      {"input", ArgKind::Tensor, true, {}, "(H, W, C) int8 (2-D) or (L, C) int8 (1-D)"},
      {"pool_type", ArgKind::String, true, {}, "MAX, MIN, SUM or AVERAGE"},
      {"kernel", ArgKind::Ints, true, {}, "(kh, kw) or (k); at most dwpu_max_taps taps"},
      {"stride", ArgKind::Ints, false, {}, "default: the kernel"},
      {"dilation", ArgKind::Ints, false, std::vector<int64_t>{1}, ">= 1"},
      {"padding", ArgKind::Ints, false, std::vector<int64_t>{0}, "must be 0 (guide §6.3)"},
      {"ceil_mode", ArgKind::Bool, false, false, "round the output size up (the last windows read pads)"},
      {"divisor_override", ArgKind::Int, false, int64_t{0}, "AVERAGE divisor instead of the taps inside the input"}};
  d.validate = [](const Call& c) {
    require_dtype(c, "input", {"int8x64"});
    const auto k = c.ints("kernel");
    if (k.size() != 1 && k.size() != 2)
      c.refuse("kernel", "has " + std::to_string(k.size()) + " entries; 1 (1-D) or 2 (2-D)");
    require_rank(c, "input", k.size() + 1, k.size() + 1);
    (void)pool_op_of(c);
    check_padding_zero(c, k.size());
    const Win g = pool_geometry(c);
    if (g.kh < 1 || g.kw < 1) c.refuse("kernel", "entries must be >= 1");
    check_window(c, g, "kernel");
    if (c.i("divisor_override") < 0) c.refuse("divisor_override", "must be >= 0");
    if (c.i("divisor_override") != 0 && pool_op_of(c) != spec::DwpuOp::AVERAGE)
      c.refuse("divisor_override", "applies to AVERAGE only");
  };
  d.infer_output = [](const Call& c) {
    const Win g = pool_geometry(c);
    return g.two_d ? BufferInfo{{g.oh, g.ow, g.cb}, "float32x64"} : BufferInfo{{g.ow, g.cb}, "float32x64"};
  };
  d.implementation = [](const Call& c, const Tensor& out) {
    const Win g = pool_geometry(c);
    const spec::DwpuOp op = pool_op_of(c);
    const int64_t pad = op == spec::DwpuOp::MAX ? -128 : op == spec::DwpuOp::MIN ? 127 : 0;
    const Tensor x = c.tensor("input");
    const Tensor x3 = g.two_d ? x : x.reshape({1, g.w, g.cb});
    const Tensor o3 = g.two_d ? out : out.reshape({1, g.ow, g.cb});
    // A pool reads no filter (weight_count 0); the input stands in as the stage's weight buffer.
    emit(x3, o3, g, op, x, c.i("divisor_override"), pad);
  };
  d.emulate = [](const Call& c, const Tensor& out) {
    const Win g = pool_geometry(c);
    const spec::DwpuOp op = pool_op_of(c);
    auto pair = [](int64_t a, int64_t b) {
      return std::vector<double>{static_cast<double>(a), static_cast<double>(b)};
    };
    const std::string x = c.tensor("input").name();
    const std::string x2 = g.two_d ? x : out.name() + "_x2d", y2 = g.two_d ? out.name() : out.name() + "_y2d";
    Node n = node("pool2d", {x2}, {y2});
    n.num_attrs = {{"kernel", pair(g.kh, g.kw)},
                   {"stride", pair(g.sh, g.sw)},
                   {"dilation", pair(g.dh, g.dw)},
                   {"padding", pair(0, 0)},
                   {"ceil_mode", {c.b("ceil_mode") ? 1.0 : 0.0}},
                   {"divisor", {static_cast<double>(c.i("divisor_override"))}}};
    n.str_attrs["type"] = op == spec::DwpuOp::MAX   ? "max"
                          : op == spec::DwpuOp::MIN ? "min"
                          : op == spec::DwpuOp::SUM ? "sum"
                                                    : "average";
    if (g.two_d) return std::vector<Node>{n};
    Node rx = node("reshape", {x}, {x2}), ry = node("reshape", {y2}, {out.name()});
    rx.num_attrs["shape"] = {1, static_cast<double>(g.w), static_cast<double>(g.cb * 64)};
    ry.num_attrs["shape"] = {static_cast<double>(g.ow), static_cast<double>(g.cb * 64)};
    return std::vector<Node>{rx, n, ry};
  };
  return d;
}

}  // namespace

void add_depthwise_ops(std::vector<OpDef>& r) {
  r.push_back(dw_conv_op(true));
  r.push_back(dw_conv_op(false));
  r.push_back(pool_op());
}

}  // namespace axcore::compiler::ops::detail
