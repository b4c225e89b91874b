#include "util.hpp"

#include <algorithm>

namespace axcore::compiler::ops::detail {

std::string fresh(const std::string& stem) { return stem + std::to_string(A::current_func().generated_names++); }

namespace {
thread_local SourceLoc g_call_loc;
}
const SourceLoc& call_loc() { return g_call_loc; }
CallScope::CallScope(const SourceLoc& loc) : ScopedValue(g_call_loc, loc) {}

}  // namespace axcore::compiler::ops::detail

namespace axcore::compiler::ops {
namespace {
thread_local Target g_target;
}
const Target& target() { return g_target; }
TargetScope::TargetScope(const Target& t) : ScopedValue(g_target, t) {}
}  // namespace axcore::compiler::ops

namespace axcore::compiler::ops::detail {

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "(";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

std::vector<int64_t> logical(const Tensor& t) { return logical_shape(*t.node()); }

bool is_constant(const Tensor& t) { return t && t.node()->root()->role == BufferRole::Constant; }

const std::vector<double>& constant_values(const Call& c, const std::string& arg) {
  const Tensor t = c.tensor(arg);
  if (!is_constant(t))
    c.refuse(arg, t.name() + " is not a constant: the operator lays its values out at build time",
             "give it as a model constant (a seeded init or an .npy file)");
  // A view (reshape) shares its root's values.
  for (const BufferNode* b = t.node().get(); b; b = b->alias_of.get())
    if (!b->data.empty()) return b->data;
  c.refuse(arg, t.name() + " holds no values");
}

Tensor make_constant(const std::string& stem, std::vector<int64_t> packed, const std::string& dtype,
                     std::vector<double> values, std::vector<int64_t> logical_shape) {
  Tensor t = A::alloc_constant(std::move(values), dtype, Scope::DDR, std::move(packed), fresh(stem));
  t.node()->logical_shape = std::move(logical_shape);
  if (call_loc().known()) t.node()->loc = call_loc();
  return t;
}

Tensor scalar_for_ref(const std::string& stem, double v) {
  return make_constant(stem, {1}, "float32x64", std::vector<double>(64, v), {1});
}

Node node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs) {
  Node n;
  n.op = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  return n;
}

void require_dtype(const Call& c, const std::string& arg, const std::vector<std::string>& allowed) {
  const Tensor t = c.tensor(arg);
  if (std::find(allowed.begin(), allowed.end(), t.dtype()) != allowed.end()) return;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  c.refuse(arg, t.name() + " is " + t.dtype() + "; the operator takes " + list);
}

void require_rank(const Call& c, const std::string& arg, std::size_t lo, std::size_t hi) {
  const Tensor t = c.tensor(arg);
  const std::size_t r = t.shape().size();
  if (r >= lo && r <= hi) return;
  c.refuse(arg, t.name() + " has rank " + std::to_string(r) + " (logical shape " + shape_str(logical(t)) +
                    "); the operator takes rank " +
                    (lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi)));
}

std::string base_name(const std::string& dtype) { return dtype.substr(0, dtype.find('x')); }

}  // namespace axcore::compiler::ops::detail
