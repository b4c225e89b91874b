// The MVM operators: MatMul / Gemm / Conv over a DequantizeLinear'd int8 input and weight (QDQ),
// QLinearMatMul / QLinearConv (QOperator). The int8 weight goes to the IMC as it is; the scales,
// the activation zero point (folded into the bias: -zx * sum_k w), the bias, a following Add of a
// constant, Relu and QuantizeLinear are folded into the epilogue when the scale is per tensor
// (core.linear / core.convolution's scale, bias, relu, then one cast to int8), or applied by
// atomic.mul / atomic.add per channel otherwise. Refused: float weights (the MVM multiplies
// int8), weight zero points other than 0, a padded convolution with an activation zero point
// (the device pads with 0, ONNX with the zero point), groups > 1, asymmetric pads.
#include <cmath>
#include <optional>

#include "importer.hpp"

namespace axcore::compiler::onnx::detail {
namespace {

struct Mvm {
  bool conv = false;
  std::vector<int64_t> strides{1, 1}, pads{0, 0}, dil{1, 1};
  std::vector<double> w;          // device layout: (Kpad, Npad) or (KH, KW, Cin_pad, Cout_pad)
  std::vector<int64_t> w_packed;  // its packed shape
  int64_t n_out = 0, k = 0;
  std::vector<double> colsum;  // per output: the sum of its integer weights
  double sx = 1, zx = 0;
  std::vector<double> sw;    // per output
  std::vector<double> bias;  // per output (real)
  bool relu = false;
  std::optional<QParams> yq;
  std::string out;  // the ONNX tensor the result defines
};

// The activation: a DequantizeLinear'd int8 tensor (QDQ) or, for QLinear*, an int8 tensor with
// the node's own parameters.
void activation(Ctx& c, const Value& x, Mvm& m, bool qlinear) {
  if (qlinear) {
    if (x.kind != Value::Kind::Quant && x.kind != Value::Kind::Dq)
      c.refuse("input 0 is not an int8 tensor", "an int8 (QuantizeLinear'd) input");
    const QParams q = qparams(c, 1, 2, 1, "input");
    if (!q.per_tensor()) c.refuse("a per-axis input scale", "a per-tensor input scale");
    m.sx = q.scale[0];
    m.zx = q.zero[0];
    return;
  }
  if (x.kind == Value::Kind::Real || x.kind == Value::Kind::Const)
    c.refuse("input 0 is a float tensor: the MVM multiplies int8 activations",
             "a DequantizeLinear of an int8 tensor (QDQ), or QLinearConv / QLinearMatMul");
  if (x.kind == Value::Kind::Quant) c.refuse("input 0 is int8 without a DequantizeLinear", "QDQ graphs");
  m.sx = x.q.scale[0];
  m.zx = x.q.zero[0];
}

// The weight as integers (int8 domain) and per-output scales. `wq`: its parameters (QDQ: the
// DequantizeLinear's; QLinear*: the node's inputs); `out_axis` the output-channel axis.
std::vector<double> weight(Ctx& c, const Value& w, const std::optional<QParams>& wq_in, int64_t out_axis, Mvm& m,
                           const std::vector<int64_t>& dims) {
  QParams wq;
  std::vector<double> vals;
  if (wq_in) {
    if (w.kind != Value::Kind::Const || (w.c.elem_type != kInt8 && w.c.elem_type != kUint8))
      c.refuse("the weight is not an int8 / uint8 initializer", "constant int8 weights");
    vals = int8_domain(w.c);
    wq = *wq_in;
  } else {
    if (w.kind == Value::Kind::Const && w.c.elem_type == kFloat)
      c.refuse("the weight '" + c.node->inputs[1] + "' is float: the MVM multiplies int8 weights",
               "a DequantizeLinear of an int8 initializer (QDQ), or QLinearConv / QLinearMatMul");
    if (w.kind != Value::Kind::QConst || w.c.elem_type != kInt8)
      c.refuse("the weight '" + c.node->inputs[1] + "' is computed on the device: the IMC holds constant weights",
               "a DequantizeLinear of an int8 initializer as the weight");
    vals = w.c.values;
    wq = w.q;
  }
  const int64_t n = dims[static_cast<std::size_t>(out_axis)];
  m.n_out = n;
  if (wq.per_tensor()) {
    wq.scale.assign(static_cast<std::size_t>(n), wq.scale[0]);
    wq.zero.assign(static_cast<std::size_t>(n), wq.zero[0]);
  } else {
    const int64_t ax = wq.axis < 0 ? wq.axis + static_cast<int64_t>(dims.size()) : wq.axis;
    if (ax != out_axis || static_cast<int64_t>(wq.scale.size()) != n)
      c.refuse("the weight's per-axis scales lie on axis " + std::to_string(wq.axis) + " (" +
                   std::to_string(wq.scale.size()) + " entries)",
               "per-output-channel weight scales (axis " + std::to_string(out_axis) + ", " + std::to_string(n) +
                   " entries)");
  }
  for (double z : wq.zero)
    if (z != 0)
      c.refuse("the weight zero point is " + std::to_string(static_cast<int64_t>(z)) + " (int8 domain)",
               "symmetric weights: zero point 0 for int8, 128 for uint8");
  m.sw = wq.scale;
  return vals;
}

// Folds a following Add of a constant, Relu and QuantizeLinear (each the sole consumer) into m.
void fold_consumers(Ctx& c, Mvm& m) {
  const Node* self = c.node;
  m.out = self->outputs[0];
  const Node* n = c.sole_consumer(m.out);
  auto mark = [&](const Node* f, const std::string& what) {
    c.fused.insert(f->index);
    c.note += (c.note.empty() ? "fused: " : ", ") + what + " '" + f->name + "'";
    m.out = f->outputs[0];
    n = c.sole_consumer(m.out);
  };
  if (n && n->op_type == "Add" && n->inputs.size() == 2 && m.relu == false && !m.yq) {
    const std::string other = n->inputs[0] == m.out ? n->inputs[1] : n->inputs[0];
    auto it = c.values.find(other);
    if (it != c.values.end() && (it->second.kind == Value::Kind::Const || it->second.kind == Value::Kind::QConst) &&
        it->second.c.readable && static_cast<int64_t>(it->second.c.values.size()) == m.n_out && n->attrs.empty()) {
      const Value& b = it->second;
      const bool last_axis =
          m.conv ? (b.c.dims.size() == 3 && b.c.dims[1] == 1 && b.c.dims[2] == 1) || b.c.dims.size() == 1
                 : b.c.dims.size() <= 2;
      if (last_axis && (b.kind == Value::Kind::Const ? b.c.elem_type == kFloat : b.c.elem_type == kInt32)) {
        for (std::size_t i = 0; i < m.bias.size(); ++i)
          m.bias[i] +=
              b.kind == Value::Kind::Const ? b.c.values[i] : b.c.values[i] * b.q.scale[b.q.per_tensor() ? 0 : i];
        mark(n, "Add");
      }
    }
  }
  if (n && n->op_type == "Relu") {
    m.relu = true;
    mark(n, "Relu");
  }
  if (n && n->op_type == "QuantizeLinear" && n->attrs.size() <= 1 && (n->attrs.empty() || n->attrs[0].name == "axis")) {
    const Node* keep = c.node;
    c.node = n;
    bool ok = c.has_in(1) && c.values.count(n->inputs[1]) && c.values.at(n->inputs[1]).kind == Value::Kind::Const &&
              (!c.has_in(2) || (c.values.count(n->inputs[2]) && c.values.at(n->inputs[2]).kind == Value::Kind::Const));
    std::optional<QParams> q;
    if (ok) {
      const int32_t zt = c.has_in(2) ? c.values.at(n->inputs[2]).c.elem_type : kUint8;
      if (zt == kInt8 || zt == kUint8) q = qparams(c, 1, 2, 1, "QuantizeLinear");
    }
    c.node = keep;
    if (q && q->per_tensor()) {
      m.yq = *q;
      mark(n, "QuantizeLinear");
    }
  }
}

Value emit(Ctx& c, const Value& x, Mvm& m) {
  // bias with the activation zero point folded: y = s * (acc - zx * colsum) + b
  std::vector<double> b(static_cast<std::size_t>(m.n_out));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = m.bias[i] - m.zx * m.sx * m.sw[i] * m.colsum[i];
  std::vector<double> s(static_cast<std::size_t>(m.n_out));
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = m.sx * m.sw[i];
  const double sy = m.yq ? m.yq->scale[0] : 1.0, zy = m.yq ? m.yq->zero[0] : 0.0;
  for (auto& v : s) v /= sy;
  for (auto& v : b) v /= sy;
  const bool per_tensor = std::all_of(s.begin(), s.end(), [&](double v) { return v == s[0]; });
  const bool any_bias = std::any_of(b.begin(), b.end(), [](double v) { return v != 0; });
  const std::string out_name = c.dev_name(m.out);
  const bool cast = m.yq.has_value();
  const bool tail = cast || !per_tensor;  // more operators follow the MVM
  const std::string mvm_name = tail ? c.dev_name(m.out, "_acc") : out_name;
  const Tensor wt = make_constant(c.dev_name(c.node->name, "_w"), m.w_packed, "int8x64", m.w);
  std::map<std::string, ops::ArgValue> named;
  if (per_tensor) {
    if (s[0] != 1.0) named["scale"] = s[0];
    if (any_bias) named["bias"] = channel_vector(c, c.node->name + "_b", b);
    if (m.relu) named["activation"] = std::string("relu");
  }
  const std::string op = m.conv ? "core.convolution" : "core.linear";
  Tensor r;
  if (m.conv) {
    named["stride"] = m.strides;
    named["padding"] = m.pads;
    named["dilation"] = m.dil;
    std::vector<Tensor> planes;
    const int64_t n_img = x.t.shape()[0];
    for (int64_t i = 0; i < n_img; ++i) {
      const Tensor p = image_plane(c, x, i);
      planes.push_back(
          c.invoke(op, {p, wt}, named,
                   n_img == 1 ? c.dev_name(mvm_name, "_hwc") : c.dev_name(mvm_name, "_i" + std::to_string(i))));
    }
    r = stack_images(c, planes, mvm_name);
    c.ops_of_node.push_back(op + (n_img > 1 ? " x" + std::to_string(n_img) + " images (+ slice / concat)" : ""));
  } else {
    r = c.invoke(op, {x.t, wt}, named, mvm_name);
    c.ops_of_node.push_back(op);
  }
  std::string epi = per_tensor ? std::string("epilogue") + (s[0] != 1.0 ? " scale" : "") + (any_bias ? " bias" : "") +
                                     (m.relu ? " relu" : "")
                               : "";
  if (!per_tensor) {
    r = c.invoke("atomic.mul", {r}, {{"other", channel_vector(c, c.node->name + "_s", s)}},
                 any_bias || m.relu || tail ? c.dev_name(m.out, "_s") : out_name);
    c.ops_of_node.push_back("atomic.mul (per-channel scale)");
    if (any_bias) {
      r = c.invoke("atomic.add", {r}, {{"other", channel_vector(c, c.node->name + "_b", b)}},
                   m.relu || cast ? c.dev_name(m.out, "_b") : out_name);
      c.ops_of_node.push_back("atomic.add (bias)");
    }
    if (m.relu) {
      r = c.invoke("atomic.relu", {r}, {}, cast ? c.dev_name(m.out, "_r") : out_name);
      c.ops_of_node.push_back("atomic.relu");
    }
  }
  if (!epi.empty() && epi != "epilogue") c.note += (c.note.empty() ? "" : "; ") + epi;
  Value v;
  v.shape = x.shape;
  v.layout = x.layout;
  if (cast) {
    r = c.invoke("atomic.quantize", {r}, {{"scale", 1.0}, {"zero_point", zy}}, out_name);
    c.ops_of_node.push_back("atomic.quantize scale 1 (the QuantizeLinear's rounding)");
    v.kind = Value::Kind::Quant;
    v.q = *m.yq;
  } else {
    v.kind = Value::Kind::Real;
  }
  v.t = r;
  return v;
}

std::vector<int64_t> out_rows(const Value& x, int64_t n) {
  auto s = x.shape;
  s.back() = n;
  return s;
}

// (K, N) integer weight -> device (Kpad, Npad), the column sums.
void layout_matrix(Mvm& m, const std::vector<double>& w, int64_t k, int64_t n, bool transposed) {
  const int64_t kp = blocks(k) * 64, np = blocks(n) * 64;
  m.k = k;
  m.w.assign(static_cast<std::size_t>(kp * np), 0.0);
  m.colsum.assign(static_cast<std::size_t>(n), 0.0);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double v = transposed ? w[static_cast<std::size_t>(j * k + i)] : w[static_cast<std::size_t>(i * n + j)];
      m.w[static_cast<std::size_t>(i * np + j)] = v;
      m.colsum[static_cast<std::size_t>(j)] += v;
    }
  m.w_packed = {kp, blocks(n)};
}

std::vector<double> bias_values(Ctx& c, std::size_t i, int64_t n, double beta, double int32_scale_of_1,
                                const std::vector<double>& sw) {
  std::vector<double> b(static_cast<std::size_t>(n), 0.0);
  if (!c.has_in(i)) return b;
  const Value& v = c.in(i);
  if (v.kind == Value::Kind::Const && v.c.elem_type == kFloat) {
    if (v.c.values.size() != b.size() && v.c.values.size() != 1)
      c.refuse("the bias has " + std::to_string(v.c.values.size()) + " values",
               "a bias of " + std::to_string(n) + " (or 1)");
    for (std::size_t k = 0; k < b.size(); ++k) b[k] = beta * v.c.values[v.c.values.size() == 1 ? 0 : k];
    return b;
  }
  if (v.kind == Value::Kind::QConst && v.c.elem_type == kInt32) {
    if (v.c.values.size() != b.size())
      c.refuse("the int32 bias has " + std::to_string(v.c.values.size()) + " values", "one per output");
    for (std::size_t k = 0; k < b.size(); ++k) b[k] = beta * v.c.values[k] * v.q.scale[v.q.per_tensor() ? 0 : k];
    return b;
  }
  if (v.kind == Value::Kind::Const && v.c.elem_type == kInt32 && int32_scale_of_1 > 0) {  // QLinearConv's B
    if (v.c.values.size() != b.size())
      c.refuse("the int32 bias has " + std::to_string(v.c.values.size()) + " values", "one per output");
    for (std::size_t k = 0; k < b.size(); ++k) b[k] = v.c.values[k] * int32_scale_of_1 * sw[k];
    return b;
  }
  c.refuse("the bias '" + c.node->inputs[i] + "' is not a constant float32 (or a DequantizeLinear'd int32) vector",
           "a constant bias");
}

void matmul_like(Ctx& c, bool gemm, bool qlinear) {
  if (gemm)
    c.known_attrs({"alpha", "beta", "transA", "transB"});
  else
    c.known_attrs({});
  const Value& x = c.in(0);
  if (!x.device()) c.refuse("input 0 is a constant", "a computed or graph-input activation");
  if (x.layout == Layout::Image) c.refuse("a rank-4 (NCHW) input", "(..., K) inputs: Flatten an image first");
  if (gemm && c.attr_i("transA", 0) != 0) c.refuse("transA = 1", "transA = 0");
  const bool tb = gemm && c.attr_i("transB", 0) != 0;
  const double alpha = gemm ? c.attr_f("alpha", 1.0) : 1.0, beta = gemm ? c.attr_f("beta", 1.0) : 1.0;
  if (!(alpha > 0)) c.refuse("alpha = " + std::to_string(alpha), "alpha > 0");
  Mvm m;
  activation(c, x, m, qlinear);
  const std::size_t wi = qlinear ? 3 : 1;
  const Value& w = c.in(wi);
  if (w.shape.size() != 2)
    c.refuse("the weight has rank " + std::to_string(w.shape.size()),
             "a 2-D (K, N) weight (batched MatMul of two activations is not)");
  std::optional<QParams> wq;
  if (qlinear) wq = qparams(c, 4, 5, tb ? 0 : 1, "weight");
  const std::vector<int64_t> dims = w.shape;
  const int64_t k = tb ? dims[1] : dims[0], n = tb ? dims[0] : dims[1];
  if (x.shape.back() != k)
    c.refuse("input 0 has K = " + std::to_string(x.shape.back()) + ", the weight " + shape_text(dims), "matching K");
  const std::vector<double> vals = weight(c, w, wq, tb ? 0 : 1, m, dims);
  for (auto& s : m.sw) s *= alpha;
  layout_matrix(m, vals, k, n, tb);
  if (!x.feature_map.empty()) {  // a flattened image: device row r holds ONNX feature feature_map[r]
    const int64_t np = blocks(n) * 64, kd = static_cast<int64_t>(x.feature_map.size());
    std::vector<double> wd(static_cast<std::size_t>(blocks(kd) * 64 * np), 0.0);
    for (int64_t r = 0; r < kd; ++r) {
      const int64_t f = x.feature_map[static_cast<std::size_t>(r)];
      if (f >= 0) std::copy_n(m.w.begin() + f * np, np, wd.begin() + r * np);
    }
    m.w = std::move(wd);
    m.w_packed = {blocks(kd) * 64, blocks(n)};
  }
  m.bias = bias_values(c, gemm ? 2 : 99, n, beta, 0, m.sw);
  if (qlinear) {
    const QParams yq = qparams(c, 6, 7, 1, "output");
    if (!yq.per_tensor()) c.refuse("a per-axis output scale", "a per-tensor output scale");
    m.yq = yq;
    m.out = c.node->outputs[0];
  } else {
    fold_consumers(c, m);
  }
  Value v = emit(c, x, m);
  v.shape = out_rows(x, n);
  c.values[m.out] = v;
}

void conv_like(Ctx& c, bool qlinear) {
  c.known_attrs({"kernel_shape", "strides", "pads", "dilations", "group", "auto_pad"});
  const Value& x = c.in(0);
  if (!x.device() || x.layout != Layout::Image)
    c.refuse("input 0 is not a 4-D NCHW tensor", "2-D convolutions over NCHW");
  if (c.attr_i("group", 1) != 1)
    c.refuse("attribute 'group' = " + std::to_string(c.attr_i("group", 1)),
             "group = 1 (the operator library's depthwise form has no padding and takes no QDQ scales yet)");
  const std::string ap = c.attr_s("auto_pad", "NOTSET");
  if (ap != "NOTSET" && ap != "VALID") c.refuse("auto_pad = " + ap, "NOTSET (explicit pads) or VALID");
  Mvm m;
  m.conv = true;
  activation(c, x, m, qlinear);
  const std::size_t wi = qlinear ? 3 : 1;
  const Value& w = c.in(wi);
  if (w.shape.size() != 4)
    c.refuse("the weight has rank " + std::to_string(w.shape.size()), "(C_out, C_in, KH, KW) weights");
  const int64_t co = w.shape[0], ci = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  if (ci != x.shape[1])
    c.refuse("the weight has C_in = " + std::to_string(ci) + ", the input " + std::to_string(x.shape[1]),
             "matching channels");
  const auto ks = c.attr_ints("kernel_shape", {kh, kw});
  if (ks != std::vector<int64_t>{kh, kw})
    c.refuse("kernel_shape " + shape_text(ks) + " differs from the weight's", "the weight's kernel");
  m.strides = c.attr_ints("strides", {1, 1});
  m.dil = c.attr_ints("dilations", {1, 1});
  const auto pads = c.attr_ints("pads", {0, 0, 0, 0});
  if (m.strides.size() != 2 || m.dil.size() != 2 || pads.size() != 4)
    c.refuse("a non-2-D convolution", "2-D convolutions");
  if (pads[0] != pads[2] || pads[1] != pads[3])
    c.refuse("asymmetric pads " + shape_text(pads),
             "pads (top, left, bottom, right) with top == bottom and left == right");
  m.pads = {pads[0], pads[1]};
  std::optional<QParams> wq;
  if (qlinear) wq = qparams(c, 4, 5, 0, "weight");
  const std::vector<double> vals = weight(c, w, wq, 0, m, w.shape);
  if (m.zx != 0 && (m.pads[0] || m.pads[1]))
    c.refuse("a padded convolution with an activation zero point " + std::to_string(static_cast<int64_t>(m.zx)) +
                 " (the device pads with 0, ONNX with the zero point)",
             "zero point 0 (symmetric activations) when pads are non-zero");
  const int64_t cip = blocks(ci) * 64, cop = blocks(co) * 64;
  m.w.assign(static_cast<std::size_t>(kh * kw * cip * cop), 0.0);
  m.colsum.assign(static_cast<std::size_t>(co), 0.0);
  for (int64_t o = 0; o < co; ++o)
    for (int64_t i = 0; i < ci; ++i)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t z = 0; z < kw; ++z) {
          const double v = vals[static_cast<std::size_t>(((o * ci + i) * kh + y) * kw + z)];
          m.w[static_cast<std::size_t>(((y * kw + z) * cip + i) * cop + o)] = v;
          m.colsum[static_cast<std::size_t>(o)] += v;
        }
  m.w_packed = {kh, kw, cip, blocks(co)};
  m.n_out = co;
  if (qlinear) {
    m.bias = bias_values(c, 8, co, 1.0, m.sx, m.sw);
    const QParams yq = qparams(c, 6, 7, 1, "output");
    if (!yq.per_tensor()) c.refuse("a per-axis output scale", "a per-tensor output scale");
    m.yq = yq;
    m.out = c.node->outputs[0];
  } else {
    m.bias = bias_values(c, 2, co, 1.0, 0, m.sw);
    fold_consumers(c, m);
  }
  auto out_extent = [&](int64_t n, int64_t k, int64_t s, int64_t p, int64_t d) {
    return (n + 2 * p - d * (k - 1) - 1) / s + 1;
  };
  Value v = emit(c, x, m);
  v.shape = {x.shape[0], co, out_extent(x.shape[2], kh, m.strides[0], m.pads[0], m.dil[0]),
             out_extent(x.shape[3], kw, m.strides[1], m.pads[1], m.dil[1])};
  v.layout = Layout::Image;
  c.values[m.out] = v;
}

void refuse_integer(Ctx& c) {
  c.refuse(
      "an int32 result: the MVM's accumulator leaves the core through the DPU as float18 (11 significant bits), "
      "so int32 sums above 2048 would not be exact",
      "MatMul / Conv between DequantizeLinear'd int8 tensors (QDQ), QLinearMatMul, QLinearConv");
}

}  // namespace

void add_mvm_lowerings(std::map<std::string, Lowering>& r) {
  r["MatMul"] = [](Ctx& c) { matmul_like(c, false, false); };
  r["Gemm"] = [](Ctx& c) { matmul_like(c, true, false); };
  r["QLinearMatMul"] = [](Ctx& c) { matmul_like(c, false, true); };
  r["Conv"] = [](Ctx& c) { conv_like(c, false); };
  r["QLinearConv"] = [](Ctx& c) { conv_like(c, true); };
  r["MatMulInteger"] = refuse_integer;
  r["ConvInteger"] = refuse_integer;
}

}  // namespace axcore::compiler::onnx::detail
