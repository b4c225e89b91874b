// Dispatch-time scalars (issue 24; the seed's DispatchTime[T] and require(cond, message)): one
// compiled bundle that runs at several sizes. The builder reads a dispatch-time scalar where it
// would write an extent (`A::dispatch_time("M")`, an A::DispatchTime that converts to the value of the
// build being made) and states what the program depends on with `A::require(M % 16 == 0, "M must
// be a multiple of 16")`. stage_dispatch() then compiles the program once per admissible value —
// every point of the scalars' declared ranges, each a static build — and writes one bundle: the
// build at the first admissible point, the words and extents that change with the scalars as
// affine expressions of them (the staged BDs and descriptor words of the DISPATCH section), and the
// guards. It proves the result before returning it: binding every point of the domain
// (runtime::bind_dispatch) gives exactly that point's static build, and every refused point is
// refused with the message its build refused it with. A program whose structure changes with a
// scalar (another number of transfers, of ops, a different constant or operator graph) or whose
// words are not affine in it is refused, naming the first place that differs.
//
// Outside stage_dispatch, A::dispatch_time(name) is an error, and A::require on a value known at
// build time checks it there (the seed's fully static specialization: a false guard fails the
// build with its message).
#pragma once

#include <axcore/runtime/bundle.hpp>
#include <concepts>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "axcore/compiler/diag.hpp"

namespace axcore::compiler {

namespace A {

class DispatchTime;
// The dispatch-time scalar `name` in the build being made (stage_dispatch's current point).
DispatchTime dispatch_time(const std::string& name, const source_location& loc = source_location::current());

// An integer known when the build is made, and, when it depends on dispatch-time scalars, how
// (affine in them). Converts to its value, so it stands wherever the builder takes an extent.
class DispatchTime {
 public:
  DispatchTime(int64_t v = 0) : value_(v) { sym_.constant = v; }  // NOLINT: a build-time integer is a DispatchTime
  operator int64_t() const { return value_; }                     // NOLINT: the value of this build
  int64_t value() const { return value_; }
  const runtime::Affine& sym() const { return sym_; }
  bool staged() const { return !sym_.terms.empty(); }

  // Integers on the other side are templates so that `M + 1` prefers these to the built-in
  // operators on the value (which would drop the dependence on M).
  friend DispatchTime operator+(const DispatchTime& a, const DispatchTime& b) { return combine(a, b, 1); }
  friend DispatchTime operator-(const DispatchTime& a, const DispatchTime& b) { return combine(a, b, -1); }
  template <std::integral I>
  friend DispatchTime operator+(const DispatchTime& a, I b) {
    return combine(a, DispatchTime(static_cast<int64_t>(b)), 1);
  }
  template <std::integral I>
  friend DispatchTime operator-(const DispatchTime& a, I b) {
    return combine(a, DispatchTime(static_cast<int64_t>(b)), -1);
  }
  template <std::integral I>
  friend DispatchTime operator*(const DispatchTime& a, I k) {
    return a.scaled(static_cast<int64_t>(k));
  }
  template <std::integral I>
  friend DispatchTime operator*(I k, const DispatchTime& a) {
    return a.scaled(static_cast<int64_t>(k));
  }
  // Exact division by a build-time constant (refused where the coefficients do not divide).
  DispatchTime exact_div(int64_t k, const source_location& loc = source_location::current()) const;

 private:
  friend DispatchTime dispatch_time(const std::string&, const source_location&);
  static DispatchTime combine(const DispatchTime& a, const DispatchTime& b, int64_t sign);
  DispatchTime scaled(int64_t k) const;
  int64_t value_ = 0;
  runtime::Affine sym_;
};

// `e % k` (k > 0, a build-time constant), compared with an integer in a condition.
struct Mod {
  DispatchTime e;
  int64_t k = 1;
};
Mod mod(const DispatchTime& e, int64_t k);
template <std::integral I>
Mod operator%(const DispatchTime& e, I k) {
  return mod(e, static_cast<int64_t>(k));
}

// A condition on dispatch-time values: (expr or its remainder) `op` rhs, with its value in the build
// being made.
struct Cond {
  runtime::Affine expr;
  int64_t modulus = 0;
  runtime::GuardOp op = runtime::GuardOp::EQ;
  int64_t rhs = 0;
  bool value = false;
  explicit operator bool() const { return value; }
};
Cond compare(const DispatchTime& e, runtime::GuardOp op, int64_t v);
Cond compare(const Mod& m, runtime::GuardOp op, int64_t v);
template <std::integral I>
Cond operator>=(const DispatchTime& e, I v) {
  return compare(e, runtime::GuardOp::GE, static_cast<int64_t>(v));
}
template <std::integral I>
Cond operator<=(const DispatchTime& e, I v) {
  return compare(e, runtime::GuardOp::LE, static_cast<int64_t>(v));
}
template <std::integral I>
Cond operator>(const DispatchTime& e, I v) {
  return compare(e, runtime::GuardOp::GT, static_cast<int64_t>(v));
}
template <std::integral I>
Cond operator<(const DispatchTime& e, I v) {
  return compare(e, runtime::GuardOp::LT, static_cast<int64_t>(v));
}
template <std::integral I>
Cond operator==(const DispatchTime& e, I v) {
  return compare(e, runtime::GuardOp::EQ, static_cast<int64_t>(v));
}
template <std::integral I>
Cond operator!=(const DispatchTime& e, I v) {
  return compare(e, runtime::GuardOp::NE, static_cast<int64_t>(v));
}
template <std::integral I>
Cond operator==(const Mod& m, I v) {
  return compare(m, runtime::GuardOp::EQ, static_cast<int64_t>(v));
}
template <std::integral I>
Cond operator!=(const Mod& m, I v) {
  return compare(m, runtime::GuardOp::NE, static_cast<int64_t>(v));
}

// The seed's require(cond, message): a guard on the dispatch-time values. In a static build (a
// condition without scalars) a false one fails the build with `message`; under stage_dispatch the
// point is refused (the bundle refuses a call with these values with `message`).
void require(const Cond& cond, const std::string& message, const source_location& loc = source_location::current());

}  // namespace A

// The refusal of one point by A::require (stage_dispatch records it; elsewhere a CompileError).
class GuardRefusal : public CompileError {
 public:
  using CompileError::CompileError;
};

// One static build at the values of the current point (the generator reads them through
// A::dispatch_time): the bundle compile() returns.
using StaticBuild = std::function<runtime::Bundle()>;

struct StageOptions {
  uint64_t max_points = 4096;  // the domain (product of the ranges) stage_dispatch builds and proves
};
struct StageReport {
  uint64_t points = 0, admissible = 0, refused = 0;
  double ms = 0;  // building and proving, wall
};

// One bundle for every admissible point of `scalars` (see the top of this file). Throws
// CompileError when the domain is larger than max_points, when no point is admissible, when a
// build fails other than by a guard (naming the point), when the structure or a non-affine value
// changes with a scalar (naming the first such word, extent or section), and when the proof fails.
runtime::Bundle stage_dispatch(const std::vector<runtime::DispatchScalar>& scalars, const StaticBuild& build,
                               const StageOptions& opt = {}, StageReport* report = nullptr);

}  // namespace axcore::compiler
