// Float operators on the DPU: Relu, Clip (as ReLU), Add / Sub / Mul (two tensors, a per-channel
// or scalar constant), Softmax and LayerNormalization over the last axis, Identity. A
// DequantizeLinear'd input is materialised with atomic.dequantize first. Padded lanes: softmax
// gets a -30000 mask added on them (exp clamps at -16, so they add < 1e-5 to a row's sum);
// layer norm over a padded axis would average the pads and is refused.
#include <algorithm>
#include <cmath>
#include <limits>

#include "importer.hpp"

namespace axcore::compiler::onnx::detail {
namespace {

Value real_like(const Value& x, const Tensor& t) {
  Value v;
  v.kind = Value::Kind::Real;
  v.shape = x.shape;
  v.layout = x.layout;
  v.t = t;
  return v;
}

void relu(Ctx& c) {
  c.known_attrs({});
  const Value& x = c.in(0);
  const Tensor r = real_tensor(c, x, c.dev_name(c.node->outputs[0], "_f"));
  c.ops_of_node.push_back("atomic.relu");
  c.set_out(0, real_like(x, c.invoke("atomic.relu", {r}, {}, c.dev_name(c.node->outputs[0]))));
}

void clip(Ctx& c) {
  c.known_attrs({"min", "max"});
  double lo = c.attr_f("min", -std::numeric_limits<double>::infinity());
  double hi = c.attr_f("max", std::numeric_limits<double>::infinity());
  if (c.has_in(1)) lo = c.const_in(1, "min").values.at(0);
  if (c.has_in(2)) hi = c.const_in(2, "max").values.at(0);
  if (lo != 0 || std::isfinite(hi))
    c.refuse("Clip to [" + std::to_string(lo) + ", " + std::to_string(hi) +
                 "] (the operator library has no min / max operator)",
             "Clip with min 0 and no max (a ReLU)");
  relu(c);
}

std::string op_of(const std::string& t) { return t == "Add" ? "atomic.add" : t == "Sub" ? "atomic.sub" : "atomic.mul"; }

void binary(Ctx& c) {
  c.known_attrs({});
  const std::string op = op_of(c.node->op_type);
  const Value* a = &c.in(0);
  const Value* b = &c.in(1);
  if (!a->device() && !b->device()) c.refuse("both operands are constants", "at least one computed operand");
  if (!a->device()) {
    if (c.node->op_type == "Sub") c.refuse("a constant minus a tensor", "tensor - constant (or two tensors)");
    std::swap(a, b);
  }
  const std::string out = c.dev_name(c.node->outputs[0]);
  const Tensor x = real_tensor(c, *a, out + "_a");
  if (b->device()) {
    const bool suffix = b->layout == Layout::Rows && a->layout == Layout::Rows && b->shape.size() <= a->shape.size() &&
                        std::equal(b->shape.rbegin(), b->shape.rend(), a->shape.rbegin());
    if (b->shape != a->shape && !suffix)
      c.refuse(
          "operand shapes " + shape_text(a->shape) + " and " + shape_text(b->shape) + " differ",
          "two tensors of one shape, a trailing-axes broadcast of the second (rows layouts), or a constant scalar / "
          "per-channel vector");
    const Tensor y = real_tensor(c, *b, out + "_b");
    c.ops_of_node.push_back(op);
    c.set_out(0, real_like(*a, c.invoke(op, {x}, {{"other", y}}, out)));
    return;
  }
  if (b->kind != Value::Kind::Const || b->c.elem_type != kFloat)
    c.refuse("the constant operand is not float32", "float32 constants");
  const auto& v = b->c.values;
  if (v.size() == 1) {
    c.ops_of_node.push_back(op + " (scalar)");
    c.set_out(0, real_like(*a, c.invoke(op, {x}, {{"value", v[0]}}, out)));
    return;
  }
  // a per-channel vector: along the last axis (rows) or the channel axis (NCHW: (C, 1, 1) / (1, C, 1, 1))
  const int64_t ch = a->layout == Layout::Image ? a->shape[1] : a->shape.back();
  bool per_channel = static_cast<int64_t>(v.size()) == ch;
  const auto& d = b->c.dims;
  if (per_channel && a->layout == Layout::Image) {
    per_channel = d.size() >= 3 && d[d.size() - 1] == 1 && d[d.size() - 2] == 1;
  } else if (per_channel) {
    per_channel = !d.empty() && d.back() == ch;
  }
  if (!per_channel)
    c.refuse("a constant of shape " + shape_text(d) + " against " + shape_text(a->shape),
             "a scalar, or one value per channel (the last axis; the C axis of NCHW as (C, 1, 1))");
  c.ops_of_node.push_back(op + " (per channel)");
  c.set_out(0, real_like(*a, c.invoke(op, {x}, {{"other", channel_vector(c, out + "_k", v)}}, out)));
}

void softmax(Ctx& c) {
  c.known_attrs({"axis"});
  const Value& x = c.in(0);
  const int64_t r = static_cast<int64_t>(x.shape.size());
  const int64_t axis = c.attr_i("axis", c.g.opset >= 13 ? -1 : 1);
  if ((axis < 0 ? axis + r : axis) != r - 1 || x.layout == Layout::Image)
    c.refuse("axis " + std::to_string(axis) + " of a rank-" + std::to_string(r) + " tensor" +
                 (c.g.opset < 13 ? " (opset < 13: the axis flattens the trailing dimensions)" : ""),
             "the last axis of a non-NCHW tensor");
  const std::string out = c.dev_name(c.node->outputs[0]);
  Tensor t = real_tensor(c, x, out + "_f");
  const int64_t n = x.shape.back();
  if (n % 64 != 0) {
    std::vector<double> mask(static_cast<std::size_t>(blocks(n) * 64), -30000.0);
    std::fill(mask.begin(), mask.begin() + n, 0.0);
    t = c.invoke("atomic.add", {t},
                 {{"other", make_constant(c.dev_name(out, "_mask"), {blocks(n)}, "float32x64", mask)}}, out + "_m");
    c.ops_of_node.push_back("atomic.add (-30000 on the " + std::to_string(blocks(n) * 64 - n) + " pad lanes)");
  }
  c.ops_of_node.push_back("core.softmax");
  c.set_out(0, real_like(x, c.invoke("core.softmax", {t}, {}, out)));
}

void layer_norm(Ctx& c) {
  c.known_attrs({"axis", "epsilon", "stash_type"});
  const Value& x = c.in(0);
  const int64_t r = static_cast<int64_t>(x.shape.size());
  const int64_t axis = c.attr_i("axis", -1);
  if ((axis < 0 ? axis + r : axis) != r - 1 || x.layout == Layout::Image)
    c.refuse("axis " + std::to_string(axis), "normalisation over the last axis only");
  const int64_t n = x.shape.back();
  if (n % 64 != 0)
    c.refuse("a normalised axis of " + std::to_string(n) + " (its 64-lane padding would enter the mean)",
             "a last axis that is a multiple of 64");
  auto vec = [&](std::size_t i, double def) {
    std::vector<double> v(static_cast<std::size_t>(n), def);
    if (c.has_in(i)) {
      const auto& k = c.const_in(i, i == 1 ? "scale" : "bias");
      if (static_cast<int64_t>(k.values.size()) != n)
        c.refuse("scale / bias of " + std::to_string(k.values.size()), "one per element of the axis");
      v = k.values;
    }
    return v;
  };
  const std::string out = c.dev_name(c.node->outputs[0]);
  const Tensor t = real_tensor(c, x, out + "_f");
  const Tensor g = channel_vector(c, out + "_gamma", vec(1, 1.0)), b = channel_vector(c, out + "_beta", vec(2, 0.0));
  c.ops_of_node.push_back("core.layer_norm");
  c.set_out(0, real_like(x, c.invoke("core.layer_norm", {t, g, b}, {{"eps", c.attr_f("epsilon", 1e-5)}}, out)));
}

void identity(Ctx& c) {
  c.known_attrs({});
  c.set_out(0, c.in(0));
  c.ops_of_node.push_back("(the same tensor)");
}

}  // namespace

void add_elementwise_lowerings(std::map<std::string, Lowering>& r) {
  r["Relu"] = relu;
  r["Clip"] = clip;
  r["Add"] = binary;
  r["Sub"] = binary;
  r["Mul"] = binary;
  r["Softmax"] = softmax;
  r["LayerNormalization"] = layer_norm;
  r["Identity"] = identity;
}

}  // namespace axcore::compiler::onnx::detail
