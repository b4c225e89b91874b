// The operator registry, argument binding, and the invoke driver (validate -> infer_output ->
// allocate -> implementation -> reference).
#include <algorithm>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "util.hpp"

namespace axcore::compiler::ops {

std::string to_string(Level l) {
  switch (l) {
    case Level::Atomic: return "atomic";
    case Level::Core: return "core";
    case Level::Aten: return "aten";
  }
  return "?";
}

std::string to_string(ArgKind k) {
  switch (k) {
    case ArgKind::Tensor: return "tensor";
    case ArgKind::Tensors: return "tensor list";
    case ArgKind::Int: return "int";
    case ArgKind::Float: return "float";
    case ArgKind::Ints: return "int list";
    case ArgKind::String: return "string";
    case ArgKind::Bool: return "bool";
  }
  return "?";
}

namespace {
const ArgValue& get(const Call& c, const std::string& name) {
  auto it = c.args().find(name);
  if (it == c.args().end() || std::holds_alternative<std::monostate>(it->second))
    c.refuse(name, "is required and was not given");
  return it->second;
}
}  // namespace

bool Call::has(const std::string& name) const {
  auto it = args_.find(name);
  return it != args_.end() && !std::holds_alternative<std::monostate>(it->second);
}
Tensor Call::tensor(const std::string& name) const { return std::get<Tensor>(get(*this, name)); }
std::vector<Tensor> Call::tensors(const std::string& name) const {
  return std::get<std::vector<Tensor>>(get(*this, name));
}
int64_t Call::i(const std::string& name) const { return std::get<int64_t>(get(*this, name)); }
double Call::f(const std::string& name) const { return std::get<double>(get(*this, name)); }
std::string Call::s(const std::string& name) const { return std::get<std::string>(get(*this, name)); }
bool Call::b(const std::string& name) const { return std::get<bool>(get(*this, name)); }
std::vector<int64_t> Call::ints(const std::string& name) const {
  const ArgValue& v = get(*this, name);
  if (const auto* i = std::get_if<int64_t>(&v)) return {*i};
  return std::get<std::vector<int64_t>>(v);
}
std::vector<int64_t> Call::ints(const std::string& name, std::size_t n) const {
  const ArgValue& v = get(*this, name);
  std::vector<int64_t> r;
  if (const auto* i = std::get_if<int64_t>(&v))
    r = {*i};
  else
    r = std::get<std::vector<int64_t>>(v);
  if (r.size() == 1 && n > 1) r.assign(n, r[0]);
  if (r.size() != n)
    refuse(name, "takes " + std::to_string(n) + " value" + (n == 1 ? "" : "s") + ", got " + std::to_string(r.size()));
  return r;
}
void Call::refuse(const std::string& arg, const std::string& why, const std::string& hint) const {
  fail(loc_, op_->name + ": argument '" + arg + "': " + why, hint);
}

namespace {
// The output argument every operator has (guide §4.3): appended when the op declares none.
void with_output(OpDef& op) {
  for (const auto& a : op.args)
    if (a.is_output) return;
  op.args.push_back({"output",
                     ArgKind::Tensor,
                     false,
                     {},
                     "the buffer to write (default: allocated from the inferred shape, dtype and scope)",
                     "",
                     true});
}

std::deque<OpDef>& mutable_registry() {
  static std::deque<OpDef> r = [] {
    std::vector<OpDef> v;
    detail::add_movement_ops(v);
    detail::add_elementwise_ops(v);
    detail::add_matmul_ops(v);
    detail::add_conv_ops(v);
    detail::add_depthwise_ops(v);
    detail::add_norm_ops(v);
    detail::add_aten_ops(v);
    std::deque<OpDef> d;
    for (auto& op : v) {
      with_output(op);
      d.push_back(std::move(op));
    }
    return d;
  }();
  return r;
}
}  // namespace

const std::deque<OpDef>& registry() { return mutable_registry(); }

const OpDef& register_op(OpDef def, bool atomic) {
  if (def.name.rfind("axol.", 0) == 0) def.name = def.name.substr(5);
  const std::string level = def.name.substr(0, def.name.find('.'));
  if (def.name.find('.') == std::string::npos || def.name.size() == level.size() + 1 ||
      (level != "atomic" && level != "core" && level != "aten"))
    throw std::invalid_argument("register_op: '" + def.name + "' is not axol.<atomic|core|aten>.<name>");
  if (atomic && level != "atomic")
    throw std::invalid_argument("register_op: " + def.name + " is atomic=true but not in axol.atomic");
  def.level = level == "atomic" ? Level::Atomic : level == "core" ? Level::Core : Level::Aten;
  if (!def.compose && !def.implementation)
    throw std::invalid_argument("register_op: " + def.name + " has neither an implementation nor a compose");
  if (!def.compose && !def.infer_output)
    throw std::invalid_argument("register_op: " + def.name + " has an implementation but no infer_output");
  int outputs = 0;
  for (const auto& a : def.args) outputs += a.is_output ? 1 : 0;
  if (outputs > 1) throw std::invalid_argument("register_op: " + def.name + " declares more than one output argument");
  with_output(def);
  auto& r = mutable_registry();
  for (auto& op : r)
    if (op.name == def.name) return op = std::move(def);
  r.push_back(std::move(def));
  return r.back();
}

// " (did you mean 'atomic.relu'?)" for the candidate nearest to a misspelt name (edit distance at
// most a third of its length, at least 2 — a swap of two letters — and less than its length; names compared with and
// without their level prefix), else "". Used for unknown operators and arguments.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    return row[b.size()];
  };
  auto bare = [](const std::string& s) { return s.substr(s.find('.') == std::string::npos ? 0 : s.find('.') + 1); };
  const std::string* best = nullptr;
  size_t best_d = std::min(std::max<size_t>(2, bare(name).size() / 3) + 1, bare(name).size());
  for (const auto& c : candidates) {
    const size_t d = std::min(distance(name, c), distance(bare(name), bare(c)));
    if (d < best_d) {
      best_d = d;
      best = &c;
    }
  }
  return best ? " (did you mean '" + *best + "'?)" : "";
}

