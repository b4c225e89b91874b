// Dispatch-time scalars: the builder's A::DispatchTime / A::require and stage_dispatch (dispatch.hpp).
#include "axcore/compiler/dispatch.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <utility>

namespace axcore::compiler {

using runtime::Affine;
using runtime::DispatchGuard;
using runtime::GuardOp;

namespace {

// The point stage_dispatch is building, for A::dispatch_time and A::require on this thread.
struct Staging {
  const std::vector<runtime::DispatchScalar>* scalars = nullptr;
  std::vector<int64_t> point;
  std::vector<DispatchGuard> guards;  // the requires the build at `point` made, in order
};
thread_local Staging* current = nullptr;

int64_t checked(int64_t v, bool overflow, const char* what) {
  if (overflow) throw CompileError({}, std::string("dispatch-time arithmetic overflows 64 bits in ") + what);
  return v;
}

// Sorted terms without zero coefficients, so equal expressions compare equal.
Affine normal(std::map<uint32_t, int64_t> terms, int64_t constant) {
  Affine a;
  a.constant = constant;
  for (const auto& [s, c] : terms)
    if (c) a.terms.push_back({s, c});
  return a;
}

std::map<uint32_t, int64_t> term_map(const Affine& a) {
  std::map<uint32_t, int64_t> m;
  for (const auto& t : a.terms) m[t.scalar] += t.coef;
  return m;
}

std::string point_text(const std::vector<runtime::DispatchScalar>& s, const std::vector<int64_t>& p) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + s[i].name + " = " + std::to_string(p[i]);
  return r;
}

}  // namespace

namespace A {

DispatchTime DispatchTime::combine(const DispatchTime& a, const DispatchTime& b, int64_t sign) {
  DispatchTime r;
  int64_t bv = 0, v = 0, c = 0;
  checked(0, __builtin_mul_overflow(b.value_, sign, &bv) || __builtin_add_overflow(a.value_, bv, &v), "+/-");
  r.value_ = v;
  auto m = term_map(a.sym_);
  for (const auto& t : b.sym_.terms) m[t.scalar] += sign * t.coef;
  checked(0, __builtin_mul_overflow(b.sym_.constant, sign, &c) || __builtin_add_overflow(a.sym_.constant, c, &c),
          "+/-");
  r.sym_ = normal(std::move(m), c);
  return r;
}

DispatchTime DispatchTime::scaled(int64_t k) const {
  DispatchTime r;
  checked(0, __builtin_mul_overflow(value_, k, &r.value_), "*");
  std::map<uint32_t, int64_t> m;
  for (const auto& t : sym_.terms) checked(0, __builtin_mul_overflow(t.coef, k, &m[t.scalar]), "*");
  int64_t c = 0;
  checked(0, __builtin_mul_overflow(sym_.constant, k, &c), "*");
  r.sym_ = normal(std::move(m), c);
  return r;
}

DispatchTime DispatchTime::exact_div(int64_t k, const source_location& loc) const {
  const SourceLoc at = SourceLoc::from(loc);
  if (k <= 0) fail(at, "exact_div by " + std::to_string(k) + ": the divisor must be positive");
  bool exact = value_ % k == 0 && sym_.constant % k == 0;
  for (const auto& t : sym_.terms) exact = exact && t.coef % k == 0;
  if (!exact)
    fail(at, "this dispatch-time value is not a multiple of " + std::to_string(k) + " for every value of its scalars",
         "require it first (A::require(M % " + std::to_string(k) + " == 0, ...)) and divide the scalar, not the sum");
  DispatchTime r;
  r.value_ = value_ / k;
  std::map<uint32_t, int64_t> m;
  for (const auto& t : sym_.terms) m[t.scalar] = t.coef / k;
  r.sym_ = normal(std::move(m), sym_.constant / k);
  return r;
}

Mod mod(const DispatchTime& e, int64_t k) {
  if (k <= 0) throw CompileError({}, "a dispatch-time remainder needs a positive modulus, got " + std::to_string(k));
  return {e, k};
}

Cond compare(const DispatchTime& e, GuardOp op, int64_t v) {
  Cond c;
  c.expr = e.sym();
  c.op = op;
  c.rhs = v;
  const int64_t x = e.value();
  switch (op) {
    case GuardOp::GE: c.value = x >= v; break;
    case GuardOp::LE: c.value = x <= v; break;
    case GuardOp::GT: c.value = x > v; break;
    case GuardOp::LT: c.value = x < v; break;
    case GuardOp::EQ: c.value = x == v; break;
    case GuardOp::NE: c.value = x != v; break;
  }
  return c;
}

Cond compare(const Mod& m, GuardOp op, int64_t v) {
  Cond c = compare(DispatchTime(((m.e.value() % m.k) + m.k) % m.k), op, v);
  c.expr = m.e.sym();
  c.modulus = m.k;
  return c;
}

DispatchTime dispatch_time(const std::string& name, const source_location& loc) {
  const SourceLoc at = SourceLoc::from(loc);
  if (!current)
    fail(at, "'" + name + "' is a dispatch-time scalar, and no dispatch-time build is being made",
         "compile the program with stage_dispatch (axc compile does for a model with dispatch_time:), or build it "
         "at a size: pass an integer where it reads the scalar");
  const auto& s = *current->scalars;
  for (uint32_t i = 0; i < s.size(); ++i)
    if (s[i].name == name) {
      DispatchTime e;
      e.value_ = current->point[i];
      e.sym_.terms.push_back({i, 1});
      return e;
    }
  std::string known;
  for (const auto& x : s) known += " " + x.name;
  fail(at, "no dispatch-time scalar is named '" + name + "'", "the program declares:" + known);
}

void require(const Cond& cond, const std::string& message, const source_location& loc) {
  const SourceLoc at = SourceLoc::from(loc);
  if (cond.expr.terms.empty()) {  // a build-time condition: the static specialization checks it now
    if (!cond.value) fail(at, message);
    return;
  }
  DispatchGuard g{cond.expr, cond.modulus, cond.op, cond.rhs, message};
  if (current) current->guards.push_back(g);
  if (!cond.value) throw GuardRefusal(at, message);
}

}  // namespace A

