// core.convolution: the §6.2 matmul with the window flattened into the reduction — the IFD walks
// each output pixel's KH x KW x C_in window straight out of the input (no im2col buffer), the IMC
// holds W as (KH*KW*C_in, C_out). Padding uses the IFD pad form (if_then_else, 0 outside). A
// walk's first address must lie in the buffer, so with padding the taps are walked in reverse
// (the first tap read is the window's last, inside the input) and the IMC tiles are loaded in the
// same reversed order, one LoadIMC per tap. Reference: the ref backend's "conv2d". A window
// beyond one residency, or an input that does not fit L1, goes through conv_passes.cpp.
#include "conv.hpp"

namespace axcore::compiler::ops::detail {

std::vector<ArgSpec> conv_args(const std::string& weight_doc) {
  return {
      {"input", ArgKind::Tensor, true, {}, "(H, W, C_in) int8, NHWC without N"},
      {"weight", ArgKind::Tensor, true, {}, weight_doc},
      {"bias", ArgKind::Tensor, false, {}, "(C_out,) float32 constant"},
      {"stride", ArgKind::Ints, false, std::vector<int64_t>{1, 1}, "(sh, sw) >= 1"},
      {"padding", ArgKind::Ints, false, std::vector<int64_t>{0, 0}, "(ph, pw), zeros, at most dilation * (kernel - 1)"},
      {"dilation", ArgKind::Ints, false, std::vector<int64_t>{1, 1}, "(dh, dw) >= 1"},
      {"scale", ArgKind::Float, false, {}, "per-tensor multiplier before the bias"},
      {"activation", ArgKind::String, false, std::string("none"), "none or relu (fused in the DPU)"}};
}

Geometry geometry(const Call& c) {
  const Tensor x = c.tensor("input"), w = c.tensor("weight");
  Geometry g{};
  g.blocked = c.s("weight_layout") == "blocked";
  g.h = x.shape()[0];
  g.w = x.shape()[1];
  g.cb = x.shape()[2];
  g.kh = w.shape()[g.blocked ? 1 : 0];
  g.kw = w.shape()[g.blocked ? 2 : 1];
  g.nb = w.shape()[g.blocked ? 0 : 3];
  g.s = c.ints("stride", 2);
  g.p = c.ints("padding", 2);
  g.d = c.ints("dilation", 2);
  auto out = [](int64_t n, int64_t k, int64_t s, int64_t p, int64_t d) {
    return (n + 2 * p - d * (k - 1) - 1) / s + 1;
  };
  g.oh = out(g.h, g.kh, g.s[0], g.p[0], g.d[0]);
  g.ow = out(g.w, g.kw, g.s[1], g.p[1], g.d[1]);
  return g;
}

Tensor weight_rows(const Call& c, const Geometry& g) {
  const int64_t k = g.kh * g.kw * g.cb * 64;
  return g.blocked ? c.tensor("weight").reshape({g.nb, k}) : c.tensor("weight").reshape({k, g.nb});
}

namespace {

void validate(const Call& c) {
  require_dtype(c, "input", {"int8x64"});
  require_rank(c, "input", 3, 3);
  require_dtype(c, "weight", {"int8x64"});
  require_rank(c, "weight", 4, 4);
  const Tensor x = c.tensor("input"), w = c.tensor("weight");
  if (c.s("weight_layout") != "hwio" && c.s("weight_layout") != "blocked")
    c.refuse("weight_layout", "'" + c.s("weight_layout") + "' is not hwio or blocked");
  const Geometry g = geometry(c);
  if (const int64_t ci = w.shape()[g.blocked ? 3 : 2]; ci != logical(x)[2])
    c.refuse("weight", w.name() + " " + shape_str(w.shape()) + " is " +
                           (g.blocked ? "(C_out/64, KH, KW, C_in) PWORDs" : "(KH, KW, C_in, C_out/64) PWORDs") +
                           " with C_in " + std::to_string(ci) + ", the input has C_in " +
                           std::to_string(logical(x)[2]));
  for (int k = 0; k < 2; ++k) {
    const int64_t taps = k ? g.kw : g.kh, n = k ? g.w : g.h;
    if (g.s[static_cast<std::size_t>(k)] < 1) c.refuse("stride", "must be >= 1");
    if (g.d[static_cast<std::size_t>(k)] < 1) c.refuse("dilation", "must be >= 1");
    if (g.p[static_cast<std::size_t>(k)] < 0) c.refuse("padding", "must be >= 0");
    if (g.p[static_cast<std::size_t>(k)] > g.d[static_cast<std::size_t>(k)] * (taps - 1))
      c.refuse("padding", std::to_string(g.p[static_cast<std::size_t>(k)]) + " exceeds dilation * (kernel - 1) = " +
                              std::to_string(g.d[static_cast<std::size_t>(k)] * (taps - 1)) +
                              ": a window would hold no input");
    if (const int64_t last = g.d[static_cast<std::size_t>(k)] * (taps - 1) - g.p[static_cast<std::size_t>(k)];
        last >= n)
      c.refuse("weight", std::string("the first window's last tap along ") + (k ? "W" : "H") +
                             " (dilation * (kernel - 1) - padding = " + std::to_string(last) +
                             ") lies past the input's last index " + std::to_string(n - 1) +
                             ": the input must reach the first window's last tap");
  }
  if (g.oh < 1 || g.ow < 1)
    c.refuse("input", "the output would be empty (" + std::to_string(g.oh) + " x " + std::to_string(g.ow) + ")");
  (void)epilogue_of(c, g.nb * 64);
  validate_passes(c, g, pass_plan(c, g));
}

void implementation(const Call& c, const Tensor& out) {
  forget_image();
  const Tensor x = c.tensor("input");
  const Geometry g = geometry(c);
  if (const PassPlan p = pass_plan(c, g); p.passes > 0) {
    conv_in_passes(c, g, p, out);
    return;
  }
  const Epilogue e = epilogue_of(c, g.nb * 64);
  const bool padded = g.p[0] > 0 || g.p[1] > 0;
  const int64_t taps = g.kh * g.kw, kb = taps * g.cb;
  const Tensor w2 = weight_rows(c, g);  // row k = (kh*KW + kw)*C_in + ci of (K, C_out/64) or (C_out/64, K)
  // A constant HWIO weight in DDR streams in column chunks from its column-block image; a blocked
  // weight is already column-block-major and an input weight has no values to rearrange.
  ColumnPlan cols =
      g.blocked ? ColumnPlan{max_chunk(kb, e), {}} : plan_columns(w2, g.oh * g.ow, kb, g.nb, max_chunk(kb, e));
  if (padded && !g.blocked && !cols.wc && in_ddr(w2) && is_constant(w2))
    // The taps are loaded one by one (reversed): from the column-block image one copy serves them
    // all instead of a copy per tap. With one output block the row-major weight is that image.
    cols.wc = g.nb == 1 ? w2.reshape({1, w2.shape()[0]}) : column_blocks(w2);
  const int64_t chunk = cols.chunk;
  ColumnLoader columns(cols, g.nb, out.name() + "_w");
  Tensor epi;
  for (int64_t nb0 = 0; nb0 < g.nb; nb0 += chunk) {
    const int64_t nbc = std::min(chunk, g.nb - nb0);
    MvmChunk m;
    m.outer = {g.oh, g.ow};
    m.k_blocks = kb;
    m.nb0 = nb0;
    m.nbc = nbc;
    m.imc = A::alloc_imc({kb, nbc}, "int8x4096", -1, out.name() + "_w" + std::to_string(nb0));
    m.imc.node()->loc = call_loc();  // the IMC budget error points at the call
    if (!padded) {
      if (cols.wc)
        columns.load(m.imc, nb0, nbc, 0, kb, 0);
      else
        load_streamed(w2, m.imc, 0, kb, 0, nb0, nbc, out.name() + "_w" + std::to_string(nb0), g.blocked);
    } else {
      for (int64_t t = 0; t < taps; ++t) {  // IMC tile t*CB + cb holds tap taps-1-t
        if (cols.wc)
          columns.load(m.imc, nb0, nbc, t * g.cb, g.cb, (taps - 1 - t) * g.cb);
        else
          load_streamed(w2, m.imc, t * g.cb, g.cb, (taps - 1 - t) * g.cb, nb0, nbc,
                        out.name() + "_w" + std::to_string(nb0) + "_t" + std::to_string(t), g.blocked);
      }
    }
    if (cols.wc) {  // one epilogue constant for the layer's chunks
      m.epi_cache = &epi;
      m.layer_nb = g.nb;
      m.layer_chunk = chunk;
    }
    // The last chunk of a layer in several chunks computes in two bands of output rows, a datapath
    // each: what reads the first band's rows (the result's store in pieces, docs/compiler.md "Copies
    // in pieces and row bands") runs while the second band computes, instead of all of it after the
    // layer's last MVMEXE task. A band of fewer than kMinBandTileOps tile-ops costs more (a task, its
    // pipeline fill and drain) than it can hide. A padded walk starts at its first window's last
    // tap, which must lie in the input: for the second band too.
    constexpr int64_t kMinBandTileOps = 256;
    const bool second_starts_inside = !padded || (g.oh / 2) * g.s[0] + (g.kh - 1) * g.d[0] - g.p[0] < g.h;
    const bool long_enough = (g.oh / 2) * g.ow * kb * nbc >= kMinBandTileOps;
    const int64_t bands = cols.wc && chunk < g.nb && nb0 + nbc == g.nb && long_enough && second_starts_inside ? 2 : 1;
    if (bands > 1)
      A::current_func().operator_notes.push_back(
          out.name() + ": the last column chunk (output blocks " + std::to_string(nb0) + ".." +
          std::to_string(g.nb - 1) +
          ") in 2 bands of output rows, so what reads the first band's rows runs "
          "while the second computes");
    for (int64_t b = 0; b < bands; ++b) {
      const int64_t oh0 = g.oh * b / bands, oh1 = g.oh * (b + 1) / bands;
      m.outer = {oh1 - oh0, g.ow};
      m.out_row0 = oh0;
      m.ifd = [&](const A::StreamHandle& s) {
        A::grid_nest({oh1 - oh0, g.ow, nbc, g.kh, g.kw, g.cb}, [&](const std::vector<A::Value>& i) {
          const A::Value kh = padded ? A::Value(g.kh - 1) - i[3] : i[3];
          const A::Value kw = padded ? A::Value(g.kw - 1) - i[4] : i[4];
          const A::Value ih = (oh0 ? i[0] + oh0 : i[0]) * g.s[0] + kh * g.d[0] - g.p[0];
          const A::Value iw = i[1] * g.s[1] + kw * g.d[1] - g.p[1];
          if (!padded) {
            s.push(x(ih, iw, i[5]));
          } else {
            s.push(A::if_then_else(A::all({ih >= 0, ih < g.h, iw >= 0, iw < g.w}), x(ih, iw, i[5]),
                                   A::Broadcast(A::int8(0), 64)));
          }
        });
      };
      mvm_chunk(m, e, out);
    }
  }
}

}  // namespace

OpDef convolution_op() {
  OpDef d;
  d.name = "core.convolution";
  d.level = Level::Core;
  d.doc =
      "2-D convolution (stride, zero padding, dilation; groups = 1) on the MVM, epilogue fused; a window beyond one "
      "residency in K passes (float18 partial sums), an input beyond L1 streamed in bands of output rows";
  d.args = conv_args("(KH, KW, C_in, C_out) int8, constant or input");
  d.args.push_back({"weight_layout", ArgKind::String, false, std::string("hwio"),
                    "hwio: (KH, KW, C_in, C_out/64) PWORDs; blocked: (C_out/64, KH, KW, C_in) PWORDs of 64 output "
                    "channels (the guide's §13 layout, loaded without a repack)"});
  d.validate = validate;
  d.infer_output = [](const Call& c) {
    const Geometry g = geometry(c);
    return BufferInfo{{g.oh, g.ow, g.nb}, "float32x64"};
  };
  d.implementation = implementation;
  d.emulate = [](const Call& c, const Tensor& out) {
    const Geometry g = geometry(c);
    // A constant weight the implementation streamed from its column-block image: the graph reads
    // the image (reshaped back), so the bundle carries the image only.
    std::string w = c.tensor("weight").name();
    std::vector<Node> nodes = weight_from_image(c.tensor("weight"), out.name(), w);
    for (auto& n : conv_reference(c, g, pass_plan(c, g), out, w)) nodes.push_back(std::move(n));
    return nodes;
  };
  return d;
}

void add_conv_ops(std::vector<OpDef>& r) { r.push_back(convolution_op()); }

}  // namespace axcore::compiler::ops::detail
