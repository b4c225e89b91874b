// Fusion (guide §12): one datapath's ODR chained into the next's IFD by matching their access
// patterns, so the intermediate buffer is never written, read, placed or copied.
//
// Two forms, both exact by construction (docs/compiler.md "Fusion"):
// - epilogue: an elementwise consumer (IFD0 -> DPU -> ODR, per-element DPU statements, no state
//   carried between elements) whose IFD0 reads, as float32, what producers' DPUs pushed as float32
//   is appended to each producer's DPU program: the value the producer would have pushed goes
//   straight into the consumer's statements (float18 -> float32 -> float18 is the identity,
//   docs/numerics.md), and the producer's ODR stores the consumer's result where the consumer's
//   ODR would have (flat addresses matched). Side constants of both are merged into one IFD1 walk.
// - movement: a datapath that only copies (IFD0 -> ODR, same dtype, every element of its
//   destination once) disappears into its readers' IFD walks, which read its source directly.
//
// A pair is left apart, with the reason recorded for `axc compile --explain`, when anything else
// touches the intermediate buffer, a datapath carries an id= (a sync may name it) or a core, the
// access patterns do not match element for element, or the fused DPU program would exceed the
// DPU's registers or instructions (the register-pressure heuristic A.fuse can switch off).
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "axcore/compiler/affine.hpp"
#include "axcore/compiler/passes.hpp"

