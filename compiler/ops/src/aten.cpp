// The aten level: the PyTorch surface over core and atomic (guide §13). Most entries forward to
// the op below under PyTorch's name; linear and convolution take PyTorch's weight layouts
// ((out, in) and (C_out, KH, KW, C_in)) and lay a constant out for the IMC at build time, an
// input weight on the device; convolution also takes the guide's blocked (C_out/64, KH, KW, C_in).
#include "util.hpp"

namespace axcore::compiler::ops::detail {

std::vector<ArgSpec> linear_args(const std::string& weight_doc);
std::vector<ArgSpec> conv_args(const std::string& weight_doc);

namespace {

std::map<std::string, ArgValue> named_args(const Call& c) {
  std::map<std::string, ArgValue> m;
  for (const auto& [k, v] : c.args())
    if (!std::holds_alternative<std::monostate>(v)) m[k] = v;
  return m;
}

// A weight given as a model input (a runtime buffer) cannot be laid out at build time: the
// repack to the IMC's (K, N/64) order is an operator of the graph, a lane transpose on the
// device (atomic.permute through A.vtrsp), so the bundle's input stays in PyTorch's layout.
Tensor on_device(const Call& c, const Tensor& w, std::vector<int64_t> dims) {
  return invoke_at(*find_op("atomic.permute"), {}, {{"input", w}, {"dims", std::move(dims)}},
                   c.out_name() + "_" + w.name() + "_repack", c.loc());
}

OpDef aten_linear() {
  OpDef d;
  d.name = "aten.linear";
  d.level = Level::Aten;
  d.doc =
      "torch.nn.functional.linear: weight (out_features, in_features), transposed at build time (a constant) or on "
      "the device (an input, atomic.permute) (core.linear)";
  d.args = linear_args("(N, K) int8 constant or input, PyTorch's (out_features, in_features)");
  d.validate = [](const Call& c) {
    require_dtype(c, "weight", {"int8x64"});
    require_rank(c, "weight", 2, 2);
  };
  d.compose = [](const Call& c) {
    const Tensor w = c.tensor("weight");
    const auto ls = logical(w);
    const int64_t n = ls[0], k = ls[1];
    if (n % 64 != 0)
      c.refuse("weight", "out_features " + std::to_string(n) + " must be a multiple of 64 (the output's packed axis)");
    auto m = named_args(c);
    if (!is_constant(w)) {
      m["weight"] = on_device(c, w, {1, 0});
      return invoke_at(*find_op("core.linear"), {}, m, c.out_name(), c.loc());
    }
    const auto& v = constant_values(c, "weight");
    std::vector<double> t(v.size());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < k; ++j) t[static_cast<std::size_t>(j * n + i)] = v[static_cast<std::size_t>(i * k + j)];
    m["weight"] = make_constant(w.name() + "_t", {k, n / 64}, "int8x64", std::move(t));
    return invoke_at(*find_op("core.linear"), {}, m, c.out_name(), c.loc());
  };
  return d;
}

// The weight forms of aten.convolution, told apart by the PWORD count of the last axis against
// the input's C_in (equal for neither layout at once):
//   OHWI    (C_out, KH, KW, C_in/64) PWORDs — PyTorch's channels_last; a constant is laid out at
//           build time, an input repacked on the device (atomic.permute (1, 2, 3, 0), A.vtrsp);
//   blocked (C_out/64, KH, KW, C_in) PWORDs of 64 output channels — the guide's §13 w_conv, the
//           IMC's own column-block order: loaded as it is (core.convolution weight_layout=blocked).
OpDef aten_convolution() {
  OpDef d;
  d.name = "aten.convolution";
  d.level = Level::Aten;
  d.doc =
      "torch.nn.functional.conv2d on NHWC input ((H, W, C_in) or (1, H, W, C_in)): weight (C_out, KH, KW, C_in) "
      "(PyTorch's channels_last) or the guide's (C_out/64, KH, KW, C_in) PWORDs, constant or input (core.convolution)";
  d.args = conv_args(
      "(C_out, KH, KW, C_in) int8 (OHWI, PyTorch's channels_last), or the guide's §13 (C_out/64, KH, KW, C_in) "
      "int8x64 PWORDs of 64 output channels; a constant or an input");
  d.validate = [](const Call& c) {
    require_dtype(c, "weight", {"int8x64"});
    require_rank(c, "weight", 4, 4);
    require_rank(c, "input", 3, 4);
    const Tensor x = c.tensor("input"), w = c.tensor("weight");
    if (x.shape().size() == 4 && x.shape()[0] != 1)
      c.refuse("input",
               x.name() + " " + shape_str(logical(x)) + " has N = " + std::to_string(x.shape()[0]) +
                   "; the convolution takes one image (N = 1)",
               "convolve each image on its own");
    const int64_t ci = logical(x).back();
    if (w.shape()[3] != ci && w.shape()[3] * 64 != ci)
      c.refuse("weight", w.name() + " has " + std::to_string(w.shape()[3]) +
                             " PWORDs on its last axis; the input's C_in " + std::to_string(ci) +
                             " needs (C_out, KH, KW, C_in) int8 (last axis C_in/64 = " + std::to_string(ci / 64) +
                             " PWORDs) or (C_out/64, KH, KW, C_in) int8x64 (last axis " + std::to_string(ci) +
                             " PWORDs of output channels)");
  };
  d.compose = [](const Call& c) {
    const Tensor w = c.tensor("weight");
    Tensor x = c.tensor("input");
    const bool batched = x.shape().size() == 4;
    if (batched) {  // (1, H, W, C) -> (H, W, C): a view, with its reshape node for the reference
      auto hwc = logical(x);
      hwc.erase(hwc.begin());
      x = invoke_at(*find_op("atomic.reshape"), {}, {{"input", x}, {"shape", hwc}}, c.out_name() + "_in", c.loc());
    }
    auto m = named_args(c);
    m["input"] = x;
    const auto s = logical(w);
    if (w.shape()[3] == logical(x)[2]) {  // blocked: (C_out/64, KH, KW, C_in)
      m["weight_layout"] = std::string("blocked");
    } else {  // OHWI: (C_out, KH, KW, C_in)
      const int64_t co = s[0], kh = s[1], kw = s[2], ci = s[3];
      if (co % 64 != 0 || ci % 64 != 0)
        c.refuse("weight",
                 "C_out " + std::to_string(co) + " and C_in " + std::to_string(ci) +
                     " must be multiples of 64 (channels are the packed axis)",
                 "zero-pad the channels to a full PWORD (guide §13)");
      if (!is_constant(w)) {
        m["weight"] = on_device(c, w, {1, 2, 3, 0});
      } else {
        const auto& v = constant_values(c, "weight");
        std::vector<double> t(v.size());
        for (int64_t o = 0; o < co; ++o)
          for (int64_t i = 0; i < ci; ++i)
            for (int64_t y = 0; y < kh; ++y)
              for (int64_t x2 = 0; x2 < kw; ++x2)
                t[static_cast<std::size_t>(((y * kw + x2) * ci + i) * co + o)] =
                    v[static_cast<std::size_t>(((o * kh + y) * kw + x2) * ci + i)];
        m["weight"] = make_constant(w.name() + "_hwio", {kh, kw, ci, co / 64}, "int8x64", std::move(t));
      }
    }
    if (!batched) return invoke_at(*find_op("core.convolution"), {}, m, c.out_name(), c.loc());
    const Tensor y = invoke_at(*find_op("core.convolution"), {}, m, c.out_name() + "_hwc", c.loc());
    auto shape = logical(y);
    shape.insert(shape.begin(), 1);
    return invoke_at(*find_op("atomic.reshape"), {}, {{"input", y}, {"shape", shape}}, c.out_name(), c.loc());
  };
  return d;
}

}  // namespace

