// The IR text parser: a line-oriented recursive-descent reader of what printer.cpp writes.
// Blocks are delimited by indentation (as in the guide's Python); each line is lexed on its own.
#include "axcore/compiler/parser.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace axcore::compiler {
namespace {

enum class Tok : uint8_t { Ident, Int, Float, Str, Punct, End };
struct Token {
  Tok kind = Tok::End;
  std::string text;
  int64_t ival = 0;
  double fval = 0;
  uint32_t col = 0;
};

struct Line {
  uint32_t no = 0;
  int indent = 0;
  std::string text;
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> out;
  uint32_t no = 0;
  std::size_t p = 0;
  while (p <= text.size()) {
    const std::size_t e = std::min(text.find('\n', p), text.size());
    std::string_view l = text.substr(p, e - p);
    ++no;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    std::size_t ind = 0;
    while (ind < l.size() && l[ind] == ' ') ++ind;
    if (ind < l.size()) out.push_back({no, static_cast<int>(ind), std::string(l.substr(ind))});
    if (e == text.size()) break;
    p = e + 1;
  }
  return out;
}

const char* kPuncts[] = {"//", "<=", ">=", "==", "!=", "+=", "(", ")", "[", "]", ",",
                         ":",  "=",  ".",  "+",  "-",  "*",  "%", "<", ">", "@"};

class Parser {
 public:
  Parser(std::string_view text, std::string file) : file_(std::move(file)), lines_(split_lines(text)) {}

  std::shared_ptr<Module> module() {
    auto m = std::make_shared<Module>();
    begin_line();
    expect_punct("@");
    expect_word("A");
    expect_punct(".");
    expect_word("ir_module");
    end_line();
    begin_line();
    const int indent = line().indent;
    expect_word("class");
    m->name = expect_ident("the module name");
    expect_punct(":");
    end_line();
    while (idx_ < lines_.size() && lines_[idx_].indent > indent) m->funcs.push_back(func());
    if (m->funcs.empty()) error_at_line("expected an indented @A.prim_func inside the module");
    if (idx_ < lines_.size()) error_at_line("unexpected text after the module");
    return m;
  }

  std::shared_ptr<PrimFunc> single_func() {
    auto f = func();
    if (idx_ < lines_.size()) error_at_line("unexpected text after the prim_func");
    return f;
  }

 private:
  // ---- lines and tokens ---------------------------------------------------------------------
  const Line& line() const { return lines_.at(idx_); }

  void begin_line() {
    if (idx_ >= lines_.size())
      fail({file_, lines_.empty() ? 1 : lines_.back().no + 1, 1}, "IR: unexpected end of text");
    lex(line());
    tp_ = 0;
  }
  void end_line() {
    if (peek().kind != Tok::End) error("unexpected '" + peek().text + "' at the end of the line");
    ++idx_;
  }