const OpDef* find_op(const std::string& name) {
  for (const auto& op : registry())
    if (op.name == name) return &op;
  for (const char* level : {"aten.", "core.", "atomic."})
    for (const auto& op : registry())
      if (op.name == level + name) return &op;
  return nullptr;
}

std::string describe_ops() {
  std::ostringstream os;
  for (const auto& op : registry()) {
    os << op.name << " — " << op.doc << "\n";
    for (const auto& a : op.args) {
      os << "    " << a.name << ": " << to_string(a.kind) << (a.required ? "" : " (optional)");
      if (!a.doc.empty()) os << " — " << a.doc;
      os << "\n";
    }
  }
  return os.str();
}

namespace {
bool kind_ok(ArgKind k, ArgValue& v) {
  switch (k) {
    case ArgKind::Tensor: return std::holds_alternative<Tensor>(v);
    case ArgKind::Tensors:
      if (auto* t = std::get_if<Tensor>(&v)) v = std::vector<Tensor>{*t};
      return std::holds_alternative<std::vector<Tensor>>(v);
    case ArgKind::Int: return std::holds_alternative<int64_t>(v);
    case ArgKind::Float:
      if (auto* i = std::get_if<int64_t>(&v)) v = static_cast<double>(*i);
      return std::holds_alternative<double>(v);
    case ArgKind::Ints:
      if (auto* i = std::get_if<int64_t>(&v)) v = std::vector<int64_t>{*i};
      return std::holds_alternative<std::vector<int64_t>>(v);
    case ArgKind::String: return std::holds_alternative<std::string>(v);
    case ArgKind::Bool:
      if (auto* i = std::get_if<int64_t>(&v); i && (*i == 0 || *i == 1)) v = *i == 1;
      return std::holds_alternative<bool>(v);
  }
  return false;
}

std::string kind_of(const ArgValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return "nothing";
        else if constexpr (std::is_same_v<T, Tensor>)
          return "a tensor";
        else if constexpr (std::is_same_v<T, std::vector<Tensor>>)
          return "a tensor list";
        else if constexpr (std::is_same_v<T, int64_t>)
          return "an int";
        else if constexpr (std::is_same_v<T, double>)
          return "a float";
        else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
          return "an int list";
        else if constexpr (std::is_same_v<T, std::string>)
          return "a string";
        else
          return "a bool";
      },
      v);
}
}  // namespace

namespace {
bool is_number(const ArgValue& v) { return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v); }

const ArgSpec* spec_of(const OpDef& op, const std::string& name) {
  for (const auto& a : op.args)
    if (a.name == name) return &a;
  return nullptr;
}

// The guide's call keywords (§10 where=, §12 id=, §6 core=) a call takes when its op does not
// declare an argument of that name.
struct CallKeywords {
  std::string id;
  int core = -1;
  std::optional<bool> where;
};