namespace {

// What one admissible point's build gives that may change with the scalars.
struct Varying {
  std::vector<int64_t> point;
  std::vector<uint32_t> txn;
  std::vector<std::vector<uint64_t>> dims;
  std::vector<uint64_t> bytes;
};

Varying varying(const runtime::Bundle& b, std::vector<int64_t> point) {
  Varying v{std::move(point), b.txn, {}, {}};
  for (const auto& buf : b.buffers) {
    v.dims.push_back(buf.shape);
    v.bytes.push_back(buf.layout.bytes);
  }
  return v;
}

// The build at a point with its varying parts replaced by the base's: equal to the base unless its
// structure changed. Returns what differs first, or "".
std::string structure_differs(runtime::Bundle b, const runtime::Bundle& base) {
  if (b.txn.size() != base.txn.size())
    return "its TXN has " + std::to_string(b.txn.size()) + " words, not " + std::to_string(base.txn.size()) +
           ": a dispatch-time value cannot change how many transfers or ops the program has";
  if (b.buffers.size() != base.buffers.size()) return "it has another number of buffers";
  for (size_t i = 0; i < b.buffers.size(); ++i) {
    if (b.buffers[i].shape.size() != base.buffers[i].shape.size())
      return "buffer '" + b.buffers[i].name + "' has another rank";
    b.buffers[i].shape = base.buffers[i].shape;
    b.buffers[i].layout.bytes = base.buffers[i].layout.bytes;
  }
  b.txn = base.txn;
  for (size_t i = 0; i < b.buffers.size(); ++i) {
    const auto &x = b.buffers[i], &y = base.buffers[i];
    const std::string who = "buffer " + std::to_string(i) + " ('" + x.name + "') ";
    if (x.name != y.name || x.role != y.role || x.dtype != y.dtype) return who + "differs in name, role or dtype";
    if (x.layout != y.layout) return who + "has another device layout";
    if (x.arg != y.arg || x.constant != y.constant) return who + "has another argument or constant";
  }
  if (b.constants != base.constants) return "its constants differ (a dispatch-time build streams the same weights)";
  if (b.graph != base.graph) return "its operator graph differs (an attribute depends on the scalar)";
  if (b.params != base.params) return "its runtime parameters differ";
  if (b.commands != base.commands) return "its command streams differ";
  if (b.metadata != base.metadata) return "its metadata differs";
  return "";
}

// value(p) = base + sum coef_i (p_i - base_i), each coef from the admissible point that differs
// from the base in scalar i alone; nullopt when a difference does not divide (not affine).
std::optional<Affine> fit(const std::vector<int64_t>& base, int64_t base_value,
                          const std::vector<const Varying*>& along, const std::vector<int64_t>& along_values) {
  std::map<uint32_t, int64_t> terms;
  int64_t constant = base_value;
  for (uint32_t i = 0; i < along.size(); ++i) {
    if (!along[i]) continue;
    const int64_t dv = along_values[i] - base_value, dp = along[i]->point[i] - base[i];
    if (dv % dp) return std::nullopt;
    terms[i] = dv / dp;
    constant -= terms[i] * base[i];
  }
  return normal(std::move(terms), constant);
}

}  // namespace

