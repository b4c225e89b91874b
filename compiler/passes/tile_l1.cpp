// Tiling of outer loops against L1 with SysDMA insertion and the sync between the copies and the
// datapaths (guide §11, §12, §14). See tiling.hpp for what it does; this file is how.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>

#include "axcore/compiler/affine.hpp"
#include "axcore/compiler/tiling.hpp"

namespace axcore::compiler {
namespace {

bool ddr_backed(const BufferNode& b) {
  return b.role == BufferRole::Input || b.role == BufferRole::Constant || b.output || b.scope == Scope::DDR ||
         b.scope == Scope::DDR_WEAK;
}
bool placed(const BufferNode& b) {
  return b.role != BufferRole::Register && b.role != BufferRole::Accumulator && b.role != BufferRole::Imc;
}
uint64_t bytes_of(const BufferNode& b) { return static_cast<uint64_t>(b.elements()) * b.dtype.bytes(); }
bool is_dma(const Stmt& s) {
  return s->kind == StmtKind::Block && (s->unit == Unit::SysDMA || s->unit == Unit::CoreDMA);
}

// Buffers (roots) the units read or write, as the placement will see them.
void unit_roots(const std::vector<Stmt>& list, std::set<const BufferNode*>& out);
void expr_roots(const Expr& e, std::set<const BufferNode*>& out) {
  if (!e) return;
  if ((e->kind == ExprKind::Load) && e->buf && placed(*e->buf)) out.insert(e->buf->root());
  for (const auto& a : e->args) expr_roots(a, out);
}
void unit_roots(const std::vector<Stmt>& list, std::set<const BufferNode*>& out) {
  for (const auto& s : list) {
    if (is_dma(s)) continue;
    expr_roots(s->value, out);
    if (s->kind == StmtKind::Store && s->buf && placed(*s->buf)) out.insert(s->buf->root());
    if (s->kind == StmtKind::Block && s->unit == Unit::Depthwise && s->buf) out.insert(s->buf->root());
    unit_roots(s->body, out);
    unit_roots(s->else_body, out);
  }
}

// Buffers ordered by name (then address): the order slot buffers, copies and waits are made in
// must not depend on where the nodes happen to live (a parsed copy compiles to the same bytes).
struct ByName {
  bool operator()(const BufferNode* a, const BufferNode* b) const {
    return a->name != b->name ? a->name < b->name : a < b;
  }
};
using Roots = std::set<const BufferNode*, ByName>;

struct LoopRange {
  const VarNode* var;
  int64_t start, extent;
};

// One buffer access inside the candidate: its flat element index and the loops around it.
struct Access {
  const BufferNode* view;
  Affine flat;
  std::vector<LoopRange> loops;  // enclosing loops inside the candidate, the tiled loop excluded
  bool write = false;
  bool guarded = false;  // under an A.If (a store may be dropped)
};

Affine flat_of(const BufferNode& b, const std::vector<Expr>& idx, const SourceLoc& loc) {
  Affine a;
  int64_t stride = 1;
  for (std::size_t d = idx.size(); d-- > 0;) {
    a += affine_of(idx[d], loc).scaled(stride);
    stride *= d < b.shape.size() ? b.shape[d] : 1;
  }
  return a;
}

class Analysis {
 public:
  explicit Analysis(const VarNode* tiled) : tiled_(tiled) {}
  bool ok = true;
  std::vector<Access> accesses;

  void stmts(const std::vector<Stmt>& list, std::vector<LoopRange>& loops, bool guarded) {
    for (const auto& s : list) {
      if (s->kind == StmtKind::For) {
        loops.push_back({s->var.get(), s->start, s->extent});
        stmts(s->body, loops, guarded);
        loops.pop_back();
        continue;
      }
      expr(s->value, loops, guarded);
      for (const auto& i : s->indices) expr(i, loops, guarded);
      if (s->kind == StmtKind::Store && s->buf && placed(*s->buf))
        add(*s->buf, s->indices, loops, true, guarded, s->loc);
      stmts(s->body, loops, guarded || s->kind == StmtKind::If);
      stmts(s->else_body, loops, true);
    }
  }

