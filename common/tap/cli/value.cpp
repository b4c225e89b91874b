#include "value.hpp"

namespace axcore::tap::cli {

void raise(const std::string& kind, const std::string& message) { throw PyError{kind, message}; }

std::string type_name(const Value& v) {
  struct {
    std::string operator()(const None&) { return "NoneType"; }
    std::string operator()(bool) { return "bool"; }
    std::string operator()(const SymInt&) { return "int"; }
    std::string operator()(const std::string&) { return "str"; }
    std::string operator()(const Seq& s) { return s.list ? "list" : "tuple"; }
    std::string operator()(const Slice&) { return "slice"; }
    std::string operator()(const TensorAccessPattern&) { return "TensorAccessPattern"; }
    std::string operator()(const IntArray&) { return "ndarray"; }
    std::string operator()(const Callable& c) { return c.self.empty() ? "builtin_function_or_method" : "method"; }
  } visitor;
  return std::visit(visitor, v.v);
}

std::string repr(const Value& v) {
  struct {
    std::string operator()(const None&) { return "None"; }
    std::string operator()(bool b) { return b ? "True" : "False"; }
    std::string operator()(const SymInt& i) { return i.str(); }
    std::string operator()(const std::string& s) {
      std::string out = "'";
      for (char c : s) out += c == '\'' ? std::string("\\'") : c == '\\' ? std::string("\\\\") : std::string(1, c);
      return out + "'";
    }
    std::string operator()(const Seq& s) {
      std::string out = s.list ? "[" : "(";
      for (std::size_t i = 0; i < s.items.size(); ++i) out += (i ? ", " : "") + repr(s.items[i]);
      if (!s.list && s.items.size() == 1) out += ",";
      return out + (s.list ? "]" : ")");
    }
    std::string operator()(const Slice& s) {
      auto part = [](const std::optional<SymInt>& x) { return x ? x->str() : std::string("None"); };
      return "slice(" + part(s.start) + ", " + part(s.stop) + ", " + part(s.step) + ")";
    }
    std::string operator()(const TensorAccessPattern& p) { return p.str(); }
    std::string operator()(const IntArray& a) { return a.to_list(); }
    std::string operator()(const Callable& c) { return "<" + type_name(Value(c)) + " " + c.name + ">"; }
  } visitor;
  return std::visit(visitor, v.v);
}

SymInt as_int(const Value& v, const std::string& what) {
  if (const auto* i = std::get_if<SymInt>(&v.v)) return *i;
  if (const auto* b = std::get_if<bool>(&v.v)) return SymInt(*b ? 1 : 0);
  raise("TypeError", what + " must be an integer, not '" + type_name(v) + "'");
}

int64_t as_concrete_int(const Value& v, const std::string& what) {
  SymInt i = as_int(v, what);
  if (!i.is_concrete()) raise("TypeError", what + " must be a compile-time int, got " + i.str());
  return i.value();
}

std::vector<SymInt> as_ints(const Value& v, const std::string& what) {
  const auto* s = std::get_if<Seq>(&v.v);
  if (!s) raise("TypeError", "'" + type_name(v) + "' object is not iterable (" + what + ")");
  std::vector<SymInt> out;
  for (const auto& item : s->items) out.push_back(as_int(item, what));
  return out;
}

const TensorAccessPattern& as_pattern(const Value& v, const std::string& what) {
  if (const auto* p = std::get_if<TensorAccessPattern>(&v.v)) return *p;
  raise("TypeError", what + " needs a TensorAccessPattern, got '" + type_name(v) + "'");
}

IntArray as_array(const Value& v, const std::string& what) {
  if (const auto* a = std::get_if<IntArray>(&v.v)) return *a;
  if (std::holds_alternative<Seq>(v.v)) {
    std::vector<int64_t> data;
    for (const auto& i : as_ints(v, what)) data.push_back(i.value(what.c_str()));
    return IntArray{{static_cast<int64_t>(data.size())}, data};
  }
  raise("TypeError", what + " must be an array or a list of ints, not '" + type_name(v) + "'");
}

}  // namespace axcore::tap::cli

namespace axcore::tap::cli {

std::string as_string(const Value& v, const std::string& what) {
  if (const auto* s = std::get_if<std::string>(&v.v)) return *s;
  raise("TypeError", what + " must be a str, not '" + type_name(v) + "'");
}

}  // namespace axcore::tap::cli
