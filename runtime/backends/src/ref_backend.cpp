#include "axcore/runtime/ref_backend.hpp"

#include <cstring>
#include <functional>

#include "axcore/ref/op/depthwise.hpp"
#include "axcore/ref/op/elementwise.hpp"
#include "axcore/ref/op/matmul.hpp"
#include "axcore/ref/op/movement.hpp"
#include "axcore/ref/op/softmax.hpp"
#include "axcore/runtime/buffer_image.hpp"

namespace axcore::runtime {
namespace {

using F18 = ref::NDArray<num::Float18>;

struct Ctx {
  const Bundle& b;
  const GraphNode& n;
  size_t index;
  Arrays& env;

  [[noreturn]] void fail(const std::string& msg) const {
    throw RunError("ref: graph node " + std::to_string(index) + " (" + n.op + "): " + msg);
  }
  const ref::AnyArray& in(size_t i) const {
    if (i >= n.inputs.size()) fail("needs input " + std::to_string(i) + ", it has " + std::to_string(n.inputs.size()));
    auto it = env.find(n.inputs[i]);
    if (it == env.end()) fail("input '" + n.inputs[i] + "' has no value (a scratch buffer nothing wrote?)");
    return it->second;
  }
  template <class T>
  ref::NDArray<T> as(size_t i) const {
    const auto& a = in(i);
    if (auto* p = std::get_if<ref::NDArray<T>>(&a)) return *p;
    fail("input '" + n.inputs[i] + "' is " + std::string(spec::to_string(dtype_of(a))) + ", the op takes " +
         std::string(spec::to_string(ref::dtype_of<T>())));
  }
  const AttrValue* attr(const char* k) const {
    auto it = n.attrs.find(k);
    return it == n.attrs.end() ? nullptr : &it->second;
  }
  int64_t i64(const char* k, int64_t def) const {
    const AttrValue* v = attr(k);
    if (!v) return def;
    if (auto* p = std::get_if<int64_t>(v)) return *p;
    fail(std::string("attribute '") + k + "' must be an int");
  }
  double f64(const char* k, double def) const {
    const AttrValue* v = attr(k);
    if (!v) return def;
    if (auto* p = std::get_if<double>(v)) return *p;
    if (auto* p = std::get_if<int64_t>(v)) return static_cast<double>(*p);
    fail(std::string("attribute '") + k + "' must be a number");
  }
  std::string str(const char* k, std::string def) const {
    const AttrValue* v = attr(k);
    if (!v) return def;
    if (auto* p = std::get_if<std::string>(v)) return *p;
    fail(std::string("attribute '") + k + "' must be a string");
  }
  std::vector<int64_t> ints(const char* k, std::vector<int64_t> def) const {
    const AttrValue* v = attr(k);
    if (!v) return def;
    if (auto* p = std::get_if<std::vector<int64_t>>(v)) return *p;
    if (auto* p = std::get_if<int64_t>(v)) return {*p};
    fail(std::string("attribute '") + k + "' must be a list of ints");
  }
  std::array<size_t, 2> pair(const char* k, size_t def) const {
    auto v = ints(k, {static_cast<int64_t>(def), static_cast<int64_t>(def)});
    if (v.size() == 1) v.push_back(v[0]);
    if (v.size() != 2 || v[0] < 0 || v[1] < 0)
      fail(std::string("attribute '") + k + "' must be 1 or 2 non-negative ints");
    return {static_cast<size_t>(v[0]), static_cast<size_t>(v[1])};
  }
  // out_dtype attribute, else the dtype of the buffer the output names, else float32.
  spec::Dtype out_dtype() const {
    if (attr("out_dtype")) {
      const std::string s = str("out_dtype", "");
      for (auto d : {spec::Dtype::INT8, spec::Dtype::INT32, spec::Dtype::FLOAT16, spec::Dtype::FLOAT32}) {
        std::string name(spec::to_string(d));
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (name == s) return d;
      }
      fail("out_dtype '" + s + "' is not int8, int32, float16 or float32");
    }
    if (!n.outputs.empty())
      if (const BufferDesc* buf = b.find_buffer(n.outputs[0])) return buf->dtype;
    return spec::Dtype::FLOAT32;
  }
  void out(ref::AnyArray a) const {
    if (n.outputs.size() != 1) fail("defines " + std::to_string(n.outputs.size()) + " outputs, the op has 1");
    env.insert_or_assign(n.outputs[0], std::move(a));
  }
};

F18 f18(const ref::AnyArray& a) {
  return std::visit([](const auto& x) { return ref::to_f18(x); }, a);
}
ref::AnyArray from_f18(const F18& a, spec::Dtype d) {
  switch (d) {
    case spec::Dtype::INT8: return ref::from_f18<int8_t>(a);
    case spec::Dtype::INT32: return ref::from_f18<int32_t>(a);
    case spec::Dtype::FLOAT16: return ref::from_f18<num::Float16>(a);
    default: return ref::from_f18<float>(a);
  }
}

ref::Epilogue epilogue(const Ctx& c, size_t first) {
  ref::Epilogue e;
  const size_t extra = c.n.inputs.size() - std::min(c.n.inputs.size(), first);
  const std::string kind = c.str("epilogue", extra == 0 ? "none" : extra == 1 ? "scale" : "scale_bias");
  if (kind == "scale" || kind == "scale_bias") e.scale = c.as<float>(first);
  if (kind == "bias") e.bias = c.as<float>(first);
  if (kind == "scale_bias") e.bias = c.as<float>(first + 1);
  if (kind != "none" && kind != "scale" && kind != "bias" && kind != "scale_bias")
    c.fail("epilogue '" + kind + "' is not none, scale, bias or scale_bias");
  return e;
}

void mvm_out(const Ctx& c, const ref::NDArray<int32_t>& acc, size_t first_epilogue) {
  const spec::Dtype d = c.out_dtype();
  const ref::Epilogue e = epilogue(c, first_epilogue);
  if (d == spec::Dtype::INT32 && !e.scale && !e.bias) return c.out(acc);
  c.out(from_f18(ref::apply_epilogue(acc, e), d));
}

void binary(const Ctx& c, ref::BinaryOp op) {
  c.out(from_f18(ref::binary_f18(op, f18(c.in(0)), f18(c.in(1))), c.out_dtype()));
}

ref::PoolType pool_type(const Ctx& c) {
  const std::string t = c.str("type", "max");
  if (t == "max") return ref::PoolType::Max;
  if (t == "min") return ref::PoolType::Min;
  if (t == "sum") return ref::PoolType::Sum;
  if (t == "average" || t == "avg") return ref::PoolType::Average;
  c.fail("pool type '" + t + "' is not max, min, sum or average");
}

std::vector<size_t> sizes(const Ctx& c, const char* k) {
  std::vector<size_t> r;
  for (int64_t v : c.ints(k, {})) {
    if (v < 0) c.fail(std::string("attribute '") + k + "' has a negative entry");
    r.push_back(static_cast<size_t>(v));
  }
  return r;
}

template <class F>
void movement(const Ctx& c, F&& f) {
  std::visit([&](const auto& x) { c.out(f(x)); }, c.in(0));
}

// Constant padding: `pads` = (before, after) per axis, outermost first; `value` in the dtype's
// value space (an int for the int dtypes, the bit pattern of a DMA pad word is `value_bits`).
template <class T>
ref::NDArray<T> pad(const Ctx& c, const ref::NDArray<T>& x) {
  const std::vector<size_t> p = sizes(c, "pads");
  if (p.size() != 2 * x.rank())
    c.fail("attribute 'pads' has " + std::to_string(p.size()) + " entries, the input has rank " +
           std::to_string(x.rank()) + " (2 per axis: before, after)");
  T value{};
  if (c.attr("value_bits")) {
    const uint32_t bits = static_cast<uint32_t>(c.i64("value_bits", 0));
    if constexpr (sizeof(T) == 4)
      std::memcpy(&value, &bits, 4);
    else
      c.fail("'value_bits' needs a 32-bit dtype");
  } else {
    if constexpr (std::is_same_v<T, num::Float16>)
      value = num::f16_from_double(c.f64("value", 0));
    else
      value = static_cast<T>(c.f64("value", 0));
  }
  ref::Shape shape(x.rank());
  for (size_t a = 0; a < x.rank(); ++a) shape[a] = p[2 * a] + x.dim(a) + p[2 * a + 1];
  ref::NDArray<T> y(shape, value);
  std::vector<size_t> at(x.rank(), 0);
  for (size_t i = 0; i < x.size(); ++i) {
    size_t rem = i, off = 0;
    for (size_t a = x.rank(); a-- > 0;) {
      at[a] = rem % x.dim(a) + p[2 * a];
      rem /= x.dim(a);
    }
    for (size_t a = 0; a < x.rank(); ++a) off = off * shape[a] + at[a];
    y.data()[off] = x.data()[i];
  }
  return y;
}

// A tile view's values written back into its parent (a buf.tile(...) output, the compiler's
// region write): inputs (parent, value), or (value) for a parent nothing wrote yet (its other
// elements zero); `starts` and `sizes` per axis of the parent, `shape` the parent's. The value
// holds the region's elements in C order (a dropped axis counts 1).
void write_region(const Ctx& c) {
  const std::vector<size_t> starts = sizes(c, "starts"), extent = sizes(c, "sizes"), shape = sizes(c, "shape");
  if (c.n.inputs.empty() || c.n.inputs.size() > 2) c.fail("takes (parent, value) or (value)");
  if (starts.size() != shape.size() || extent.size() != shape.size())
    c.fail("'starts', 'sizes' and 'shape' must have one entry per axis of the parent");
  std::visit(
      [&](const auto& value) {
        using T = typename std::decay_t<decltype(value)>::value_type;
        ref::NDArray<T> parent(ref::Shape(shape.begin(), shape.end()));
        if (c.n.inputs.size() == 2) {
          const auto* p = std::get_if<ref::NDArray<T>>(&c.in(0));
          if (!p) c.fail("the parent '" + c.n.inputs[0] + "' and the region differ in dtype");
          parent = *p;
        }
        if (parent.rank() != shape.size()) c.fail("the parent '" + c.n.inputs[0] + "' is not of rank 'shape'");
        size_t n = 1;
        for (size_t a = 0; a < shape.size(); ++a) {
          if (starts[a] + extent[a] > parent.dim(a))
            c.fail("the region runs past the parent on axis " + std::to_string(a));
          n *= extent[a];
        }
        if (n != value.size())
          c.fail("the value has " + std::to_string(value.size()) + " elements, the region " + std::to_string(n));
        for (size_t i = 0; i < n; ++i) {
          size_t rem = i, off = 0, stride = 1;
          for (size_t a = shape.size(); a-- > 0;) {
            off += (starts[a] + rem % extent[a]) * stride;
            rem /= extent[a];
            stride *= parent.dim(a);
          }
          parent.data()[off] = value.data()[i];
        }
        c.env.insert_or_assign(c.n.outputs.at(0), std::move(parent));
      },
      c.in(c.n.inputs.size() - 1));
}

using OpFn = std::function<void(const Ctx&)>;
const std::map<std::string, OpFn, std::less<>>& ops() {
  static const std::map<std::string, OpFn, std::less<>> table = {
      {"linear", [](const Ctx& c) { mvm_out(c, ref::matmul_int32(c.as<int8_t>(0), c.as<int8_t>(1)), 2); }},
      {"conv2d",
       [](const Ctx& c) {
         ref::Conv2dParams p{c.pair("stride", 1), c.pair("padding", 0), c.pair("dilation", 1)};
         mvm_out(c, ref::conv2d_int32(c.as<int8_t>(0), c.as<int8_t>(1), p), 2);
       }},
      {"dw_conv2d",
       [](const Ctx& c) {
         ref::Window2d p{c.pair("stride", 1), c.pair("padding", 0), c.pair("dilation", 1)};
         const auto acc = ref::dw_conv2d_int32(c.as<int8_t>(0), c.as<int8_t>(1), p);
         c.out(c.out_dtype() == spec::Dtype::INT32 ? ref::AnyArray(acc) : from_f18(ref::to_f18(acc), c.out_dtype()));
       }},
      {"pool2d",
       [](const Ctx& c) {
         ref::PoolParams p;
         p.type = pool_type(c);
         p.kernel = c.pair("kernel", 1);
         p.stride = c.pair("stride", 0);
         p.padding = c.pair("padding", 0);
         p.dilation = c.pair("dilation", 1);
         p.ceil_mode = c.i64("ceil_mode", 0) != 0;
         p.divisor_override = static_cast<uint32_t>(c.i64("divisor", 0));
         const auto acc = ref::pool2d_int32(c.as<int8_t>(0), p);
         c.out(c.out_dtype() == spec::Dtype::INT32 ? ref::AnyArray(acc) : from_f18(ref::to_f18(acc), c.out_dtype()));
       }},
      {"add", [](const Ctx& c) { binary(c, ref::BinaryOp::Add); }},
      {"sub", [](const Ctx& c) { binary(c, ref::BinaryOp::Sub); }},
      {"mul", [](const Ctx& c) { binary(c, ref::BinaryOp::Mul); }},
      {"min", [](const Ctx& c) { binary(c, ref::BinaryOp::Min); }},
      {"max", [](const Ctx& c) { binary(c, ref::BinaryOp::Max); }},
      {"prelu", [](const Ctx& c) { binary(c, ref::BinaryOp::Prelu); }},
      {"relu",
       [](const Ctx& c) {
         c.out(from_f18(ref::binary_f18(ref::BinaryOp::Max, f18(c.in(0)), F18(ref::Shape{1})), c.out_dtype()));
       }},
      {"cast", [](const Ctx& c) { c.out(from_f18(f18(c.in(0)), c.out_dtype())); }},
      {"quantize",
       [](const Ctx& c) {
         const F18 y = ref::binary_f18(ref::BinaryOp::Add,
                                       ref::binary_f18(ref::BinaryOp::Mul, f18(c.in(0)), f18(c.in(1))), f18(c.in(2)));
         c.out(ref::from_f18<int8_t>(y));
       }},
      {"dequantize",
       [](const Ctx& c) {
         const F18 y = ref::binary_f18(ref::BinaryOp::Mul,
                                       ref::binary_f18(ref::BinaryOp::Sub, f18(c.in(0)), f18(c.in(1))), f18(c.in(2)));
         c.out(from_f18(y, c.out_dtype()));
       }},
      {"softmax",
       [](const Ctx& c) {
         const F18 x = f18(c.in(0));
         if (x.rank() == 0) c.fail("softmax of a scalar");
         const auto luts = ref::make_softmax_luts(x.dim(x.rank() - 1), static_cast<int>(c.i64("exp_tables", 8)),
                                                  static_cast<int>(c.i64("recip_tables", 8)));
         c.out(from_f18(ref::softmax_f18(x, luts), c.out_dtype()));
       }},
      {"layer_norm",
       [](const Ctx& c) {
         const auto luts = ref::make_layernorm_luts(c.f64("lut_lo", 1.0 / 256), c.f64("lut_hi", 256.0),
                                                    static_cast<int>(c.i64("lut_tables", 8)));
         c.out(from_f18(ref::layer_norm_f18(f18(c.in(0)), c.as<float>(1), c.as<float>(2),
                                            static_cast<float>(c.f64("eps", 1e-5)), luts),
                        c.out_dtype()));
       }},
      {"transpose",
       [](const Ctx& c) {
         const int a0 = static_cast<int>(c.i64("axis0", -2)), a1 = static_cast<int>(c.i64("axis1", -1));
         movement(c, [&](const auto& x) { return ref::transpose(x, a0, a1); });
       }},
      {"permute", [](const Ctx& c) { movement(c, [&](const auto& x) { return ref::permute(x, sizes(c, "dims")); }); }},
      {"reshape", [](const Ctx& c) { movement(c, [&](const auto& x) { return ref::reshape(x, sizes(c, "shape")); }); }},
      {"slice",
       [](const Ctx& c) {
         const int axis = static_cast<int>(c.i64("axis", 0));
         const auto start = static_cast<size_t>(c.i64("start", 0)), end = static_cast<size_t>(c.i64("end", INT64_MAX));
         const auto step = static_cast<size_t>(c.i64("step", 1));
         movement(c, [&](const auto& x) { return ref::slice(x, axis, start, end, step); });
       }},
      {"concat",
       [](const Ctx& c) {
         const int axis = static_cast<int>(c.i64("axis", 0));
         std::visit(
             [&](const auto& first) {
               using A = std::decay_t<decltype(first)>;
               std::vector<A> parts;
               for (size_t i = 0; i < c.n.inputs.size(); ++i) parts.push_back(c.as<typename A::value_type>(i));
               c.out(ref::concat(parts, axis));
             },
             c.in(0));
       }},
      {"pad", [](const Ctx& c) { movement(c, [&](const auto& x) { return pad(c, x); }); }},
      {"copy", [](const Ctx& c) { c.out(c.in(0)); }},
      {"write_region", write_region},
  };
  return table;
}

}  // namespace

std::vector<std::string> ref_ops() {
  std::vector<std::string> r;
  for (const auto& [k, v] : ops()) r.push_back(k);
  return r;
}

RunResult run_ref(const Bundle& b, const Arrays& inputs, const RunOptions& opt) {
  if (!b.dispatch.empty()) {
    DispatchedCall call = dispatch_call(b, opt.params);
    RunOptions o = opt;
    o.params = std::move(call.params);
    return run_ref(call.bundle, inputs, o);
  }
  check_inputs(b, inputs);
  param_bits(b, opt.params);  // the same checks as the timed backends
  if (b.graph.empty()) throw RunError("ref: the bundle has no operator graph");
  Arrays env = inputs;
  for (const auto& buf : b.buffers)
    if (buf.role == BufferRole::CONSTANT) env.emplace(buf.name, constant_array(b, buf));
  for (size_t i = 0; i < b.graph.size(); ++i) {
    const GraphNode& n = b.graph[i];
    Ctx c{b, n, i, env};
    auto it = ops().find(n.op);
    if (it == ops().end()) {
      std::string known;
      for (const auto& k : ref_ops()) known += " " + k;
      c.fail("unknown op; the ref backend runs:" + known);
    }
    try {
      it->second(c);
    } catch (const RunError&) { throw; } catch (const std::exception& e) {
      c.fail(e.what());
    }
  }
  RunResult res;
  for (const auto& buf : b.buffers) {
    if (buf.role != BufferRole::OUTPUT) continue;
    const ref::AnyArray& a = env.at(buf.name);
    if (auto m = mismatch(buf, a); !m.empty()) throw RunError("ref: the graph's " + m);
    res.outputs.emplace(buf.name, a);
  }
  return res;
}

}  // namespace axcore::runtime
