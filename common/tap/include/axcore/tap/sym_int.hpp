// SymInt: an integer known now or at dispatch time.
//
// A SymInt is an affine expression `c + sum(k_i * atom_i)` whose atoms are named runtime
// parameters or, for the rare non-affine step (a product of two staged values, a floor division
// or modulo that does not simplify), an opaque sub-expression. Arithmetic on concrete values folds
// to a plain integer, so a pattern built from ints never holds an expression. Division and modulo
// follow Python (floor) semantics, like the seed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace axcore::tap {

// Runtime parameter values, by name.
using Bindings = std::map<std::string, int64_t, std::less<>>;

class SymInt {
 public:
  SymInt() = default;
  SymInt(int64_t v) : c_(v) {}  // NOLINT(google-explicit-constructor): ints are SymInts
  SymInt(int v) : c_(v) {}      // NOLINT(google-explicit-constructor)

  // A named runtime parameter. Names are identifiers ([A-Za-z_][A-Za-z0-9_]*).
  static SymInt param(std::string name);

  bool is_concrete() const { return terms_.empty(); }
  // The value of a concrete SymInt; throws TypeError for a staged one, naming `what`.
  int64_t value(const char* what = "value") const;
  std::optional<int64_t> constant() const;

  // Evaluates with every parameter bound; throws ValueError naming a missing parameter.
  int64_t eval(const Bindings& params) const;
  // Replaces the bound parameters and folds; unbound ones stay.
  SymInt substitute(const Bindings& params) const;
  // The parameter names the value depends on, sorted.
  std::vector<std::string> params() const;

  // Python spelling: `256 * i + 512`, `(n - 1) // 4`.
  std::string str() const;
  // Structural identity (same expression after canonicalisation).
  bool same_as(const SymInt& o) const { return key() == o.key(); }
  std::string key() const;

  friend SymInt operator+(const SymInt& a, const SymInt& b);
  friend SymInt operator-(const SymInt& a, const SymInt& b);
  friend SymInt operator*(const SymInt& a, const SymInt& b);
  SymInt operator-() const;
  // Python `//` and `%` (floor division, result of % has the sign of the divisor).
  friend SymInt floordiv(const SymInt& a, const SymInt& b);
  friend SymInt mod(const SymInt& a, const SymInt& b);

  struct Atom;

 private:
  struct Term {
    int64_t coeff;
    std::shared_ptr<const Atom> atom;
  };
  int64_t c_ = 0;
  std::vector<Term> terms_;  // sorted by atom key, no zero coefficients

  static SymInt of_atom(std::shared_ptr<const Atom> atom);
  bool is_single_atom() const;
  friend struct SymIntAccess;
};

SymInt floordiv(const SymInt& a, const SymInt& b);
SymInt mod(const SymInt& a, const SymInt& b);

// Python integer helpers with overflow checks (ValueError on int64 overflow).
int64_t checked_add(int64_t a, int64_t b);
int64_t checked_mul(int64_t a, int64_t b);
int64_t py_floordiv(int64_t a, int64_t b);
int64_t py_mod(int64_t a, int64_t b);

// A condition on a SymInt: `expr >= 0` or `expr == 0`.
struct Cond {
  enum class Rel { kNonNegative, kZero };
  SymInt expr;
  Rel rel;
  // The truth value when concrete, nothing when staged.
  std::optional<bool> known() const;
  bool holds(const Bindings& params) const;
};
inline Cond ge(const SymInt& a, const SymInt& b) { return {a - b, Cond::Rel::kNonNegative}; }
inline Cond gt(const SymInt& a, const SymInt& b) { return {a - b - 1, Cond::Rel::kNonNegative}; }
inline Cond le(const SymInt& a, const SymInt& b) { return ge(b, a); }
inline Cond lt(const SymInt& a, const SymInt& b) { return gt(b, a); }
inline Cond eq(const SymInt& a, const SymInt& b) { return {a - b, Cond::Rel::kZero}; }

// A check on staged values, evaluated when the parameters are bound.
struct Guard {
  Cond cond;
  std::string message;
  bool same_as(const Guard& o) const;
};

// The seed's `require`: a concrete false condition throws ValueError(message) now; a staged one
// appends a guard (unless an identical one is there already).
void require(const Cond& cond, const std::string& message, std::vector<Guard>& guards);

// Python spelling of a list of values: `[4, n]`.
std::string show(const std::vector<SymInt>& values);

}  // namespace axcore::tap
