// Elementwise operators on the DPU (IFD0 [+ IFD1] -> DPU -> ODR): one float18 operation per
// statement, constants in registers loaded once by the A.init preamble (guide §7, §8.5).
// References: common/ref/op/elementwise.hpp through the ref backend's add/sub/mul/relu/prelu/
// cast/quantize/dequantize.
#include "dpu_map.hpp"

namespace axcore::compiler::ops::detail {
namespace {

const std::vector<std::string> kIn = {"int8x64", "float16x64", "float32x64"};

std::string float_out(const Tensor& x) { return x.dtype() == "int8x64" ? "float32x64" : x.dtype(); }

enum class Bin { Add, Sub, Mul, Prelu };

A::Value apply(Bin op, const A::Value& a, const A::Value& b) {
  switch (op) {
    case Bin::Add: return a + b;
    case Bin::Sub: return a - b;
    case Bin::Mul: return a * b;
    case Bin::Prelu: return A::dpu::prelu(a, b);
  }
  return a;
}

void check_broadcast(const Call& c, const std::string& arg) {
  const Tensor x = c.tensor("input"), o = c.tensor(arg);
  const auto& xs = x.shape();
  const auto& os = o.shape();
  if (os.size() > xs.size())
    c.refuse(arg, shape_str(logical(o)) + " has a higher rank than the input " + shape_str(logical(x)));
  const std::size_t off = xs.size() - os.size();
  for (std::size_t k = 0; k < os.size(); ++k) {
    const bool last = k + 1 == os.size();
    if (os[k] != xs[off + k] && (os[k] != 1 || last))
      c.refuse(arg, shape_str(logical(o)) + " does not broadcast to the input " + shape_str(logical(x)) +
                        (last ? ": the packed last extents must be equal (per-channel operands have the channel count)"
                              : ""));
  }
}

// add / sub / mul / prelu: `other` a tensor (broadcast, per-channel) or `value` a scalar.
OpDef binary_op(const std::string& name, const std::string& ref, Bin op, const std::string& doc) {
  OpDef d;
  d.name = "atomic." + name;
  d.level = Level::Atomic;
  d.doc = doc;
  d.args = {{"input", ArgKind::Tensor, true, {}, "int8, float16 or float32"},
            {"other",
             ArgKind::Tensor,
             false,
             {},
             "broadcast to the input (e.g. per-channel (C,)); a number here is `value` (mul(x, 2.0))",
             "value"},
            {"value", ArgKind::Float, false, {}, "a scalar instead of `other`"}};
  d.validate = [](const Call& c) {
    require_dtype(c, "input", kIn);
    if (c.has("other") == c.has("value"))
      c.refuse(c.has("other") ? "value" : "other", "give exactly one of `other` (a tensor) and `value` (a scalar)");
    if (c.has("other")) {
      require_dtype(c, "other", kIn);
      check_broadcast(c, "other");
    }
  };
  d.infer_output = [](const Call& c) { return BufferInfo{c.tensor("input").shape(), float_out(c.tensor("input"))}; };
  d.in_place = {"input", "other"};
  d.implementation = [op](const Call& c, const Tensor& out) {
    const Tensor x = c.tensor("input");
    if (c.has("other")) {
      dpu_map(x, out, c.tensor("other"), {},
              [op](const A::Value& v, const A::Value& o, const A::Reg&) { return apply(op, v, o); });
    } else {
      const Tensor k = preamble_constants(out.name() + "_k", {c.f("value")});
      dpu_map(x, out, {}, k, [op](const A::Value& v, const A::Value&, const A::Reg& r) { return apply(op, v, r[0]); });
    }
  };
  d.emulate = [ref](const Call& c, const Tensor& out) {
    const std::string other =
        c.has("other") ? c.tensor("other").name() : scalar_for_ref(out.name() + "_v", c.f("value")).name();
    return std::vector<Node>{node(ref, {c.tensor("input").name(), other}, {out.name()})};
  };
  return d;
}

OpDef relu_op() {
  OpDef d;
  d.name = "atomic.relu";
  d.level = Level::Atomic;
  d.doc = "max(x, +0) in the DPU (the zero a preamble register)";
  d.args = {{"input", ArgKind::Tensor, true, {}, "int8, float16 or float32"}};
  d.validate = [](const Call& c) { require_dtype(c, "input", kIn); };
  d.infer_output = [](const Call& c) { return BufferInfo{c.tensor("input").shape(), float_out(c.tensor("input"))}; };
  d.in_place = {"input"};
  d.implementation = [](const Call& c, const Tensor& out) {
    const Tensor k = preamble_constants(out.name() + "_k", {0.0});
    dpu_map(c.tensor("input"), out, {}, k,
            [](const A::Value& v, const A::Value&, const A::Reg& r) { return A::Max(v, r[0]); });
  };
  d.emulate = [](const Call& c, const Tensor& out) {
    return std::vector<Node>{node("relu", {c.tensor("input").name()}, {out.name()})};
  };
  return d;
}

OpDef cast_op() {
  OpDef d;
  d.name = "atomic.dpu_cast";
  d.level = Level::Atomic;
  d.doc = "x cast through the DPU: to float18 (one rounding), then to dtype (RNE, int8 saturating)";
  d.args = {{"input", ArgKind::Tensor, true, {}, "int8, float16 or float32"},
            {"dtype", ArgKind::String, true, {}, "int8, float16 or float32"}};
  d.validate = [](const Call& c) {
    require_dtype(c, "input", kIn);
    const std::string t = c.s("dtype");
    if (t != "int8" && t != "float16" && t != "float32")
      c.refuse("dtype", "'" + t + "' is not int8, float16 or float32");
  };
  d.infer_output = [](const Call& c) { return BufferInfo{c.tensor("input").shape(), c.s("dtype") + "x64"}; };
  d.implementation = [](const Call& c, const Tensor& out) {
    dpu_map(c.tensor("input"), out, {}, {}, [](const A::Value& v, const A::Value&, const A::Reg&) { return v; });
  };
  d.emulate = [](const Call& c, const Tensor& out) {
    return std::vector<Node>{node("cast", {c.tensor("input").name()}, {out.name()})};
  };
  return d;
}

// quantize: int8(f18(f18(x * (1/scale)) + zero_point)); dequantize: f18(f18(q - zero_point) * scale).
OpDef quant_op(bool quant) {
  OpDef d;
  d.name = quant ? "atomic.quantize" : "atomic.dequantize";
  d.level = Level::Atomic;
  d.doc = quant ? "int8 = cast(x * (1/scale) + zero_point): mul, add, cast in the DPU (per tensor)"
                : "float32 = (q - zero_point) * scale: sub, mul in the DPU (per tensor)";
  d.args = {{"input", ArgKind::Tensor, true, {}, quant ? "int8, float16 or float32" : "int8"},
            {"scale", ArgKind::Float, true, {}, "> 0, per tensor"},
            {"zero_point", ArgKind::Float, false, 0.0, "per tensor"}};
  d.validate = [quant](const Call& c) {
    require_dtype(c, "input", quant ? kIn : std::vector<std::string>{"int8x64"});
    if (!(c.f("scale") > 0)) c.refuse("scale", "must be > 0, got " + std::to_string(c.f("scale")));
  };
  d.infer_output = [quant](const Call& c) {
    return BufferInfo{c.tensor("input").shape(), quant ? "int8x64" : "float32x64"};
  };
  // The multiplier as the float32 value the device holds (and the reference reads).
  auto mult = [quant](const Call& c) {
    return quant ? static_cast<double>(static_cast<float>(1.0 / c.f("scale"))) : c.f("scale");
  };
  d.implementation = [quant, mult](const Call& c, const Tensor& out) {
    const Tensor k = preamble_constants(out.name() + "_k", {mult(c), c.f("zero_point")});
    dpu_map(c.tensor("input"), out, {}, k, [quant](const A::Value& v, const A::Value&, const A::Reg& r) {
      auto t = A::var("float18x64", "t");
      if (quant) {
        t = v * r[0];
        return A::Value(t) + r[1];
      }
      t = v - r[1];
      return A::Value(t) * r[0];
    });
  };
  d.emulate = [quant, mult](const Call& c, const Tensor& out) {
    const std::string m = scalar_for_ref(out.name() + "_s", mult(c)).name();
    const std::string z = scalar_for_ref(out.name() + "_z", c.f("zero_point")).name();
    return std::vector<Node>{node(quant ? "quantize" : "dequantize",
                                  {c.tensor("input").name(), quant ? m : z, quant ? z : m}, {out.name()})};
  };
  return d;
}

}  // namespace

void add_elementwise_ops(std::vector<OpDef>& r) {
  r.push_back(cast_op());
  r.push_back(quant_op(true));
  r.push_back(quant_op(false));
  r.push_back(binary_op("add", "add", Bin::Add, "x + other (a broadcast tensor, or a scalar value)"));
  r.push_back(binary_op("sub", "sub", Bin::Sub, "x - other"));
  r.push_back(binary_op("mul", "mul", Bin::Mul, "x * other"));
  r.push_back(relu_op());
  r.push_back(
      binary_op("prelu", "prelu", Bin::Prelu, "x >= 0 ? x : x * slope (other: per-channel slopes, or a scalar value)"));
}

}  // namespace axcore::compiler::ops::detail