namespace axcore::compiler {
namespace {

constexpr uint64_t kMaxElements = uint64_t{1} << 20;  // elements a pattern may have to be compared

struct Refused {
  std::string why;
};
[[noreturn]] void no(std::string why) { throw Refused{std::move(why)}; }

bool is_f32(const DType& d) { return d.base == DType::Base::Float32 && d.lanes == spec::param::pword_lanes; }

// ---- walking the IR --------------------------------------------------------------------------
void each_expr(const Expr& e, const std::function<void(const ExprNode&)>& f) {
  if (!e) return;
  f(*e);
  for (const auto& a : e->args) each_expr(a, f);
}
void each_stmt(const Stmt& s, const std::function<void(const StmtNode&)>& f) {
  f(*s);
  for (const auto& b : s->body) each_stmt(b, f);
  for (const auto& b : s->else_body) each_stmt(b, f);
}
void each_expr_in(const Stmt& s, const std::function<void(const ExprNode&)>& f) {
  each_stmt(s, [&](const StmtNode& n) {
    each_expr(n.value, f);
    for (const auto& i : n.indices) each_expr(i, f);
  });
}
bool memory(const Buffer& b) { return b && b->role != BufferRole::Register && b->role != BufferRole::Accumulator; }

// The memory buffers (roots) a statement tree reads and writes.
struct Touch {
  std::set<const BufferNode*> rd, wr;
  bool any(const BufferNode* b) const { return rd.count(b) || wr.count(b); }
};
Touch touched(const Stmt& s) {
  Touch t;
  each_stmt(s, [&](const StmtNode& n) {
    if (n.kind == StmtKind::Store && memory(n.buf)) t.wr.insert(n.buf->root());
  });
  each_expr_in(s, [&](const ExprNode& x) {
    if ((x.kind == ExprKind::Load || x.kind == ExprKind::Mvm) && memory(x.buf)) t.rd.insert(x.buf->root());
  });
  return t;
}

// ---- a datapath's parts ----------------------------------------------------------------------
struct Parts {
  Stmt ifd0, ifd1, mm, dw, dpu, odr;
};
Parts parts_of(const Stmt& dp) {
  Parts p;
  for (const auto& s : dp->body) {
    if (s->kind == StmtKind::OpMarker) continue;
    if (s->kind != StmtKind::Block)
      no("it holds a statement outside its unit blocks (a register file or an A.where on the datapath)");
    switch (s->unit) {
      case Unit::IFD: (s->num == 0 ? p.ifd0 : p.ifd1) = s; break;
      case Unit::MatMul: p.mm = s; break;
      case Unit::Depthwise: p.dw = s; break;
      case Unit::DPU: p.dpu = s; break;
      case Unit::ODR: p.odr = s; break;
      default: no("it holds an A." + to_string(s->unit) + " block");
    }
  }
  return p;
}

// A movement block: a loop nest around one push or store.
struct Nest {
  std::vector<const StmtNode*> loops;
  Stmt leaf;
};
Nest nest_of(const Stmt& block) {
  Nest n;
  const std::vector<Stmt>* b = &block->body;
  while (b->size() == 1 && (*b)[0]->kind == StmtKind::For) {
    n.loops.push_back((*b)[0].get());
    b = &(*b)[0]->body;
  }
  if (b->size() != 1 || ((*b)[0]->kind != StmtKind::Push && (*b)[0]->kind != StmtKind::Store))
    no("its A." + to_string(block->unit) + " block is not one loop nest around one push or store");
  n.leaf = (*b)[0];
  return n;
}

// The element address (row-major over the buffer's own shape; a view's is its root's) of buf[idx].
Affine flat(const BufferNode& b, const std::vector<Expr>& idx, const SourceLoc& loc) {
  if (idx.size() != b.shape.size()) no("an access to " + b.name + " does not index every dimension");
  Affine a;
  int64_t stride = 1;
  for (std::size_t k = idx.size(); k-- > 0;) {
    if (idx[k]->kind == ExprKind::Ramp) no("an access to " + b.name + " takes a slice");
    Affine t;
    try {
      t = affine_of(idx[k], loc);
    } catch (const CompileError&) { no("an index of " + b.name + " is not affine"); }
    a += t.scaled(stride);
    stride *= b.shape[k];
  }
  return a;
}

// The values of `a` over the loop nest, in iteration order.
std::vector<int64_t> enumerate(const std::vector<const StmtNode*>& loops, const Affine& a) {
  uint64_t n = 1;
  for (const auto* l : loops) n *= static_cast<uint64_t>(std::max<int64_t>(l->extent, 0));
  if (n > kMaxElements) no("its access pattern has more than " + std::to_string(kMaxElements) + " elements to match");
  for (const auto& [v, c] : a.coef)
    if (c && std::none_of(loops.begin(), loops.end(), [v = v](const StmtNode* l) { return l->var.get() == v; }))
      no("an address depends on " + v->name + ", a loop outside the block");
  std::vector<int64_t> out;
  out.reserve(n);
  if (n == 0) return out;
  std::vector<int64_t> it(loops.size());
  for (std::size_t k = 0; k < loops.size(); ++k) it[k] = loops[k]->start;
  for (;;) {
    int64_t v = a.constant;
    for (std::size_t k = 0; k < loops.size(); ++k) v += a.of(loops[k]->var.get()) * it[k];
    out.push_back(v);
    std::size_t k = loops.size();
    while (k > 0) {
      --k;
      if (++it[k] < loops[k]->start + loops[k]->extent) break;
      it[k] = loops[k]->start;
      if (k == 0) return out;
    }
    if (loops.empty()) return out;
  }
}

// The elements (64 values each) a side walk pushes from a constant, in push order.
std::vector<std::vector<double>> constant_elements(const Nest& n) {
  const ExprNode& v = *n.leaf->value;
  if (v.kind != ExprKind::Load || !v.buf || v.buf->root()->role != BufferRole::Constant)
    no("its side input (IFD1) streams " + (v.buf ? v.buf->name : std::string("a computed value")) + ", not a constant");
  if (!is_f32(v.buf->dtype)) no("its side input is " + v.buf->dtype.str() + ", not float32x64");
  const BufferNode& root = *v.buf->root();
  const auto lanes = static_cast<int64_t>(v.buf->dtype.lanes);
  std::vector<std::vector<double>> out;
  for (const int64_t e : enumerate(n.loops, flat(*v.buf, v.args, v.loc))) {
    if (e < 0 || (e + 1) * lanes > static_cast<int64_t>(root.data.size()))
      no("its side input reads " + root.name + " out of its range");
    out.emplace_back(root.data.begin() + e * lanes, root.data.begin() + (e + 1) * lanes);
  }
  return out;
}

bool pops(const ExprNode& x, const Stream& s) { return x.kind == ExprKind::Pop && x.stream == s; }
uint64_t pops_in(const std::vector<Stmt>& list, const Stream& s) {  // with loop multiplicities
  uint64_t n = 0;
  for (const auto& st : list) {
    if (st->kind == StmtKind::For) {
      n += static_cast<uint64_t>(std::max<int64_t>(st->extent, 0)) * pops_in(st->body, s);
      continue;
    }
    each_expr_in(st, [&](const ExprNode& x) { n += pops(x, s) ? 1 : 0; });
  }
  return n;
}
bool loads_memory(const Stmt& s) {
  bool any = false;
  each_expr_in(s, [&](const ExprNode& x) { any = any || x.kind == ExprKind::Load; });
  return any;
}

// Register reads/decls, for the size and "no state between elements" checks.
int64_t registers_declared(const Stmt& dpu) {
  int64_t n = 0;
  each_stmt(dpu, [&](const StmtNode& s) {
    if (s.kind == StmtKind::DeclReg) n += s.buf->shape.empty() ? 1 : s.buf->shape[0];
  });
  return n;
}
int64_t statements(const Stmt& dpu) {
  int64_t n = 0;
  each_stmt(dpu, [&](const StmtNode& s) {
    n += s.kind == StmtKind::Store || s.kind == StmtKind::Push ? 1 : s.kind == StmtKind::For ? 2 : 0;
  });
  return n;
}

// ---- the elementwise consumer ----------------------------------------------------------------
struct Consumer {
  Stmt dp;
  Parts parts;
  Stream in, side, out;
  Buffer B;                                      // the intermediate (root)
  Buffer D;                                      // what the consumer writes (root)
  std::vector<int64_t> elems;                    // B's element read at each iteration
  std::vector<std::vector<double>> side_values;  // the side stream, in pop order
  uint64_t init_pops = 0;
  bool side_per_element = false;
  std::vector<Stmt> decls, init, body;  // DPU: declarations, A.init statements, per-element statements
};

Buffer shared(const PrimFunc& f, const BufferNode* b) {
  for (const auto& x : f.params)
    if (x.get() == b) return x;
  for (const auto& x : f.buffers)
    if (x.get() == b) return x;
  no("buffer " + b->name + " is not declared in the function");
}

Consumer as_consumer(const PrimFunc& f, const Stmt& dp) {
  Consumer c;
  c.dp = dp;
  c.parts = parts_of(dp);
  const Parts& p = c.parts;
  if (p.mm) no("the consumer runs a MatMul: only an elementwise datapath (IFD -> DPU -> ODR) fuses into a producer");
  if (p.dw) no("the consumer runs the depthwise unit: only an elementwise datapath fuses into a producer");
  if (!p.ifd0 || !p.dpu || !p.odr) no("the consumer is not IFD -> DPU -> ODR");
  const Nest in = nest_of(p.ifd0), out = nest_of(p.odr);
  const ExprNode& rd = *in.leaf->value;
  if (in.leaf->kind != StmtKind::Push || rd.kind != ExprKind::Load || !memory(rd.buf))
    no("the consumer's IFD pushes a computed value (a pad guard or a cast), not a plain read");
  if (out.leaf->kind != StmtKind::Store || out.leaf->value->kind != ExprKind::Pop)
    no("the consumer's ODR stores a cast or a guarded value");
  c.in = in.leaf->stream;
  c.out = out.leaf->value->stream;
  c.B = shared(f, rd.buf->root());
  c.D = shared(f, out.leaf->buf->root());
  if (!is_f32(rd.buf->dtype)) no("the intermediate " + c.B->name + " is " + rd.buf->dtype.str() + ", not float32x64");
  if (c.B == c.D) no("the consumer writes the buffer it reads");
  c.elems = enumerate(in.loops, flat(*rd.buf, rd.args, in.leaf->loc));
  if (enumerate(out.loops, flat(*out.leaf->buf, out.leaf->indices, out.leaf->loc)) != c.elems)
    no("the consumer does not write " + c.D->name + " at the addresses it reads " + c.B->name + " (not elementwise)");
  if (c.D->elements() != c.B->elements()) no(c.D->name + " and " + c.B->name + " differ in size");
  std::vector<char> seen(static_cast<std::size_t>(c.B->elements()), 0);
  for (const int64_t e : c.elems) {
    if (e < 0 || e >= c.B->elements() || seen[static_cast<std::size_t>(e)]++)
      no("the consumer does not read every element of " + c.B->name + " once");
  }
  if (c.elems.size() != seen.size()) no("the consumer does not read every element of " + c.B->name);
  if (p.ifd1) {
    const Nest s = nest_of(p.ifd1);
    if (s.leaf->kind != StmtKind::Push) no("the consumer's IFD1 block stores");
    c.side = s.leaf->stream;
    c.side_values = constant_elements(s);
  }
  // The DPU: declarations, A.init, then the element loops around per-element statements.
  if (loads_memory(p.dpu)) no("the consumer's DPU reads a buffer (an implicit side walk)");
  std::vector<Stmt> rest;
  for (const auto& s : p.dpu->body) {
    if (s->kind == StmtKind::DeclReg)
      c.decls.push_back(s);
    else if (s->kind == StmtKind::Block && s->unit == Unit::Init)
      c.init.insert(c.init.end(), s->body.begin(), s->body.end());
    else
      rest.push_back(s);
  }
  uint64_t iterations = 1;
  const std::vector<Stmt>* b = &rest;
  while (b->size() == 1 && (*b)[0]->kind == StmtKind::For) {
    iterations *= static_cast<uint64_t>(std::max<int64_t>((*b)[0]->extent, 0));
    b = &(*b)[0]->body;
  }
  if (iterations != c.elems.size()) no("the consumer's DPU does not run once per element");
  c.body = *b;
  std::set<const BufferNode*> written;
  for (const auto& s : c.init)
    each_stmt(s, [&](const StmtNode& n) {
      if (n.kind == StmtKind::Store) written.insert(n.buf.get());
    });
  int pushes = 0;
  for (const auto& s : c.body) {
    if (s->kind == StmtKind::DeclReg) continue;
    if (s->kind != StmtKind::Store && s->kind != StmtKind::Push)
      no("the consumer's DPU has a loop or a branch inside its element loop");
    if (pushes) no("the consumer's DPU computes after its push");
    each_expr(s->value, [&](const ExprNode& x) {
      if (x.kind == ExprKind::RegRead && !written.count(x.buf.get()))
        no("the consumer's DPU carries " + x.buf->name + " from one element to the next");
    });
    if (s->kind == StmtKind::Store) written.insert(s->buf.get());
    if (s->kind == StmtKind::Push && s->stream != c.out) no("the consumer's DPU pushes another stream");
    pushes += s->kind == StmtKind::Push;
  }
  if (pushes != 1) no("the consumer's DPU pushes " + std::to_string(pushes) + " values per element");
  if (pops_in(c.body, c.in) != 1)
    no("the consumer's DPU pops its input " + std::to_string(pops_in(c.body, c.in)) + " times");
  bool cast_pop = false;
  for (const auto& s : c.body)
    each_expr_in(s, [&](const ExprNode& x) {
      if (x.kind == ExprKind::Cast && x.dtype.base == DType::Base::Float18 && pops(*x.args[0], c.in)) cast_pop = true;
    });
  if (!cast_pop) no("the consumer's DPU does not read its input as float18x64");
  if (c.side) {
    if (pops_in(c.init, c.in)) no("the consumer's A.init pops its main input");
    c.init_pops = pops_in(c.init, c.side);
    const uint64_t per = pops_in(c.body, c.side);
    if (per > 1) no("the consumer's DPU pops its side input more than once per element");
    c.side_per_element = per == 1;
    if (c.init_pops + per * c.elems.size() != c.side_values.size())
      no("the consumer's side pops do not match its IFD1 walk");
  }
  return c;
}

// ---- the producer ----------------------------------------------------------------------------
struct Producer {
  Stmt dp;
  Parts parts;
  Stmt push;                   // the DPU's one push to the ODR
  Expr value;                  // the float18 value it pushes
  std::vector<int64_t> elems;  // B's elements it writes, in order
  std::vector<std::vector<double>> side_values;
  Buffer store;  // the buffer its ODR names (B or a view of it)
};

Producer as_producer(const PrimFunc& f, const Stmt& dp, const BufferNode* B) {
  Producer p;
  p.dp = dp;
  p.parts = parts_of(dp);
  if (!p.parts.odr || !p.parts.dpu) no("the producer has no DPU program to extend");
  const Nest out = nest_of(p.parts.odr);
  if (out.leaf->kind != StmtKind::Store || out.leaf->value->kind != ExprKind::Pop || out.leaf->buf->root() != B)
    no("the producer's ODR stores a cast or a guarded value");
  p.store = shared(f, out.leaf->buf.get());
  p.elems = enumerate(out.loops, flat(*out.leaf->buf, out.leaf->indices, out.leaf->loc));
  if (loads_memory(p.parts.dpu)) no("the producer's DPU reads a buffer (an implicit side walk)");
  int n = 0;
  for (const auto& s : p.parts.dpu->body) {
    if (s->kind == StmtKind::Block && s->unit == Unit::Init) continue;
    each_stmt(s, [&](const StmtNode& x) {
      if (x.kind == StmtKind::Push) {
        ++n;
        p.push = std::const_pointer_cast<StmtNode>(std::shared_ptr<const StmtNode>(s, &x));
      }
    });
  }
  if (n != 1 || p.push->stream != out.leaf->value->stream) no("the producer's DPU does not push once to its ODR");
  const Expr& v = p.push->value;
  if (v->kind != ExprKind::Cast || !is_f32(v->dtype) || !is_f32(p.push->stream->dtype))
    no("the producer's DPU pushes " + p.push->stream->dtype.str() + ": only a float32 intermediate is exact to fuse");
  const Expr& x = v->args[0];
  if (x->kind == ExprKind::Pop) {
    auto c = std::make_shared<ExprNode>(*v);
    c->dtype = DType::parse("float18x64");
    c->name = "float18x64";
    p.value = c;
  } else if (x->dtype.base == DType::Base::Float18) {
    p.value = x;
  } else {
    no("the producer's DPU pushes a " + x->dtype.str() + " value");
  }
  if (p.parts.ifd1) {
    const Nest s = nest_of(p.parts.ifd1);
    if (s.leaf->kind != StmtKind::Push) no("the producer's IFD1 block stores");
    std::vector<Stmt> body;
    for (const auto& st : p.parts.dpu->body)
      if (!(st->kind == StmtKind::Block && st->unit == Unit::Init)) body.push_back(st);
    if (pops_in(body, s.leaf->stream)) no("the producer's DPU reads its side input per element");
    p.side_values = constant_elements(s);
  }
  return p;
}

// ---- rewriting -------------------------------------------------------------------------------
struct Names {
  std::set<std::string> taken;
  explicit Names(const PrimFunc& f) {
    for (const auto& b : f.params) taken.insert(b->name);
    for (const auto& b : f.buffers) taken.insert(b->name);
    for (const auto& s : f.streams) taken.insert(s->name);
  }
  std::string fresh(const std::string& stem) {
    for (int i = 0;; ++i) {
      std::string n = stem + std::to_string(i);
      if (taken.insert(n).second) return n;
    }
  }
};

Buffer new_register(Names& names, const std::string& stem, int64_t size = 1, bool is_var = true) {
  auto r = std::make_shared<BufferNode>();
  r->name = names.fresh(stem);
  r->shape = {size};
  r->dtype = DType::parse("float18x64");
  r->scope = Scope::DPU_REGISTERS;
  r->role = BufferRole::Register;
  r->is_var = is_var;
  return r;
}
Stmt decl(const Buffer& r, const SourceLoc& loc) {
  auto s = make_stmt(StmtKind::DeclReg, loc);
  s->buf = r;
  return s;
}
Expr reg_read(const Buffer& r, Expr index = Expr()) {
  auto e = std::make_shared<ExprNode>();
  e->kind = ExprKind::RegRead;
  e->buf = r;
  if (index) e->args = {std::move(index)};
  e->dtype = r->dtype;
  return e;
}

// Deep copy with replacements: an expression `expr` returns non-null to replace a node.
struct Rewriter {
  std::function<Expr(const ExprNode&)> expr = [](const ExprNode&) { return Expr(); };
  std::map<const BufferNode*, Buffer> bufs;
  std::map<const StreamNode*, Stream> streams;
  Expr operator()(const Expr& e) const {
    if (!e) return e;
    if (Expr r = expr(*e)) return r;
    auto n = std::make_shared<ExprNode>(*e);
    for (auto& a : n->args) a = (*this)(a);
    if (auto it = bufs.find(n->buf.get()); n->buf && it != bufs.end()) n->buf = it->second;
    if (auto it = streams.find(n->stream.get()); n->stream && it != streams.end()) n->stream = it->second;
    return n;
  }
  Stmt operator()(const Stmt& s) const {
    auto n = std::make_shared<StmtNode>(*s);
    n->body = list(s->body);
    n->else_body = list(s->else_body);
    n->value = (*this)(s->value);
    for (auto& i : n->indices) i = (*this)(i);
    if (auto it = bufs.find(n->buf.get()); n->buf && it != bufs.end()) n->buf = it->second;
    if (auto it = streams.find(n->stream.get()); n->stream && it != streams.end()) n->stream = it->second;
    return n;
  }
  std::vector<Stmt> list(const std::vector<Stmt>& l) const {
    std::vector<Stmt> out;
    for (const auto& s : l) out.push_back((*this)(s));
    return out;
  }
};

// Replaces the statement `at` (by identity) in a tree with `with`.
std::vector<Stmt> splice(const std::vector<Stmt>& list, const StmtNode* at, const std::vector<Stmt>& with) {
  std::vector<Stmt> out;
  for (const auto& s : list) {
    if (s.get() == at) {
      out.insert(out.end(), with.begin(), with.end());
      continue;
    }
    auto n = std::make_shared<StmtNode>(*s);
    n->body = splice(s->body, at, with);
    out.push_back(n);
  }
  return out;
}

// The side stream of a fused program: the producer's constants, the consumer's A.init ones, then
// the consumer's per-element constant of this producer (one register).
std::vector<std::vector<double>> side_stream(const Producer& p, const Consumer& c,
                                             const std::optional<std::vector<double>>& side) {
  std::vector<std::vector<double>> sv = p.side_values;
  sv.insert(sv.end(), c.side_values.begin(), c.side_values.begin() + static_cast<std::ptrdiff_t>(c.init_pops));
  if (side) sv.push_back(*side);
  return sv;
}

// One constant holding every fused producer's side stream, each a segment (copied once).
struct Segment {
  Buffer k;
  int64_t offset = 0, count = 0;
};

Stmt fuse_epilogue(PrimFunc& f, Names& names, const Producer& p, const Consumer& c,
                   const std::optional<std::vector<double>>& side, const Segment& seg) {
  const SourceLoc loc = p.dp->loc;
  Rewriter rw;
  for (const auto& d : c.decls) rw.bufs[d->buf.get()] = nullptr;
  for (const auto& s : c.body)
    if (s->kind == StmtKind::DeclReg) rw.bufs[s->buf.get()] = nullptr;
  std::vector<Stmt> decls;
  for (auto& [old, fresh] : rw.bufs) {
    auto r = std::make_shared<BufferNode>(*old);
    r->name = names.fresh(old->name + ".f");
    fresh = r;
  }
  // The value the producer pushed: a register read or a pop stands in directly; anything else
  // (one DPU operation) is kept in a register first.
  Expr value = p.value;
  std::vector<Stmt> body;
  if (value->kind != ExprKind::RegRead && value->kind != ExprKind::Cast) {
    Buffer fz = new_register(names, "fz");
    decls.push_back(decl(fz, loc));
    auto st = make_stmt(StmtKind::Store, p.push->loc);
    st->buf = fz;
    st->value = value;
    body.push_back(st);
    value = reg_read(fz);
  }
  Stream s1;
  Stmt ifd1;
  if (seg.count) {
    s1 = p.parts.ifd1 ? nest_of(p.parts.ifd1).leaf->stream : nullptr;
    if (!s1) {
      auto s = std::make_shared<StreamNode>();
      s->name = names.fresh("fzs");
      s->dtype = DType::parse("float32x64");
      s->loc = loc;
      f.streams.push_back(s);
      s1 = s;
    }
    auto v = std::make_shared<VarNode>();
    v->name = names.fresh("fzi");
    auto loop = make_stmt(StmtKind::For, loc);
    loop->var = v;
    loop->extent = seg.count;
    loop->loop = LoopKind::Serial;
    auto ld = std::make_shared<ExprNode>();
    ld->kind = ExprKind::Load;
    ld->buf = seg.k;
    ld->dtype = seg.k->dtype;
    ld->args = {make_binary(ExprKind::Add, make_int(seg.offset, loc), make_var(v, loc), loc)};
    auto push = make_stmt(StmtKind::Push, loc);
    push->stream = s1;
    push->value = ld;
    loop->body = {push};
    ifd1 = make_stmt(StmtKind::Block, loc);
    ifd1->unit = Unit::IFD;
    ifd1->num = 1;
    ifd1->body = {loop};
  }
  Buffer fzs;
  if (side) {
    fzs = new_register(names, "fzc", 1, false);  // filled in A.init, read by every iteration: an A.array (§8.5)
    decls.push_back(decl(fzs, loc));
  }
  if (c.side) rw.streams[c.side.get()] = s1;
  // The consumer's statements read the producer's value for its input, its register for the side.
  Rewriter body_rw = rw;
  body_rw.expr = [&](const ExprNode& x) -> Expr {
    if (x.kind == ExprKind::Cast && x.dtype.base == DType::Base::Float18 && !x.args.empty()) {
      if (pops(*x.args[0], c.in)) return value;
      if (c.side && pops(*x.args[0], c.side)) return reg_read(fzs, make_int(0, loc));
    }
    return Expr();
  };
  for (const auto& s : c.body) body.push_back(body_rw(s));
  for (const auto& d : c.decls) decls.push_back(rw(d));
  std::vector<Stmt> init_add = rw.list(c.init);
  if (side) {
    auto pop = std::make_shared<ExprNode>();
    pop->kind = ExprKind::Pop;
    pop->stream = s1;
    pop->dtype = s1->dtype;
    auto cast = std::make_shared<ExprNode>();
    cast->kind = ExprKind::Cast;
    cast->name = "float18x64";
    cast->dtype = DType::parse("float18x64");
    cast->args = {pop};
    auto st = make_stmt(StmtKind::Store, loc);
    st->buf = fzs;
    st->indices = {make_int(0, loc)};
    st->value = cast;
    init_add.push_back(st);
  }
  // The DPU: new declarations first, the producer's A.init then the consumer's, the push replaced.
  auto dpu = std::make_shared<StmtNode>(*p.parts.dpu);
  dpu->body = splice(p.parts.dpu->body, p.push.get(), body);
  bool has_init = false;
  for (auto& s : dpu->body)
    if (s->kind == StmtKind::Block && s->unit == Unit::Init) {
      s->body.insert(s->body.end(), init_add.begin(), init_add.end());
      has_init = true;
    }
  if (!has_init && !init_add.empty()) {
    auto in = make_stmt(StmtKind::Block, loc);
    in->unit = Unit::Init;
    in->body = init_add;
    dpu->body.insert(dpu->body.begin(), in);
  }
  dpu->body.insert(dpu->body.begin(), decls.begin(), decls.end());
  // The ODR stores the consumer's result at the producer's addresses, in a view of the
  // consumer's buffer shaped as the producer's (the flat addresses are the same).
  Buffer dst = c.D;
  if (c.D->shape != p.store->shape) {
    auto v = std::make_shared<BufferNode>(*c.D);
    v->name = names.fresh(c.D->name + ".fz");
    v->shape = p.store->shape;
    v->alias_of = c.D;
    v->data.clear();
    v->output = false;
    v->logical_shape.clear();
    v->loc = c.dp->loc;
    f.buffers.push_back(v);
    dst = v;
  }
  Rewriter orw;
  orw.bufs[p.store.get()] = dst;
  const Stream& sp = p.push->stream;
  orw.expr = [&](const ExprNode& x) -> Expr {
    if (!pops(x, sp)) return Expr();
    auto e = std::make_shared<ExprNode>(x);
    e->stream = c.out;
    e->dtype = c.out->dtype;
    return e;
  };
  auto out = std::make_shared<StmtNode>(*p.dp);
  out->body.clear();
  for (const auto& s : p.dp->body) {
    if (s == p.parts.dpu)
      out->body.push_back(dpu);
    else if (s == p.parts.odr)
      out->body.push_back(orw(s));
    else if (s == p.parts.ifd1)
      out->body.push_back(ifd1);
    else
      out->body.push_back(s);
    if (s == p.parts.ifd0 && !p.parts.ifd1 && ifd1) out->body.push_back(ifd1);
  }
  if (!p.parts.ifd0 && !p.parts.ifd1 && ifd1) out->body.insert(out->body.begin(), ifd1);
  return out;
}

// ---- the pass --------------------------------------------------------------------------------
class Fuser {
 public:
  Fuser(PrimFunc& f, bool automatic) : f_(f), auto_(automatic), names_(f) {}

