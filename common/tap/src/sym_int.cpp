#include "axcore/tap/sym_int.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "axcore/tap/errors.hpp"

namespace axcore::tap {

struct SymInt::Atom {
  enum class Kind { kParam, kMul, kFloorDiv, kMod };
  Kind kind;
  std::string name;  // kParam
  SymInt a, b;       // operands otherwise
  std::string key;
};

// Gives this file's helpers access to SymInt's representation.
struct SymIntAccess {
  static const auto& terms(const SymInt& v) { return v.terms_; }
  static auto& terms_mut(SymInt& v) { return v.terms_; }
  static int64_t c(const SymInt& v) { return v.c_; }
  static int64_t& c_mut(SymInt& v) { return v.c_; }
  static SymInt of_atom(std::shared_ptr<const SymInt::Atom> atom) { return SymInt::of_atom(std::move(atom)); }
  static bool is_single_atom(const SymInt& v) { return v.is_single_atom(); }
};

namespace {

using Atom = SymInt::Atom;
using A = SymIntAccess;

[[noreturn]] void overflow() { throw ValueError("integer overflow (the value exceeds 64 bits)"); }

std::shared_ptr<const Atom> make_binary(Atom::Kind kind, SymInt a, SymInt b) {
  static constexpr const char* kTag[] = {"$", "*", "//", "%"};
  std::string ka = a.key(), kb = b.key();
  if (kind == Atom::Kind::kMul && kb < ka) {
    std::swap(a, b);
    std::swap(ka, kb);
  }
  auto atom = std::make_shared<Atom>();
  atom->kind = kind;
  atom->a = std::move(a);
  atom->b = std::move(b);
  atom->key = std::string(kTag[static_cast<int>(kind)]) + "(" + ka + "," + kb + ")";
  return atom;
}

SymInt scale(const SymInt& v, int64_t k) {
  if (k == 0) return SymInt(0);
  SymInt out = v;
  A::c_mut(out) = checked_mul(A::c(v), k);
  for (auto& t : A::terms_mut(out)) t.coeff = checked_mul(t.coeff, k);
  return out;
}

bool divisible_terms(const SymInt& v, int64_t d) {
  return std::all_of(A::terms(v).begin(), A::terms(v).end(), [d](const auto& t) { return t.coeff % d == 0; });
}

int64_t concrete_divisor(const SymInt& b) {
  int64_t d = b.value();
  if (d == 0) throw ValueError("integer division or modulo by zero");
  return d;
}

// `x` as an operand of a binary atom: parenthesised unless it is a lone name or a number.
std::string operand(const SymInt& x) {
  if (x.is_concrete() && x.value() >= 0) return x.str();
  if (A::is_single_atom(x) && A::terms(x)[0].atom->kind == Atom::Kind::kParam) return x.str();
  return "(" + x.str() + ")";
}

std::string atom_str(const Atom& atom) {
  switch (atom.kind) {
    case Atom::Kind::kParam: return atom.name;
    case Atom::Kind::kMul: return operand(atom.a) + " * " + operand(atom.b);
    case Atom::Kind::kFloorDiv: return operand(atom.a) + " // " + operand(atom.b);
    case Atom::Kind::kMod: return operand(atom.a) + " % " + operand(atom.b);
  }
  return {};
}

int64_t atom_eval(const Atom& atom, const Bindings& params) {
  switch (atom.kind) {
    case Atom::Kind::kParam: {
      auto it = params.find(atom.name);
      if (it == params.end()) throw ValueError("parameter '" + atom.name + "' is not bound");
      return it->second;
    }
    case Atom::Kind::kMul: return checked_mul(atom.a.eval(params), atom.b.eval(params));
    case Atom::Kind::kFloorDiv:
    case Atom::Kind::kMod: {
      int64_t x = atom.a.eval(params), d = atom.b.eval(params);
      if (d == 0) throw ValueError("integer division or modulo by zero");
      return atom.kind == Atom::Kind::kMod ? py_mod(x, d) : py_floordiv(x, d);
    }
  }
  return 0;
}

SymInt atom_substitute(const std::shared_ptr<const Atom>& atom, const Bindings& params) {
  switch (atom->kind) {
    case Atom::Kind::kParam: {
      auto it = params.find(atom->name);
      return it == params.end() ? A::of_atom(atom) : SymInt(it->second);
    }
    case Atom::Kind::kMul: return atom->a.substitute(params) * atom->b.substitute(params);
    case Atom::Kind::kFloorDiv: return floordiv(atom->a.substitute(params), atom->b.substitute(params));
    case Atom::Kind::kMod: return mod(atom->a.substitute(params), atom->b.substitute(params));
  }
  return {};
}

void collect_params(const SymInt& v, std::set<std::string>& out) {
  for (const auto& t : A::terms(v)) {
    if (t.atom->kind == Atom::Kind::kParam) {
      out.insert(t.atom->name);
    } else {
      collect_params(t.atom->a, out);
      collect_params(t.atom->b, out);
    }
  }
}

}  // namespace

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) overflow();
  return r;
}

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) overflow();
  return r;
}

