#include "model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <set>
#include <stdexcept>

#include "axcore/ref/op/matmul.hpp"

namespace axcore::rand {
namespace {

using Rng = std::mt19937_64;
int64_t pick(Rng& r, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(r); }
template <class T>
const T& one_of(Rng& r, const std::vector<T>& v) {
  return v[static_cast<std::size_t>(pick(r, 0, static_cast<int64_t>(v.size()) - 1))];
}

constexpr int64_t kImcTiles = 128;       // one residency (a linear / conv stays within it)
constexpr int64_t kDwpuTaps = 64;        // dwpu_max_taps
constexpr int64_t kDwpuPwords = 256;     // dwpu_weight_pwords
constexpr int64_t kSoftmaxBlocks = 24;   // a softmax row in DPU registers
constexpr int64_t kLayerNormBlocks = 7;  // a layer-norm row
const std::vector<std::string> kModelOps = {"linear",  "conv",      "dwconv",  "pool",   "add",
                                            "sub",     "mul",       "prelu",   "relu",   "quantize",
                                            "softmax", "layernorm", "reshape", "concat", "slice"};
const std::vector<std::string> kPools = {"MAX", "MIN", "SUM", "AVERAGE"};

std::string shape_str(const std::vector<int64_t>& s) {
  std::string o = "(";
  for (std::size_t i = 0; i < s.size(); ++i) o += (i ? ", " : "") + std::to_string(s[i]);
  return o + ")";
}

// The output extent of a window along one axis (the compiler's and common/ref's rule).
int64_t window_out(int64_t n, int64_t k, int64_t s, int64_t pad, int64_t d, bool ceil_mode) {
  if (n + 2 * pad < d * (k - 1) + 1) return 0;
  return static_cast<int64_t>(ref::window_out_size(static_cast<std::size_t>(n), static_cast<std::size_t>(k),
                                                   static_cast<std::size_t>(s), static_cast<std::size_t>(pad),
                                                   static_cast<std::size_t>(d), ceil_mode));
}

// One op's result from its input(s), or the reason it is not legal.
std::string derive_op(const ModelOp& op, const TensorInfo& x, const TensorInfo* x2, TensorInfo& y) {
  const std::size_t rank = x.shape.size();
  const int64_t c = x.shape.back();
  y = TensorInfo{x.shape, "float32", false};
  auto need_int8 = [&]() -> std::string { return x.dtype == "int8" ? "" : op.op + " needs an int8 input"; };
  if (op.op == "quantize") {
    if (!(op.scale > 0)) return "quantize: scale must be > 0";
    y.dtype = "int8";
  } else if (op.op == "linear") {
    if (auto e = need_int8(); !e.empty()) return e;
    if (rank != 2) return "linear: rank 2 input";
    if (op.n < 64 || op.n % 64) return "linear: n a multiple of 64";
    if ((c / 64) * (op.n / 64) > kImcTiles) return "linear: more than one IMC residency";
    y.shape = {x.shape[0], op.n};
  } else if (op.op == "conv") {
    if (auto e = need_int8(); !e.empty()) return e;
    if (rank != 3) return "conv: rank 3 input";
    if (op.n < 64 || op.n % 64) return "conv: n a multiple of 64";
    if (op.kh < 1 || op.kw < 1 || op.stride < 1) return "conv: kernel and stride >= 1";
    if (op.pad > op.kh - 1 || op.pad > op.kw - 1 || op.pad < 0) return "conv: padding <= kernel - 1";
    if (op.kh * op.kw * (c / 64) > kImcTiles) return "conv: more than one IMC residency along K";
    // The compiler walks a padded window's taps in reverse from its last tap, which must lie
    // inside the input (core.convolution refuses dilation * (kernel - 1) - padding >= extent).
    if (op.kh - 1 - op.pad >= x.shape[0] || op.kw - 1 - op.pad >= x.shape[1])
      return "conv: the first window's last tap lies in the padding";
    const int64_t oh = window_out(x.shape[0], op.kh, op.stride, op.pad, 1, false);
    const int64_t ow = window_out(x.shape[1], op.kw, op.stride, op.pad, 1, false);
    if (oh < 1 || ow < 1) return "conv: the window is larger than the input";
    y.shape = {oh, ow, op.n};
  } else if (op.op == "dwconv" || op.op == "pool") {
    if (auto e = need_int8(); !e.empty()) return e;
    if (rank != (op.one_d ? 2u : 3u)) return op.op + ": rank " + (op.one_d ? "2" : "3") + " input";
    const int64_t kh = op.one_d ? 1 : op.kh;
    if (kh < 1 || op.kw < 1 || op.stride < 1 || op.dilation < 1) return op.op + ": window entries >= 1";
    if (kh * op.kw > kDwpuTaps) return op.op + ": more than dwpu_max_taps taps";
    const bool ceil = op.op == "pool" && op.ceil_mode;
    if (op.op == "dwconv" && (c / 64) * kh * op.kw > kDwpuPwords) return "dwconv: filters over dwpu_weight_pwords";
    if (op.op == "pool" && std::find(kPools.begin(), kPools.end(), op.pool) == kPools.end())
      return "pool: type MAX, MIN, SUM or AVERAGE";
    if (op.op == "pool" && op.divisor != 0 && op.pool != "AVERAGE") return "pool: divisor_override is AVERAGE's";
    const int64_t oh = op.one_d ? 1 : window_out(x.shape[0], kh, op.stride, 0, op.dilation, ceil);
    const int64_t ow = window_out(x.shape[op.one_d ? 0 : 1], op.kw, op.stride, 0, op.dilation, ceil);
    if (oh < 1 || ow < 1) return op.op + ": the window is larger than the input";
    y.shape = op.one_d ? std::vector<int64_t>{ow, c} : std::vector<int64_t>{oh, ow, c};
  } else if (op.op == "add" || op.op == "sub" || op.op == "mul" || op.op == "prelu") {
    if (op.operand == "tensor") {
      if (!x2) return op.op + ": the tensor operand is missing";
      if (x2->shape != x.shape) return op.op + ": the tensor operand's shape differs";
    } else if (op.operand != "channel" && op.operand != "scalar") {
      return op.op + ": operand channel, scalar or tensor";
    }
  } else if (op.op == "relu") {
  } else if (op.op == "softmax" || op.op == "layernorm") {
    if (x.dtype != "float32") return op.op + " needs a float32 input";
    if (c / 64 > (op.op == "softmax" ? kSoftmaxBlocks : kLayerNormBlocks)) return op.op + ": the row is too long";
  } else if (op.op == "reshape") {
    y.dtype = x.dtype;
    y.view = x.view;
    if (rank == 3) {
      y.shape = {x.shape[0] * x.shape[1], c};
    } else if (rank == 2) {
      if (op.end < 1 || x.shape[0] % op.end) return "reshape: the new leading extent divides the rows";
      y.shape = {op.end, x.shape[0] / op.end, c};
    } else {
      return "reshape: rank 2 or 3";
    }
  } else if (op.op == "concat") {
    if (!x2) return "concat: the second tensor is missing";
    if (x2->dtype != x.dtype || x2->shape.size() != rank ||
        !std::equal(x.shape.begin() + 1, x.shape.end(), x2->shape.begin() + 1))
      return "concat: the tensors differ off dim 0";
    y.dtype = x.dtype;
    y.shape[0] = x.shape[0] + x2->shape[0];
  } else if (op.op == "slice") {
    if (op.start < 0 || op.end > x.shape[0] || op.start >= op.end || op.step < 1) return "slice: bad range";
    y.dtype = x.dtype;
    y.shape[0] = (op.end - op.start + op.step - 1) / op.step;
  } else {
    return "unknown operator '" + op.op + "'";
  }
  return "";
}

ModelOp random_op(Rng& r, const std::string& name, const std::vector<TensorInfo>& ts, int src) {
  ModelOp op;
  op.op = name;
  op.src = src;
  op.seed = static_cast<uint64_t>(pick(r, 1, 1 << 30));
  const TensorInfo& x = ts[static_cast<std::size_t>(src)];
  const int64_t lead = x.shape[0];
  if (name == "quantize") op.scale = one_of(r, std::vector<double>{0.125, 0.5, 1.0, 4.0, 16.0, 64.0});
  if (name == "linear" || name == "conv") {
    op.n = 64 * pick(r, 1, name == "linear" ? 3 : 2);
    op.bias = pick(r, 0, 1);
    op.relu = pick(r, 0, 1);
    op.scale = pick(r, 0, 2) ? 0.0 : one_of(r, std::vector<double>{0.25, 0.5, 2.0});
  }
  if (name == "conv") {
    op.kh = pick(r, 1, 3);
    op.kw = pick(r, 1, 3);
    op.stride = pick(r, 1, 2);
    op.pad = pick(r, 0, std::min(op.kh, op.kw) - 1);
  }
  if (name == "dwconv" || name == "pool") {
    op.one_d = x.shape.size() == 2;
    op.kh = op.one_d ? 1 : pick(r, 1, 3);
    op.kw = pick(r, 1, 3);
    op.stride = pick(r, 1, 2);
    op.dilation = pick(r, 0, 3) ? 1 : 2;
    if (name == "pool") {
      op.pool = one_of(r, kPools);
      op.ceil_mode = pick(r, 0, 2) == 0;
      if (op.pool == "AVERAGE" && pick(r, 0, 3) == 0) op.divisor = pick(r, 1, 9);
    }
  }
  if (name == "add" || name == "sub" || name == "mul" || name == "prelu") {
    op.operand = one_of(r, std::vector<std::string>{"channel", "channel", "scalar", "tensor"});
    op.value = static_cast<double>(pick(r, -64, 64)) / 16.0;
    if (op.operand == "tensor") {
      std::vector<int> same;
      for (std::size_t i = 0; i < ts.size(); ++i)
        if (ts[i].shape == x.shape) same.push_back(static_cast<int>(i));
      op.src2 = one_of(r, same);  // includes src itself
    }
  }
  if (name == "concat") {
    std::vector<int> fit;
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i].dtype == x.dtype && ts[i].shape.size() == x.shape.size() &&
          std::equal(x.shape.begin() + 1, x.shape.end(), ts[i].shape.begin() + 1))
        fit.push_back(static_cast<int>(i));
    op.src2 = one_of(r, fit);
  }
  if (name == "slice") {
    op.start = pick(r, 0, lead - 1);
    op.end = pick(r, op.start + 1, lead);
    op.step = pick(r, 1, 2);
  }
  if (name == "reshape" && x.shape.size() == 2) {
    std::vector<int64_t> divs;
    for (int64_t d = 1; d <= lead; ++d)
      if (lead % d == 0) divs.push_back(d);
    op.end = one_of(r, divs);
  }
  return op;
}