  void run() {
    for (bool changed = true; changed;) {
      changed = false;
      auto& top = f_.body->body;
      for (std::size_t j = 0; j < top.size() && !changed; ++j) {
        if (top[j]->kind != StmtKind::Datapath) continue;
        changed = try_epilogue(j) || try_movement(j);
      }
    }
    for (auto& [key, why] : refused_) f_.fusion_notes.push_back("not fused: " + key + ": " + why);
    check_strict();
  }

 private:
  const PrimFunc::FuseScope* scope(const Stmt& dp) const {
    return dp->fuse_scope >= 0 && dp->fuse_scope < static_cast<int>(f_.fuse_scopes.size())
               ? &f_.fuse_scopes[static_cast<std::size_t>(dp->fuse_scope)]
               : nullptr;
  }
  // A scope in force for the pair (the consumer's, else the producer's).
  const PrimFunc::FuseScope* forced(const Stmt& a, const Stmt& b) const {
    const auto* s = scope(a);
    if (s && !s->prevent) return s;
    s = scope(b);
    return s && !s->prevent ? s : nullptr;
  }
  std::string name(const Stmt& dp) const {
    const auto& top = f_.body->body;
    std::string op = "datapath";
    for (const auto& s : top) {
      if (s->kind == StmtKind::OpMarker) op = s->id;
      if (s == dp) break;
    }
    return op + " (" + dp->loc.str() + ")";
  }
  void admissible(const Stmt& dp, const char* role) const {
    if (const auto* s = scope(dp); s && s->prevent) no(std::string("the ") + role + " is inside A.prevent_fuse()");
    if (!dp->id.empty()) no(std::string("the ") + role + " has id=\"" + dp->id + "\", which a sync may name");
    if (dp->core >= 0) no(std::string("the ") + role + " is pinned to a core");
  }
  void refuse(const Stmt& producer, const Stmt& consumer, const std::string& why) {
    const std::string key = name(producer) + " -> " + name(consumer);
    refused_[key] = why;
    pairs_.push_back({scope(producer), scope(consumer), consumer.get(), key, why});
  }
  void fused(const Stmt& producer, const Stmt& consumer, const std::string& how) {
    refused_.erase(name(producer) + " -> " + name(consumer));
    f_.fusion_notes.push_back("fused: " + name(consumer) + " into " + name(producer) + ": " + how);
    done_.insert(consumer.get());
  }

