// The values an axtap expression computes, and their Python spelling.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "axcore/tap/pattern.hpp"

namespace axcore::tap::cli {

struct Value;

struct None {
  bool silent = false;  // a call made for its effect (visualize, animate): nothing to print
};
// A tuple or a list literal.
struct Seq {
  std::vector<Value> items;
  bool list = false;
};
// A name that can be called: a builtin (`full`, `arange`, `TensorAccessPattern`, ...) or a
// pattern's method bound to it.
struct Callable {
  std::string name;
  std::vector<Value> self;  // empty for a builtin, the pattern for a method
};

struct Value {
  std::variant<None, bool, SymInt, std::string, Seq, Slice, TensorAccessPattern, IntArray, Callable> v;
  template <class T>
  Value(T x) : v(std::move(x)) {}  // NOLINT(google-explicit-constructor)
  Value() : v(None{}) {}
};

// Python's type name of a value, for TypeError messages.
std::string type_name(const Value& v);
// Python's repr (arrays as nested lists, patterns as the seed's printed form).
std::string repr(const Value& v);

// A Python exception raised by the evaluator, printed as `Kind: message`.
struct PyError {
  std::string kind;
  std::string message;
};
[[noreturn]] void raise(const std::string& kind, const std::string& message);

SymInt as_int(const Value& v, const std::string& what);
int64_t as_concrete_int(const Value& v, const std::string& what);
std::vector<SymInt> as_ints(const Value& v, const std::string& what);
const TensorAccessPattern& as_pattern(const Value& v, const std::string& what);
IntArray as_array(const Value& v, const std::string& what);
std::string as_string(const Value& v, const std::string& what);

}  // namespace axcore::tap::cli
