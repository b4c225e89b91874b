// The pieces the tiling and partitioning passes share (tile_common.hpp).
#include "tile_common.hpp"

#include <algorithm>

namespace axcore::compiler::tiling_detail {

bool ddr_backed(const BufferNode& b) { return home_of(b) == Home::DDR; }
bool placed(const BufferNode& b) {
  return b.role != BufferRole::Register && b.role != BufferRole::Accumulator && b.role != BufferRole::Imc;
}
uint64_t bytes_of(const BufferNode& b) { return static_cast<uint64_t>(b.elements()) * b.dtype.bytes(); }
bool is_dma(const Stmt& s) {
  return s->kind == StmtKind::Block && (s->unit == Unit::SysDMA || s->unit == Unit::CoreDMA);
}

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

void dma_roots(const std::vector<Stmt>& list, std::set<const BufferNode*>& out) {
  for (const auto& s : list) {
    if (s->kind == StmtKind::Store && s->buf && s->value && s->value->kind == ExprKind::Load) {
      out.insert(s->buf->root());
      out.insert(s->value->buf->root());
    }
    dma_roots(s->body, out);
  }
}

Affine flat_of(const BufferNode& b, const std::vector<Expr>& idx, const SourceLoc& loc) {
  Affine a;
  int64_t stride = 1;
  for (std::size_t d = idx.size(); d-- > 0;) {
    a += affine_of(idx[d], loc).scaled(stride);
    stride *= d < b.shape.size() ? b.shape[d] : 1;
  }
  return a;
}

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

Buffer find_buffer(const PrimFunc& f, const BufferNode* r) {
  for (const auto& b : f.params)
    if (b.get() == r) return b;
  for (const auto& b : f.buffers)
    if (b.get() == r) return b;
  fail(r->loc, "internal: buffer " + r->name + " is not in the function");
}

Split split_operands(const Stmt& loop, const std::vector<Stmt>& others, Operands& o) {
  if (!(*innermost_datapath(loop))->id.empty()) return Split::DatapathHasId;
  const VarNode* iv = loop->var.get();
  std::vector<LoopRange> loops;
  o.an.stmts(loop->body, loops, false);
  if (!o.an.ok) return Split::NotAffine;
  std::set<const BufferNode*> elsewhere;
  unit_roots(others, elsewhere);
  for (const auto& a : o.an.accesses) {
    const BufferNode* r = a.view->root();
    // A scratch homed in L2, or a weak one in DDR (guide §5.1: an L2 scratch, or one place_scopes
    // moved out of L1), is tiled in every loop that moves through it: its tiles are copied between
    // its home and L1, and a statement using it whole gets it copied into L1 by the lowering (which
    // keeps the copies coherent), so another statement's use does not keep it whole here.
    const Home h = home_of(*r);
    const bool streamed =
        h == Home::L2 || (h == Home::DDR && r->role == BufferRole::Local && !r->output && r->scope == Scope::DDR_WEAK);
    if (a.flat.of(iv) == 0 || h == Home::L1 || (!streamed && elsewhere.count(r))) o.whole.insert(r);
    if (a.flat.of(iv) < 0) o.whole.insert(r);
  }
  for (const auto& a : o.an.accesses) {
    const BufferNode* r = a.view->root();
    if (o.whole.count(r)) continue;
    Tiled& t = o.tiled[r];
    t.root = r;
    t.acc.push_back(&a);
    (a.write ? t.write : t.read) = true;
  }
  // A buffer some access reads at a fixed place stays whole; so does one accessed both ways.
  for (auto it = o.tiled.begin(); it != o.tiled.end();) {
    bool whole = false;
    for (const auto& a : o.an.accesses)
      if (a.view->root() == it->first && a.flat.of(iv) == 0) whole = true;
    it = whole ? o.tiled.erase(it) : std::next(it);
  }
  return o.tiled.empty() ? Split::NothingMoves : Split::Ok;
}

}  // namespace axcore::compiler::tiling_detail
