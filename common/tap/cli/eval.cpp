// Lexer and recursive-descent evaluator for axtap expressions.
#include "eval.hpp"

#include <cctype>

namespace axcore::tap::cli {

namespace {

struct Token {
  enum Kind { kInt, kName, kStr, kOp, kEnd } kind;
  std::string text;
  std::size_t column;  // 1-based
};

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  auto syntax = [&](const std::string& why) { raise("SyntaxError", why + " at column " + std::to_string(i + 1)); };
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    std::size_t start = i;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (c == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) i += 2;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      out.push_back({Token::kInt, std::string(s.substr(start, i - start)), start + 1});
    } else if (c == '\'' || c == '"') {
      std::string text;
      for (++i; i < s.size() && s[i] != c; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        text += s[i];
      }
      if (i >= s.size()) {
        i = start;
        syntax("unterminated string");
      }
      ++i;
      out.push_back({Token::kStr, text, start + 1});
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      out.push_back({Token::kName, std::string(s.substr(start, i - start)), start + 1});
    } else {
      static const char* kOps[] = {"//", "==", "!=", "(", ")", "[", "]", ",", ":", ".", "+", "-", "*", "%", "="};
      bool found = false;
      for (const char* op : kOps) {
        std::string_view o(op);
        if (s.substr(i, o.size()) == o) {
          out.push_back({Token::kOp, std::string(o), start + 1});
          i += o.size();
          found = true;
          break;
        }
      }
      if (!found) syntax(std::string("unexpected character '") + c + "'");
    }
  }
  out.push_back({Token::kEnd, "", s.size() + 1});
  return out;
}

class Parser {
 public:
  Parser(std::string_view src, const Bindings& params) : toks_(lex(src)), params_(params) {}

  Value run() {
    Value v = expr();
    if (peek().kind != Token::kEnd) fail("unexpected '" + peek().text + "'");
    return v;
  }

 private:
  const Token& peek() const { return toks_[pos_]; }
  bool at(const char* op) const { return peek().kind == Token::kOp && peek().text == op; }
  bool accept(const char* op) {
    if (!at(op)) return false;
    ++pos_;
    return true;
  }
  void expect(const char* op) {
    if (!accept(op)) fail(std::string("expected '") + op + "'");
  }
  [[noreturn]] void fail(const std::string& why) const {
    const Token& t = peek();
    raise("SyntaxError",
          (t.kind == Token::kEnd ? why + " at the end" : why + " at column " + std::to_string(t.column)));
  }

  Value expr() {
    Value a = arith();
    if (at("==") || at("!=")) {
      bool negate = peek().text == "!=";
      ++pos_;
      Value b = arith();
      bool same = repr(a) == repr(b) && type_name(a) == type_name(b);
      const auto* pa = std::get_if<TensorAccessPattern>(&a.v);
      const auto* pb = std::get_if<TensorAccessPattern>(&b.v);
      if (pa && pb) same = *pa == *pb;
      return Value(same != negate);
    }
    return a;
  }

  Value arith() {
    Value v = term();
    while (at("+") || at("-")) {
      bool plus = peek().text == "+";
      ++pos_;
      Value r = term();
      v = plus ? as_int(v, "operand of +") + as_int(r, "operand of +")
               : as_int(v, "operand of -") - as_int(r, "operand of -");
    }
    return v;
  }

  Value term() {
    Value v = unary();
    while (at("*") || at("//") || at("%")) {
      std::string op = peek().text;
      ++pos_;
      Value r = unary();
      SymInt a = as_int(v, "operand of " + op), b = as_int(r, "operand of " + op);
      if (op == "*") {
        v = a * b;
      } else {
        if (b.constant() == 0) raise("ZeroDivisionError", "integer division or modulo by zero");
        v = op == "//" ? floordiv(a, b) : mod(a, b);
      }
    }
    return v;
  }

  Value unary() {
    if (accept("-")) return -as_int(unary(), "operand of unary -");
    if (accept("+")) return as_int(unary(), "operand of unary +");
    return postfix();
  }

  Value postfix() {
    Value v = primary();
    for (;;) {
      if (accept(".")) {
        if (peek().kind != Token::kName) fail("expected an attribute name");
        v = attribute(v, toks_[pos_++].text);
      } else if (accept("(")) {
        const auto* c = std::get_if<Callable>(&v.v);
        if (!c) raise("TypeError", "'" + type_name(v) + "' object is not callable");
        Callable callee = *c;
        std::vector<Value> args;
        Kwargs kwargs;
        while (!at(")")) {
          if (peek().kind == Token::kName && toks_[pos_ + 1].kind == Token::kOp && toks_[pos_ + 1].text == "=") {
            std::string key = toks_[pos_].text;
            pos_ += 2;
            kwargs.emplace_back(key, expr());
          } else {
            if (!kwargs.empty()) fail("positional argument follows keyword argument");
            args.push_back(expr());
          }
          if (!accept(",")) break;
        }
        expect(")");
        v = call(callee, std::move(args), std::move(kwargs));
      } else if (accept("[")) {
        std::vector<Value> items;
        do {
          if (at("]")) break;
          items.push_back(subscript_item());
        } while (accept(","));
        expect("]");
        v = subscript(v, std::move(items));
      } else {
        return v;
      }
    }
  }

  std::optional<SymInt> bound() {
    if (at(":") || at("]") || at(",")) return std::nullopt;
    return as_int(expr(), "slice bound");
  }

  Value subscript_item() {
    std::optional<SymInt> start = bound();
    if (!accept(":")) {
      if (!start) fail("expected an index");
      return *start;
    }
    Slice s;
    s.start = start;
    s.stop = bound();
    if (accept(":")) s.step = bound();
    return s;
  }

  Value primary() {
    const Token& t = peek();
    if (t.kind == Token::kInt) {
      ++pos_;
      try {
        std::size_t used = 0;
        int64_t v = std::stoll(t.text, &used, 0);
        if (used != t.text.size()) throw std::invalid_argument(t.text);
        return SymInt(v);
      } catch (const std::exception&) {
        --pos_;
        fail("invalid integer literal '" + t.text + "'");
      }
    }
    if (t.kind == Token::kStr) {
      ++pos_;
      return std::string(t.text);
    }
    if (t.kind == Token::kName) {
      ++pos_;
      if (t.text == "None") return None{};
      if (t.text == "True") return true;
      if (t.text == "False") return false;
      Value b = builtin(t.text);
      if (!std::holds_alternative<None>(b.v)) return b;
      auto it = params_.find(t.text);
      if (it != params_.end()) return SymInt(it->second);
      return SymInt::param(t.text);
    }
    if (accept("(")) {
      Seq s;
      bool comma = false;
      while (!at(")")) {
        s.items.push_back(expr());
        if (!accept(",")) break;
        comma = true;
      }
      expect(")");
      if (s.items.size() == 1 && !comma) return s.items[0];  // parenthesised expression
      return s;
    }
    if (accept("[")) {
      Seq s;
      s.list = true;
      while (!at("]")) {
        s.items.push_back(expr());
        if (!accept(",")) break;
      }
      expect("]");
      return s;
    }
    fail(t.kind == Token::kEnd ? "expected an expression" : "unexpected '" + t.text + "'");
  }

  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  const Bindings& params_;
};

}  // namespace

Value evaluate(std::string_view source, const Bindings& params) { return Parser(source, params).run(); }

}  // namespace axcore::tap::cli