bool take_keyword(const OpDef& op, const std::string& name, const ArgValue& v, CallKeywords& kw, const SourceLoc& loc) {
  if (spec_of(op, name)) return false;
  if (name == "id") {
    const auto* s = std::get_if<std::string>(&v);
    if (!s || s->empty()) fail(loc, op.name + ": id= takes a non-empty string, got " + kind_of(v), "id=\"load\"");
    kw.id = *s;
    return true;
  }
  if (name == "core") {
    const auto* i = std::get_if<int64_t>(&v);
    if (!i || *i < 0) fail(loc, op.name + ": core= takes a core number >= 0, got " + kind_of(v), "core=0");
    kw.core = static_cast<int>(*i);
    return true;
  }
  if (name == "where") {
    if (const auto* b = std::get_if<bool>(&v)) {
      kw.where = *b;
    } else if (const auto* i = std::get_if<int64_t>(&v); i && (*i == 0 || *i == 1)) {
      kw.where = *i == 1;
    } else {
      fail(loc, op.name + ": where= takes a build-time condition (a bool), got " + kind_of(v),
           "compute the condition from build-time values (a C++ for; in Python a for over a tuple), e.g. where=(step "
           "== 0)");
    }
    return true;
  }
  return false;
}

// The output argument's name ("" for an OpDef built outside the registry without one).
std::string output_arg(const OpDef& op) {
  for (const auto& a : op.args)
    if (a.is_output) return a.name;
  return "";
}

// A given output (output=): a buffer the program allocated, of the shape and dtype the op
// produces, aliasing no tensor argument except those the op may update in place.
void check_given_output(const Call& c, const std::string& arg) {
  const Tensor out = c.tensor(arg);
  const BufferNode* root = out.node()->root();
  if (root->role == BufferRole::Input || root->role == BufferRole::Constant)
    c.refuse(arg,
             out.name() + " is " + (root->role == BufferRole::Input ? "an input" : "a constant") +
                 " of the function: an operator writes only buffers the program allocates",
             "A.alloc_buffer(...) a buffer for the result and pass it as output=");
  const OpDef& op = c.op();
  if (op.compose) return;  // the parts it invokes check theirs; a fresh result is copied in
  if (op.check_given_output) {
    const BufferInfo info = op.infer_output(c);
    if (out.shape() != info.shape || out.dtype() != info.dtype)
      c.refuse(arg,
               out.name() + " is " + detail::shape_str(out.shape()) + " " + out.dtype() + ", but " + op.name +
                   " writes " + detail::shape_str(info.shape) + " " + info.dtype,
               "pass a buffer of that shape and dtype, or leave output= out to have one allocated");
  }
  for (const auto& a : op.args) {
    if (a.is_output || std::find(op.in_place.begin(), op.in_place.end(), a.name) != op.in_place.end()) continue;
    std::vector<Tensor> ts;
    if (const auto* t = std::get_if<Tensor>(&c.args().at(a.name))) ts.push_back(*t);
    if (const auto* l = std::get_if<std::vector<Tensor>>(&c.args().at(a.name))) ts = *l;
    for (const auto& t : ts)
      if (t && t.node()->root() == root)
        c.refuse(arg,
                 out.name() + " is also the argument '" + a.name + "': " + op.name + " does not update it in place",
                 "write the result to another buffer");
  }
}