 private:
  void expr(const Expr& e, std::vector<LoopRange>& loops, bool guarded) {
    if (!e) return;
    if (e->kind == ExprKind::Load && e->buf && placed(*e->buf)) add(*e->buf, e->args, loops, false, guarded, e->loc);
    for (const auto& a : e->args) expr(a, loops, guarded);
  }
  void add(const BufferNode& b, const std::vector<Expr>& idx, const std::vector<LoopRange>& loops, bool write,
           bool guarded, const SourceLoc& loc) {
    for (const auto& i : idx)
      if (i->kind == ExprKind::Ramp) {
        ok = false;  // a slice (LoadIMC weights): the buffer stays whole
        return;
      }
    try {
      accesses.push_back({&b, flat_of(b, idx, loc), loops, write, guarded});
    } catch (const CompileError&) {
      ok = false;  // not affine: the lowering reports it at the statement
    }
  }
  const VarNode* tiled_;
};

// The element range access `a` touches while the tiled loop runs over [i0, i0 + n).
std::pair<int64_t, int64_t> range(const Access& a, const VarNode* tiled, int64_t i0, int64_t n) {
  int64_t lo = a.flat.constant, hi = a.flat.constant;
  const int64_t ci = a.flat.of(tiled);
  lo += std::min(ci * i0, ci * (i0 + n - 1));
  hi += std::max(ci * i0, ci * (i0 + n - 1));
  for (const auto& l : a.loops) {
    const int64_t c = a.flat.of(l.var);
    lo += std::min(c * l.start, c * (l.start + l.extent - 1));
    hi += std::max(c * l.start, c * (l.start + l.extent - 1));
  }
  return {lo, hi};
}

// Whether the writes of `a` over a tile cover [lo, hi] (else the tile is read first, so the
// elements it does not write keep their DDR values when it is copied back).
bool covers(const Access& a, const VarNode* tiled, int64_t i0, int64_t n, int64_t lo, int64_t hi) {
  if (a.guarded) return false;
  const int64_t span = hi - lo + 1;
  uint64_t points = static_cast<uint64_t>(n);
  for (const auto& l : a.loops) points *= static_cast<uint64_t>(std::max<int64_t>(l.extent, 0));
  if (points < static_cast<uint64_t>(span) || points > (1u << 22)) return false;
  std::vector<char> hit(static_cast<std::size_t>(span), 0);
  std::vector<int64_t> idx(a.loops.size() + 1, 0);
  for (uint64_t p = 0; p < points; ++p) {
    int64_t e = a.flat.constant + a.flat.of(tiled) * (i0 + idx[0]);
    for (std::size_t k = 0; k < a.loops.size(); ++k) e += a.flat.of(a.loops[k].var) * (a.loops[k].start + idx[k + 1]);
    if (e >= lo && e <= hi) hit[static_cast<std::size_t>(e - lo)] = 1;
    for (std::size_t k = idx.size(); k-- > 0;) {
      const int64_t ext = k == 0 ? n : a.loops[k - 1].extent;
      if (++idx[k] < ext) break;
      idx[k] = 0;
    }
  }
  return std::all_of(hit.begin(), hit.end(), [](char c) { return c != 0; });
}

struct Tiled {
  const BufferNode* root;
  std::vector<const Access*> acc;
  bool read = false, write = false;
  int slots = 1;
  std::vector<std::pair<int64_t, int64_t>> span;  // per tile
  std::vector<Buffer> slot;                       // the L1 slot buffers
  Buffer flat;                                    // a 1-D view of the root, for the DMA
};

Expr flat_expr(const BufferNode& view, const std::vector<Expr>& idx, int64_t minus, const SourceLoc& loc) {
  Expr acc;
  int64_t stride = 1;
  for (std::size_t d = idx.size(); d-- > 0;) {
    Expr term = stride == 1 ? idx[d] : make_binary(ExprKind::Mul, idx[d], make_int(stride, loc), loc);
    acc = acc ? make_binary(ExprKind::Add, term, acc, loc) : term;
    stride *= view.shape[d];
  }
  return minus ? make_binary(ExprKind::Sub, acc, make_int(minus, loc), loc) : acc;
}

class Rewriter {
 public:
  Rewriter(std::map<const BufferNode*, std::pair<Buffer, int64_t>> to) : to_(std::move(to)) {}
  Expr expr(const Expr& e) const {
    if (!e) return e;
    std::vector<Expr> args;
    bool changed = false;
    for (const auto& a : e->args) {
      args.push_back(expr(a));
      changed |= args.back() != a;
    }
    if (e->kind == ExprKind::Load && e->buf && to_.count(e->buf->root())) {
      const auto& [slot, lo] = to_.at(e->buf->root());
      auto n = std::make_shared<ExprNode>(*e);
      n->buf = slot;
      n->args = {flat_expr(*e->buf, args, lo, e->loc)};
      return n;
    }
    if (!changed) return e;
    auto n = std::make_shared<ExprNode>(*e);
    n->args = std::move(args);
    return n;
  }
  void stmt(StmtNode& s) const {
    s.value = expr(s.value);
    for (auto& i : s.indices) i = expr(i);
    if (s.kind == StmtKind::Store && s.buf && to_.count(s.buf->root())) {
      const auto& [slot, lo] = to_.at(s.buf->root());
      s.indices = {flat_expr(*s.buf, s.indices, lo, s.loc)};
      s.buf = slot;
    }
    for (auto& b : s.body) b = copy(b);
    for (auto& b : s.else_body) b = copy(b);
  }
  Stmt copy(const Stmt& s) const {
    auto n = std::make_shared<StmtNode>(*s);
    stmt(*n);
    return n;
  }

