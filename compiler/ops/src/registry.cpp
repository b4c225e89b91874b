// The operator registry, argument binding, and the invoke driver (validate -> infer_output ->
// allocate -> implementation -> reference).
#include <algorithm>
#include <sstream>
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

const std::vector<OpDef>& registry() {
  static const std::vector<OpDef> r = [] {
    std::vector<OpDef> v;
    detail::add_movement_ops(v);
    detail::add_elementwise_ops(v);
    detail::add_matmul_ops(v);
    detail::add_conv_ops(v);
    detail::add_depthwise_ops(v);
    detail::add_norm_ops(v);
    detail::add_aten_ops(v);
    return v;
  }();
  return r;
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

Tensor invoke_at(const OpDef& op, const std::vector<ArgValue>& positional, const std::map<std::string, ArgValue>& named,
                 const std::string& out_name, const SourceLoc& loc) {
  Call c(op, loc, out_name.empty() ? detail::fresh(op.name.substr(op.name.find('.') + 1)) : out_name);
  if (positional.size() > op.args.size())
    fail(loc,
         op.name + " takes " + std::to_string(op.args.size()) + " arguments, got " + std::to_string(positional.size()));
  for (std::size_t k = 0; k < positional.size(); ++k) c.args()[op.args[k].name] = positional[k];
  for (const auto& [name, v] : named) {
    bool known = false;
    for (const auto& a : op.args) known = known || a.name == name;
    if (!known) {
      std::string list;
      for (const auto& a : op.args) list += (list.empty() ? "" : ", ") + a.name;
      std::vector<std::string> names;
      for (const auto& a : op.args) names.push_back(a.name);
      fail(loc, op.name + " has no argument '" + name + "'" + did_you_mean(name, names), "its arguments are: " + list);
    }
    if (c.args().count(name)) fail(loc, op.name + ": argument '" + name + "' is given twice (by position and by name)");
    c.args()[name] = v;
  }
  for (const auto& a : op.args) {
    auto it = c.args().find(a.name);
    if (it == c.args().end() || std::holds_alternative<std::monostate>(it->second)) {
      if (a.required) c.refuse(a.name, "is required (" + to_string(a.kind) + ")" + (a.doc.empty() ? "" : ": " + a.doc));
      c.args()[a.name] = a.def;
      continue;
    }
    if (!kind_ok(a.kind, it->second)) c.refuse(a.name, "takes " + to_string(a.kind) + ", got " + kind_of(it->second));
    if (a.kind == ArgKind::Tensor && !std::get<Tensor>(it->second)) c.refuse(a.name, "is an empty tensor handle");
  }
  const detail::CallScope scope(loc);
  if (op.validate) op.validate(c);
  if (op.compose) {
    Tensor out = op.compose(c);
    if (op.emulate)
      for (auto& n : op.emulate(c, out)) A::current_func().graph.push_back(std::move(n));
    return out;
  }
  const BufferInfo info = op.infer_output(c);
  Tensor out;
  if (info.scope == Scope::IMC) {
    out = A::alloc_imc(info.shape, info.dtype, -1, c.out_name());
  } else {
    out = A::alloc_buffer(info.shape, info.dtype, info.scope, c.out_name());
  }
  out.node()->loc = loc;  // placement errors about the output point at the call
  A::op_marker(op.name);
  op.implementation(c, out);
  if (op.emulate)
    for (auto& n : op.emulate(c, out)) A::current_func().graph.push_back(std::move(n));
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
