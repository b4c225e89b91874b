// Pools on the DWPU over a DequantizeLinear'd int8 NCHW tensor, one image at a time: MaxPool
// (max commutes with dequantization, so the int8 maxima are cast back to int8 and keep the
// input's scale), AveragePool and GlobalAveragePool (the int8 mean, then dequantized — or
// re-quantized straight into a following QuantizeLinear). The DWPU pools without padding.
#include "importer.hpp"

namespace axcore::compiler::onnx::detail {
namespace {

struct Window {
  std::vector<int64_t> kernel, strides, dil{1, 1};
  bool ceil = false;
};

Window window(Ctx& c, const Value& x, bool global) {
  Window w;
  if (global) {
    c.known_attrs({});
    w.kernel = {x.shape[2], x.shape[3]};
    w.strides = w.kernel;
    return w;
  }
  const bool max = c.node->op_type == "MaxPool";
  if (max)
    c.known_attrs({"kernel_shape", "strides", "pads", "dilations", "ceil_mode", "auto_pad", "storage_order"});
  else
    c.known_attrs({"kernel_shape", "strides", "pads", "ceil_mode", "auto_pad", "count_include_pad"});
  w.kernel = c.attr_ints("kernel_shape", {});
  if (w.kernel.size() != 2) c.refuse("kernel_shape " + shape_text(w.kernel), "2-D kernels over NCHW");
  w.strides = c.attr_ints("strides", {1, 1});
  if (max) w.dil = c.attr_ints("dilations", {1, 1});
  for (int64_t p : c.attr_ints("pads", {0, 0, 0, 0}))
    if (p != 0) c.refuse("pads " + shape_text(c.attr_ints("pads", {})), "pads 0 (the DWPU pools without padding)");
  const std::string ap = c.attr_s("auto_pad", "NOTSET");
  if (ap != "NOTSET" && ap != "VALID") c.refuse("auto_pad = " + ap, "NOTSET or VALID (no padding)");
  if (max && c.attr_i("storage_order", 0) != 0) c.refuse("storage_order = 1", "storage_order 0");
  if (c.node->outputs.size() > 1) c.refuse("the Indices output", "the pooled values only");
  if (c.attr_i("ceil_mode", 0) != 0) {
    for (int k = 0; k < 2; ++k) {
      const int64_t n = x.shape[static_cast<std::size_t>(2 + k)],
                    span = w.dil[static_cast<std::size_t>(k)] * (w.kernel[static_cast<std::size_t>(k)] - 1) + 1,
                    s = w.strides[static_cast<std::size_t>(k)];
      if ((n - span) % s != 0)
        c.refuse("ceil_mode = 1 with a partial last window", "ceil_mode 0 (or windows that tile the input)");
    }
  }
  return w;
}

int64_t out_extent(int64_t n, int64_t k, int64_t s, int64_t d) { return (n - d * (k - 1) - 1) / s + 1; }

void pool(Ctx& c, const std::string& type, bool global) {
  const Value& x = c.in(0);
  if (!x.device() || x.layout != Layout::Image) c.refuse("input 0 is not a 4-D NCHW tensor", "NCHW inputs");
  if (x.kind != Value::Kind::Dq && x.kind != Value::Kind::Quant)
    c.refuse("a float input: the DWPU pools int8", "a DequantizeLinear'd int8 input (QDQ)");
  const Window w = window(c, x, global);
  const std::string out = c.dev_name(c.node->outputs[0]);
  std::vector<Tensor> planes;
  const int64_t n_img = x.shape[0];
  std::map<std::string, ops::ArgValue> named = {{"pool_type", type}, {"kernel", w.kernel}, {"stride", w.strides}};
  if (type == "MAX") named["dilation"] = w.dil;
  for (int64_t i = 0; i < n_img; ++i)
    planes.push_back(
        c.invoke("core.dwpu_pool", {image_plane(c, x, i)}, named, c.dev_name(out, "_p" + std::to_string(i))));
  Tensor r = stack_images(c, planes, c.dev_name(out, "_pool"));
  c.ops_of_node.push_back("core.dwpu_pool " + type + (n_img > 1 ? " x" + std::to_string(n_img) + " images" : ""));
  Value v;
  v.layout = Layout::Image;
  v.shape = {x.shape[0], x.shape[1], out_extent(x.shape[2], w.kernel[0], w.strides[0], w.dil[0]),
             out_extent(x.shape[3], w.kernel[1], w.strides[1], w.dil[1])};
  const QParams q = x.q;
  if (type == "MAX") {  // int8 maxima, exactly representable: cast back, same parameters
    v.kind = x.kind;
    v.q = q;
    v.t = c.invoke("atomic.quantize", {r}, {{"scale", 1.0}}, out);
    c.ops_of_node.push_back("atomic.quantize scale 1 (exact: back to int8)");
    c.set_out(0, std::move(v));
    return;
  }
  // the mean of the int8 values m: real = (m - zx) * sx; into a following QuantizeLinear directly
  const Node* next = c.sole_consumer(c.node->outputs[0]);
  if (next && next->op_type == "QuantizeLinear" && next->attrs.empty()) {
    const Node* keep = c.node;
    c.node = next;
    std::optional<QParams> yq;
    const bool consts =
        c.values.count(next->inputs[1]) && c.values.at(next->inputs[1]).kind == Value::Kind::Const &&
        (!c.has_in(2) || (c.values.count(next->inputs[2]) && c.values.at(next->inputs[2]).kind == Value::Kind::Const));
    if (consts) yq = qparams(c, 1, 2, 1, "QuantizeLinear");
    c.node = keep;
    if (yq && yq->per_tensor()) {
      const double m = q.scale[0] / yq->scale[0];
      v.kind = Value::Kind::Quant;
      v.q = *yq;
      v.t = c.invoke("atomic.quantize", {r}, {{"scale", 1.0 / m}, {"zero_point", yq->zero[0] - q.zero[0] * m}},
                     c.dev_name(next->outputs[0]));
      c.ops_of_node.push_back("atomic.quantize (the following QuantizeLinear)");
      c.fused.insert(next->index);
      c.note = "fused: QuantizeLinear '" + next->name + "'";
      c.values[next->outputs[0]] = v;
      return;
    }
  }
  v.kind = Value::Kind::Real;
  if (q.zero[0] != 0) {
    r = c.invoke("atomic.sub", {r}, {{"value", q.zero[0]}}, out + "_z");
    c.ops_of_node.push_back("atomic.sub (zero point)");
  }
  v.t = c.invoke("atomic.mul", {r}, {{"value", q.scale[0]}}, out);
  c.ops_of_node.push_back("atomic.mul (scale)");
  c.set_out(0, std::move(v));
}

}  // namespace

void add_pool_lowerings(std::map<std::string, Lowering>& r) {
  r["MaxPool"] = [](Ctx& c) { pool(c, "MAX", false); };
  r["AveragePool"] = [](Ctx& c) { pool(c, "AVERAGE", false); };
  r["GlobalAveragePool"] = [](Ctx& c) { pool(c, "AVERAGE", true); };
}

}  // namespace axcore::compiler::onnx::detail