// Every field of an operator with its JSON key (to_json and model_from_json).
template <class F>
void each_field(F&& f) {
  f("op", &ModelOp::op);
  f("src", &ModelOp::src);
  f("src2", &ModelOp::src2);
  f("n", &ModelOp::n);
  f("kh", &ModelOp::kh);
  f("kw", &ModelOp::kw);
  f("stride", &ModelOp::stride);
  f("dilation", &ModelOp::dilation);
  f("pad", &ModelOp::pad);
  f("one_d", &ModelOp::one_d);
  f("ceil_mode", &ModelOp::ceil_mode);
  f("divisor", &ModelOp::divisor);
  f("pool", &ModelOp::pool);
  f("relu", &ModelOp::relu);
  f("bias", &ModelOp::bias);
  f("scale", &ModelOp::scale);
  f("operand", &ModelOp::operand);
  f("value", &ModelOp::value);
  f("start", &ModelOp::start);
  f("end", &ModelOp::end);
  f("step", &ModelOp::step);
  f("seed", &ModelOp::seed);
}

}  // namespace

Derived derive(const ModelProgram& p) {
  Derived d;
  const auto& s = p.input_shape;
  if (s.size() < 2 || s.size() > 3 || s.back() < 64 || s.back() % 64 ||
      std::any_of(s.begin(), s.end(), [](int64_t v) { return v < 1; })) {
    d.error = "input shape " + shape_str(s) + ": rank 2 or 3, extents >= 1, the last a multiple of 64";
    return d;
  }
  if (p.input_dtype != "int8" && p.input_dtype != "float32") {
    d.error = "input dtype int8 or float32";
    return d;
  }
  if (p.ops.empty()) {
    d.error = "no operator";
    return d;
  }
  d.tensors.push_back(TensorInfo{s, p.input_dtype, true});
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const auto& op = p.ops[i];
    const int src = op.src < 0 ? static_cast<int>(d.tensors.size()) - 1 : op.src;
    if (src >= static_cast<int>(d.tensors.size()) || op.src2 >= static_cast<int>(d.tensors.size())) {
      d.error = fmt::format("op {} ({}): its input is not an earlier tensor", i, op.op);
      return d;
    }
    TensorInfo y;
    const TensorInfo* x2 = op.src2 >= 0 ? &d.tensors[static_cast<std::size_t>(op.src2)] : nullptr;
    if (auto e = derive_op(op, d.tensors[static_cast<std::size_t>(src)], x2, y); !e.empty()) {
      d.error = fmt::format("op {}: {}", i, e);
      return d;
    }
    d.tensors.push_back(y);
  }
  if (d.tensors.back().view) d.error = "the output is a view of the input (end with an operator that computes)";
  return d;
}

