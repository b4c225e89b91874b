#include "axcore/compiler/frontend/model.hpp"

#include <yaml-cpp/yaml.h>

#include <axcore/compiler/dispatch.hpp>
#include <axcore/ref/npy.hpp>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace axcore::compiler::frontend {
namespace {

using ops::ArgKind;
using ops::ArgValue;
using ops::Tensor;

struct DispatchEntry {
  runtime::DispatchScalar scalar;
  int64_t multiple_of = 1;
};

// One entry of `dispatch_time:`: {name: M, min: 1, max: 64, multiple_of: 8, doc: rows}.
DispatchEntry dispatch_entry(const YAML::Node& n, const std::string& file) {
  auto at = [&](const YAML::Node& x) {
    return SourceLoc{file, static_cast<uint32_t>(x.Mark().line + 1), static_cast<uint32_t>(x.Mark().column + 1)};
  };
  const char* form = "{name: M, min: 1, max: 64, multiple_of: 8, doc: rows streamed}";
  if (!n.IsMap()) fail(at(n), "a dispatch-time scalar is a map", form);
  for (const auto& kv : n) {
    const auto k = kv.first.as<std::string>();
    if (k != "name" && k != "min" && k != "max" && k != "multiple_of" && k != "doc")
      fail(at(kv.first), "unknown key '" + k + "' in a dispatch-time scalar", form);
  }
  auto number = [&](const char* key, bool required, int64_t dflt) -> int64_t {
    const YAML::Node v = n[key];
    if (!v) {
      if (required) fail(at(n), std::string("a dispatch-time scalar needs '") + key + "'", form);
      return dflt;
    }
    try {
      if (v.IsScalar()) return v.as<int64_t>();
    } catch (const YAML::Exception&) {}
    fail(at(v), std::string("'") + key + "' must be an integer", form);
  };
  DispatchEntry e;
  if (!n["name"] || !n["name"].IsScalar()) fail(at(n), "a dispatch-time scalar needs a name", form);
  e.scalar.name = n["name"].as<std::string>();
  e.scalar.min = number("min", true, 0);
  e.scalar.max = number("max", true, 0);
  e.multiple_of = number("multiple_of", false, 1);
  if (n["doc"]) e.scalar.doc = n["doc"].as<std::string>();
  if (e.scalar.min < 1 || e.scalar.max < e.scalar.min)
    fail(at(n), "dispatch-time scalar '" + e.scalar.name + "': range [" + std::to_string(e.scalar.min) + ", " +
                    std::to_string(e.scalar.max) + "] is not a non-empty range of extents (min >= 1)");
  if (e.multiple_of < 1) fail(at(n["multiple_of"]), "multiple_of must be at least 1");
  return e;
}

class Parser {
 public:
  Parser(std::string file, std::filesystem::path base) : file_(std::move(file)), base_(std::move(base)) {}

  Model run(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::ParserException& e) { fail(at(e.mark), "the model file is not valid YAML: " + e.msg); }
    if (!root.IsMap()) fail(at(root.Mark()), "a model file is a map with inputs, constants, ops and outputs");
    keys(root, {"name", "dispatch_time", "inputs", "constants", "ops", "outputs"}, "the model");
    for (const auto& n : seq(root, "dispatch_time", false)) dispatch_time(n);
    Model m;
    m.source = file_;
    m.name = root["name"] ? scalar(root["name"], "name") : std::filesystem::path(file_).stem().string();
    m.module = A::Module(m.name);
    A::Func f = m.module.prim_func("main");
    for (const auto& n : seq(root, "inputs", true)) {
      keys(n, {"name", "shape", "dtype"}, "an input");
      const std::string name = new_name(n["name"], "input");
      const auto shape = shape_of(need(n, "shape", "an input"));
      const std::string dt = dtype_of(need(n, "dtype", "an input"));
      values_[name] = f.input(name, packed(shape, n["shape"]), dt + "x64", A::DDR);
      values_[name].node()->loc = at(n.Mark());
      m.inputs.push_back(name);
    }
    A::Script script(f);
    for (const auto& n : seq(root, "constants", false)) {
      constant(n);
      m.constants.push_back(n["name"].as<std::string>());
    }
    for (const auto& n : seq(root, "ops", true)) m.ops.push_back(op(n));
    const YAML::Node outs = need(root, "outputs", "the model");
    if (!outs.IsSequence() || outs.size() == 0)
      fail(at(outs.Mark()), "outputs is a list of result names", "outputs: [y]");
    for (const auto& o : outs) {
      const std::string name = scalar(o, "an output");
      const Tensor t = lookup(o);
      if (t.node()->role == BufferRole::Input || t.node()->role == BufferRole::Constant)
        fail(at(o.Mark()),
             "output '" + name + "' is a model " + (t.node()->role == BufferRole::Input ? "input" : "constant"),
             "copy it: - {op: copy, input: " + name + ", out: " + name + "_out}");
      try {
        A::output(t);  // a view (reshape) of a result is written in place and named as the view
      } catch (const CompileError& e) { fail(at(o.Mark()), e.message(), e.hint()); }
      m.outputs.push_back(name);
    }
    return m;
  }

