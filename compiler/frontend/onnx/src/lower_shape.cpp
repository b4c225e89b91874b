// Shape operators: Flatten / Reshape (a view when the packed last axis stays; an NCHW image
// flattened to (N, C*H*W) is a view of its (H, W, C) device order, with the feature order handed
// to the MatMul / Gemm that consumes it), Transpose (axes other than the packed one), Concat.
#include "importer.hpp"

namespace axcore::compiler::onnx::detail {
namespace {

// (N, C, H, W) -> (N, C*H*W): the device view (N, H*W*Cpad) and its feature map.
void flatten_image(Ctx& c, const Value& x) {
  const int64_t n = x.shape[0], ch = x.shape[1], h = x.shape[2], w = x.shape[3], cp = blocks(ch) * 64;
  Value v;
  v.kind = x.kind;
  v.q = x.q;
  v.shape = {n, ch * h * w};
  v.layout = Layout::Rows;
  v.feature_map.assign(static_cast<std::size_t>(h * w * cp), -1);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t z = 0; z < w; ++z)
      for (int64_t k = 0; k < ch; ++k)
        v.feature_map[static_cast<std::size_t>((y * w + z) * cp + k)] = (k * h + y) * w + z;
  v.t = c.invoke("atomic.reshape", {x.t}, {{"shape", std::vector<int64_t>{n, h * w * cp}}},
                 c.dev_name(c.node->outputs[0]));
  c.ops_of_node.push_back("atomic.reshape (a view)");
  c.note = "device feature order (h, w, c) kept; the consumer's weight rows are permuted to match";
  c.set_out(0, std::move(v));
}

void reshape_rows(Ctx& c, const Value& x, const std::vector<int64_t>& s) {
  if (!x.feature_map.empty()) c.refuse("a reshape of a flattened image", "Flatten straight into MatMul / Gemm");
  if (s.back() != x.shape.back())
    c.refuse("a new last extent (" + std::to_string(x.shape.back()) + " -> " + std::to_string(s.back()) +
                 "): the last axis is the packed one",
             "reshapes keeping the last extent, or flattening an NCHW tensor to (N, C*H*W)");
  Value v = x;
  std::vector<int64_t> dev = s;
  dev.back() = blocks(s.back()) * 64;
  if (x.kind == Value::Kind::Const) c.refuse("a reshape of a constant", "reshapes of computed tensors");
  v.t = c.invoke("atomic.reshape", {x.t}, {{"shape", dev}}, c.dev_name(c.node->outputs[0]));
  v.shape = s;
  c.ops_of_node.push_back("atomic.reshape (a view)");
  c.set_out(0, std::move(v));
}

int64_t count(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

void flatten(Ctx& c) {
  c.known_attrs({"axis"});
  const Value& x = c.in(0);
  if (!x.device()) c.refuse("a constant input", "computed tensors");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  int64_t axis = c.attr_i("axis", 1);
  if (axis < 0) axis += r;
  std::vector<int64_t> s = {count({x.shape.begin(), x.shape.begin() + axis}),
                            count({x.shape.begin() + axis, x.shape.end()})};
  if (x.layout == Layout::Image) {
    if (axis != 1) c.refuse("Flatten of an NCHW tensor at axis " + std::to_string(axis), "axis 1 (N, C*H*W)");
    return flatten_image(c, x);
  }
  reshape_rows(c, x, s);
}

void reshape(Ctx& c) {
  c.known_attrs({"allowzero"});
  const Value& x = c.in(0);
  if (!x.device()) c.refuse("a constant input", "computed tensors");
  const TensorData& sd = c.const_in(1, "shape");
  std::vector<int64_t> s;
  int64_t infer = -1, known = 1;
  for (std::size_t k = 0; k < sd.values.size(); ++k) {
    int64_t d = static_cast<int64_t>(sd.values[k]);
    if (d == 0 && !c.attr_i("allowzero", 0) && k < x.shape.size()) d = x.shape[k];
    if (d == -1) {
      if (infer >= 0) c.refuse("two -1 extents", "at most one -1");
      infer = static_cast<int64_t>(k);
    } else if (d <= 0) {
      c.refuse("extent " + std::to_string(d), "positive extents, one -1, 0 (copy)");
    } else {
      known *= d;
    }
    s.push_back(d);
  }
  if (s.empty()) c.refuse("a reshape to a scalar", "rank >= 1");
  if (infer >= 0) s[static_cast<std::size_t>(infer)] = count(x.shape) / known;
  if (count(s) != count(x.shape))
    c.refuse("shape " + shape_text(s) + " does not hold " + shape_text(x.shape), "the same element count");
  if (x.layout == Layout::Image) {
    if (s.size() == 2 && s[0] == x.shape[0]) return flatten_image(c, x);
    c.refuse("a reshape of an NCHW tensor to " + shape_text(s), "(N, C*H*W) (a Flatten)");
  }
  reshape_rows(c, x, s);
}

void transpose(Ctx& c) {
  c.known_attrs({"perm"});
  const Value& x = c.in(0);
  if (!x.device()) c.refuse("a constant input", "computed tensors");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> def(static_cast<std::size_t>(r));
  for (int64_t k = 0; k < r; ++k) def[static_cast<std::size_t>(k)] = r - 1 - k;
  const auto perm = c.attr_ints("perm", def);
  bool identity = true;
  for (int64_t k = 0; k < r && k < static_cast<int64_t>(perm.size()); ++k)
    identity = identity && perm[static_cast<std::size_t>(k)] == k;
  if (identity && static_cast<int64_t>(perm.size()) == r) {
    c.set_out(0, x);
    c.ops_of_node.push_back("(the identity permutation)");
    return;
  }
  if (x.layout == Layout::Image || static_cast<int64_t>(perm.size()) != r || perm.back() != r - 1 ||
      !x.feature_map.empty())
    c.refuse("perm " + shape_text(perm) + (x.layout == Layout::Image ? " of an NCHW tensor" : "") +
                 ": it moves the packed axis (the device's A.vtrsp is not lowered)",
             "permutations that keep the last axis last (of non-NCHW tensors)");
  Value v = x;
  v.t = c.invoke("atomic.permute", {x.t}, {{"dims", perm}}, c.dev_name(c.node->outputs[0]));
  for (int64_t k = 0; k < r; ++k)
    v.shape[static_cast<std::size_t>(k)] = x.shape[static_cast<std::size_t>(perm[static_cast<std::size_t>(k)])];
  c.ops_of_node.push_back("atomic.permute");
  c.set_out(0, std::move(v));
}

void concat(Ctx& c) {
  c.known_attrs({"axis"});
  std::vector<Tensor> parts;
  const Value& x0 = c.in(0);
  const int64_t r = static_cast<int64_t>(x0.shape.size());
  int64_t axis = c.attr_i("axis", 0);
  if (axis < 0) axis += r;
  Value v = x0;
  v.shape[static_cast<std::size_t>(axis)] = 0;
  for (std::size_t i = 0; i < c.node->inputs.size(); ++i) {
    const Value& x = c.in(i);
    if (!x.device() || x.layout != x0.layout || x.kind != x0.kind || !x.feature_map.empty() ||
        x.shape.size() != x0.shape.size())
      c.refuse("input " + std::to_string(i) + " is a constant, another layout or kind",
               "computed tensors of one layout and dtype");
    if (x.kind != Value::Kind::Real && !(x.q == x0.q))
      c.refuse("int8 inputs with different scales", "one scale and zero point");
    const int64_t packed_axis = x0.layout == Layout::Image ? 1 : r - 1;
    if (axis == packed_axis && x.shape[static_cast<std::size_t>(axis)] % 64 != 0 && i + 1 < c.node->inputs.size())
      c.refuse("a concat along the packed axis of a part with " +
                   std::to_string(x.shape[static_cast<std::size_t>(axis)]) +
                   " entries (its padding would land inside the result)",
               "parts along the packed axis in multiples of 64 (all but the last)");
    parts.push_back(x.t);
    v.shape[static_cast<std::size_t>(axis)] += x.shape[static_cast<std::size_t>(axis)];
  }
  int64_t dev_axis = axis;
  if (x0.layout == Layout::Image) dev_axis = axis == 0 ? 0 : axis == 1 ? 3 : axis - 1;
  v.t = c.invoke("core.concat", {parts}, {{"dim", dev_axis}}, c.dev_name(c.node->outputs[0]));
  c.ops_of_node.push_back("core.concat");
  c.set_out(0, std::move(v));
}

}  // namespace

void add_shape_lowerings(std::map<std::string, Lowering>& r) {
  r["Flatten"] = flatten;
  r["Reshape"] = reshape;
  r["Transpose"] = transpose;
  r["Concat"] = concat;
}

}  // namespace axcore::compiler::onnx::detail