ModelProgram generate_model(uint64_t seed, uint32_t cores, const std::string& kind) {
  if (kind != "model" && kind != "dwpu") throw std::runtime_error("model kind '" + kind + "': model or dwpu");
  Rng r(seed * 0x9E3779B97F4A7C15ull + 0x6d6f64656cull);
  ModelProgram p;
  p.seed = seed;
  p.cores = cores;
  p.kind = kind;
  for (int attempt = 0; attempt < 100; ++attempt) {
    p.ops.clear();
    if (kind == "dwpu") {  // one DWPU operator on an int8 image or sequence
      p.input_dtype = "int8";
      p.input_shape = pick(r, 0, 3) ? std::vector<int64_t>{pick(r, 1, 9), pick(r, 1, 9), 64 * pick(r, 1, 3)}
                                    : std::vector<int64_t>{pick(r, 1, 16), 64 * pick(r, 1, 3)};
      p.ops.push_back(random_op(r, pick(r, 0, 1) ? "pool" : "dwconv", {TensorInfo{p.input_shape, "int8", true}}, 0));
      if (derive(p).error.empty()) return p;
      continue;
    }
    p.input_dtype = pick(r, 0, 9) < 7 ? "int8" : "float32";
    p.input_shape = pick(r, 0, 1) ? std::vector<int64_t>{pick(r, 1, 12), 64 * pick(r, 1, 4)}
                                  : std::vector<int64_t>{pick(r, 1, 6), pick(r, 1, 6), 64 * pick(r, 1, 2)};
    const auto n_ops = static_cast<std::size_t>(pick(r, 2, 8));
    std::vector<TensorInfo> ts = {TensorInfo{p.input_shape, p.input_dtype, true}};
    while (p.ops.size() < n_ops) {
      bool placed = false;
      for (int t = 0; t < 40 && !placed; ++t) {
        const int last = static_cast<int>(ts.size()) - 1;
        const int src = pick(r, 0, 4) ? last : static_cast<int>(pick(r, 0, last));
        // An op that needs int8 on a float tensor: quantize first (half of the time).
        std::string name = one_of(r, kModelOps);
        const bool wants_int8 = name == "linear" || name == "conv" || name == "dwconv" || name == "pool";
        if (wants_int8 && ts[static_cast<std::size_t>(src)].dtype != "int8" && pick(r, 0, 1)) name = "quantize";
        auto q = p;
        q.ops.push_back(random_op(r, name, ts, src));
        if (q.ops.back().src == last) q.ops.back().src = -1;
        const auto d = derive(q);
        // Legal, and the prefix may end in a view only while more ops follow.
        if (!d.error.empty() && d.error.rfind("the output is a view", 0) != 0) continue;
        if (!d.error.empty() && q.ops.size() == n_ops) continue;
        p = q;
        ts = d.tensors;
        placed = true;
      }
      if (!placed) break;
    }
    if (p.ops.size() >= 2 && derive(p).error.empty()) return p;
  }
  throw std::runtime_error(fmt::format("seed {}: no legal model in 100 attempts", seed));
}