// Tile views (buf.tile(...), guide §11.2) in the reference graph: before an operator's nodes, each
// view argument gets its values sliced from its parent; after them, a view output is written back
// into its parent (ref op write_region). The IMC has no graph value (atomic.matmul's reference
// reads the weight atomic.load_imc was given), so IMC views have neither.
using detail::Node;
struct RegionRef {
  std::vector<int64_t> starts, counts, parent;  // per axis of the parent's reference array (lanes unpacked)
};
std::optional<RegionRef> region_ref(const Tensor& t) {
  const A::TileRegion* r = t.region();
  if (!r || r->parent.scope() == Scope::IMC) return std::nullopt;
  RegionRef ref{r->origin, std::vector<int64_t>(r->origin.size(), 1), r->parent.shape()};
  for (std::size_t d = 0, j = 0; d < r->origin.size(); ++d)
    if (r->kept[d]) ref.counts[d] = t.shape()[j++];
  const auto lanes = static_cast<int64_t>(t.node()->dtype.lanes);
  if (ref.parent.empty()) ref = {{0}, {1}, {1}};
  ref.starts.back() *= lanes;
  ref.counts.back() *= lanes;
  ref.parent.back() *= lanes;
  return ref;
}
std::vector<double> doubles(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

void read_regions(const Call& c, std::vector<Node>& g) {
  for (const auto& a : c.op().args) {
    if (a.is_output) continue;
    std::vector<Tensor> ts;
    if (const auto* t = std::get_if<Tensor>(&c.args().at(a.name))) ts.push_back(*t);
    if (const auto* l = std::get_if<std::vector<Tensor>>(&c.args().at(a.name))) ts = *l;
    for (const auto& t : ts) {
      const auto ref = t ? region_ref(t) : std::nullopt;
      if (!ref) continue;
      std::string cur = t.region()->parent.name();
      int k = 0;
      auto step = [&](Node n) {
        n.inputs = {cur};
        n.outputs = {t.name() + ".ref" + std::to_string(k++)};
        cur = n.outputs[0];
        g.push_back(std::move(n));
      };
      for (std::size_t d = 0; d < ref->starts.size(); ++d)
        if (ref->starts[d] != 0 || ref->counts[d] != ref->parent[d]) {
          Node n = detail::node("slice", {}, {});
          n.num_attrs = {{"axis", {static_cast<double>(d)}},
                         {"start", {static_cast<double>(ref->starts[d])}},
                         {"end", {static_cast<double>(ref->starts[d] + ref->counts[d])}}};
          step(std::move(n));
        }
      Node last = detail::node("reshape", {}, {});
      std::vector<int64_t> shape = t.shape().empty() ? std::vector<int64_t>{1} : t.shape();
      shape.back() *= static_cast<int64_t>(t.node()->dtype.lanes);
      last.num_attrs["shape"] = doubles(shape);
      step(std::move(last));
      g.back().outputs = {t.name()};
    }
  }
}

void write_region(const Tensor& out, std::vector<Node>& g) {
  const auto ref = out ? region_ref(out) : std::nullopt;
  if (!ref) return;
  const std::string parent = out.region()->parent.name();
  // The parent's values so far: an operand of the function, or what an earlier node wrote (else
  // nothing wrote it yet, and the reference starts it at zero).
  const BufferNode& p = *out.region()->parent.node();
  bool has_value = !p.alias_of && (p.role == BufferRole::Input || p.role == BufferRole::Constant);
  for (const auto& n : g)
    has_value = has_value || std::find(n.outputs.begin(), n.outputs.end(), parent) != n.outputs.end();
  Node n = detail::node("write_region", {}, {parent});
  if (has_value) n.inputs.push_back(parent);
  n.inputs.push_back(out.name());
  n.num_attrs = {{"starts", doubles(ref->starts)}, {"sizes", doubles(ref->counts)}, {"shape", doubles(ref->parent)}};
  g.push_back(std::move(n));
}

// The operator's reference nodes, with its tile views read before and its tile view output written
// after.
void record_reference(const Call& c, const Tensor& out) {
  auto& g = A::current_func().graph;
  read_regions(c, g);
  for (auto& n : c.op().emulate(c, out)) g.push_back(std::move(n));
  write_region(out, g);
}

// Validated call -> the output: the implementation writes the given or allocated output, or the
// composition's result (copied into a given output that it is not).
Tensor expand(const Call& c, const std::string& out_arg, const SourceLoc& loc) {
  const OpDef& op = c.op();
  const bool given = !out_arg.empty() && c.has(out_arg);
  if (op.compose) {
    Tensor out = op.compose(c);
    if (op.emulate) record_reference(c, out);
    if (given && out.node() != c.tensor(out_arg).node())
      out = invoke_at(*find_op("atomic.copy"), {out}, {{"output", c.tensor(out_arg)}}, "", loc);
    return out;
  }
  Tensor out;
  if (given) {
    out = c.tensor(out_arg);
  } else {
    const BufferInfo info = op.infer_output(c);
    if (info.scope == Scope::IMC) {
      out = A::alloc_imc(info.shape, info.dtype, -1, c.out_name());
    } else {
      out = A::alloc_buffer(info.shape, info.dtype, info.scope, c.out_name());
    }
    out.node()->loc = loc;  // placement errors about the output point at the call
  }
  A::op_marker(op.name);
  op.implementation(c, out);
  if (op.emulate) record_reference(c, out);
  return out;
}
}  // namespace

