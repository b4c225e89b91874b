// The driver: graph inputs, then every node in file order (ONNX requires a topological order)
// through its op type's lowering, then the graph outputs; Ctx's helpers; `axc import`'s text.
#include <algorithm>
#include <fstream>

#include "importer.hpp"

namespace axcore::compiler::onnx {
namespace detail {

std::string shape_text(const std::vector<int64_t>& s) {
  std::string r = "(";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

SourceLoc Ctx::loc() const { return {file, node ? static_cast<uint32_t>(node->index + 1) : 0u, node ? 1u : 0u}; }

void Ctx::refuse(const std::string& what, const std::string& supported) const {
  const std::string who = node ? "node '" + node->name + "' (" + node->op_type + "): " : "";
  throw CompileError(loc(), who + what + "; supported: " + supported);
}

bool Ctx::has_in(std::size_t i) const { return i < node->inputs.size() && !node->inputs[i].empty(); }

const Value& Ctx::in(std::size_t i) const {
  if (!has_in(i)) refuse("input " + std::to_string(i) + " is missing", "the inputs the ONNX operator requires");
  auto it = values.find(node->inputs[i]);
  if (it == values.end())
    refuse("input '" + node->inputs[i] + "' is defined by no earlier node, initializer or graph input",
           "graphs in topological order");
  return it->second;
}

const TensorData& Ctx::const_in(std::size_t i, const std::string& role) const {
  const Value& v = in(i);
  if (v.kind != Value::Kind::Const)
    refuse(role + " '" + node->inputs[i] + "' is computed on the device", "a constant (an initializer) " + role);
  if (!v.c.readable)
    refuse(role + " '" + node->inputs[i] + "' is " + elem_type_name(v.c.elem_type),
           "float32, int8, uint8, int32, int64");
  return v.c;
}

namespace {
const Attr* find_attr(const Ctx& c, const std::string& n, Attr::Kind k) {
  const Attr* a = c.node->attr(n);
  if (a && a->kind != k)
    c.refuse("attribute '" + n + "' is " + attr_kind_name(a->kind), "'" + n + "' as " + attr_kind_name(k));
  return a;
}
}  // namespace

int64_t Ctx::attr_i(const std::string& n, int64_t def) const {
  const Attr* a = find_attr(*this, n, Attr::Kind::Int);
  return a ? a->i : def;
}
double Ctx::attr_f(const std::string& n, double def) const {
  const Attr* a = find_attr(*this, n, Attr::Kind::Float);
  return a ? a->f : def;
}
std::vector<int64_t> Ctx::attr_ints(const std::string& n, std::vector<int64_t> def) const {
  const Attr* a = find_attr(*this, n, Attr::Kind::Ints);
  return a ? a->ints : def;
}
std::string Ctx::attr_s(const std::string& n, std::string def) const {
  const Attr* a = find_attr(*this, n, Attr::Kind::String);
  return a ? a->s : def;
}

void Ctx::known_attrs(const std::vector<std::string>& known) const {
  for (const auto& a : node->attrs)
    if (std::find(known.begin(), known.end(), a.name) == known.end()) {
      std::string k;
      for (const auto& s : known) k += (k.empty() ? "" : ", ") + s;
      refuse("attribute '" + a.name + "' is not supported", k.empty() ? "no attributes" : "the attributes " + k);
    }
}

std::string Ctx::dev_name(const std::string& onnx, const std::string& suffix) {
  std::string s;
  for (char ch : onnx)
    s += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-') ? ch : '_';
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) s = "t_" + s;
  s += suffix;
  if (suffix.empty() && graph_outputs.count(onnx) && s == onnx && !used_names_.count(s)) {
    used_names_.insert(s);
    return s;
  }
  std::string r = s;
  for (int k = 1; used_names_.count(r) || graph_outputs.count(r); ++k) r = s + "_" + std::to_string(k);
  used_names_.insert(r);
  return r;
}

Tensor Ctx::invoke(const std::string& op, const std::vector<ops::ArgValue>& pos,
                   const std::map<std::string, ops::ArgValue>& named, const std::string& out) {
  const ops::OpDef* def = ops::find_op(op);
  if (!def) throw std::logic_error("onnx importer: no operator " + op);
  try {
    return ops::invoke_at(*def, pos, named, out, loc());
  } catch (const CompileError& e) {
    if (!node) throw;
    refuse("the operator library refuses it: " + e.message() + (e.hint().empty() ? "" : " (" + e.hint() + ")"),
           "what " + op + " takes (axc ops)");
  }
}

const Node* Ctx::sole_consumer(const std::string& tensor) const {
  if (graph_outputs.count(tensor)) return nullptr;
  auto it = consumers.find(tensor);
  if (it == consumers.end() || it->second.size() != 1) return nullptr;
  return &g.nodes[it->second[0]];
}

void Ctx::set_out(std::size_t i, Value v) {
  if (i >= node->outputs.size()) refuse("has no output " + std::to_string(i), "the ONNX outputs");
  values[node->outputs[i]] = std::move(v);
}

std::map<std::string, Lowering>& lowerings() {
  static std::map<std::string, Lowering> r = [] {
    std::map<std::string, Lowering> m;
    m["QuantizeLinear"] = lower_quantize;
    m["DequantizeLinear"] = lower_dequantize;
    add_mvm_lowerings(m);
    add_elementwise_lowerings(m);
    add_shape_lowerings(m);
    add_pool_lowerings(m);
    return m;
  }();
  return r;
}

std::string supported_ops() {
  std::string s;
  for (const auto& [k, v] : lowerings()) s += (s.empty() ? "" : ", ") + k;
  return s;
}

}  // namespace detail

using namespace detail;

Imported import_graph(const Graph& g, const std::string& file, const ops::Target& target) {
  const ops::TargetScope scope(target);
  if (g.opset < 10 || g.opset > 18)
    throw CompileError({file, 0, 0}, "the model's default-domain opset is " + std::to_string(g.opset) +
                                         "; supported: opsets 10..18 (the operators' semantics of those versions)");
  Imported m;
  std::string stem = std::filesystem::path(file).stem().string();
  m.name = stem.empty() ? "onnx" : stem;
  m.module = A::Module(m.name);
  A::Func f = m.module.prim_func("main");
  Ctx c(g, file);
  for (const auto& o : g.outputs) c.graph_outputs.insert(o.name);
  for (const auto& n : g.nodes)
    for (const auto& i : n.inputs)
      if (!i.empty()) c.consumers[i].push_back(n.index);
  for (const auto& [name, t] : g.initializers) {
    Value v;
    v.kind = Value::Kind::Const;
    v.c = t;
    v.shape = t.dims;
    c.values[name] = v;
  }
  A::Script script(f);
  for (const auto& vi : g.inputs) {
    c.values[vi.name] = graph_input(c, f, vi, m.layouts);
    m.inputs.push_back(vi.name);
  }
  for (const auto& n : g.nodes) {
    c.node = &n;
    if (c.fused.count(n.index)) {
      m.mapping.push_back("node " + std::to_string(n.index + 1) + " '" + n.name + "' (" + n.op_type +
                          ") -> fused into an earlier node");
      continue;
    }
    if (!n.domain.empty() && n.domain != "ai.onnx")
      c.refuse("the domain '" + n.domain + "' is not supported", "the default ONNX domain");
    auto it = lowerings().find(n.op_type);
    if (it == lowerings().end()) c.refuse("the op type is not supported", supported_ops());
    c.ops_of_node.clear();
    c.note.clear();
    it->second(c);
    std::string ops;
    for (const auto& o : c.ops_of_node) ops += (ops.empty() ? "" : " + ") + o;
    std::string line = "node " + std::to_string(n.index + 1) + " '" + n.name + "' (" + n.op_type + ") -> " +
                       (ops.empty() ? "(no device work)" : ops);
    if (!c.note.empty()) line += "  [" + c.note + "]";
    m.mapping.push_back(line);
  }
  c.node = nullptr;
  for (const auto& vi : g.outputs) {
    graph_output(c, vi, m.layouts);
    m.outputs.push_back(vi.name);
  }
  for (auto& fn : c.at_end) fn();
  return m;
}

Imported import_model(const std::filesystem::path& path, const ops::Target& target) {
  Graph g;
  try {
    g = load_graph(path);
  } catch (const OnnxError& e) { throw CompileError({path.string(), 0, 0}, e.what()); }
  return import_graph(g, path.string(), target);
}

std::string describe(const Imported& m) {
  std::string s = "model " + m.name + "\nlayouts:\n";
  for (const auto& l : m.layouts) s += "  " + l + "\n";
  s += "nodes:\n";
  for (const auto& l : m.mapping) s += "  " + l + "\n";
  return s;
}

}  // namespace axcore::compiler::onnx