void add_aten_ops(std::vector<OpDef>& r) {
  // aten.<name> forwards to `target` (looked up in the registry being built) with the same
  // arguments, `renames` mapping aten names to the target's, `fixed` arguments set.
  auto add = [&](OpDef d) { r.push_back(std::move(d)); };
  auto fwd = [&](const std::string& name, const std::string& target, const std::string& doc,
                 const std::map<std::string, std::string>& renames = {},
                 const std::map<std::string, ArgValue>& fixed = {}) {
    const OpDef* t = nullptr;
    for (const auto& o : r)
      if (o.name == target) t = &o;
    OpDef d;
    d.name = "aten." + name;
    d.level = Level::Aten;
    d.doc = doc + " (" + target + ")";
    for (const auto& a : t->args) {
      if (fixed.count(a.name)) continue;
      ArgSpec s = a;
      for (const auto& [from, to] : renames)
        if (to == a.name) s.name = from;
      d.args.push_back(s);
    }
    d.compose = [target, renames, fixed](const Call& c) {
      std::map<std::string, ArgValue> m = fixed;
      for (auto [k, v] : named_args(c)) {
        auto it = renames.find(k);
        m[it == renames.end() ? k : it->second] = v;
      }
      return invoke_at(*find_op(target), {}, m, c.out_name(), c.loc());
    };
    add(std::move(d));
  };
  add(aten_linear());
  add(aten_convolution());
  fwd("relu", "atomic.relu", "torch.relu");
  fwd("add_tensor", "atomic.add", "torch.add");
  fwd("sub_tensor", "atomic.sub", "torch.sub");
  fwd("mul_tensor", "atomic.mul", "torch.mul");
  fwd("prelu", "atomic.prelu", "torch.nn.functional.prelu", {{"weight", "other"}});
  fwd("permute", "atomic.permute", "torch.permute");
  fwd("transpose", "atomic.transpose", "torch.transpose");
  fwd("slice_tensor", "atomic.slice_tensor", "torch.narrow / slicing");
  fwd("reshape", "atomic.reshape", "torch.reshape");
  fwd("cat", "core.concat", "torch.cat");
  fwd("softmax", "core.softmax", "torch.softmax");
  fwd("layer_norm", "core.layer_norm", "torch.nn.functional.layer_norm");
  fwd("max_pool2d", "core.dwpu_pool", "torch.nn.functional.max_pool2d", {{"kernel_size", "kernel"}},
      {{"pool_type", std::string("MAX")}});
  fwd("avg_pool2d", "core.dwpu_pool", "torch.nn.functional.avg_pool2d", {{"kernel_size", "kernel"}},
      {{"pool_type", std::string("AVERAGE")}});
  fwd("quantize_per_tensor", "atomic.quantize", "torch.quantize_per_tensor (int8 = x / scale + zero_point)");
  fwd("dequantize", "atomic.dequantize", "torch.dequantize");
  fwd("dw_convolution_2d", "core.dw_convolution_2d", "depthwise conv2d (groups = C)");
}

}  // namespace axcore::compiler::ops::detail