 private:
  SourceLoc at(const YAML::Mark& mk) const {
    SourceLoc l;
    l.file = file_;
    l.line = static_cast<uint32_t>(mk.line + 1);
    l.column = static_cast<uint32_t>(mk.column + 1);
    return l;
  }

  static std::string list(const std::vector<std::string>& v) {
    std::string r;
    for (const auto& s : v) r += (r.empty() ? "" : ", ") + s;
    return r;
  }

  void keys(const YAML::Node& n, const std::vector<std::string>& allowed, const std::string& what) const {
    if (!n.IsMap()) fail(at(n.Mark()), what + " is a map of keys (" + list(allowed) + ")");
    for (const auto& kv : n) {
      const std::string k = kv.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        fail(at(kv.first.Mark()), "unknown key '" + k + "' in " + what + ops::did_you_mean(k, allowed),
             "the keys are: " + list(allowed));
    }
  }

  YAML::Node need(const YAML::Node& n, const char* key, const std::string& what) const {
    const YAML::Node v = n[key];
    if (!v) fail(at(n.Mark()), what + " needs '" + key + "'");
    return v;
  }

  std::vector<YAML::Node> seq(const YAML::Node& root, const char* key, bool required) const {
    const YAML::Node v = root[key];
    if (!v) {
      if (required) fail(at(root.Mark()), std::string("the model needs '") + key + "'");
      return {};
    }
    if (!v.IsSequence()) fail(at(v.Mark()), std::string("'") + key + "' is a list");
    return {v.begin(), v.end()};
  }

  std::string scalar(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(at(n.Mark()), what + " is a single value");
    return n.as<std::string>();
  }

  // A dispatch-time scalar of the model (`dispatch_time:`): its value in the build being made
  // (stage_dispatch's point), and a guard for `multiple_of`.
  void dispatch_time(const YAML::Node& n) {
    const DispatchEntry e = dispatch_entry(n, file_);
    try {
      const A::DispatchTime v = A::dispatch_time(e.scalar.name);
      if (e.multiple_of > 1)
        A::require(v % e.multiple_of == 0, e.scalar.name + " must be a multiple of " + std::to_string(e.multiple_of));
      dispatch_[e.scalar.name] = v;
    } catch (const GuardRefusal&) { throw; } catch (const CompileError& err) {
      fail(at(n.Mark()), err.message(), err.hint());
    }
  }

  int64_t integer(const YAML::Node& n, const std::string& what) const {
    try {
      if (n.IsScalar()) return n.as<int64_t>();
    } catch (const YAML::Exception&) {}
    if (n.IsScalar())
      if (auto it = dispatch_.find(n.as<std::string>()); it != dispatch_.end()) return it->second;
    fail(at(n.Mark()), what + " must be an integer, got '" +
                           (n.IsScalar() ? n.as<std::string>() : std::string("a list or map")) + "'");
  }

  double number(const YAML::Node& n, const std::string& what) const {
    try {
      if (n.IsScalar()) return n.as<double>();
    } catch (const YAML::Exception&) {}
    fail(at(n.Mark()),
         what + " must be a number, got '" + (n.IsScalar() ? n.as<std::string>() : std::string("a list or map")) + "'");
  }

  std::string new_name(const YAML::Node& n, const std::string& what) {
    if (!n) fail({file_, 0, 0}, what + " without a name");
    const std::string s = scalar(n, "a name");
    if (values_.count(s))
      fail(at(n.Mark()), "'" + s + "' is defined twice", "give every input, constant and result its own name");
    if (s.empty() || s.find_first_of(" /\\\"'") != std::string::npos)
      fail(at(n.Mark()), "'" + s + "' is not a usable name");
    return s;
  }

  std::vector<int64_t> shape_of(const YAML::Node& n) const {
    if (!n.IsSequence() || n.size() == 0)
      fail(at(n.Mark()), "a shape is a non-empty list of extents", "shape: [8, 256]");
    std::vector<int64_t> s;
    for (const auto& d : n) {
      const int64_t v = integer(d, "an extent");
      if (v <= 0) fail(at(d.Mark()), "an extent must be positive, got " + std::to_string(v));
      s.push_back(v);
    }
    return s;
  }