nlohmann::json to_json(const ModelProgram& p) {
  nlohmann::json j{{"kind", p.kind},
                   {"seed", p.seed},
                   {"cores", p.cores},
                   {"input_shape", p.input_shape},
                   {"input_dtype", p.input_dtype}};
  j["ops"] = nlohmann::json::array();
  for (const auto& o : p.ops) {
    nlohmann::json jo;
    each_field([&](const char* key, auto member) { jo[key] = o.*member; });
    j["ops"].push_back(std::move(jo));
  }
  return j;
}

bool is_model_json(const nlohmann::json& j) {
  return j.is_object() && j.contains("kind") && j["kind"].is_string() && (j["kind"] == "model" || j["kind"] == "dwpu");
}

ModelProgram model_from_json(const nlohmann::json& j) {
  auto get = [&](const nlohmann::json& o, const char* k) -> const nlohmann::json& {
    if (!o.contains(k)) throw std::runtime_error(std::string("model JSON: missing field '") + k + "'");
    return o.at(k);
  };
  try {
    ModelProgram p;
    p.kind = get(j, "kind").get<std::string>();
    p.seed = get(j, "seed").get<uint64_t>();
    p.cores = get(j, "cores").get<uint32_t>();
    p.input_shape = get(j, "input_shape").get<std::vector<int64_t>>();
    p.input_dtype = get(j, "input_dtype").get<std::string>();
    for (const auto& o : get(j, "ops")) {
      ModelOp m;
      each_field([&](const char* key, auto member) {
        m.*member = get(o, key).template get<std::remove_reference_t<decltype(m.*member)>>();
      });
      p.ops.push_back(m);
    }
    return p;
  } catch (const nlohmann::json::exception& e) { throw std::runtime_error(std::string("model JSON: ") + e.what()); }
}