  // The top-level statements before `before` that write `b` (a root).
  std::vector<std::size_t> writers(const BufferNode* b, std::size_t before) const {
    std::vector<std::size_t> w;
    const auto& top = f_.body->body;
    for (std::size_t i = 0; i < before; ++i)
      if (touched(top[i]).wr.count(b)) w.push_back(i);
    return w;
  }

  bool try_epilogue(std::size_t j) {
    auto& top = f_.body->body;
    const Stmt cdp = top[j];
    if (tried_.count(cdp.get())) return false;
    tried_.insert(cdp.get());
    // Only a datapath whose IFD0 reads what an earlier datapath wrote is a candidate at all.
    const BufferNode* read = nullptr;
    try {
      const Parts p = parts_of(cdp);
      if (!p.ifd0) return false;
      const Nest in = nest_of(p.ifd0);
      if (in.leaf->value && in.leaf->value->buf) read = in.leaf->value->buf->root();
      each_expr(in.leaf->value, [&](const ExprNode& x) {
        if (!read && x.kind == ExprKind::Load && memory(x.buf)) read = x.buf->root();
      });
    } catch (const Refused&) { return false; }
    if (!read) return false;
    const auto ws = writers(read, j);
    if (ws.empty() || top[ws.back()]->kind != StmtKind::Datapath) return false;
    const Stmt last = top[ws.back()];
    if (!auto_ && !forced(cdp, last)) return false;
    try {
      admissible(cdp, "consumer");
      const Consumer c = as_consumer(f_, cdp);
      if (c.B->output || c.B->role != BufferRole::Local) no(c.B->name + " is an input or output of the program");
      if (c.D->role == BufferRole::Input || c.D->role == BufferRole::Constant) no(c.D->name + " is an input");
      std::vector<Producer> ps;
      std::vector<char> hit(c.elems.size(), 0);
      std::vector<std::size_t> at(static_cast<std::size_t>(c.B->elements()));
      for (std::size_t k = 0; k < c.elems.size(); ++k) at[static_cast<std::size_t>(c.elems[k])] = k;
      for (const std::size_t i : ws) {
        if (top[i]->kind != StmtKind::Datapath) no(c.B->name + " is written by a DMA or LoadIMC block");
        admissible(top[i], "producer");
        if (touched(top[i]).rd.count(c.B.get())) no("a producer of " + c.B->name + " also reads it");
        if (touched(top[i]).any(c.D.get())) no("a producer of " + c.B->name + " also uses " + c.D->name);
        ps.push_back(as_producer(f_, top[i], c.B.get()));
        for (const int64_t e : ps.back().elems)
          if (e < 0 || e >= c.B->elements() || hit[at[static_cast<std::size_t>(e)]]++)
            no("two producers (or one twice) write the same element of " + c.B->name);
      }
      if (std::find(hit.begin(), hit.end(), 0) != hit.end())
        no("the producers do not write every element of " + c.B->name);
      for (std::size_t i = 0; i < top.size(); ++i) {
        if (i == j || std::find(ws.begin(), ws.end(), i) != ws.end()) continue;
        const Touch t = touched(top[i]);
        if (t.any(c.B.get())) no(c.B->name + " is also used by " + name(top[i]));
        if (i > ws.front() && i < j && t.any(c.D.get()))
          no(c.D->name + " is used by " + name(top[i]) + ", between the producer and the consumer");
      }
      for (const auto& o : f_.outputs)
        if (o->root() == c.B.get()) no(c.B->name + " is an output");
      // Per producer: the consumer's per-element side constant must be one value over its elements.
      std::vector<std::optional<std::vector<double>>> sides(ps.size());
      if (c.side_per_element)
        for (std::size_t k = 0; k < ps.size(); ++k) {
          std::optional<std::vector<double>> v;
          for (const int64_t e : ps[k].elems) {
            const auto& s = c.side_values[c.init_pops + at[static_cast<std::size_t>(e)]];
            if (v && *v != s) no("the consumer's side input varies over one producer's elements");
            v = s;
          }
          sides[k] = v;
        }
      const auto* sc = forced(cdp, last);
      if (!sc || sc->reg_pressure_heuristic)
        for (const auto& p : ps) {
          const int64_t regs = registers_declared(p.parts.dpu) + registers_declared(cdp) + 4;
          if (regs > static_cast<int64_t>(spec::param::dpu_registers))
            no("the fused DPU program would need about " + std::to_string(regs) + " of the DPU's " +
               std::to_string(spec::param::dpu_registers) + " registers (register-pressure heuristic)");
          const int64_t instr = 2 * (statements(p.parts.dpu) + statements(c.parts.dpu)) + 4;
          if (instr > static_cast<int64_t>(spec::param::dpu_max_instructions))
            no("the fused DPU program could exceed the DPU's " + std::to_string(spec::param::dpu_max_instructions) +
               " instructions (register-pressure heuristic)");
        }
      // Fuse: each producer in place, the consumer removed; one constant holds every side stream.
      std::vector<Segment> seg(ps.size());
      std::vector<double> data;
      for (std::size_t k = 0; k < ps.size(); ++k) {
        seg[k].offset = static_cast<int64_t>(data.size() / spec::param::pword_lanes);
        for (const auto& e : side_stream(ps[k], c, sides[k])) {
          data.insert(data.end(), e.begin(), e.end());
          ++seg[k].count;
        }
      }
      if (!data.empty()) {
        auto kb = std::make_shared<BufferNode>();
        kb->name = names_.fresh(c.D->name + "_fz");
        kb->shape = {static_cast<int64_t>(data.size() / spec::param::pword_lanes)};
        kb->dtype = DType::parse("float32x64");
        kb->scope = Scope::DDR;
        kb->role = BufferRole::Constant;
        kb->loc = cdp->loc;
        kb->data = std::move(data);
        f_.buffers.push_back(kb);
        for (auto& g : seg) g.k = kb;
      }
      for (std::size_t k = 0; k < ps.size(); ++k) {
        const std::size_t i = ws[k];
        Stmt fusedp = fuse_epilogue(f_, names_, ps[k], c, sides[k], seg[k]);
        fused(top[i], cdp,
              "its DPU statements appended to the producer's DPU program (" + c.B->name +
                  " is not written; the ODR stores " + c.D->name + ")");
        top[i] = fusedp;
      }
      top.erase(top.begin() + static_cast<std::ptrdiff_t>(j));
      return true;
    } catch (const Refused& r) {
      refuse(last, cdp, r.why);
      return false;
    }
  }