 private:
  std::map<const BufferNode*, std::pair<Buffer, int64_t>> to_;
};

Stmt copy_block(const Buffer& dst, const Buffer& src, bool into_slot, int64_t lo, int64_t n, const std::string& id,
                const SourceLoc& loc) {
  auto b = make_stmt(StmtKind::Block, loc);
  b->unit = Unit::SysDMA;
  b->id = id;
  b->id_generated = true;
  auto f = make_stmt(StmtKind::For, loc);
  f->var = std::make_shared<VarNode>();
  f->var->name = "e";
  f->extent = n;
  const Expr e = make_var(f->var, loc);
  const Expr far = make_binary(ExprKind::Add, make_int(lo, loc), e, loc);
  auto st = make_stmt(StmtKind::Store, loc);
  st->buf = dst;
  st->indices = {into_slot ? e : far};
  auto ld = std::make_shared<ExprNode>();
  ld->kind = ExprKind::Load;
  ld->buf = src;
  ld->dtype = src->dtype;
  ld->args = {into_slot ? far : e};
  ld->loc = loc;
  st->value = ld;
  f->body.push_back(st);
  b->body.push_back(f);
  return b;
}

Stmt sync(const std::vector<std::string>& waits, const SourceLoc& loc) {
  auto s = make_stmt(StmtKind::Sync, loc);
  s->waits = waits;
  return s;
}

Stmt* innermost_datapath(const Stmt& s) {
  Stmt* cur = const_cast<Stmt*>(&s);
  while ((*cur)->kind == StmtKind::For && (*cur)->body.size() == 1) cur = &(*cur)->body[0];
  return (*cur)->kind == StmtKind::Datapath ? cur : nullptr;
}

class TilingPass {
 public:
  TilingPass(PrimFunc& f, const TilingOptions& opt) : f_(f), opt_(opt) {}

  void run() {
    std::set<const BufferNode*> all;
    unit_roots(f_.body->body, all);
    uint64_t total = 0;
    for (const auto* b : all) total += bytes_of(*b);
    std::vector<Stmt> out;
    const auto& body = f_.body->body;
    for (std::size_t k = 0; k < body.size(); ++k) {
      const Stmt& s = body[k];
      if (s->kind != StmtKind::For || s->loop == LoopKind::Unroll || !innermost_datapath(s)) {
        if (s->kind == StmtKind::For && s->tiles && !innermost_datapath(s))
          fail(s->loc,
               "A.tiles splits a loop around one datapath (§11.1); this one wraps " +
                   std::string(s->body.empty() ? "nothing" : "other work"),
               "wrap exactly one A.Datapath in the tiled loop (a loop around several is unrolled, §9.3)");
        out.push_back(s);
        continue;
      }
      std::vector<Stmt> others;
      for (std::size_t j = 0; j < body.size(); ++j)
        if (j != k) others.push_back(body[j]);
      if (!tile(s, others, total, out)) out.push_back(s);
    }
    f_.body->body = std::move(out);
  }