std::string model_yaml(const ModelProgram& p) {
  const auto d = derive(p);
  if (!d.error.empty()) throw std::runtime_error("not a legal model: " + d.error);
  auto name = [](int t) { return t == 0 ? std::string("x") : fmt::format("t{}", t); };
  auto list = [](const std::vector<int64_t>& v) {
    std::string o = "[";
    for (std::size_t i = 0; i < v.size(); ++i) o += (i ? ", " : "") + std::to_string(v[i]);
    return o + "]";
  };
  auto pair = [&](int64_t a, int64_t b, bool one_d) { return one_d ? list({b}) : list({a, b}); };
  std::string consts, ops;
  auto constant = [&](const std::string& n, const std::vector<int64_t>& shape, const char* dtype, uint64_t seed,
                      double lo, double hi) {
    consts += fmt::format("  - {{name: {}, shape: {}, dtype: {}, init: {{seed: {}, low: {}, high: {}}}}}\n", n,
                          list(shape), dtype, seed, lo, hi);
  };
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const auto& o = p.ops[i];
    const int src = o.src < 0 ? static_cast<int>(i) : o.src;
    const auto& x = d.tensors[static_cast<std::size_t>(src)];
    const int64_t c = x.shape.back();
    const std::string in = name(src), out = name(static_cast<int>(i) + 1);
    std::string line;
    if (o.op == "linear" || o.op == "conv") {
      const std::string w = fmt::format("w{}", i + 1);
      if (o.op == "linear")
        constant(w, {c, o.n}, "int8", o.seed, -3, 3);
      else
        constant(w, {o.kh, o.kw, c, o.n}, "int8", o.seed, -2, 2);
      line =
          fmt::format("{{op: {}, input: {}, weight: {}", o.op == "linear" ? "core.linear" : "core.convolution", in, w);
      if (o.bias) {
        constant(fmt::format("b{}", i + 1), {o.n}, "float32", o.seed + 1, -16, 16);
        line += fmt::format(", bias: b{}", i + 1);
      }
      if (o.op == "conv")
        line += fmt::format(", stride: {}, padding: {}", list({o.stride, o.stride}), list({o.pad, o.pad}));
      if (o.scale > 0) line += fmt::format(", scale: {}", o.scale);
      if (o.relu) line += ", activation: relu";
    } else if (o.op == "dwconv") {
      const std::string w = fmt::format("w{}", i + 1);
      constant(w, o.one_d ? std::vector<int64_t>{o.kw, c} : std::vector<int64_t>{o.kh, o.kw, c}, "int8", o.seed, -3, 3);
      line = fmt::format("{{op: core.dw_convolution_{}, input: {}, weight: {}, stride: {}, dilation: {}",
                         o.one_d ? "1d" : "2d", in, w, pair(o.stride, o.stride, o.one_d),
                         pair(o.dilation, o.dilation, o.one_d));
    } else if (o.op == "pool") {
      line = fmt::format("{{op: core.dwpu_pool, input: {}, pool_type: {}, kernel: {}, stride: {}, dilation: {}", in,
                         o.pool, pair(o.kh, o.kw, o.one_d), pair(o.stride, o.stride, o.one_d),
                         pair(o.dilation, o.dilation, o.one_d));
      if (o.ceil_mode) line += ", ceil_mode: true";
      if (o.divisor) line += fmt::format(", divisor_override: {}", o.divisor);
    } else if (o.op == "add" || o.op == "sub" || o.op == "mul" || o.op == "prelu") {
      line = fmt::format("{{op: atomic.{}, input: {}", o.op, in);
      if (o.operand == "channel") {
        constant(fmt::format("c{}", i + 1), {c}, "float32", o.seed, -4, 4);
        line += fmt::format(", other: c{}", i + 1);
      } else if (o.operand == "tensor") {
        line += ", other: " + name(o.src2);
      } else {
        line += fmt::format(", value: {}", o.value);
      }
    } else if (o.op == "relu") {
      line = fmt::format("{{op: atomic.relu, input: {}", in);
    } else if (o.op == "quantize") {
      line = fmt::format("{{op: atomic.quantize, input: {}, scale: {}", in, o.scale);
    } else if (o.op == "softmax") {
      line = fmt::format("{{op: core.softmax, input: {}", in);
    } else if (o.op == "layernorm") {
      constant(fmt::format("g{}", i + 1), {c}, "float32", o.seed, 0.5, 1.5);
      constant(fmt::format("be{}", i + 1), {c}, "float32", o.seed + 1, -1, 1);
      line = fmt::format("{{op: core.layer_norm, input: {}, weight: g{}, bias: be{}", in, i + 1, i + 1);
    } else if (o.op == "reshape") {
      line = fmt::format("{{op: atomic.reshape, input: {}, shape: {}", in,
                         list(d.tensors[static_cast<std::size_t>(i) + 1].shape));
    } else if (o.op == "concat") {
      line = fmt::format("{{op: core.concat, tensors: [{}, {}], dim: 0", in, name(o.src2));
    } else if (o.op == "slice") {
      line = fmt::format("{{op: atomic.slice_tensor, input: {}, dim: 0, start: {}, end: {}, step: {}", in, o.start,
                         o.end, o.step);
    }
    ops += "  - " + line + ", out: " + out + "}\n";
  }
  std::string y = fmt::format("# axrand --kind {} --seed {} (random model; golden: the ref backend)\n", p.kind, p.seed);
  y += fmt::format("name: rand_{}_{}\ninputs:\n  - {{name: x, shape: {}, dtype: {}}}\n", p.kind, p.seed,
                   list(p.input_shape), p.input_dtype);
  if (!consts.empty()) y += "constants:\n" + consts;
  y += "ops:\n" + ops;
  y += fmt::format("outputs: [{}]\n", name(static_cast<int>(p.ops.size())));
  return y;
}

