// Dispatch-time scalars: binding a call's values into the concrete bundle it runs (bind_dispatch).
// See bundle.hpp ("Dispatch-time shapes") and docs/runtime.md.
#include <algorithm>
#include <array>
#include <limits>

#include "axcore/runtime/bundle.hpp"

namespace axcore::runtime {
namespace {

[[noreturn]] void refuse(const std::string& msg, int guard = -1) { throw DispatchError(msg, guard); }

int64_t floor_mod(int64_t v, int64_t m) {
  const int64_t r = v % m;
  return r < 0 ? r + m : r;
}

bool holds(int64_t v, GuardOp op, int64_t rhs) {
  switch (op) {
    case GuardOp::GE: return v >= rhs;
    case GuardOp::LE: return v <= rhs;
    case GuardOp::GT: return v > rhs;
    case GuardOp::LT: return v < rhs;
    case GuardOp::EQ: return v == rhs;
    case GuardOp::NE: return v != rhs;
  }
  return false;
}

std::string scalar_list(const Dispatch& d) {
  std::string s;
  for (const auto& x : d.scalars)
    s += " " + x.name + " in [" + std::to_string(x.min) + ", " + std::to_string(x.max) + "]";
  return s;
}

}  // namespace

std::string_view to_string(GuardOp op) {
  constexpr std::array<std::string_view, 6> k = {">=", "<=", ">", "<", "==", "!="};
  const auto i = static_cast<unsigned>(op);
  return i < k.size() ? k[i] : "?";
}

std::string_view to_string(StagedKind k) {
  constexpr std::array<std::string_view, 3> n = {"txn word", "buffer extent", "buffer footprint"};
  const auto i = static_cast<unsigned>(k);
  return i < n.size() ? n[i] : "?";
}

int64_t evaluate(const Affine& a, std::span<const int64_t> values) {
  int64_t v = a.constant;
  for (const auto& t : a.terms) {
    int64_t p = 0;
    if (t.scalar >= values.size() || __builtin_mul_overflow(t.coef, values[t.scalar], &p) ||
        __builtin_add_overflow(v, p, &v))
      refuse("dispatch: an expression overflows 64 bits at these values");
  }
  return v;
}

std::string affine_text(const Affine& a, const std::vector<DispatchScalar>& scalars) {
  // |c| without negating INT64_MIN.
  auto mag = [](int64_t c) { return std::to_string(c < 0 ? 0 - static_cast<uint64_t>(c) : static_cast<uint64_t>(c)); };
  std::string s;
  for (const auto& t : a.terms) {
    const std::string name = t.scalar < scalars.size() ? scalars[t.scalar].name : "?" + std::to_string(t.scalar);
    const int64_t c = t.coef;
    if (s.empty())
      s = c == 1 ? name : c == -1 ? "-" + name : std::to_string(c) + " * " + name;
    else
      s += (c < 0 ? " - " : " + ") + (c == 1 || c == -1 ? name : mag(c) + " * " + name);
  }
  if (s.empty()) return std::to_string(a.constant);
  if (a.constant) s += (a.constant < 0 ? " - " : " + ") + mag(a.constant);
  return s;
}

Bundle bind_dispatch(const Bundle& b, const DispatchValues& values) {
  const Dispatch& d = b.dispatch;
  if (d.empty()) {
    if (!values.empty())
      refuse("dispatch: the bundle has no dispatch-time scalars, the call gives '" + values.begin()->first + "'");
    return b;
  }
  for (const auto& kv : values) {
    const std::string& name = kv.first;
    const bool known = std::any_of(d.scalars.begin(), d.scalars.end(), [&](const auto& s) { return s.name == name; });
    if (!known) refuse("dispatch: unknown dispatch-time scalar '" + name + "'; the bundle's are:" + scalar_list(d));
  }
  std::vector<int64_t> at;
  for (const auto& s : d.scalars) {
    const auto it = values.find(s.name);
    if (it == values.end())
      refuse("dispatch: dispatch-time scalar '" + s.name + "' not given (" + std::to_string(s.min) + " to " +
             std::to_string(s.max) + (s.doc.empty() ? "" : ", " + s.doc) + "): pass --param " + s.name + "=VALUE");
    if (it->second < s.min || it->second > s.max)
      refuse(s.name + " must be in [" + std::to_string(s.min) + ", " + std::to_string(s.max) + "]");
    at.push_back(it->second);
  }
  for (size_t i = 0; i < d.guards.size(); ++i) {
    const DispatchGuard& g = d.guards[i];
    const int64_t e = evaluate(g.expr, at);
    if (!holds(g.modulus ? floor_mod(e, g.modulus) : e, g.op, g.rhs)) refuse(g.message, static_cast<int>(i));
  }
  Bundle out = b;
  out.dispatch = {};
  for (const StagedValue& s : d.staged) {
    const int64_t v = evaluate(s.value, at);
    const std::string who = std::string(to_string(s.kind)) + " " + std::to_string(s.index) + " = " +
                            affine_text(s.value, d.scalars) + " = " + std::to_string(v);
    switch (s.kind) {
      case StagedKind::TXN_WORD:
        if (v < 0 || v > int64_t{std::numeric_limits<uint32_t>::max()})
          refuse("dispatch: " + who + " does not fit its 32-bit word (refused, not truncated)");
        out.txn[s.index] = static_cast<uint32_t>(v);
        break;
      case StagedKind::BUFFER_DIM:
        if (v < 1) refuse("dispatch: " + who + ": an extent must be at least 1");
        out.buffers[s.index].shape[s.sub] = static_cast<uint64_t>(v);
        break;
      case StagedKind::BUFFER_BYTES:
        if (v < 0) refuse("dispatch: " + who + ": a footprint cannot be negative");
        out.buffers[s.index].layout.bytes = static_cast<uint64_t>(v);
        break;
    }
  }
  try {
    validate(out);
  } catch (const BundleError& e) {
    refuse(std::string("dispatch: the bundle at these values is invalid: ") + e.what());
  }
  return out;
}

}  // namespace axcore::runtime
