// Quantization pattern matching: QuantizeLinear / DequantizeLinear parameters (per tensor or per
// axis, uint8 shifted into the int8 domain), constant folding of Q / DQ over initializers (a
// DequantizeLinear of an int8 initializer is a quantized weight the MVM takes as it is), a DQ of
// a device tensor kept lazy (the consumer folds its scale into its own epilogue, or materialises
// it with atomic.dequantize), and a Q of a DQ becoming the identity or one re-quantize.
#include <cmath>

#include "importer.hpp"

namespace axcore::compiler::onnx::detail {

std::vector<double> int8_domain(const TensorData& t) {
  std::vector<double> v = t.values;
  if (t.elem_type == kUint8)
    for (double& x : v) x -= 128;
  return v;
}

QParams qparams(Ctx& c, std::size_t scale_in, std::size_t zero_in, int64_t axis, const std::string& what) {
  QParams q;
  const TensorData& s = c.const_in(scale_in, what + " scale");
  if (s.elem_type != kFloat) c.refuse(what + " scale is " + elem_type_name(s.elem_type), "a float32 scale");
  if (s.dims.size() > 1) c.refuse(what + " scale has rank " + std::to_string(s.dims.size()), "a scalar or a 1-D scale");
  q.scale = s.values;
  if (q.scale.empty()) c.refuse(what + " scale is empty", "a scalar or a 1-D scale");
  for (double v : q.scale)
    if (!(v > 0) || !std::isfinite(v))
      c.refuse(what + " scale " + std::to_string(v) + " is not positive", "scales > 0");
  if (c.has_in(zero_in)) {
    const TensorData& z = c.const_in(zero_in, what + " zero point");
    if (z.elem_type != kInt8 && z.elem_type != kUint8 && z.elem_type != kInt32)
      c.refuse(what + " zero point is " + elem_type_name(z.elem_type), "int8 or uint8 zero points");
    if (z.values.size() != q.scale.size())
      c.refuse(what + " zero point has " + std::to_string(z.values.size()) + " entries, the scale " +
                   std::to_string(q.scale.size()),
               "one zero point per scale");
    q.zero = z.elem_type == kInt32 ? z.values : int8_domain(z);
  } else {  // ONNX: an omitted zero point is uint8 0, -128 in the int8 domain
    q.zero.assign(q.scale.size(), -128.0);
  }
  q.axis = axis;
  return q;
}

namespace {

int32_t q_type(Ctx& c, std::size_t zero_in) {
  if (!c.has_in(zero_in)) return kUint8;
  return c.const_in(zero_in, "zero point").elem_type;
}

// round half to even, as ONNX QuantizeLinear (and numpy.rint)
double rne(double x) { return std::nearbyint(x); }

}  // namespace

Tensor real_tensor(Ctx& c, const Value& v, const std::string& stem) {
  switch (v.kind) {
    case Value::Kind::Real: return v.t;
    case Value::Kind::Dq: {
      if (!v.q.per_tensor())
        c.refuse("a per-axis DequantizeLinear of a device tensor",
                 "per-tensor scales on activations (per-axis on weights)");
      c.ops_of_node.push_back("atomic.dequantize");
      return c.invoke("atomic.dequantize", {v.t}, {{"scale", v.q.scale[0]}, {"zero_point", v.q.zero[0]}}, stem);
    }
    case Value::Kind::Quant:
      c.refuse("an int8 tensor used as a float without a DequantizeLinear",
               "QuantizeLinear / DequantizeLinear pairs (QDQ) or the QLinear* operators");
    case Value::Kind::Const:
    case Value::Kind::QConst: break;
  }
  c.refuse("a constant where a computed tensor is expected", "a graph input or a computed tensor here");
}

void lower_quantize(Ctx& c) {
  c.known_attrs({"axis", "saturate"});
  const Value& x = c.in(0);
  const int32_t zt = q_type(c, 2);
  if (zt != kInt8 && zt != kUint8) c.refuse("QuantizeLinear to " + elem_type_name(zt), "int8 and uint8 outputs");
  const QParams q = qparams(c, 1, 2, c.attr_i("axis", 1), "QuantizeLinear");
  Value out;
  out.shape = x.shape;
  out.layout = x.layout;
  out.q = q;
  if (x.kind == Value::Kind::Const) {  // folded: a quantized constant
    if (x.c.elem_type != kFloat)
      c.refuse("QuantizeLinear of a " + elem_type_name(x.c.elem_type) + " constant", "float32");
    out.kind = Value::Kind::QConst;
    out.c = x.c;
    out.c.elem_type = kInt8;
    const std::size_t n = x.c.values.size(), ch = q.scale.size();
    int64_t ax = q.axis < 0 ? q.axis + static_cast<int64_t>(x.shape.size()) : q.axis;
    std::size_t inner = 1;
    if (ch > 1) {
      if (ax < 0 || ax >= static_cast<int64_t>(x.shape.size()) ||
          x.shape[static_cast<std::size_t>(ax)] != static_cast<int64_t>(ch))
        c.refuse("per-axis scales of " + std::to_string(ch) + " entries on axis " + std::to_string(q.axis),
                 "as many scales as the axis has entries");
      for (std::size_t k = static_cast<std::size_t>(ax) + 1; k < x.shape.size(); ++k)
        inner *= static_cast<std::size_t>(x.shape[k]);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t k = ch > 1 ? (i / inner) % ch : 0;
      out.c.values[i] = std::clamp(rne(x.c.values[i] / q.scale[k]) + q.zero[k], -128.0, 127.0);
    }
    c.ops_of_node.push_back("(folded into the constant)");
    c.set_out(0, std::move(out));
    return;
  }
  if (!q.per_tensor())
    c.refuse("a per-axis QuantizeLinear of a computed tensor (" + std::to_string(q.scale.size()) + " scales)",
             "per-tensor activation scales; per-axis scales on constant weights");
  out.kind = Value::Kind::Quant;
  const std::string name = c.dev_name(c.node->outputs[0]);
  if (x.kind == Value::Kind::Dq) {
    if (x.q == q) {  // Q(DQ(t)) with the same parameters: t itself
      out.t = x.t;
      c.ops_of_node.push_back("(identity: the DequantizeLinear's parameters)");
    } else {  // one re-quantize: round((t - z0) * s0 / s1) + z1
      const double m = x.q.scale[0] / q.scale[0];
      out.t =
          c.invoke("atomic.quantize", {x.t}, {{"scale", 1.0 / m}, {"zero_point", q.zero[0] - x.q.zero[0] * m}}, name);
      c.ops_of_node.push_back("atomic.quantize (re-quantize int8 -> int8)");
    }
  } else {
    const Tensor r = real_tensor(c, x, name + "_f");
    out.t = c.invoke("atomic.quantize", {r}, {{"scale", q.scale[0]}, {"zero_point", q.zero[0]}}, name);
    c.ops_of_node.push_back("atomic.quantize");
  }
  c.set_out(0, std::move(out));
}

void lower_dequantize(Ctx& c) {
  c.known_attrs({"axis"});
  const Value& x = c.in(0);
  Value out;
  out.shape = x.shape;
  out.layout = x.layout;
  if (x.kind == Value::Kind::Const) {
    if (x.c.elem_type != kInt8 && x.c.elem_type != kUint8 && x.c.elem_type != kInt32)
      c.refuse("DequantizeLinear of a " + elem_type_name(x.c.elem_type) + " constant",
               "int8, uint8 or int32 constants");
    out.q = qparams(c, 1, 2, c.attr_i("axis", 1), "DequantizeLinear");
    if (x.c.elem_type == kInt32 && c.has_in(2)) {
      for (double z : out.q.zero)
        if (z != 0) c.refuse("an int32 DequantizeLinear with a non-zero zero point", "int32 (bias) zero points 0");
    }
    if (x.c.elem_type == kInt32) out.q.zero.assign(out.q.scale.size(), 0.0);
    out.kind = Value::Kind::QConst;
    out.c = x.c;
    if (x.c.elem_type != kInt32) {
      out.c.values = int8_domain(x.c);
      out.c.elem_type = kInt8;
    }
    c.ops_of_node.push_back("(a quantized constant: folded into its consumer)");
    c.set_out(0, std::move(out));
    return;
  }
  if (x.kind != Value::Kind::Quant) c.refuse("DequantizeLinear of a float tensor", "int8 / uint8 inputs");
  out.q = qparams(c, 1, 2, c.attr_i("axis", 1), "DequantizeLinear");
  if (!out.q.per_tensor()) c.refuse("a per-axis DequantizeLinear of a computed tensor", "per-tensor activation scales");
  out.kind = Value::Kind::Dq;
  out.t = x.t;
  c.ops_of_node.push_back("(lazy: folded into the consumer, else atomic.dequantize)");
  c.set_out(0, std::move(out));
}

}  // namespace axcore::compiler::onnx::detail
