// Builtins, attributes and methods of axtap values: the TensorAccessPattern API by its Python
// names, with Python's argument-binding rules and messages.
#include <map>
#include <optional>

#include "axcore/tap/svg.hpp"
#include "eval.hpp"

namespace axcore::tap::cli {

namespace {

using Args = std::vector<std::optional<Value>>;

struct Signature {
  std::vector<std::string> params;
  std::size_t required;
};

const std::map<std::string, Signature>& signatures() {
  static const std::map<std::string, Signature> kSigs{
      {"full", {{"tensor_dims"}, 1}},
      {"arange", {{"n"}, 1}},
      {"TensorAccessPattern", {{"tensor_dims", "offset", "sizes", "strides"}, 4}},
      {"permute", {{"axes"}, 1}},
      {"split", {{"dim", "inner"}, 2}},
      {"merge", {{"dim"}, 1}},
      {"coalesce", {{}, 0}},
      {"repeat", {{"count"}, 1}},
      {"pad", {{"padding"}, 1}},
      {"tile", {{"tile_dims"}, 1}},
      {"partition", {{"parts", "dim"}, 1}},
      {"inverse", {{}, 0}},
      {"accesses", {{}, 0}},
      {"access_order", {{}, 0}},
      {"access_count", {{}, 0}},
      {"compare_access_orders", {{"other"}, 1}},
      {"gather", {{"tensor", "pad_value"}, 1}},
      {"scatter", {{"stream", "out"}, 1}},
      {"visualize", {{"show_arrows", "title", "file_path", "show_plot", "plot_access_count"}, 0}},
      {"animate", {{"frame_dims", "title", "animate_access_count", "file_path"}, 0}},
  };
  return kSigs;
}

Args bind_args(const std::string& name, std::vector<Value> args, Kwargs kwargs) {
  const Signature& sig = signatures().at(name);
  if (args.size() > sig.params.size()) {
    raise("TypeError", name + "() takes " + std::to_string(sig.params.size()) + " positional argument" +
                           (sig.params.size() == 1 ? "" : "s") + " but " + std::to_string(args.size()) +
                           (args.size() == 1 ? " was" : " were") + " given");
  }
  Args out(sig.params.size());
  for (std::size_t i = 0; i < args.size(); ++i) out[i] = std::move(args[i]);
  for (auto& [key, value] : kwargs) {
    std::size_t i = 0;
    while (i < sig.params.size() && sig.params[i] != key) ++i;
    if (i == sig.params.size()) { raise("TypeError", name + "() got an unexpected keyword argument '" + key + "'"); }
    if (out[i]) raise("TypeError", name + "() got multiple values for argument '" + key + "'");
    out[i] = std::move(value);
  }
  for (std::size_t i = 0; i < sig.required; ++i) {
    if (!out[i]) { raise("TypeError", name + "() missing 1 required positional argument: '" + sig.params[i] + "'"); }
  }
  return out;
}

int as_dim(const Value& v, const std::string& what) {
  int64_t d = as_concrete_int(v, what);
  if (d < INT32_MIN || d > INT32_MAX) raise("ValueError", what + " " + std::to_string(d) + " is out of range");
  return static_cast<int>(d);
}

Value ints_tuple(const std::vector<SymInt>& v) {
  Seq s;
  for (const auto& x : v) s.items.emplace_back(x);
  return s;
}

std::optional<bool> opt_bool(const std::optional<Value>& v, const std::string& what) {
  if (!v || std::holds_alternative<None>(v->v)) return std::nullopt;
  return as_concrete_int(*v, what) != 0;
}

std::optional<std::string> opt_title(const std::optional<Value>& v) {
  if (!v || std::holds_alternative<None>(v->v)) return std::nullopt;
  return as_string(*v, "title");
}

std::string file_path(const std::optional<Value>& v, const std::string& method) {
  if (!v || std::holds_alternative<None>(v->v)) {
    raise("ValueError", method + "() needs file_path='NAME.svg' in axtap: it writes an SVG (there is no plot window)");
  }
  return as_string(*v, "file_path");
}

Value method(const TensorAccessPattern& p, const std::string& name, const Args& a) {
  if (name == "permute") {
    std::vector<int> axes;
    for (const auto& x : as_ints(*a[0], "axes")) axes.push_back(static_cast<int>(x.value("axes")));
    return p.permute(axes);
  }
  if (name == "split") return p.split(as_dim(*a[0], "dim"), as_int(*a[1], "inner"));
  if (name == "merge") return p.merge(as_dim(*a[0], "dim"));
  if (name == "coalesce") return p.coalesce();
  if (name == "repeat") return p.repeat(as_int(*a[0], "count"));
  if (name == "pad") {
    const auto* s = std::get_if<Seq>(&a[0]->v);
    if (!s) raise("TypeError", "'" + type_name(*a[0]) + "' object is not iterable (padding)");
    std::vector<std::vector<SymInt>> entries;
    for (const auto& e : s->items) entries.push_back(as_ints(e, "padding entry"));
    return p.pad(entries);
  }
  if (name == "tile") return p.tile(as_ints(*a[0], "tile_dims"));
  if (name == "partition") return p.partition(as_int(*a[0], "parts"), a[1] ? as_dim(*a[1], "dim") : 0);
  if (name == "inverse") return p.inverse();
  if (name == "accesses") {
    Accesses acc = p.accesses();
    return Seq{{acc.order, acc.count}, false};
  }
  if (name == "access_order") return p.access_order();
  if (name == "access_count") return p.access_count();
  if (name == "compare_access_orders") {
    if (!std::holds_alternative<TensorAccessPattern>(a[0]->v)) {
      raise("TypeError", "Can only compare access order against another TensorAccessPattern");
    }
    return p.compare_access_orders(std::get<TensorAccessPattern>(a[0]->v));
  }
  if (name == "gather") {
    IntArray t = as_array(*a[0], "tensor");
    int64_t pad = a[1] ? as_concrete_int(*a[1], "pad_value") : 0;
    std::vector<int64_t> out = p.gather(t.data, pad);
    return IntArray{{static_cast<int64_t>(out.size())}, out};
  }
  if (name == "scatter") {
    IntArray s = as_array(*a[0], "stream");
    std::vector<int64_t> out;
    if (a[1] && !std::holds_alternative<None>(a[1]->v)) out = as_array(*a[1], "out").data;
    out = p.scatter(s.data, out);
    std::vector<int64_t> shape;
    for (const auto& d : p.tensor_dims()) shape.push_back(d.value());
    return IntArray{shape, out};
  }
  if (name == "visualize") {
    VisualizeOptions o;
    o.show_arrows = opt_bool(a[0], "show_arrows");
    o.title = opt_title(a[1]);
    o.plot_access_count = opt_bool(a[4], "plot_access_count").value_or(false);
    visualize(p, file_path(a[2], "visualize"), o);
    return None{true};
  }
  if (name == "animate") {
    AnimateOptions o;
    if (a[0]) o.frame_dims = as_dim(*a[0], "frame_dims");
    o.title = opt_title(a[1]);
    o.animate_access_count = opt_bool(a[2], "animate_access_count").value_or(false);
    animate(p, file_path(a[3], "animate"), o);
    return None{true};
  }
  raise("AttributeError", "'TensorAccessPattern' object has no attribute '" + name + "'");
}

}  // namespace

Value builtin(const std::string& name) {
  if (name == "full" || name == "arange" || name == "TensorAccessPattern") return Callable{name, {}};
  return None{};
}

Value attribute(const Value& object, const std::string& name) {
  if (const auto* c = std::get_if<Callable>(&object.v)) {
    if (c->self.empty() && c->name == "TensorAccessPattern" && name == "full") return Callable{"full", {}};
  }
  const auto* p = std::get_if<TensorAccessPattern>(&object.v);
  if (!p) raise("AttributeError", "'" + type_name(object) + "' object has no attribute '" + name + "'");
  if (name == "tensor_dims") return ints_tuple(p->tensor_dims());
  if (name == "offset") return p->offset();
  if (name == "sizes") return ints_tuple(p->sizes());
  if (name == "strides") return ints_tuple(p->strides());
  if (name == "padded_sizes") return ints_tuple(p->padded_sizes());
  if (name == "rank") return SymInt(p->rank());
  if (name == "numel") return p->numel();
  if (name == "is_symbolic") return p->is_symbolic();
  if (name == "T") return p->T();
  if (name == "transformation_dims") {
    Seq s;
    for (const auto& [n, st] : p->transformation_dims()) s.items.emplace_back(Seq{{n, st}, false});
    return s;
  }
  if (name == "padding") {
    if (!p->padding()) return None{};
    Seq s;
    for (auto [b, a] : *p->padding()) s.items.emplace_back(Seq{{SymInt(b), SymInt(a)}, false});
    return s;
  }
  if (name == "bind" || signatures().count(name)) return Callable{name, {*p}};
  raise("AttributeError", "'TensorAccessPattern' object has no attribute '" + name + "'");
}

Value call(const Callable& callee, std::vector<Value> args, Kwargs kwargs) {
  if (callee.name == "bind" && !callee.self.empty()) {
    if (!args.empty()) raise("TypeError", "bind() takes keyword arguments only, e.g. bind(M=128)");
    Bindings b;
    for (const auto& [k, v] : kwargs) b[k] = as_concrete_int(v, "parameter " + k);
    return as_pattern(callee.self[0], "bind()").bind(b);
  }
  Args a = bind_args(callee.name, std::move(args), std::move(kwargs));
  if (!callee.self.empty()) return method(as_pattern(callee.self[0], callee.name), callee.name, a);
  if (callee.name == "full") return TensorAccessPattern::full(as_ints(*a[0], "tensor_dims"));
  if (callee.name == "arange") {
    int64_t n = as_concrete_int(*a[0], "n");
    if (n < 0 || n > (int64_t{1} << 30)) raise("ValueError", "arange(" + std::to_string(n) + ") is out of range");
    IntArray r{{n}, std::vector<int64_t>(static_cast<std::size_t>(n))};
    for (int64_t i = 0; i < n; ++i) r.data[static_cast<std::size_t>(i)] = i;
    return r;
  }
  return TensorAccessPattern(as_ints(*a[0], "tensor_dims"), as_int(*a[1], "offset"), as_ints(*a[2], "sizes"),
                             as_ints(*a[3], "strides"));
}

Value subscript(const Value& object, std::vector<Value> items) {
  if (const auto* p = std::get_if<TensorAccessPattern>(&object.v)) {
    if (items.size() == 1) {
      if (const auto* s = std::get_if<Seq>(&items[0].v); s && !s->list) items = s->items;
    }
    std::vector<Index> index;
    for (const auto& it : items) {
      if (const auto* sl = std::get_if<Slice>(&it.v)) {
        index.emplace_back(*sl);
      } else {
        index.emplace_back(as_int(it, "index"));
      }
    }
    return p->at(index);
  }
  if (const auto* s = std::get_if<Seq>(&object.v)) {
    std::string kind = s->list ? "list" : "tuple";
    if (items.size() != 1 || !std::holds_alternative<SymInt>(items[0].v)) {
      raise("TypeError", kind + " indices must be integers");
    }
    int64_t i = as_concrete_int(items[0], "index");
    auto n = static_cast<int64_t>(s->items.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) raise("IndexError", kind + " index out of range");
    return s->items[static_cast<std::size_t>(i)];
  }
  raise("TypeError", "'" + type_name(object) + "' object is not subscriptable");
}

}  // namespace axcore::tap::cli