std::vector<std::string> coverage_points(const ModelProgram& p) {
  std::set<std::string> pts;
  const auto d = derive(p);
  pts.insert(fmt::format("{}.ops.{}", p.kind, std::min<std::size_t>(p.ops.size(), 8)));
  pts.insert(fmt::format("{}.input.{}.rank{}", p.kind, p.input_dtype, p.input_shape.size()));
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const auto& o = p.ops[i];
    pts.insert(fmt::format("{}.op.{}", p.kind, o.op));
    if ((o.src >= 0 && o.src != static_cast<int>(i)) || o.src2 >= 0) pts.insert(p.kind + ".dag");
    if (!o.operand.empty()) pts.insert(fmt::format("{}.operand.{}", p.kind, o.operand));
    if (o.op == "pool") pts.insert(fmt::format("{}.pool.{}", p.kind, o.pool));
    if ((o.op == "pool" || o.op == "dwconv") && o.one_d) pts.insert(fmt::format("{}.{}.1d", p.kind, o.op));
    if ((o.op == "pool" || o.op == "dwconv" || o.op == "conv") && o.stride > 1)
      pts.insert(fmt::format("{}.{}.stride", p.kind, o.op));
    if ((o.op == "pool" || o.op == "dwconv") && o.dilation > 1) pts.insert(fmt::format("{}.{}.dilation", p.kind, o.op));
    if (o.op == "pool" && o.ceil_mode) pts.insert(p.kind + ".pool.ceil_mode");
    if (o.op == "pool" && o.divisor) pts.insert(p.kind + ".pool.divisor");
    if (o.op == "conv" && o.pad) pts.insert(p.kind + ".conv.padding");
  }
  (void)d;
  return {pts.begin(), pts.end()};
}