 private:
  bool tile(const Stmt& loop, const std::vector<Stmt>& others, uint64_t& total, std::vector<Stmt>& out) {
    const bool directed = loop->tiles.has_value();
    const TileBounds bounds = loop->tiles.value_or(TileBounds{});
    const bool partition = opt_.cores > 1 && !directed;
    if (!directed && !partition && total <= opt_.l1_bytes) return false;
    Stmt* dp = innermost_datapath(loop);
    if (!(*dp)->id.empty()) {
      if (directed)
        fail(loop->loc, "A.tiles: the datapath carries id=\"" + (*dp)->id + "\", and every tile is a launch of its own",
             "drop the id (the tiling pass inserts the sync between tiles)");
      return false;
    }
    const VarNode* iv = loop->var.get();
    Analysis an(iv);
    std::vector<LoopRange> loops;
    an.stmts(loop->body, loops, false);
    if (!an.ok) {
      if (directed)
        fail(loop->loc,
             "A.tiles: the loop's datapath has an access the tiling pass cannot split (a slice or a non-affine index)");
      return false;
    }
    std::set<const BufferNode*> elsewhere;
    unit_roots(others, elsewhere);
    std::map<const BufferNode*, Tiled, ByName> tiled;
    Roots refused;
    for (const auto& a : an.accesses) {
      const BufferNode* r = a.view->root();
      if (a.flat.of(iv) == 0 || !ddr_backed(*r) || elsewhere.count(r)) refused.insert(r);
      if (a.flat.of(iv) < 0) refused.insert(r);
    }
    for (const auto& a : an.accesses) {
      const BufferNode* r = a.view->root();
      if (refused.count(r)) continue;
      Tiled& t = tiled[r];
      t.root = r;
      t.acc.push_back(&a);
      (a.write ? t.write : t.read) = true;
    }
    // A buffer some access reads at a fixed place stays whole; so does one accessed both ways.
    for (auto it = tiled.begin(); it != tiled.end();) {
      bool whole = false;
      for (const auto& a : an.accesses)
        if (a.view->root() == it->first && a.flat.of(iv) == 0) whole = true;
      it = whole ? tiled.erase(it) : std::next(it);
    }
    if (tiled.empty()) {
      if (directed)
        fail(loop->loc, "A.tiles: no DDR operand of the datapath moves with this loop, so there is nothing to tile");
      return false;
    }
    if (partition) return partition_cores(loop, an, tiled, refused, out);
    const int64_t E = loop->extent, i_start = loop->start;
    const int64_t drain = bounds.drain;
    for (auto& [r, t] : tiled) t.slots = (t.read ? drain >= 1 : drain >= 2) ? 2 : 1;
    uint64_t fixed = total;
    for (const auto& [r, t] : tiled) fixed -= bytes_of(*r);
    // Spans per tile for a factor T; false when a tile leaves its buffer or written tiles overlap.
    auto spans = [&](int64_t T, Tiled& t) {
      t.span.clear();
      for (int64_t base = 0; base < E; base += T) {
        const int64_t n = std::min(T, E - base);
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (const Access* a : t.acc) {
          const auto [l, h] = range(*a, iv, i_start + base, n);
          lo = std::min(lo, l);
          hi = std::max(hi, h);
        }
        if (lo < 0 || hi >= t.root->elements()) return false;
        if (t.write && !t.span.empty() && lo <= t.span.back().second) return false;
        t.span.emplace_back(lo, hi);
      }
      return true;
    };
    const uint64_t budget = opt_.l1_bytes > fixed ? opt_.l1_bytes - fixed : 0;
    auto bytes_for = [&](int64_t T) -> uint64_t {
      uint64_t b = 0;
      for (auto& [r, t] : tiled) {
        if (!spans(T, t)) return UINT64_MAX;
        int64_t s = 0;
        for (const auto& [lo, hi] : t.span) s = std::max(s, hi - lo + 1);
        b += static_cast<uint64_t>(t.slots) * static_cast<uint64_t>(s) * r->dtype.bytes();
      }
      return b;
    };
    if (!directed && bytes_for(E) <= budget) return false;
    // Automatic tiling counts every buffer of the kernel as resident; the placement keeps only
    // the live ones in L1, so a loop no tile of which fits next to all of them is left whole
    // (the placement reports it if it does not fit either).
    TileChoice c;
    try {
      c = choose_tile(E, bounds, bytes_for, budget, loop->loc);
    } catch (const CompileError&) {
      if (directed) throw;
      return false;
    }
    (void)bytes_for(c.tile);
    total = fixed + c.bytes;
    emit(loop, c, tiled, out, drain);
    return true;
  }