  std::vector<int64_t> packed(std::vector<int64_t> s, const YAML::Node& where) const {
    if (s.back() % 64 != 0)
      fail(at(where.Mark()),
           "the last extent " + std::to_string(s.back()) + " is the PWORD-packed axis and must be a multiple of 64",
           "pad it to " + std::to_string((s.back() + 63) / 64 * 64) + " (guide §5)");
    s.back() /= 64;
    return s;
  }

  std::string dtype_of(const YAML::Node& n) const {
    const std::string d = scalar(n, "a dtype");
    if (d != "int8" && d != "float16" && d != "float32")
      fail(at(n.Mark()), "dtype '" + d + "' is not int8, float16 or float32");
    return d;
  }

  void constant(const YAML::Node& n) {
    keys(n, {"name", "shape", "dtype", "init", "file", "value"}, "a constant");
    const std::string name = new_name(n["name"], "a constant");
    const int sources = (n["init"] ? 1 : 0) + (n["file"] ? 1 : 0) + (n["value"] ? 1 : 0);
    if (sources != 1) fail(at(n.Mark()), "constant '" + name + "' takes exactly one of init, file and value");
    std::vector<int64_t> shape;
    std::string dt;
    std::vector<double> v;
    if (n["file"]) {
      const std::filesystem::path p = base_ / scalar(n["file"], "file");
      ref::AnyArray a;
      try {
        a = ref::load_npy(p.string());
      } catch (const std::exception& e) { fail(at(n["file"].Mark()), "cannot load " + p.string() + ": " + e.what()); }
      std::visit(
          [&](const auto& arr) {
            using T = typename std::decay_t<decltype(arr)>::value_type;
            for (std::size_t d : arr.shape()) shape.push_back(static_cast<int64_t>(d));
            for (std::size_t i = 0; i < arr.size(); ++i) {
              if constexpr (std::is_same_v<T, num::Float16>)
                v.push_back(num::to_double(arr.data()[i]));
              else
                v.push_back(static_cast<double>(arr.data()[i]));
            }
            dt = std::is_same_v<T, int8_t>         ? "int8"
                 : std::is_same_v<T, float>        ? "float32"
                 : std::is_same_v<T, num::Float16> ? "float16"
                                                   : "int32";
          },
          a);
      if (dt == "int32")
        fail(at(n["file"].Mark()), p.string() + " holds int32; constants are int8, float16 or float32");
      if (n["dtype"] && dtype_of(n["dtype"]) != dt)
        fail(at(n["dtype"].Mark()), "dtype " + dtype_of(n["dtype"]) + " does not match the file's " + dt);
      if (n["shape"] && shape_of(n["shape"]) != shape) fail(at(n["shape"].Mark()), "shape does not match the file's");
    } else {
      shape = shape_of(need(n, "shape", "constant '" + name + "'"));
      dt = dtype_of(need(n, "dtype", "constant '" + name + "'"));
      std::size_t count = 1;
      for (int64_t d : shape) count *= static_cast<std::size_t>(d);
      if (n["value"]) {
        v.assign(count, number(n["value"], "value"));
      } else {
        const YAML::Node init = n["init"];
        keys(init, {"seed", "low", "high"}, "an init");
        const uint64_t seed = static_cast<uint64_t>(integer(need(init, "seed", "an init"), "seed"));
        const double lo = init["low"] ? number(init["low"], "low") : (dt == "int8" ? -8.0 : -1.0);
        const double hi = init["high"] ? number(init["high"], "high") : (dt == "int8" ? 8.0 : 1.0);
        if (hi < lo) fail(at(init.Mark()), "init: high < low");
        if (dt == "int8" && (lo < -128 || hi > 127)) fail(at(init.Mark()), "init: an int8 range lies in -128..127");
        v = seeded_values(count, seed, lo, hi, dt == "int8");
      }
    }
    const YAML::Node where = n["shape"] ? n["shape"] : n["file"];
    values_[name] = A::alloc_constant(std::move(v), dt + "x64", A::DDR, packed(shape, where), name);
    values_[name].node()->loc = at(n.Mark());
  }

  Tensor lookup(const YAML::Node& n) const {
    const std::string s = scalar(n, "a tensor name");
    auto it = values_.find(s);
    if (it == values_.end()) {
      std::vector<std::string> known;
      for (const auto& [k, v] : values_) known.push_back(k);
      fail(at(n.Mark()), "'" + s + "' is not defined (yet)",
           "inputs, constants and earlier results are: " + list(known));
    }
    return it->second;
  }