  void lex(const Line& l) {
    toks_.clear();
    const std::string& s = l.text;
    std::size_t i = 0;
    auto col = [&](std::size_t at) { return static_cast<uint32_t>(l.indent + at + 1); };
    while (i < s.size()) {
      const char c = s[i];
      if (c == ' ' || c == '\t') {
        ++i;
        continue;
      }
      Token t;
      t.col = col(i);
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::size_t j = i;
        while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
        t.kind = Tok::Ident;
        t.text = s.substr(i, j - i);
        i = j;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        std::size_t j = i;
        bool is_float = false;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        if (j < s.size() && s[j] == '.' && j + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[j + 1]))) {
          is_float = true;
          ++j;
          while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        }
        if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
          std::size_t k = j + 1;
          if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
          if (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
            is_float = true;
            j = k;
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
          }
        }
        t.text = s.substr(i, j - i);
        if (is_float) {
          t.kind = Tok::Float;
          const auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), t.fval);
          if (r.ec != std::errc()) fail(loc(t), "IR: bad number '" + t.text + "'");
        } else {
          t.kind = Tok::Int;
          const auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), t.ival);
          if (r.ec != std::errc()) fail(loc(t), "IR: integer '" + t.text + "' is out of range");
          t.fval = static_cast<double>(t.ival);
        }
        i = j;
      } else if (c == '"') {
        const std::size_t j = s.find('"', i + 1);
        if (j == std::string::npos) fail(loc(t), "IR: unterminated string");
        t.kind = Tok::Str;
        t.text = s.substr(i + 1, j - i - 1);
        i = j + 1;
      } else {
        bool found = false;
        for (const char* p : kPuncts) {
          const std::size_t n = std::char_traits<char>::length(p);
          if (s.compare(i, n, p) == 0) {
            t.kind = Tok::Punct;
            t.text = p;
            i += n;
            found = true;
            break;
          }
        }
        if (!found) fail(loc(t), std::string("IR: unexpected character '") + c + "'");
      }
      toks_.push_back(std::move(t));
    }
    Token end;
    end.col = col(s.size());
    toks_.push_back(end);
  }

  const Token& peek(std::size_t k = 0) const { return toks_.at(std::min(tp_ + k, toks_.size() - 1)); }
  Token next() {
    Token t = peek();
    if (tp_ + 1 < toks_.size()) ++tp_;
    return t;
  }
  bool is_punct(const char* p, std::size_t k = 0) const { return peek(k).kind == Tok::Punct && peek(k).text == p; }
  bool is_word(const char* w, std::size_t k = 0) const { return peek(k).kind == Tok::Ident && peek(k).text == w; }
  bool accept(const char* p) {
    if (!is_punct(p)) return false;
    next();
    return true;
  }
  SourceLoc loc(const Token& t) const { return {file_, idx_ < lines_.size() ? line().no : 0, t.col}; }
  SourceLoc here() const { return loc(peek()); }
  [[noreturn]] void error(const std::string& m) const {
    const Token& t = peek();
    fail(loc(t), "IR: " + m + (t.kind == Tok::End ? " (at the end of the line)" : " (at '" + t.text + "')"));
  }
  [[noreturn]] void error_at_line(const std::string& m) const {
    if (idx_ >= lines_.size()) fail({file_, lines_.empty() ? 1 : lines_.back().no + 1, 1}, "IR: " + m);
    fail({file_, line().no, static_cast<uint32_t>(line().indent + 1)}, "IR: " + m);
  }
  void expect_punct(const char* p) {
    if (!accept(p)) error(std::string("expected '") + p + "'");
  }
  void expect_word(const char* w) {
    if (!is_word(w)) error(std::string("expected '") + w + "'");
    next();
  }
  std::string expect_ident(const char* what) {
    if (peek().kind != Tok::Ident) error(std::string("expected ") + what);
    return next().text;
  }
  std::string expect_str(const char* what) {
    if (peek().kind != Tok::Str) error(std::string("expected ") + what + " (a quoted string)");
    return next().text;
  }
  int64_t expect_int(const char* what) {
    const bool neg = accept("-");
    if (peek().kind != Tok::Int) error(std::string("expected ") + what + " (an integer)");
    const int64_t v = next().ival;
    return neg ? -v : v;
  }
  double expect_number(const char* what) {
    const bool neg = accept("-");
    double v = 0;
    if (peek().kind == Tok::Int || peek().kind == Tok::Float)
      v = next().fval;
    else if (is_word("inf"))
      next(), v = std::numeric_limits<double>::infinity();
    else if (is_word("nan"))
      next(), v = std::numeric_limits<double>::quiet_NaN();
    else
      error(std::string("expected ") + what + " (a number)");
    return neg ? -v : v;
  }
  // A dotted name: `inp.view12`, `s3.pop`, `A.cast` (the components).
  std::vector<std::string> chain() {
    std::vector<std::string> c{expect_ident("a name")};
    while (is_punct(".") && peek(1).kind == Tok::Ident) {
      next();
      c.push_back(next().text);
    }
    return c;
  }
  static std::string join(const std::vector<std::string>& c, std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < std::min(n, c.size()); ++i) s += (i ? "." : "") + c[i];
    return s;
  }

  std::vector<int64_t> shape() {
    expect_punct("(");
    std::vector<int64_t> s;
    while (!is_punct(")")) {
      s.push_back(expect_int("an extent"));
      if (!accept(",")) break;
    }
    expect_punct(")");
    return s;
  }
  std::vector<std::string> str_list() {
    expect_punct("[");
    std::vector<std::string> v;
    while (!is_punct("]")) {
      v.push_back(expect_str("an id"));
      if (!accept(",")) break;
    }
    expect_punct("]");
    return v;
  }
  // `[a, b] + [v] * n + ...`
  std::vector<double> values() {
    std::vector<double> v;
    do {
      expect_punct("[");
      std::vector<double> part;
      while (!is_punct("]")) {
        part.push_back(expect_number("a value"));
        if (!accept(",")) break;
      }
      expect_punct("]");
      int64_t times = 1;
      if (accept("*")) times = expect_int("a repeat count");
      if (times < 0) error("a negative repeat count");
      for (int64_t k = 0; k < times; ++k) v.insert(v.end(), part.begin(), part.end());
    } while (accept("+"));
    return v;
  }
  Scope scope_value() {
    expect_word("A");
    expect_punct(".");
    const std::string s = expect_ident("a scope");
    const auto sc = parse_scope(s);
    if (!sc) error("unknown scope A." + s);
    return *sc;
  }
  DType dtype_value(const char* what) {
    const Token t = peek();
    const std::string s = expect_str(what);
    return DType::parse(s, loc(t));
  }

  // ---- symbols ---------------------------------------------------------------------------------
  Buffer& declare(const std::string& name, const SourceLoc& at) {
    if (bufs_.count(name)) fail(at, "IR: '" + name + "' is declared twice");
    return bufs_[name];
  }
  Buffer buffer(const std::string& name, const SourceLoc& at) const {
    auto it = bufs_.find(name);
    if (it == bufs_.end()) fail(at, "IR: unknown buffer '" + name + "'");
    return it->second;
  }
  Stream stream(const std::string& name, const SourceLoc& at) const {
    auto it = streams_.find(name);
    if (it == streams_.end()) fail(at, "IR: unknown stream '" + name + "'");
    return it->second;
  }
  Var loop_var(const std::string& name) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      auto it = s->find(name);
      if (it != s->end()) return it->second;
    }
    return nullptr;
  }
  Buffer accumulator(const std::string& name, const SourceLoc& at) {
    auto it = bufs_.find(name);
    if (it != bufs_.end()) {
      if (it->second->role != BufferRole::Accumulator) fail(at, "IR: '" + name + "' is not the MVM accumulator");
      return it->second;
    }
    auto b = std::make_shared<BufferNode>();
    b->name = name;
    b->shape = {1};
    b->dtype = DType::parse("int32x64");
    b->scope = Scope::MVM_ACCUMULATOR;
    b->role = BufferRole::Accumulator;
    b->is_var = true;
    b->loc = at;
    bufs_[name] = b;
    return b;
  }

  // ---- functions -------------------------------------------------------------------------------
  std::shared_ptr<PrimFunc> func() {
    bufs_.clear();
    streams_.clear();
    scopes_.clear();
    auto f = std::make_shared<PrimFunc>();
    f_ = f.get();
    begin_line();
    const int indent = line().indent;
    expect_punct("@");
    expect_word("A");
    expect_punct(".");
    expect_word("prim_func");
    end_line();
    begin_line();
    if (line().indent != indent) error_at_line("the def follows its @A.prim_func at the same indentation");
    f->loc = here();
    expect_word("def");
    f->name = expect_ident("the function name");
    expect_punct("(");
    while (!is_punct(")")) {
      const SourceLoc at = here();
      auto b = std::make_shared<BufferNode>();
      b->name = join(chain(), std::numeric_limits<std::size_t>::max());
      b->loc = at;
      b->role = BufferRole::Input;
      expect_punct(":");
      expect_word("A");
      expect_punct(".");
      expect_word("Buffer");
      expect_punct("(");
      b->shape = shape();
      expect_punct(",");
      b->dtype = dtype_value("the dtype");
      expect_punct(",");
      expect_word("scope");
      expect_punct("=");
      b->scope = scope_value();
      buffer_extras(*b);
      expect_punct(")");
      declare(b->name, at) = b;
      f->params.push_back(b);
      if (!accept(",")) break;
    }
    expect_punct(")");
    expect_punct(":");
    end_line();
    f->body = make_stmt(StmtKind::Seq, f->loc);
    child_body(indent, f->body->body);
    return f;
  }

  void buffer_extras(BufferNode& b) {
    while (accept(",")) {
      const std::string k = expect_ident("a keyword argument");
      expect_punct("=");
      if (k == "logical_shape")
        b.logical_shape = shape();
      else if (k == "core")
        b.core = static_cast<int>(expect_int("a core"));
      else if (k == "scope")
        b.scope = scope_value();
      else if (k == "shape")
        b.shape = shape();
      else
        error("unknown buffer argument '" + k + "'");
    }
  }

  // A block's statements: the lines indented deeper than `parent`, all at one indentation.
  void child_body(int parent, std::vector<Stmt>& out) {
    if (idx_ >= lines_.size() || lines_[idx_].indent <= parent) error_at_line("expected an indented block");
    const int indent = lines_[idx_].indent;
    while (idx_ < lines_.size() && lines_[idx_].indent >= indent) {
      if (lines_[idx_].indent > indent) error_at_line("unexpected indentation");
      statement(out);
    }
  }

  // ---- statements ------------------------------------------------------------------------------
  void statement(std::vector<Stmt>& out) {
    const Line& l = line();
    if (l.text[0] == '#') {
      if (l.text.rfind("# op ", 0) == 0) {
        auto s = make_stmt(StmtKind::OpMarker, {file_, l.no, static_cast<uint32_t>(l.indent + 1)});
        s->id = l.text.substr(5);
        out.push_back(s);
      }
      ++idx_;
      return;
    }
    begin_line();
    const SourceLoc at = here();
    if (is_word("pass")) {
      next();
      end_line();
      return;
    }
    if (is_word("for")) return for_loop(out);
    if (is_word("with")) return with_block(out);
    if (is_word("A") && is_punct(".", 1)) return a_call(out, at);
    std::vector<std::string> c = chain();
    if (c.size() > 1 && c.back() == "push" && is_punct("(")) {
      auto s = make_stmt(StmtKind::Push, at);
      s->stream = stream(join(c, c.size() - 1), at);
      expect_punct("(");
      s->value = expr();
      expect_punct(")");
      end_line();
      out.push_back(s);
      return;
    }
    const std::string name = join(c, c.size());
    if (accept("+=")) {
      auto s = make_stmt(StmtKind::Accum, at);
      s->buf = accumulator(name, at);
      s->value = expr();
      end_line();
      out.push_back(s);
      return;
    }
    if (accept("[")) {
      auto s = make_stmt(StmtKind::Store, at);
      s->buf = buffer(name, at);
      s->indices = index_list();
      expect_punct("=");
      s->value = expr();
      end_line();
      out.push_back(s);
      return;
    }
    expect_punct("=");
    assignment(out, name, at);
  }

  std::vector<Expr> index_list() {
    std::vector<Expr> idx;
    while (!is_punct("]")) {
      idx.push_back(expr());
      if (!accept(",")) break;
    }
    expect_punct("]");
    return idx;
  }

  // NAME = <declaration> | NAME = value (an A.var register).
  void assignment(std::vector<Stmt>& out, const std::string& name, const SourceLoc& at) {
    if (is_word("A") && is_punct(".", 1) && peek(2).kind == Tok::Ident) {
      const std::string fn = peek(2).text;
      if (fn == "alloc_buffer" || fn == "alloc_constant" || fn == "alloc_imc" || fn == "decl_stream" || fn == "var" ||
          fn == "array") {
        next(), next(), next();
        expect_punct("(");
        declaration(out, fn, name, at);
        expect_punct(")");
        end_line();
        return;
      }
    }
    // BASE.reshape((...))
    const std::size_t save = tp_;
    if (peek().kind == Tok::Ident) {
      std::vector<std::string> c = chain();
      if (c.size() > 1 && c.back() == "reshape" && accept("(")) {
        const Buffer base = buffer(join(c, c.size() - 1), at);
        auto v = std::make_shared<BufferNode>(*base);
        v->name = name;
        v->shape = shape();
        v->alias_of = base;
        v->data.clear();
        v->loc = at;
        expect_punct(")");
        end_line();
        declare(name, at) = v;
        f_->buffers.push_back(v);
        return;
      }
    }
    tp_ = save;
    auto s = make_stmt(StmtKind::Store, at);
    s->buf = buffer(name, at);
    if (!s->buf->is_var) fail(at, "IR: '" + name + "' is not an A.var register: store into it with an index");
    s->value = expr();
    end_line();
    out.push_back(s);
  }

  void declaration(std::vector<Stmt>& out, const std::string& fn, const std::string& name, const SourceLoc& at) {
    if (fn == "decl_stream") {
      auto s = std::make_shared<StreamNode>();
      s->name = name;
      s->dtype = dtype_value("the stream dtype");
      s->loc = at;
      if (accept(",")) {
        expect_word("scope");
        expect_punct("=");
        s->scope = expect_str("the stream scope");
      }
      if (streams_.count(name)) fail(at, "IR: stream '" + name + "' is declared twice");
      streams_[name] = s;
      f_->streams.push_back(s);
      return;
    }
    if (fn == "var" || fn == "array") {
      const DType d = dtype_value("the register dtype");
      int64_t size = 1;
      if (fn == "array") {
        expect_punct(",");
        expect_word("size");
        expect_punct("=");
        size = expect_int("the register count");
      }
      Buffer b;
      auto it = bufs_.find(name);
      if (it != bufs_.end()) {
        // An unrolled or sunk body repeats the declaration of the same register file.
        b = it->second;
        if (b->role != BufferRole::Register || b->is_var != (fn == "var") || b->dtype != d || b->shape[0] != size)
          fail(at, "IR: register '" + name + "' is declared again with another form");
      } else {
        b = std::make_shared<BufferNode>();
        b->name = name;
        b->shape = {size};
        b->dtype = d;
        b->scope = Scope::DPU_REGISTERS;
        b->role = BufferRole::Register;
        b->is_var = fn == "var";
        b->loc = at;
        bufs_[name] = b;
      }
      auto s = make_stmt(StmtKind::DeclReg, at);
      s->buf = b;
      out.push_back(s);
      return;
    }
    auto b = std::make_shared<BufferNode>();
    b->name = name;
    b->loc = at;
    if (fn == "alloc_imc") {
      b->shape = shape();
      b->dtype = DType::parse("int8x4096");
      b->scope = Scope::IMC;
      b->role = BufferRole::Imc;
      if (accept(",")) {
        expect_word("core");
        expect_punct("=");
        b->core = static_cast<int>(expect_int("a core"));
      }
    } else if (fn == "alloc_constant") {
      b->role = BufferRole::Constant;
      b->data = values();
      expect_punct(",");
      b->dtype = dtype_value("the dtype");
      buffer_extras(*b);
      if (static_cast<int64_t>(b->data.size()) != b->elements() * b->dtype.lanes)
        fail(at, "IR: " + std::to_string(b->data.size()) + " values for constant '" + name + "' of " +
                     std::to_string(b->elements()) + " x " + std::to_string(b->dtype.lanes) + " lanes");
    } else {
      b->role = BufferRole::Local;
      b->shape = shape();
      expect_punct(",");
      b->dtype = dtype_value("the dtype");
      buffer_extras(*b);
    }
    declare(name, at) = b;
    f_->buffers.push_back(b);
  }

  void for_loop(std::vector<Stmt>& out) {
    const int indent = line().indent;
    const SourceLoc at = here();
    expect_word("for");
    auto s = make_stmt(StmtKind::For, at);
    s->var = std::make_shared<VarNode>();
    s->var->name = expect_ident("the loop variable");
    expect_word("in");
    expect_word("A");
    expect_punct(".");
    const std::string k = expect_ident("grid, serial or unroll");
    if (k == "grid")
      s->loop = LoopKind::Grid;
    else if (k == "serial")
      s->loop = LoopKind::Serial;
    else if (k == "unroll")
      s->loop = LoopKind::Unroll;
    else if (k == "tiles")
      s->tiles = TileBounds{};
    else
      error("expected A.grid, A.serial, A.unroll or A.tiles");
    expect_punct("(");
    const int64_t a = expect_int("the extent");
    if (accept(",") && peek().kind != Tok::Ident) {
      const int64_t b = expect_int("the stop");
      s->start = a;
      s->extent = b - a;
      accept(",");
    } else {
      s->extent = a;
    }
    while (s->tiles && peek().kind == Tok::Ident) {
      const std::string n = next().text;
      expect_punct("=");
      const int64_t v = expect_int("a bound");
      if (n == "tile_min")
        s->tiles->tile_min = v;
      else if (n == "tile_max")
        s->tiles->tile_max = v;
      else if (n == "num_tiles")
        s->tiles->num_tiles = v;
      else if (n == "drain")
        s->tiles->drain = v;
      else
        error("A.tiles takes tile_min=, tile_max=, num_tiles= and drain=");
      if (!accept(",")) break;
    }
    expect_punct(")");
    expect_punct(":");
    end_line();
    scopes_.push_back({{s->var->name, s->var}});
    child_body(indent, s->body);
    scopes_.pop_back();
    out.push_back(s);
  }

  struct Kw {
    std::optional<int64_t> num;
    std::optional<std::string> str, name;
    SourceLoc at;
  };
  std::map<std::string, Kw> kwargs() {
    std::map<std::string, Kw> kw;
    expect_punct("(");
    while (!is_punct(")")) {
      const std::string k = expect_ident("a keyword argument");
      expect_punct("=");
      Kw v;
      v.at = here();
      if (peek().kind == Tok::Str)
        v.str = next().text;
      else if (peek().kind == Tok::Int || is_punct("-"))
        v.num = expect_int("a value");
      else
        v.name = join(chain(), std::numeric_limits<std::size_t>::max());
      kw[k] = v;
      if (!accept(",")) break;
    }
    expect_punct(")");
    return kw;
  }
  int64_t kw_int(std::map<std::string, Kw>& kw, const char* k, int64_t dflt) {
    auto it = kw.find(k);
    if (it == kw.end()) return dflt;
    if (!it->second.num) fail(it->second.at, std::string("IR: ") + k + "= takes an integer");
    const int64_t v = *it->second.num;
    kw.erase(it);
    return v;
  }
  std::string kw_str(std::map<std::string, Kw>& kw, const char* k) {
    auto it = kw.find(k);
    if (it == kw.end()) return {};
    if (!it->second.str) fail(it->second.at, std::string("IR: ") + k + "= takes a string");
    const std::string v = *it->second.str;
    kw.erase(it);
    return v;
  }
  void no_more(const std::map<std::string, Kw>& kw) const {
    if (!kw.empty()) fail(kw.begin()->second.at, "IR: unknown argument '" + kw.begin()->first + "='");
  }

  void with_block(std::vector<Stmt>& out) {
    const int indent = line().indent;
    expect_word("with");
    const SourceLoc at = here();
    expect_word("A");
    expect_punct(".");
    std::string what = expect_ident("a block");
    if (what == "pseudo") {
      expect_punct(".");
      what = "pseudo." + expect_ident("MatMul or LoadIMC");
    }
    if (what == "If") return if_block(out, indent, at);
    std::map<std::string, Kw> kw = kwargs();
    expect_punct(":");
    end_line();
    Stmt s;
    if (what == "Datapath") {
      s = make_stmt(StmtKind::Datapath, at);
      auto k = kw.find("kind");
      if (k != kw.end()) {
        const std::string v = k->second.name.value_or("");
        if (v == "A.DP_MVMEXE")
          s->dp_kind = DpKind::MVMEXE;
        else if (v == "A.DP_DWPU")
          s->dp_kind = DpKind::DWPU;
        else
          fail(k->second.at, "IR: kind= is A.DP_MVMEXE or A.DP_DWPU");
        kw.erase(k);
      }
      s->core = static_cast<int>(kw_int(kw, "core", -1));
      s->id = kw_str(kw, "id");
    } else {
      s = make_stmt(StmtKind::Block, at);
      static const std::pair<const char*, Unit> units[] = {{"IFD", Unit::IFD},
                                                           {"pseudo.MatMul", Unit::MatMul},
                                                           {"DPU", Unit::DPU},
                                                           {"ODR", Unit::ODR},
                                                           {"pseudo.LoadIMC", Unit::LoadIMC},
                                                           {"init", Unit::Init},
                                                           {"CoreDMA", Unit::CoreDMA},
                                                           {"SysDMA", Unit::SysDMA},
                                                           {"AICore", Unit::AICore},
                                                           {"Depthwise", Unit::Depthwise}};
      bool found = false;
      for (const auto& [n, u] : units)
        if (what == n) s->unit = u, found = true;
      if (!found) fail(at, "IR: unknown block A." + what);
      if (s->unit == Unit::IFD) s->num = static_cast<int>(kw_int(kw, "num", 0));
      if (s->unit == Unit::CoreDMA || s->unit == Unit::AICore) s->core = static_cast<int>(kw_int(kw, "core", -1));
      if (s->unit == Unit::Depthwise) {
        const std::string op = kw_str(kw, "op");
        bool ok = false;
        for (int v = 0; v <= static_cast<int>(spec::DwpuOp::AVERAGE); ++v)
          if (spec::to_string(static_cast<spec::DwpuOp>(v)) == op) s->num = v, ok = true;
        if (!ok) fail(at, "IR: unknown depthwise op \"" + op + "\"");
        s->extent = kw_int(kw, "taps", 1);
        s->start = kw_int(kw, "divisor", 0);
        auto w = kw.find("weights");
        if (w != kw.end()) {
          if (!w->second.name) fail(w->second.at, "IR: weights= names a buffer");
          if (*w->second.name != "None") s->buf = buffer(*w->second.name, w->second.at);
          kw.erase(w);
        }
      }
      s->id = kw_str(kw, "id");
    }
    no_more(kw);
    child_body(indent, s->body);
    out.push_back(s);
  }

  void if_block(std::vector<Stmt>& out, int indent, const SourceLoc& at) {
    auto s = make_stmt(StmtKind::If, at);
    expect_punct("(");
    s->value = expr();
    expect_punct(")");
    expect_punct(":");
    end_line();
    auto arm = [&](const char* name, std::vector<Stmt>& body) {
      begin_line();
      if (line().indent <= indent) error_at_line(std::string("expected an indented with A.") + name + "():");
      const int arm_indent = line().indent;
      expect_word("with");
      expect_word("A");
      expect_punct(".");
      expect_word(name);
      expect_punct("(");
      expect_punct(")");
      expect_punct(":");
      end_line();
      child_body(arm_indent, body);
      return arm_indent;
    };
    const int then_indent = arm("Then", s->body);
    if (idx_ < lines_.size() && lines_[idx_].indent == then_indent && lines_[idx_].text.rfind("with A.Else(", 0) == 0)
      arm("Else", s->else_body);
    out.push_back(s);
  }

  void a_call(std::vector<Stmt>& out, const SourceLoc& at) {
    expect_word("A");
    expect_punct(".");
    const std::string fn = expect_ident("a statement");
    expect_punct("(");
    if (fn == "drop") {
      auto s = make_stmt(StmtKind::Drop, at);
      s->value = expr();
      if (s->value->kind != ExprKind::Pop) fail(at, "IR: A.drop takes a stream pop");
      s->stream = s->value->stream;
      out.push_back(s);
    } else if (fn == "where") {
      auto s = make_stmt(StmtKind::Where, at);
      s->value = expr();
      out.push_back(s);
    } else if (fn == "bypass") {
      out.push_back(make_stmt(StmtKind::Bypass, at));
    } else if (fn == "reset_accumulator") {
      auto s = make_stmt(StmtKind::Reset, at);
      s->buf = accumulator(expect_ident("the accumulator"), at);
      out.push_back(s);
    } else if (fn == "sync") {
      auto s = make_stmt(StmtKind::Sync, at);
      while (!is_punct(")")) {
        const std::string k = expect_ident("waits=, signals= or buffers=");
        expect_punct("=");
        if (k == "waits") {
          s->waits = str_list();
        } else if (k == "signals") {
          s->signals = str_list();
        } else if (k == "buffers") {
          expect_punct("[");
          while (!is_punct("]")) {
            s->guards.push_back(buffer(join(chain(), std::numeric_limits<std::size_t>::max()), at));
            if (!accept(",")) break;
          }
          expect_punct("]");
        } else {
          error("A.sync takes waits=, signals= and buffers=");
        }
        if (!accept(",")) break;
      }
      out.push_back(s);
    } else if (fn == "barrier") {
      auto s = make_stmt(StmtKind::Barrier, at);
      while (!is_punct(")")) {
        s->cores.push_back(static_cast<int>(expect_int("a core")));
        if (!accept(",")) break;
      }
      out.push_back(s);
    } else if (fn == "output") {
      const Buffer b = buffer(join(chain(), std::numeric_limits<std::size_t>::max()), at);
      b->output = true;
      BufferNode* root = b.get();  // a view output: the program writes the viewed buffer (A::output)
      while (root->alias_of) root = root->alias_of.get();
      root->output = true;
      f_->outputs.push_back(b);
    } else if (fn == "graph") {
      PrimFunc::GraphNode n;
      n.op = expect_str("the operator name");
      while (accept(",")) {
        const std::string k = expect_ident("an attribute");
        expect_punct("=");
        if (k == "inputs")
          n.inputs = str_list();
        else if (k == "outputs")
          n.outputs = str_list();
        else if (peek().kind == Tok::Str)
          n.str_attrs[k] = next().text;
        else
          n.num_attrs[k] = values();
      }
      f_->graph.push_back(std::move(n));
    } else {
      fail(at, "IR: unknown statement A." + fn);
    }
    expect_punct(")");
    end_line();
  }

  // ---- expressions -----------------------------------------------------------------------------
  Expr expr() {
    Expr l = compare();
    while (is_word("and")) {
      const SourceLoc at = loc(next());
      l = make_binary(ExprKind::And, l, compare(), at);
    }
    return l;
  }
  Expr compare() {
    Expr l = additive();
    static const std::pair<const char*, ExprKind> ops[] = {{"<", ExprKind::Lt},  {"<=", ExprKind::Le},
                                                           {">", ExprKind::Gt},  {">=", ExprKind::Ge},
                                                           {"==", ExprKind::Eq}, {"!=", ExprKind::Ne}};
    for (const auto& [p, k] : ops)
      if (is_punct(p)) {
        const SourceLoc at = loc(next());
        return make_binary(k, l, additive(), at);
      }
    return l;
  }
  Expr additive() {
    Expr l = term();
    while (is_punct("+") || is_punct("-")) {
      const Token t = next();
      l = make_binary(t.text == "+" ? ExprKind::Add : ExprKind::Sub, l, term(), loc(t));
    }
    return l;
  }
  Expr term() {
    Expr l = unary();
    while (is_punct("*") || is_punct("//") || is_punct("%")) {
      const Token t = next();
      const ExprKind k = t.text == "*" ? ExprKind::Mul : t.text == "//" ? ExprKind::FloorDiv : ExprKind::Mod;
      l = make_binary(k, l, unary(), loc(t));
    }
    return l;
  }
  Expr unary() {
    if (is_punct("-")) {
      const Token t = next();
      if (peek().kind == Tok::Int) return make_int(-next().ival, loc(t));
      return make_binary(ExprKind::Sub, make_int(0, loc(t)), unary(), loc(t));
    }
    return primary();
  }

  static std::shared_ptr<ExprNode> node(ExprKind k, const SourceLoc& at) {
    auto e = std::make_shared<ExprNode>();
    e->kind = k;
    e->loc = at;
    return e;
  }
  std::vector<Expr> args(std::size_t n) {
    std::vector<Expr> a;
    for (std::size_t i = 0; i < n; ++i) {
      if (i) expect_punct(",");
      a.push_back(expr());
    }
    expect_punct(")");
    return a;
  }

  Expr primary() {
    const Token t = peek();
    const SourceLoc at = loc(t);
    if (t.kind == Tok::Int) return make_int(next().ival, at);
    if (accept("(")) {
      Expr e = expr();
      expect_punct(")");
      return e;
    }
    if (t.kind != Tok::Ident) error("expected an expression");
    if (t.text == "A" && is_punct(".", 1)) return a_expr(at);
    std::vector<std::string> c = chain();
    if (c.size() > 1 && c.back() == "pop" && accept("(")) {
      expect_punct(")");
      auto e = node(ExprKind::Pop, at);
      e->stream = stream(join(c, c.size() - 1), at);
      e->dtype = e->stream->dtype;
      return e;
    }
    const std::string name = join(c, c.size());
    if (accept("[")) {
      const Buffer b = buffer(name, at);
      auto e = node(b->role == BufferRole::Register ? ExprKind::RegRead : ExprKind::Load, at);
      e->buf = b;
      e->args = index_list();
      e->dtype = b->dtype;
      return e;
    }
    if (Var v = loop_var(name)) return make_var(v, at);
    auto it = bufs_.find(name);
    if (it != bufs_.end() && it->second->is_var) {
      auto e = node(ExprKind::RegRead, at);
      e->buf = it->second;
      e->dtype = it->second->dtype;
      return e;
    }
    fail(at, "IR: unknown name '" + name + "' (not a loop variable or a register)");
  }

  Expr a_expr(const SourceLoc& at) {
    expect_word("A");
    expect_punct(".");
    const std::string fn = expect_ident("an A. expression");
    if (fn == "dpu") {
      expect_punct(".");
      expect_word("ops");
      expect_punct(".");
      auto e = node(ExprKind::DpuCall, at);
      e->name = expect_ident("a DPU op");
      expect_punct("(");
      while (!is_punct(")")) {
        if (is_word("tables") && is_punct("=", 1)) {
          next(), next();
          e->ival = expect_int("the chained table count");
        } else {
          e->args.push_back(expr());
        }
        if (!accept(",")) break;
      }
      expect_punct(")");
      if (e->args.empty()) fail(at, "IR: A.dpu.ops." + e->name + " takes operands");
      e->dtype = e->name == "dwpu" ? DType::parse("int32x64") : e->args[0]->dtype;
      return e;
    }
    expect_punct("(");
    if (fn == "int8" || fn == "int32") {
      auto e = node(ExprKind::Int, at);
      e->ival = expect_int("the value");
      e->name = fn;
      e->dtype = DType::parse(fn + "x64");
      e->dtype.lanes = 1;
      expect_punct(")");
      return e;
    }
    if (fn == "float32") {
      auto e = node(ExprKind::Float, at);
      e->fval = expect_number("the value");
      e->name = fn;
      e->dtype = DType::parse("float32x64");
      e->dtype.lanes = 1;
      expect_punct(")");
      return e;
    }
    if (fn == "cast") {
      auto e = node(ExprKind::Cast, at);
      e->args = {expr()};
      expect_punct(",");
      e->dtype = dtype_value("the dtype");
      e->name = e->dtype.str();
      expect_punct(")");
      return e;
    }
    if (fn == "Broadcast") {
      auto e = node(ExprKind::Broadcast, at);
      e->args = {expr()};
      expect_punct(",");
      e->ival = expect_int("the lane count");
      e->dtype = e->args[0]->dtype;
      e->dtype.lanes = static_cast<uint32_t>(e->ival);
      expect_punct(")");
      return e;
    }
    if (fn == "if_then_else") {
      auto e = node(ExprKind::IfThenElse, at);
      e->args = args(3);
      e->dtype = e->args[1]->dtype;
      return e;
    }
    if (fn == "Ramp") {
      auto e = node(ExprKind::Ramp, at);
      e->args = args(3);
      return e;
    }
    if (fn == "min" || fn == "max") {
      std::vector<Expr> a = args(2);
      return make_binary(fn == "min" ? ExprKind::Min : ExprKind::Max, a[0], a[1], at);
    }
    if (fn == "mvm_1x1") {
      auto e = node(ExprKind::Mvm, at);
      e->args = args(2);
      e->dtype = DType::parse("int32x64");
      return e;
    }
    fail(at, "IR: unknown expression A." + fn);
  }

  std::string file_;
  std::vector<Line> lines_;
  std::size_t idx_ = 0;
  std::vector<Token> toks_;
  std::size_t tp_ = 0;
  PrimFunc* f_ = nullptr;
  std::map<std::string, Buffer> bufs_;
  std::map<std::string, Stream> streams_;
  std::vector<std::map<std::string, Var>> scopes_;
};

}  // namespace

std::shared_ptr<Module> parse_module(std::string_view text, const std::string& file) {
  return Parser(text, file).module();
}

std::shared_ptr<PrimFunc> parse_prim_func(std::string_view text, const std::string& file) {
  return Parser(text, file).single_func();
}

}  // namespace axcore::compiler
