// Layout decisions. A rank-4 tensor is NCHW and lies on the device as (N, H, W, C/64) x 64 lanes
// (channels packed, what core.convolution and the DWPU read); every other rank keeps its ONNX
// axis order with the last axis packed. A graph input or output keeps its ONNX name, shape and
// layout in the bundle: an NCHW one is PWORDS on axis 1 (its image is (N, C/64, H, W, 64)),
// viewed (C <= 64) or permuted (C > 64) into the device layout; padded lanes are zeros. The ref
// backend sees the logical arrays, so the graph gets the same conversions as pad / reshape /
// permute / slice nodes at its start (inputs) and end (outputs).
#include "importer.hpp"

namespace axcore::compiler::onnx::detail {
namespace {

using GNode = PrimFunc::GraphNode;

GNode gnode(const std::string& op, const std::string& in, const std::string& out,
            std::map<std::string, std::vector<double>> attrs) {
  GNode n;
  n.op = op;
  n.inputs = {in};
  n.outputs = {out};
  n.num_attrs = std::move(attrs);
  return n;
}

void ref_node(GNode n) { A::current_func().graph.push_back(std::move(n)); }

std::string dtype_of(int32_t t) { return t == kInt8 ? "int8x64" : "float32x64"; }

}  // namespace

std::vector<int64_t> device_shape(const std::vector<int64_t>& s, Layout l) {
  if (l == Layout::Image) return {s[0], s[2], s[3], blocks(s[1])};
  std::vector<int64_t> r = s.empty() ? std::vector<int64_t>{1} : s;
  r.back() = blocks(r.back());
  return r;
}

Tensor make_constant(const std::string& name, const std::vector<int64_t>& packed, const std::string& dtype,
                     std::vector<double> values) {
  return A::alloc_constant(std::move(values), dtype, A::DDR, packed, name);
}

Tensor channel_vector(Ctx& c, const std::string& stem, const std::vector<double>& v) {
  std::vector<double> p(static_cast<std::size_t>(blocks(static_cast<int64_t>(v.size())) * 64), 0.0);
  std::copy(v.begin(), v.end(), p.begin());
  return make_constant(c.dev_name(stem), {blocks(static_cast<int64_t>(v.size()))}, "float32x64", std::move(p));
}

Value graph_input(Ctx& c, A::Func& f, const ValueInfo& vi, std::vector<std::string>& layouts) {
  const std::string where = "graph input '" + vi.name + "'";
  if (vi.elem_type != kFloat && vi.elem_type != kInt8)
    throw CompileError({c.file, 0, 0}, where + " is " + elem_type_name(vi.elem_type) +
                                           "; supported: float32 or int8 inputs (the device holds no uint8: "
                                           "QuantizeLinear a float32 input inside the graph)");
  if (!vi.has_shape || vi.dims.empty())
    throw CompileError({c.file, 0, 0}, where + " has no shape; supported: fixed shapes of rank 1..4");
  for (int64_t d : vi.dims)
    if (d <= 0)
      throw CompileError({c.file, 0, 0}, where +
                                             " has a symbolic or zero extent; supported: fixed positive "
                                             "extents (export with a fixed batch size)");
  if (vi.dims.size() > 4)
    throw CompileError({c.file, 0, 0}, where + " has rank " + std::to_string(vi.dims.size()) + "; supported: 1..4");
  Value v;
  v.kind = vi.elem_type == kInt8 ? Value::Kind::Quant : Value::Kind::Real;
  if (v.kind == Value::Kind::Quant) v.q = {{1.0}, {0.0}, 1};  // a raw int8 input: DequantizeLinear names its scale
  v.shape = vi.dims;
  v.layout = vi.dims.size() == 4 ? Layout::Image : Layout::Rows;
  const std::string name = c.dev_name(vi.name);
  const std::string dt = dtype_of(vi.elem_type);
  const auto& s = vi.dims;
  // The operators read a view of the input buffer; the ref graph defines the view's array from the
  // logical input (a bundle input's name cannot be redefined).
  if (v.layout == Layout::Rows) {
    const Tensor t = f.input(name, device_shape(s, Layout::Rows), dt, A::DDR);
    v.t = t.reshape(t.shape());
    std::vector<double> pads(2 * s.size(), 0.0);
    pads.back() = static_cast<double>(blocks(s.back()) * 64 - s.back());
    ref_node(gnode("pad", name, v.t.name(), {{"pads", pads}}));
    c.at_end.push_back([t, s] { t.node()->logical_shape = s; });
    layouts.push_back(where + " " + shape_text(s) + " " + elem_type_name(vi.elem_type) +
                      ": rows, the last axis packed" +
                      (s.back() % 64 ? " (padded to " + std::to_string(blocks(s.back()) * 64) + ")" : ""));
    return v;
  }
  const int64_t n = s[0], ch = s[1], h = s[2], w = s[3], cb = blocks(ch);
  const Tensor t = f.input(name, {n, cb, h, w}, dt, A::DDR);  // the bundle's PWORDS-on-axis-1 image
  const Tensor dv = t.reshape(t.shape());
  // ref: (N, C, H, W) -> the device view (N, C/64, H, W*64) of this buffer
  ref_node(gnode("pad", name, name + "__p", {{"pads", {0, 0, 0, static_cast<double>(cb * 64 - ch), 0, 0, 0, 0}}}));
  ref_node(
      gnode("reshape", name + "__p", name + "__r", {{"shape", {double(n), double(cb), 64, double(h), double(w)}}}));
  ref_node(gnode("permute", name + "__r", name + "__t", {{"dims", {0, 1, 3, 4, 2}}}));
  ref_node(gnode("reshape", name + "__t", dv.name(), {{"shape", {double(n), double(cb), double(h), double(w * 64)}}}));
  if (cb == 1) {
    v.t = c.invoke("atomic.reshape", {dv}, {{"shape", std::vector<int64_t>{n, h, w, 64}}}, name + "_nhwc");
  } else {
    v.t = c.invoke("atomic.permute", {dv}, {{"dims", std::vector<int64_t>{0, 2, 3, 1}}}, name + "_nhwc");
  }
  c.at_end.push_back([t, s] {
    t.node()->logical_shape = s;
    t.node()->packed_axis = 1;
  });
  layouts.push_back(where + " " + shape_text(s) + " " + elem_type_name(vi.elem_type) +
                    ": NCHW, bundle PWORDS on axis 1 (C padded to " + std::to_string(cb * 64) +
                    "); device (N, H, W, C) " + (cb == 1 ? "as a view" : "by atomic.permute"));
  return v;
}

void graph_output(Ctx& c, const ValueInfo& vi, std::vector<std::string>& layouts) {
  const std::string where = "graph output '" + vi.name + "'";
  auto it = c.values.find(vi.name);
  if (it == c.values.end()) throw CompileError({c.file, 0, 0}, where + " is computed by no node");
  Value v = it->second;
  if (!v.device())
    throw CompileError({c.file, 0, 0}, where + " is a constant; supported: outputs computed from the inputs");
  c.node = nullptr;
  Tensor t;
  std::string dt;
  if (v.kind == Value::Kind::Quant) {
    if (vi.elem_type != 0 && vi.elem_type != kInt8)
      throw CompileError({c.file, 0, 0}, where + " is " + elem_type_name(vi.elem_type) +
                                             "; supported: float32 or int8 outputs (no uint8 on the device)");
    t = v.t;
    dt = "int8";
  } else {
    t = real_tensor(c, v, vi.name);
    dt = "float32";
  }
  const BufferNode& root = *t.node()->root();
  const bool own =
      t.name() == vi.name && root.role != BufferRole::Input && root.role != BufferRole::Constant && !root.output;
  const auto& s = v.shape;
  if (v.layout == Layout::Rows) {
    if (!own) t = c.invoke("atomic.copy", {t}, {}, vi.name);
    A::output(t);
    if (s.back() % 64 != 0)
      ref_node(gnode("slice", vi.name, vi.name, {{"axis", {-1}}, {"start", {0}}, {"end", {double(s.back())}}}));
    c.at_end.push_back([t, s] { t.node()->logical_shape = s; });
    layouts.push_back(where + " " + shape_text(s) + " " + dt + ": rows, the last axis packed");
    return;
  }
  const int64_t n = s[0], ch = s[1], h = s[2], w = s[3], cb = blocks(ch);
  Tensor o;
  if (cb == 1) {
    Tensor src = t;
    if (root.role == BufferRole::Input || root.role == BufferRole::Constant || root.output)
      src = c.invoke("atomic.copy", {t}, {}, vi.name + "_c");
    o = c.invoke("atomic.reshape", {src}, {{"shape", std::vector<int64_t>{n, 1, h, w * 64}}}, vi.name);
  } else {
    o = c.invoke("atomic.permute", {t}, {{"dims", std::vector<int64_t>{0, 3, 1, 2}}}, vi.name);
  }
  A::output(o);
  // ref: the device view (N, C/64, H, W*64) -> (N, C, H, W)
  const std::string nm = vi.name;
  ref_node(gnode("reshape", nm, nm + "__r", {{"shape", {double(n), double(cb), double(h), double(w), 64}}}));
  ref_node(gnode("permute", nm + "__r", nm + "__t", {{"dims", {0, 1, 4, 2, 3}}}));
  ref_node(gnode("reshape", nm + "__t", nm + "__u", {{"shape", {double(n), double(cb * 64), double(h), double(w)}}}));
  ref_node(gnode("slice", nm + "__u", nm, {{"axis", {1}}, {"start", {0}}, {"end", {double(ch)}}}));
  c.at_end.push_back([o, s] {
    o.node()->logical_shape = s;
    o.node()->packed_axis = 1;
  });
  layouts.push_back(where + " " + shape_text(s) + " " + dt + ": NCHW, bundle PWORDS on axis 1; device (N, H, W, C) " +
                    (cb == 1 ? "viewed" : "permuted by atomic.permute"));
}

Tensor image_plane(Ctx& c, const Value& v, int64_t i) {
  const auto d = v.t.shape();  // (N, H, W, Cb)
  if (d[0] == 1)
    return c.invoke("atomic.reshape", {v.t}, {{"shape", std::vector<int64_t>{d[1], d[2], d[3] * 64}}},
                    c.dev_name(v.t.name(), "_img"));
  const Tensor s = c.invoke("atomic.slice_tensor", {v.t}, {{"dim", int64_t{0}}, {"start", i}, {"end", i + 1}},
                            c.dev_name(v.t.name(), "_n" + std::to_string(i)));
  return c.invoke("atomic.reshape", {s}, {{"shape", std::vector<int64_t>{d[1], d[2], d[3] * 64}}},
                  c.dev_name(s.name(), "_img"));
}

Tensor stack_images(Ctx& c, const std::vector<Tensor>& planes, const std::string& out) {
  std::vector<Tensor> parts;
  for (const auto& p : planes) {
    const auto d = p.shape();
    parts.push_back(c.invoke("atomic.reshape", {p}, {{"shape", std::vector<int64_t>{1, d[0], d[1], d[2] * 64}}},
                             planes.size() == 1 ? out : c.dev_name(p.name(), "_1")));
  }
  if (parts.size() == 1) return parts[0];
  return c.invoke("core.concat", {parts}, {{"dim", int64_t{0}}}, out);
}

}  // namespace axcore::compiler::onnx::detail