  void emit(const Stmt& loop, const TileChoice& c, std::map<const BufferNode*, Tiled, ByName>& tiled,
            std::vector<Stmt>& out, int64_t drain) {
    const VarNode* iv = loop->var.get();
    const SourceLoc& loc = loop->loc;
    const std::string tag = "tile" + std::to_string(++loops_tiled_);
    bool rmw = false;
    for (auto& [r, t] : tiled) {
      int64_t s = 0;
      for (const auto& [lo, hi] : t.span) s = std::max(s, hi - lo + 1);
      for (int k = 0; k < t.slots; ++k) {
        auto b = std::make_shared<BufferNode>();
        b->name = r->name + "." + tag + ".slot" + std::to_string(k);
        b->shape = {s};
        b->dtype = r->dtype;
        b->scope = Scope::L1;
        b->role = BufferRole::Local;
        b->loc = loc;
        f_.buffers.push_back(b);
        t.slot.push_back(b);
      }
      auto v = std::make_shared<BufferNode>(*r);
      v->name = r->name + "." + tag + ".flat";
      v->shape = {r->elements()};
      v->alias_of = std::const_pointer_cast<BufferNode>(find_buffer(r));
      v->data.clear();
      v->loc = loc;
      f_.buffers.push_back(v);
      t.flat = v;
      // A written tile the datapath does not cover completely is read first (read-modify-write).
      if (t.write && !t.read) {
        for (std::size_t k = 0; k < t.span.size(); ++k) {
          const int64_t base = static_cast<int64_t>(k) * c.tile, n = std::min(c.tile, loop->extent - base);
          bool cov = false;
          for (const Access* a : t.acc)
            if (a->write && covers(*a, iv, loop->start + base, n, t.span[k].first, t.span[k].second)) cov = true;
          if (!cov) t.read = true;
        }
        if (t.read) rmw = true;
      } else if (t.write && t.read) {
        rmw = true;
      }
    }
    const std::size_t n = static_cast<std::size_t>(c.num_tiles);
    const bool ids = drain > 0;
    auto id = [&](std::size_t k, const std::string& what) {
      return ids ? tag + ".t" + std::to_string(k) + "." + what : std::string();
    };
    auto loads = [&](std::size_t k, std::vector<std::string>& names) {
      for (auto& [r, t] : tiled) {
        if (!t.read) continue;
        const auto [lo, hi] = t.span[k];
        const std::string i = id(k, "in." + r->name);
        out.push_back(copy_block(t.slot[k % t.slot.size()], t.flat, true, lo, hi - lo + 1, i, loc));
        names.push_back(i);
      }
    };
    auto stores = [&](std::size_t k, std::vector<std::string>& names) {
      for (auto& [r, t] : tiled) {
        if (!t.write) continue;
        const auto [lo, hi] = t.span[k];
        const std::string i = id(k, "out." + r->name);
        out.push_back(copy_block(t.flat, t.slot[k % t.slot.size()], false, lo, hi - lo + 1, i, loc));
        names.push_back(i);
      }
    };
    auto compute = [&](std::size_t k) {
      const int64_t base = static_cast<int64_t>(k) * c.tile, len = std::min(c.tile, loop->extent - base);
      std::map<const BufferNode*, std::pair<Buffer, int64_t>> to;
      for (auto& [r, t] : tiled) to[r] = {t.slot[k % t.slot.size()], t.span[k].first};
      auto l = std::make_shared<StmtNode>(*loop);
      l->tiles.reset();
      l->var = std::make_shared<VarNode>();
      l->var->name = loop->var->name + "_" + tag + "_t" + std::to_string(k);
      l->start = 0;
      l->extent = len;
      const Expr i = make_binary(ExprKind::Add, make_int(loop->start + base, loc), make_var(l->var, loc), loc);
      l->body.clear();
      for (const auto& b : loop->body) l->body.push_back(Rewriter(to).copy(substitute(clone(b), iv, i)));
      Stmt s = l;
      if (ids) {
        (*innermost_datapath(s))->id = id(k, "dp");
        (*innermost_datapath(s))->id_generated = true;
      }
      out.push_back(s);
    };
    if (!ids) {
      for (std::size_t k = 0; k < n; ++k) {
        std::vector<std::string> unused;
        loads(k, unused);
        compute(k);
        stores(k, unused);
      }
      return;
    }
    // Software pipeline: load(k+1) and store(k-1) run while tile k computes (§12).
    std::vector<std::vector<std::string>> in(n), outs(n);
    loads(0, in[0]);
    for (std::size_t k = 0; k < n; ++k) {
      if (k + 1 < n) {
        // The slot load(k+1) fills was last read by compute(k-1) (waited below) and, for a
        // read-modify-write tile, by store(k-1).
        if (rmw && drain >= 2 && k >= 1 && !outs[k - 1].empty()) out.push_back(sync(outs[k - 1], loc));
        loads(k + 1, in[k + 1]);
      }
      if (!in[k].empty()) out.push_back(sync(in[k], loc));
      // The output slot compute(k) writes was last read by store(k - slots).
      if (drain >= 2 && k >= 2 && !outs[k - 2].empty()) out.push_back(sync(outs[k - 2], loc));
      compute(k);
      out.push_back(sync({id(k, "dp")}, loc));
      stores(k, outs[k]);
      if (drain == 1 && !outs[k].empty()) out.push_back(sync(outs[k], loc));
    }
    if (drain >= 2)
      for (std::size_t k = n >= 2 ? n - 2 : 0; k < n; ++k)
        if (!outs[k].empty()) out.push_back(sync(outs[k], loc));
  }