int64_t py_floordiv(int64_t a, int64_t b) {
  if (b == 0) throw ValueError("integer division or modulo by zero");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t py_mod(int64_t a, int64_t b) {
  if (b == 0) throw ValueError("integer division or modulo by zero");
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

SymInt SymInt::param(std::string name) {
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char ch : name) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
  if (!ok) throw ValueError("parameter name '" + name + "' is not an identifier");
  auto atom = std::make_shared<Atom>();
  atom->kind = Atom::Kind::kParam;
  atom->key = "$" + name;
  atom->name = std::move(name);
  return of_atom(std::move(atom));
}

SymInt SymInt::of_atom(std::shared_ptr<const Atom> atom) {
  SymInt v;
  v.terms_.push_back({1, std::move(atom)});
  return v;
}

bool SymInt::is_single_atom() const { return c_ == 0 && terms_.size() == 1 && terms_[0].coeff == 1; }

int64_t SymInt::value(const char* what) const {
  if (!is_concrete()) {
    throw TypeError(std::string(what) + " is the dispatch-time value " + str() + "; bind() its parameters first");
  }
  return c_;
}

std::optional<int64_t> SymInt::constant() const {
  if (is_concrete()) return c_;
  return std::nullopt;
}

int64_t SymInt::eval(const Bindings& params) const {
  int64_t r = c_;
  for (const auto& t : terms_) r = checked_add(r, checked_mul(t.coeff, atom_eval(*t.atom, params)));
  return r;
}

SymInt SymInt::substitute(const Bindings& params) const {
  SymInt r(c_);
  for (const auto& t : terms_) r = r + scale(atom_substitute(t.atom, params), t.coeff);
  return r;
}

std::vector<std::string> SymInt::params() const {
  std::set<std::string> names;
  collect_params(*this, names);
  return {names.begin(), names.end()};
}

std::string SymInt::key() const {
  std::string k = std::to_string(c_);
  for (const auto& t : terms_) k += ";" + std::to_string(t.coeff) + "*" + t.atom->key;
  return k;
}

std::string SymInt::str() const {
  if (terms_.empty()) return std::to_string(c_);
  std::string out;
  for (std::size_t i = 0; i < terms_.size(); ++i) {
    const auto& t = terms_[i];
    int64_t k = t.coeff;
    std::string body = atom_str(*t.atom);
    bool divmod = t.atom->kind == Atom::Kind::kFloorDiv || t.atom->kind == Atom::Kind::kMod;
    uint64_t mag = k < 0 ? 0 - static_cast<uint64_t>(k) : static_cast<uint64_t>(k);
    std::string term = mag == 1 ? body : std::to_string(mag) + " * " + (divmod ? "(" + body + ")" : body);
    if (i == 0) {
      out = (k < 0 ? "-" : "") + term;
    } else {
      out += (k < 0 ? " - " : " + ") + term;
    }
  }
  if (c_ > 0) out += " + " + std::to_string(c_);
  if (c_ < 0) out += " - " + std::to_string(0 - static_cast<uint64_t>(c_));
  return out;
}

SymInt operator+(const SymInt& a, const SymInt& b) {
  SymInt r(checked_add(a.c_, b.c_));
  auto ia = a.terms_.begin(), ib = b.terms_.begin();
  while (ia != a.terms_.end() || ib != b.terms_.end()) {
    int cmp = ia == a.terms_.end() ? 1 : ib == b.terms_.end() ? -1 : ia->atom->key.compare(ib->atom->key);
    if (cmp < 0) {
      r.terms_.push_back(*ia++);
    } else if (cmp > 0) {
      r.terms_.push_back(*ib++);
    } else {
      int64_t k = checked_add(ia->coeff, ib->coeff);
      if (k != 0) r.terms_.push_back({k, ia->atom});
      ++ia;
      ++ib;
    }
  }
  return r;
}

SymInt SymInt::operator-() const { return scale(*this, -1); }
SymInt operator-(const SymInt& a, const SymInt& b) { return a + (-b); }

SymInt operator*(const SymInt& a, const SymInt& b) {
  if (a.is_concrete()) return scale(b, a.c_);
  if (b.is_concrete()) return scale(a, b.c_);
  return SymInt::of_atom(make_binary(Atom::Kind::kMul, a, b));
}

SymInt floordiv(const SymInt& a, const SymInt& b) {
  if (b.is_concrete()) {
    int64_t d = concrete_divisor(b);
    if (a.is_concrete()) return py_floordiv(a.c_, d);
    if (d == 1) return a;
    if (divisible_terms(a, d)) {
      SymInt r(py_floordiv(a.c_, d));
      for (const auto& t : a.terms_) r.terms_.push_back({t.coeff / d, t.atom});
      return r;
    }
  }
  return SymInt::of_atom(make_binary(Atom::Kind::kFloorDiv, a, b));
}

SymInt mod(const SymInt& a, const SymInt& b) {
  if (b.is_concrete()) {
    int64_t d = concrete_divisor(b);
    if (a.is_concrete()) return py_mod(a.c_, d);
    if (divisible_terms(a, d)) return py_mod(a.c_, d);
  }
  return SymInt::of_atom(make_binary(Atom::Kind::kMod, a, b));
}

std::optional<bool> Cond::known() const {
  auto v = expr.constant();
  if (!v) return std::nullopt;
  return rel == Rel::kZero ? *v == 0 : *v >= 0;
}

bool Cond::holds(const Bindings& params) const {
  int64_t v = expr.eval(params);
  return rel == Rel::kZero ? v == 0 : v >= 0;
}

bool Guard::same_as(const Guard& o) const {
  return cond.rel == o.cond.rel && message == o.message && cond.expr.same_as(o.cond.expr);
}

void require(const Cond& cond, const std::string& message, std::vector<Guard>& guards) {
  if (auto k = cond.known()) {
    if (!*k) throw ValueError(message);
    return;
  }
  Guard g{cond, message};
  for (const auto& have : guards)
    if (have.same_as(g)) return;
  guards.push_back(std::move(g));
}

std::string show(const std::vector<SymInt>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + values[i].str();
  return out + "]";
}

}  // namespace axcore::tap