std::vector<std::string> model_coverage_space(const std::string& kind) {
  std::vector<std::string> s;
  const bool dw = kind == "dwpu";
  for (int n = dw ? 1 : 2; n <= (dw ? 1 : 8); ++n) s.push_back(fmt::format("{}.ops.{}", kind, n));
  for (const char* t : {"int8", "float32"})
    for (int r : {2, 3})
      if (!dw || std::string(t) == "int8") s.push_back(fmt::format("{}.input.{}.rank{}", kind, t, r));
  for (const auto& o : kModelOps)
    if (!dw || o == "pool" || o == "dwconv") s.push_back(fmt::format("{}.op.{}", kind, o));
  if (!dw) {
    s.push_back(kind + ".dag");
    for (const char* o : {"channel", "scalar", "tensor"}) s.push_back(fmt::format("{}.operand.{}", kind, o));
    s.push_back(kind + ".conv.stride");
    s.push_back(kind + ".conv.padding");
  }
  for (const auto& t : kPools) s.push_back(fmt::format("{}.pool.{}", kind, t));
  for (const char* o : {"pool", "dwconv"}) {
    s.push_back(fmt::format("{}.{}.1d", kind, o));
    s.push_back(fmt::format("{}.{}.stride", kind, o));
    s.push_back(fmt::format("{}.{}.dilation", kind, o));
  }
  s.push_back(kind + ".pool.ceil_mode");
  s.push_back(kind + ".pool.divisor");
  std::sort(s.begin(), s.end());
  return s;
}

std::string summary(const ModelProgram& p) {
  const auto d = derive(p);
  std::string o = fmt::format("{} seed {}: {} {} ->", p.kind, p.seed, p.input_dtype, shape_str(p.input_shape));
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    o += " " + p.ops[i].op;
    if (d.error.empty()) o += shape_str(d.tensors[i + 1].shape);
  }
  return o + (d.error.empty() ? "" : "  [illegal: " + d.error + "]") + "\n";
}

void write_model_program(const ModelProgram& p, const std::filesystem::path& dir) {
  const auto yaml = model_yaml(p);  // throws when not legal, before anything is written
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "model.json") << to_json(p).dump(1) << "\n";
  std::ofstream(dir / "model.yaml") << yaml;
  std::ofstream(dir / "coverage.json") << nlohmann::json(coverage_points(p)).dump() << "\n";
  std::ofstream(dir / "coverage_space.json") << nlohmann::json(model_coverage_space(p.kind)).dump() << "\n";
}

std::pair<std::size_t, int64_t> model_size(const ModelProgram& p) {
  int64_t n = 1;
  for (int64_t v : p.input_shape) n *= v;
  return {p.ops.size(), n};
}