  ArgValue value(const YAML::Node& n, ArgKind k, const std::string& arg) const {
    switch (k) {
      case ArgKind::Tensor: return lookup(n);
      case ArgKind::Tensors: {
        if (!n.IsSequence()) return std::vector<Tensor>{lookup(n)};
        std::vector<Tensor> v;
        for (const auto& e : n) v.push_back(lookup(e));
        return v;
      }
      case ArgKind::Int: return integer(n, "'" + arg + "'");
      case ArgKind::Float: return number(n, "'" + arg + "'");
      case ArgKind::Ints: {
        if (n.IsScalar()) return std::vector<int64_t>{integer(n, "'" + arg + "'")};
        if (!n.IsSequence()) fail(at(n.Mark()), "'" + arg + "' is an integer or a list of integers");
        std::vector<int64_t> v;
        for (const auto& e : n) v.push_back(integer(e, "an entry of '" + arg + "'"));
        return v;
      }
      case ArgKind::String: return scalar(n, "'" + arg + "'");
      case ArgKind::Bool: {
        try {
          if (n.IsScalar()) return n.as<bool>();
        } catch (const YAML::Exception&) {}
        fail(at(n.Mark()), "'" + arg + "' is true or false");
      }
    }
    return {};
  }

  std::string op(const YAML::Node& n) {
    if (!n.IsMap()) fail(at(n.Mark()), "an op is a map: {op: NAME, ARG: VALUE, ..., out: RESULT}");
    const YAML::Node on = need(n, "op", "an op");
    const std::string name = scalar(on, "op");
    const ops::OpDef* def = ops::find_op(name);
    if (!def) {
      std::vector<std::string> names;
      for (const auto& o : ops::registry()) names.push_back(o.name);
      fail(at(on.Mark()), "no operator '" + name + "'" + ops::did_you_mean(name, names), "axc ops lists them");
    }
    std::vector<std::string> allowed = {"op", "out", "args"};
    for (const auto& a : def->args) allowed.push_back(a.name);
    keys(n, allowed, def->name);
    const std::string out = new_name(need(n, "out", def->name), "a result");
    std::vector<ArgValue> pos;
    if (const YAML::Node args = n["args"]) {
      if (!args.IsSequence()) fail(at(args.Mark()), "args is a list of positional arguments");
      if (args.size() > def->args.size())
        fail(at(args.Mark()), def->name + " takes " + std::to_string(def->args.size()) + " arguments, got " +
                                  std::to_string(args.size()));
      for (std::size_t k = 0; k < args.size(); ++k) pos.push_back(value(args[k], def->args[k].kind, def->args[k].name));
    }
    std::map<std::string, ArgValue> named;
    for (const auto& a : def->args)
      if (const YAML::Node v = n[a.name]) named[a.name] = value(v, a.kind, a.name);
    values_[out] = ops::invoke_at(*def, pos, named, out, at(n.Mark()));
    return def->name;
  }

  std::string file_;
  std::filesystem::path base_;
  std::map<std::string, Tensor> values_;
  std::map<std::string, A::DispatchTime> dispatch_;
};

}  // namespace

std::vector<double> seeded_values(std::size_t n, uint64_t seed, double low, double high, bool integers) {
  std::vector<double> v(n);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(s >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
    if (integers)
      x = low + std::floor(u * (high - low + 1));
    else
      x = static_cast<double>(static_cast<float>(low + u * (high - low)));
  }
  return v;
}

Model parse_model(const std::string& text, const std::string& file, const std::filesystem::path& base,
                  const ops::Target& target) {
  const ops::TargetScope scope(target);
  return Parser(file, base).run(text);
}

std::vector<runtime::DispatchScalar> model_dispatch_scalars(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    fail({file, static_cast<uint32_t>(e.mark.line + 1), static_cast<uint32_t>(e.mark.column + 1)},
         "the model file is not valid YAML: " + e.msg);
  }
  std::vector<runtime::DispatchScalar> out;
  if (!root.IsMap() || !root["dispatch_time"]) return out;
  const YAML::Node d = root["dispatch_time"];
  if (!d.IsSequence())
    fail({file, static_cast<uint32_t>(d.Mark().line + 1), static_cast<uint32_t>(d.Mark().column + 1)},
         "'dispatch_time' is a list");
  for (const auto& n : d) out.push_back(dispatch_entry(n, file).scalar);
  return out;
}

Model load_model(const std::filesystem::path& path, const ops::Target& target) {
  std::ifstream in(path);
  if (!in) fail({path.string(), 0, 0}, "cannot open model file " + path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_model(ss.str(), path.string(), path.parent_path(), target);
}

}  // namespace axcore::compiler::frontend
