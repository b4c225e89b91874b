// The aten level: the PyTorch surface over core and atomic (guide §13). Most entries forward to
// the op below under PyTorch's name; linear and convolution take PyTorch's weight layouts
// ((out, in) and (C_out, C_in, KH, KW)) and lay them out for the IMC at build time.
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

OpDef aten_linear() {
  OpDef d;
  d.name = "aten.linear";
  d.level = Level::Aten;
  d.doc = "torch.nn.functional.linear: weight (out_features, in_features), transposed at build time (core.linear)";
  d.args = linear_args("(N, K) int8 constant, PyTorch's (out_features, in_features)");
  d.validate = [](const Call& c) {
    require_dtype(c, "weight", {"int8x64"});
    require_rank(c, "weight", 2, 2);
    (void)constant_values(c, "weight");
  };
  d.compose = [](const Call& c) {
    const Tensor w = c.tensor("weight");
    const auto ls = logical(w);
    const int64_t n = ls[0], k = ls[1];
    if (n % 64 != 0)
      c.refuse("weight", "out_features " + std::to_string(n) + " must be a multiple of 64 (the output's packed axis)");
    const auto& v = constant_values(c, "weight");
    std::vector<double> t(v.size());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < k; ++j) t[static_cast<std::size_t>(j * n + i)] = v[static_cast<std::size_t>(i * k + j)];
    auto m = named_args(c);
    m["weight"] = make_constant(w.name() + "_t", {k, n / 64}, "int8x64", std::move(t));
    return invoke_at(*find_op("core.linear"), {}, m, c.out_name(), c.loc());
  };
  return d;
}

OpDef aten_convolution() {
  OpDef d;
  d.name = "aten.convolution";
  d.level = Level::Aten;
  d.doc =
      "torch.nn.functional.conv2d on NHWC input: weight (C_out, KH, KW, C_in) (PyTorch's channels_last), laid out at "
      "build time (core.convolution)";
  d.args = conv_args("(C_out, KH, KW, C_in) int8 constant (OHWI, PyTorch's channels_last)");
  d.validate = [](const Call& c) {
    require_dtype(c, "weight", {"int8x64"});
    require_rank(c, "weight", 4, 4);
    (void)constant_values(c, "weight");
  };
  d.compose = [](const Call& c) {
    const Tensor w = c.tensor("weight");
    const auto s = logical(w);  // (C_out, KH, KW, C_in)
    const int64_t co = s[0], kh = s[1], kw = s[2], ci = s[3];
    if (co % 64 != 0 || ci % 64 != 0)
      c.refuse("weight",
               "C_out " + std::to_string(co) + " and C_in " + std::to_string(ci) +
                   " must be multiples of 64 (channels are the packed axis)",
               "zero-pad the channels to a full PWORD (guide §13)");
    const auto& v = constant_values(c, "weight");
    std::vector<double> t(v.size());
    for (int64_t o = 0; o < co; ++o)
      for (int64_t i = 0; i < ci; ++i)
        for (int64_t y = 0; y < kh; ++y)
          for (int64_t x = 0; x < kw; ++x)
            t[static_cast<std::size_t>(((y * kw + x) * ci + i) * co + o)] =
                v[static_cast<std::size_t>(((o * kh + y) * kw + x) * ci + i)];
    auto m = named_args(c);
    m["weight"] = make_constant(w.name() + "_hwio", {kh, kw, ci, co / 64}, "int8x64", std::move(t));
    return invoke_at(*find_op("core.convolution"), {}, m, c.out_name(), c.loc());
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