  // The loop split over the cores (§6 A.AICore, §12 A.barrier): core c runs tile c. Every
  // buffer lives in one core's L1, so an operand read at a fixed place (weights, a bias) gets a
  // copy per core. The cores' copies in, their datapaths and their copies out each run side by
  // side, waited together; a barrier over the cores closes the loop.
  bool partition_cores(const Stmt& loop, const Analysis& an, std::map<const BufferNode*, Tiled, ByName>& tiled,
                       const Roots& whole, std::vector<Stmt>& out) {
    const VarNode* iv = loop->var.get();
    // The IMC is per core and its LoadIMC is a launch of its own: a matmul stays on one core.
    std::function<bool(const std::vector<Stmt>&)> has_matmul = [&](const std::vector<Stmt>& l) {
      for (const auto& s : l)
        if ((s->kind == StmtKind::Block && s->unit == Unit::MatMul) || has_matmul(s->body)) return true;
      return false;
    };
    if (has_matmul(loop->body)) return false;
    for (const BufferNode* r : whole) {
      if (!ddr_backed(*r)) return false;  // an L1 buffer another loop fills: stays on one core
      for (const auto& a : an.accesses)
        if (a.view->root() == r && a.write) return false;
    }
    const int64_t E = loop->extent;
    const int64_t T = (E + opt_.cores - 1) / opt_.cores;
    for (auto& [r, t] : tiled) {
      t.slots = 1;
      t.span.clear();
      for (int64_t base = 0; base < E; base += T) {
        const int64_t n = std::min(T, E - base);
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (const Access* a : t.acc) {
          const auto [l, h] = range(*a, iv, loop->start + base, n);
          lo = std::min(lo, l);
          hi = std::max(hi, h);
        }
        if (lo < 0 || hi >= r->elements() || (t.write && !t.span.empty() && lo <= t.span.back().second)) return false;
        t.span.emplace_back(lo, hi);
      }
    }
    const std::size_t parts = static_cast<std::size_t>((E + T - 1) / T);
    const SourceLoc& loc = loop->loc;
    const std::string tag = "cores" + std::to_string(++loops_tiled_);
    auto l1_buffer = [&](const BufferNode& r, int64_t elems, const std::string& name) {
      auto b = std::make_shared<BufferNode>();
      b->name = name;
      b->shape = {elems};
      b->dtype = r.dtype;
      b->scope = Scope::L1;
      b->role = BufferRole::Local;
      b->loc = loc;
      f_.buffers.push_back(b);
      return b;
    };
    auto flat_view = [&](const BufferNode* r) {
      auto v = std::make_shared<BufferNode>(*r);
      v->name = r->name + "." + tag + ".flat";
      v->shape = {r->elements()};
      v->alias_of = find_buffer(r);
      v->data.clear();
      v->loc = loc;
      f_.buffers.push_back(v);
      return v;
    };
    std::map<const BufferNode*, Buffer> flat;
    for (const BufferNode* r : whole) flat[r] = flat_view(r);
    for (auto& [r, t] : tiled) {
      t.flat = flat_view(r);
      for (std::size_t c = 0; c < parts; ++c) {
        const auto [lo, hi] = t.span[c];
        t.slot.push_back(l1_buffer(*r, hi - lo + 1, r->name + "." + tag + ".core" + std::to_string(c)));
      }
      // A written part the datapath does not cover completely is read first.
      if (t.write && !t.read)
        for (std::size_t c = 0; c < parts; ++c) {
          bool cov = false;
          const int64_t base = static_cast<int64_t>(c) * T, n = std::min(T, E - base);
          for (const Access* a : t.acc)
            if (a->write && covers(*a, iv, loop->start + base, n, t.span[c].first, t.span[c].second)) cov = true;
          if (!cov) t.read = true;
        }
    }
    std::vector<std::map<const BufferNode*, Buffer>> copies(parts);
    for (std::size_t c = 0; c < parts; ++c)
      for (const BufferNode* r : whole)
        copies[c][r] = l1_buffer(*r, r->elements(), r->name + "." + tag + ".core" + std::to_string(c));
    auto on_core = [&](std::size_t c, std::vector<Stmt> body) {
      auto b = make_stmt(StmtKind::Block, loc);
      b->unit = Unit::AICore;
      b->core = static_cast<int>(c);
      b->body = std::move(body);
      out.push_back(b);
    };
    auto id = [&](std::size_t c, const std::string& what) { return tag + ".c" + std::to_string(c) + "." + what; };
    std::vector<std::string> ins, dps, outs;
    for (std::size_t c = 0; c < parts; ++c) {
      std::vector<Stmt> body;
      for (auto& [r, t] : tiled)
        if (t.read) {
          const auto [lo, hi] = t.span[c];
          body.push_back(copy_block(t.slot[c], t.flat, true, lo, hi - lo + 1, id(c, "in." + r->name), loc));
          ins.push_back(body.back()->id);
        }
      for (const BufferNode* r : whole) {
        body.push_back(copy_block(copies[c][r], flat[r], true, 0, r->elements(), id(c, "in." + r->name), loc));
        ins.push_back(body.back()->id);
      }
      on_core(c, std::move(body));
    }
    if (!ins.empty()) out.push_back(sync(ins, loc));
    for (std::size_t c = 0; c < parts; ++c) {
      const int64_t base = static_cast<int64_t>(c) * T, len = std::min(T, E - base);
      std::map<const BufferNode*, std::pair<Buffer, int64_t>> to;
      for (auto& [r, t] : tiled) to[r] = {t.slot[c], t.span[c].first};
      for (const BufferNode* r : whole) to[r] = {copies[c][r], 0};
      auto l = std::make_shared<StmtNode>(*loop);
      l->var = std::make_shared<VarNode>();
      l->var->name = loop->var->name + "_" + tag + "_c" + std::to_string(c);
      l->start = 0;
      l->extent = len;
      const Expr i = make_binary(ExprKind::Add, make_int(loop->start + base, loc), make_var(l->var, loc), loc);
      l->body.clear();
      for (const auto& b : loop->body) l->body.push_back(Rewriter(to).copy(substitute(clone(b), iv, i)));
      Stmt st = l;
      (*innermost_datapath(st))->id = id(c, "dp");
      (*innermost_datapath(st))->id_generated = true;
      dps.push_back(id(c, "dp"));
      on_core(c, {st});
    }
    out.push_back(sync(dps, loc));
    for (std::size_t c = 0; c < parts; ++c) {
      std::vector<Stmt> body;
      for (auto& [r, t] : tiled)
        if (t.write) {
          const auto [lo, hi] = t.span[c];
          body.push_back(copy_block(t.flat, t.slot[c], false, lo, hi - lo + 1, id(c, "out." + r->name), loc));
          outs.push_back(body.back()->id);
        }
      on_core(c, std::move(body));
    }
    if (!outs.empty()) out.push_back(sync(outs, loc));
    auto b = make_stmt(StmtKind::Barrier, loc);
    for (std::size_t c = 0; c < parts; ++c) b->cores.push_back(static_cast<int>(c));
    out.push_back(b);
    return true;
  }