std::vector<ModelProgram> shrink_model(const ModelProgram& p) {
  std::vector<ModelProgram> out;
  auto add = [&](ModelProgram q) {
    if (derive(q).error.empty() && model_size(q) <= model_size(p)) out.push_back(std::move(q));
  };
  const std::size_t n = p.ops.size();
  // Fewer operators: the last dropped; one inside bypassed (its users read its input instead).
  if (n > 1) {
    auto q = p;
    q.ops.pop_back();
    add(q);
  }
  for (std::size_t k = 0; k + 1 < n; ++k) {
    auto q = p;
    const int removed = static_cast<int>(k) + 1;  // the tensor op k made
    const int its_input = p.ops[k].src < 0 ? static_cast<int>(k) : p.ops[k].src;
    q.ops.erase(q.ops.begin() + static_cast<std::ptrdiff_t>(k));
    for (std::size_t i = k; i < q.ops.size(); ++i) {
      auto fix = [&](int& t, bool implicit_prev) {
        if (implicit_prev && t < 0) {
          if (i == k) t = its_input == static_cast<int>(k) ? -1 : its_input;  // it read the removed result
          return;
        }
        if (t == removed)
          t = its_input;
        else if (t > removed)
          --t;
      };
      fix(q.ops[i].src, true);
      fix(q.ops[i].src2, false);
      if (q.ops[i].src == static_cast<int>(i)) q.ops[i].src = -1;
    }
    add(q);
  }
  // A smaller input: fewer rows / a smaller image, fewer channels.
  for (std::size_t a = 0; a < p.input_shape.size(); ++a) {
    const int64_t v = p.input_shape[a];
    const bool packed = a + 1 == p.input_shape.size();
    for (int64_t smaller : {packed ? int64_t{64} : int64_t{1}, packed ? v - 64 : v / 2, v - 1}) {
      if (smaller < (packed ? 64 : 1) || smaller >= v || (packed && smaller % 64)) continue;
      auto q = p;
      q.input_shape[a] = smaller;
      for (auto& o : q.ops) {  // slices keep inside the shorter rows
        if (o.op == "slice") o.end = std::min(o.end, smaller);
      }
      add(q);
    }
  }
  // Simpler attributes.
  for (std::size_t k = 0; k < n; ++k) {
    const auto& o = p.ops[k];
    auto with = [&](auto edit) {
      auto q = p;
      edit(q.ops[k]);
      add(q);
    };
    if (o.n > 64) with([](ModelOp& m) { m.n = 64; });
    if (o.kh > 1)
      with([](ModelOp& m) {
        m.kh = 1;
        m.pad = 0;
      });
    if (o.kw > 1)
      with([](ModelOp& m) {
        m.kw = 1;
        m.pad = 0;
      });
    if (o.stride > 1) with([](ModelOp& m) { m.stride = 1; });
    if (o.dilation > 1) with([](ModelOp& m) { m.dilation = 1; });
    if (o.pad > 0) with([](ModelOp& m) { m.pad = 0; });
    if (o.bias) with([](ModelOp& m) { m.bias = false; });
    if (o.relu) with([](ModelOp& m) { m.relu = false; });
    if (o.ceil_mode) with([](ModelOp& m) { m.ceil_mode = false; });
    if (o.divisor) with([](ModelOp& m) { m.divisor = 0; });
    if (o.op == "conv" || o.op == "linear") {
      if (o.scale > 0) with([](ModelOp& m) { m.scale = 0; });
    }
    if (o.operand == "tensor")
      with([](ModelOp& m) {
        m.operand = "channel";
        m.src2 = -1;
      });
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ModelProgram& a, const ModelProgram& b) { return model_size(a) < model_size(b); });
  return out;
}

ModelProgram reduce_model(ModelProgram p, const std::function<bool(const ModelProgram&)>& fails, unsigned* tried) {
  for (bool progress = true; progress;) {
    progress = false;
    for (const auto& q : shrink_model(p)) {
      if (tried) ++*tried;
      if (!fails(q)) continue;
      p = q;
      progress = true;
      break;
    }
  }
  return p;
}

}  // namespace axcore::rand