runtime::Bundle stage_dispatch(const std::vector<runtime::DispatchScalar>& scalars, const StaticBuild& build,
                               const StageOptions& opt, StageReport* report) {
  const auto t0 = std::chrono::steady_clock::now();
  if (scalars.empty()) throw CompileError({}, "stage_dispatch: no dispatch-time scalars");
  uint64_t points = 1;
  for (const auto& s : scalars) {
    if (s.min > s.max)
      throw CompileError({}, "dispatch-time scalar '" + s.name + "': range [" + std::to_string(s.min) + ", " +
                                 std::to_string(s.max) + "] is empty");
    const auto n = static_cast<uint64_t>(s.max - s.min) + 1;
    if (n > opt.max_points || points * n > opt.max_points)
      throw CompileError({},
                         "the dispatch-time domain has more than " + std::to_string(opt.max_points) +
                             " points; stage_dispatch builds and proves every one",
                         "narrow the ranges (min/max), or raise StageOptions::max_points");
    points *= n;
  }

  // Build every point of the domain (innermost scalar fastest).
  std::optional<runtime::Bundle> base;
  std::vector<Varying> built;
  std::map<std::vector<int64_t>, std::string> refused;
  std::vector<DispatchGuard> guards;
  std::vector<int64_t> p;
  for (const auto& s : scalars) p.push_back(s.min);
  for (uint64_t n = 0; n < points; ++n) {
    Staging st{&scalars, p, {}};
    Staging* saved = std::exchange(current, &st);
    std::optional<runtime::Bundle> b;
    try {
      b = build();
    } catch (const GuardRefusal& e) { refused[p] = e.message(); } catch (const CompileError& e) {
      current = saved;
      throw CompileError(e.loc(), "at " + point_text(scalars, p) + ": " + e.message(), e.hint());
    } catch (...) {
      current = saved;
      throw;
    }
    current = saved;
    if (b) {
      if (!base) base = *b;
      if (const std::string d = structure_differs(*b, *base); !d.empty())
        throw CompileError({}, "the program's structure changes with its dispatch-time scalars: at " +
                                   point_text(scalars, p) + " " + d + " (against the first admissible point, " +
                                   point_text(scalars, built.front().point) + ")");
      built.push_back(varying(*b, p));
    }
    for (const auto& g : st.guards)
      if (std::find(guards.begin(), guards.end(), g) == guards.end()) guards.push_back(g);
    for (size_t i = scalars.size(); i-- > 0;) {  // next point
      if (++p[i] <= scalars[i].max) break;
      p[i] = scalars[i].min;
    }
  }
  if (built.empty())
    throw CompileError({}, "no value of the dispatch-time scalars passes the program's guards (first refusal: \"" +
                               refused.begin()->second + "\")");

  // Fit every word and extent that changes: affine in the scalars, from the base and the
  // admissible points that differ from it in one scalar.
  const Varying& b0 = built.front();
  std::vector<const Varying*> along(scalars.size(), nullptr);
  for (const Varying& v : built)
    for (size_t i = 0; i < scalars.size(); ++i) {
      bool only_i = v.point[i] != b0.point[i];
      for (size_t j = 0; j < scalars.size() && only_i; ++j) only_i = j == i || v.point[j] == b0.point[j];
      if (only_i && !along[i]) along[i] = &v;
    }
  runtime::Bundle out = *base;
  out.dispatch.scalars = scalars;
  out.dispatch.guards = guards;
  auto stage = [&](runtime::StagedKind kind, uint32_t index, uint32_t sub, auto&& value_of, const std::string& who) {
    const int64_t v0 = value_of(b0);
    bool changes = false;
    for (const Varying& v : built) changes = changes || value_of(v) != v0;
    if (!changes) return;
    std::vector<int64_t> vals(scalars.size(), 0);
    for (size_t i = 0; i < scalars.size(); ++i)
      if (along[i]) vals[i] = value_of(*along[i]);
    const auto a = fit(b0.point, v0, along, vals);
    if (!a)
      throw CompileError({}, who + " is not affine in the dispatch-time scalars: " + std::to_string(v0) + " at " +
                                 point_text(scalars, b0.point) + ", not a whole step per unit of the scalar");
    out.dispatch.staged.push_back({kind, index, sub, *a});
  };
  for (uint32_t w = 0; w < b0.txn.size(); ++w)
    stage(
        runtime::StagedKind::TXN_WORD, w, 0, [w](const Varying& v) { return int64_t{v.txn[w]}; },
        "TXN word " + std::to_string(w));
  for (uint32_t i = 0; i < b0.dims.size(); ++i) {
    for (uint32_t d = 0; d < b0.dims[i].size(); ++d)
      stage(
          runtime::StagedKind::BUFFER_DIM, i, d,
          [i, d](const Varying& v) { return static_cast<int64_t>(v.dims[i][d]); },
          "extent " + std::to_string(d) + " of buffer '" + base->buffers[i].name + "'");
    stage(
        runtime::StagedKind::BUFFER_BYTES, i, 0, [i](const Varying& v) { return static_cast<int64_t>(v.bytes[i]); },
        "the footprint of buffer '" + base->buffers[i].name + "'");
  }
  runtime::validate(out);

  // The proof: binding every point gives its static build, or its refusal with the same message.
  auto values_at = [&](const std::vector<int64_t>& pt) {
    runtime::DispatchValues v;
    for (size_t i = 0; i < scalars.size(); ++i) v[scalars[i].name] = pt[i];
    return v;
  };
  for (const Varying& v : built) {
    std::string why;
    try {
      const runtime::Bundle bound = runtime::bind_dispatch(out, values_at(v.point));
      for (size_t w = 0; w < v.txn.size() && why.empty(); ++w)
        if (bound.txn[w] != v.txn[w])
          why = "TXN word " + std::to_string(w) + " is " + std::to_string(bound.txn[w]) + " in the bundle, " +
                std::to_string(v.txn[w]) + " in the static build";
      for (size_t i = 0; i < v.dims.size() && why.empty(); ++i)
        if (bound.buffers[i].shape != v.dims[i] || bound.buffers[i].layout.bytes != v.bytes[i])
          why = "buffer '" + bound.buffers[i].name + "' differs from the static build's";
    } catch (const runtime::DispatchError& e) { why = std::string("the bundle refuses it: ") + e.what(); }
    if (!why.empty())
      throw CompileError({}, "dispatch-time staging is not exact at " + point_text(scalars, v.point) + ": " + why,
                         "a word that is affine at the points fitted is not affine over the whole range: narrow it");
  }
  for (const auto& [pt, message] : refused) {
    std::string got;
    try {
      runtime::bind_dispatch(out, values_at(pt));
      got = "the bundle accepts it";
    } catch (const runtime::DispatchError& e) {
      if (e.what() != message) got = std::string("the bundle refuses it with \"") + e.what() + "\"";
    }
    if (!got.empty())
      throw CompileError({},
                         "dispatch-time staging is not exact at " + point_text(scalars, pt) +
                             ": its build is "
                             "refused with \"" +
                             message + "\", " + got,
                         "a guard depends on a value the program read at build time: state it with A::require on "
                         "the dispatch-time value");
  }
  if (report) {
    report->points = points;
    report->admissible = built.size();
    report->refused = refused.size();
    report->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return out;
}

}  // namespace axcore::compiler