  Buffer find_buffer(const BufferNode* r) const {
    for (const auto& b : f_.params)
      if (b.get() == r) return b;
    for (const auto& b : f_.buffers)
      if (b.get() == r) return b;
    fail(r->loc, "internal: buffer " + r->name + " is not in the function");
  }

  PrimFunc& f_;
  TilingOptions opt_;
  int loops_tiled_ = 0;
};

}  // namespace

TileChoice choose_tile(int64_t extent, const TileBounds& b, const std::function<uint64_t(int64_t)>& bytes_for,
                       uint64_t budget, const SourceLoc& loc) {
  if (extent <= 0) fail(loc, "A.tiles over an empty extent");
  const int64_t lo = std::max<int64_t>(1, b.tile_min);
  const int64_t hi = b.tile_max ? std::min(b.tile_max, extent) : extent;
  auto make = [&](int64_t t) { return TileChoice{t, (extent + t - 1) / t, bytes_for(t)}; };
  if (b.num_tiles) {
    const int64_t t = (extent + b.num_tiles - 1) / b.num_tiles;
    if (t < lo || t > hi)
      fail(loc, "A.tiles: num_tiles=" + std::to_string(b.num_tiles) + " gives tiles of " + std::to_string(t) +
                    ", outside tile_min/tile_max [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    const TileChoice c = make(t);
    if (c.bytes > budget)
      fail(loc,
           "A.tiles: num_tiles=" + std::to_string(b.num_tiles) + " needs " + std::to_string(c.bytes) +
               " bytes of L1 per tile set; " + std::to_string(budget) + " are left",
           "more tiles (num_tiles=), or fewer buffers in L1");
    return c;
  }
  if (lo > extent)
    fail(loc, "A.tiles: tile_min=" + std::to_string(lo) + " exceeds the extent " + std::to_string(extent));
  for (int64_t t = hi; t >= lo; --t) {
    const uint64_t need = bytes_for(t);
    if (need <= budget) return {t, (extent + t - 1) / t, need};
  }
  const uint64_t need = bytes_for(lo);
  fail(loc,
       "no tile of this loop fits L1: a tile of " + std::to_string(lo) + " needs " +
           (need == UINT64_MAX ? std::string("regions the DMA cannot split") : std::to_string(need) + " bytes") + "; " +
           std::to_string(budget) + " bytes of L1 are left for it",
       "a smaller tile_min, or tile another loop (nest A.tiles), or keep fewer buffers in L1");
}

void tile_for_l1(PrimFunc& f, const TilingOptions& opt) { TilingPass(f, opt).run(); }

}  // namespace axcore::compiler