  // A copy datapath (IFD0 -> ODR) folded into the IFD walks of the datapaths that read its result.
  bool try_movement(std::size_t i) {
    auto& top = f_.body->body;
    const Stmt pdp = top[i];
    if (moved_.count(pdp.get())) return false;
    moved_.insert(pdp.get());
    Parts p;
    Nest in, out;
    try {
      p = parts_of(pdp);
      if (!p.ifd0 || !p.odr || p.ifd1 || p.mm || p.dw || p.dpu) return false;
      in = nest_of(p.ifd0);
      out = nest_of(p.odr);
    } catch (const Refused&) { return false; }
    if (in.leaf->kind != StmtKind::Push || out.leaf->kind != StmtKind::Store || !out.leaf->buf) return false;
    const Buffer B = out.leaf->buf;
    std::vector<std::size_t> readers;
    for (std::size_t k = 0; k < top.size(); ++k)
      if (k != i && touched(top[k]).rd.count(B->root())) readers.push_back(k);
    if (readers.empty()) return false;
    if (!auto_ && !forced(pdp, top[readers.front()])) return false;
    try {
      admissible(pdp, "producer");
      const ExprNode& src = *in.leaf->value;
      if (src.kind != ExprKind::Load || !memory(src.buf)) no("the copy's IFD pushes a computed value");
      if (out.leaf->value->kind != ExprKind::Pop) no("the copy's ODR casts");
      if (B->alias_of || B->role != BufferRole::Local || B->output) no(B->name + " is a view, an input or an output");
      if (src.buf->dtype != B->dtype) no("the copy converts " + src.buf->dtype.str() + " to " + B->dtype.str());
      if (src.buf->root() == B.get()) no("the copy reads what it writes");
      if (out.loops.size() != B->shape.size() || in.loops.size() != out.loops.size())
        no("the copy's loops are not one per dimension of " + B->name);
      for (std::size_t k = 0; k < out.loops.size(); ++k) {
        const Expr& ix = out.leaf->indices[k];
        if (ix->kind != ExprKind::VarRef || ix->var != out.loops[k]->var || out.loops[k]->start != 0 ||
            out.loops[k]->extent != B->shape[k] || in.loops[k]->start != 0 || in.loops[k]->extent != B->shape[k])
          no("the copy does not write every element of " + B->name + " in order");
      }
      const BufferNode* X = src.buf->root();
      for (std::size_t k = 0; k < top.size(); ++k) {
        if (k == i) continue;
        const Touch t = touched(top[k]);
        if (t.wr.count(B.get())) no(B->name + " is also written by " + name(top[k]));
        if (!t.rd.count(B.get())) {
          if (k > i && k < readers.back() && t.wr.count(X))
            no(X->name + " is written before the last reader of " + B->name);
          continue;
        }
        if (k < i) no(B->name + " is read before the copy writes it");
        if (top[k]->kind != StmtKind::Datapath) no(B->name + " is read by a DMA or LoadIMC block");
        admissible(top[k], "consumer");
        if (t.wr.count(X)) no(name(top[k]) + " writes " + X->name + ", which the copy reads");
        for (const auto& s : top[k]->body) {
          if (!touched(s).rd.count(B.get())) continue;
          if (s->kind != StmtKind::Block || s->unit != Unit::IFD)
            no(name(top[k]) + " reads " + B->name + " outside its IFD");
        }
      }
      // Every read B[idx] becomes the copy's source at the copy's loop variables := idx.
      Rewriter rw;
      bool view = false;
      rw.expr = [&](const ExprNode& x) -> Expr {
        if (x.kind != ExprKind::Load || !x.buf || x.buf->root() != B.get()) return Expr();
        if (x.buf != B) {
          view = true;
          return Expr();
        }
        auto e = std::make_shared<ExprNode>(src);
        for (auto& a : e->args)
          for (std::size_t k = 0; k < in.loops.size(); ++k) a = substitute(a, in.loops[k]->var.get(), x.args[k]);
        return e;
      };
      std::vector<Stmt> rewritten;
      for (const std::size_t k : readers) rewritten.push_back(rw(top[k]));
      if (view) no("a reader reads " + B->name + " through a view");
      for (std::size_t k = 0; k < readers.size(); ++k) {
        f_.fusion_notes.push_back("fused: " + name(pdp) + " into " + name(top[readers[k]]) + ": its IFD reads " +
                                  X->name + " where the copy put " + B->name + " (" + B->name + " is not written)");
        done_.insert(pdp.get());
        top[readers[k]] = rewritten[k];
      }
      top.erase(top.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    } catch (const Refused& r) {
      refuse(pdp, top[readers.front()], r.why);
      return false;
    }
  }

  // A.fuse(strict=True): every producer/consumer pair of the group that stayed apart is an error.
  void check_strict() const {
    for (const auto& pr : pairs_) {
      const auto* a = pr.producer_scope;
      if (!a || a != pr.consumer_scope || a->prevent || !a->strict) continue;
      if (done_.count(pr.consumer) || !refused_.count(pr.key)) continue;
      fail(a->loc,
           "A.fuse(strict=True): the group does not reduce to a single datapath: " + pr.key + " stays apart: " + pr.why,
           "A.fuse(strict=False) to fuse what can be, or write the consumer elementwise on a float32 intermediate "
           "(§12)");
    }
  }

  struct Pair {
    const PrimFunc::FuseScope *producer_scope, *consumer_scope;
    const StmtNode* consumer;
    std::string key, why;
  };
  PrimFunc& f_;
  bool auto_;
  Names names_;
  std::set<const StmtNode*> tried_, moved_, done_;
  std::map<std::string, std::string> refused_;
  std::vector<Pair> pairs_;
};

}  // namespace

void fuse_datapaths(PrimFunc& f, bool automatic) {
  f.fusion_notes.clear();
  bool forced = false;
  for (const auto& s : f.fuse_scopes) forced = forced || !s.prevent;
  if (!automatic && !forced) return;
  Fuser(f, automatic).run();
}

}  // namespace axcore::compiler