Tensor invoke_at(const OpDef& op, const std::vector<ArgValue>& positional, const std::map<std::string, ArgValue>& named,
                 const std::string& out_name, const SourceLoc& loc) {
  Call c(op, loc, out_name.empty() ? detail::fresh(op.name.substr(op.name.find('.') + 1)) : out_name);
  // The names of the arguments positional ones bind (declaration order, keyword-only ones
  // skipped) or of the keyword-only ones; built for messages only.
  auto names_of = [&op](bool kw_only) {
    std::string l;
    for (const auto& a : op.args)
      if (a.kw_only == kw_only) l += (l.empty() ? "" : ", ") + a.name;
    return l;
  };
  // A number given for a tensor argument with a scalar alternative binds that (mul(inp, 2.0)).
  auto bound_name = [](const ArgSpec& a, const ArgValue& v) -> const std::string& {
    return !a.scalar_alt.empty() && is_number(v) ? a.scalar_alt : a.name;
  };
  auto bind = [&](const std::string& name, const ArgValue& v) {
    if (!c.args().emplace(name, v).second)
      fail(loc, op.name + ": argument '" + name + "' is given twice (by position and by name)",
           name == "value" ? "a number in place of the tensor argument is the scalar value= already" : "");
  };
  std::size_t k = 0;  // positional arguments bound
  const ArgSpec* last_positional = nullptr;
  for (const auto& a : op.args) {
    if (a.kw_only || k == positional.size()) continue;
    bind(bound_name(a, positional[k]), positional[k]);
    last_positional = &a;
    ++k;
  }
  if (k < positional.size()) {
    const std::string kw_names = names_of(true);
    fail(loc,
         op.name + " takes " + std::to_string(k) + " positional arguments, got " + std::to_string(positional.size()),
         kw_names.empty() ? std::string() : "pass " + kw_names + " by name (keyword-only)");
  }
  // Whether `a` was bound by position (it is declared before the last positional one).
  auto by_position = [&](const ArgSpec& a) {
    if (!last_positional || a.kw_only) return false;
    for (const auto& x : op.args) {
      if (&x == &a) return true;
      if (&x == last_positional) return false;
    }
    return false;
  };
  CallKeywords kw;
  for (const auto& [name, v] : named) {
    if (take_keyword(op, name, v, kw, loc)) continue;
    const ArgSpec* a = spec_of(op, name);
    if (!a) {
      std::string list;
      for (const auto& x : op.args) list += (list.empty() ? "" : ", ") + x.name;
      std::vector<std::string> names = {"id", "core", "where"};
      for (const auto& x : op.args) names.push_back(x.name);
      fail(loc, op.name + " has no argument '" + name + "'" + did_you_mean(name, names),
           "its arguments are: " + list + " (and every call takes id=, core=, where=)");
    }
    bind(bound_name(*a, v), v);
  }
  for (const auto& a : op.args) {
    auto it = c.args().find(a.name);
    if (it == c.args().end() || std::holds_alternative<std::monostate>(it->second)) {
      if (a.required) c.refuse(a.name, "is required (" + to_string(a.kind) + ")" + (a.doc.empty() ? "" : ": " + a.doc));
      c.args()[a.name] = a.def;
      continue;
    }
    if (!kind_ok(a.kind, it->second)) {
      const std::string kw_names = names_of(true);
      c.refuse(a.name, "takes " + to_string(a.kind) + ", got " + kind_of(it->second),
               by_position(a) && !kw_names.empty() ? "positional arguments bind " + names_of(false) +
                                                         " in order; pass " + kw_names + " by name (keyword-only)"
                                                   : std::string());
    }
    if (a.kind == ArgKind::Tensor && !std::get<Tensor>(it->second)) c.refuse(a.name, "is an empty tensor handle");
  }
  const detail::CallScope scope(loc);
  if (op.validate) op.validate(c);
  const std::string out_arg = output_arg(op);
  const bool given = !out_arg.empty() && c.has(out_arg);
  if (given) check_given_output(c, out_arg);
  if (kw.where && !*kw.where) {
    // with A.when(False): the call is built (and validated) but runs nothing (guide §10).
    if (!given)
      fail(loc, op.name + ": where= is false, so the call writes nothing, and it has no output= to hold its result",
           "pass output= the buffer the gated call writes (guide §12: each pipeline stage writes its own buffer)");
    return c.tensor(out_arg);
  }
  if (kw.id.empty() && kw.core < 0) return expand(c, out_arg, loc);
  Tensor out;
  A::Body emit = [&] { out = expand(c, out_arg, loc); };
  if (!kw.id.empty()) emit = [&, inner = emit] { A::tag_launches(kw.id, inner, loc); };
  if (kw.core >= 0) emit = [&, inner = emit] { A::AICore(kw.core, inner, loc); };
  emit();
  return out;
}

Tensor invoke(const std::string& name, const std::vector<ArgValue>& positional,
              const std::map<std::string, ArgValue>& named, const std::string& out_name, A::Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  const OpDef* op = find_op(name);
  if (!op) {
    std::vector<std::string> names;
    for (const auto& o : registry()) names.push_back(o.name);
    fail(loc, "no operator '" + name + "'" + did_you_mean(name, names), "axc ops lists them");
  }
  return invoke_at(*op, positional, named, out_name, loc);
}

}  // namespace axcore::compiler::ops
