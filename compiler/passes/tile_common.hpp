// What the tiling pass (tile_l1.cpp) and the multi-core partitioning pass (partition_cores.cpp)
// share: the access analysis of a loop around one datapath, the operands that move with it, the
// rewrite of the datapath onto L1 slot buffers, and the SysDMA copies (passes-internal).
#pragma once

#include <cstdint>
#include <map>
#include <set>

#include "axcore/compiler/affine.hpp"
#include "axcore/compiler/tiling.hpp"

namespace axcore::compiler::tiling_detail {

bool ddr_backed(const BufferNode& b);
bool placed(const BufferNode& b);
uint64_t bytes_of(const BufferNode& b);
bool is_dma(const Stmt& s);
// Buffers (roots) the units read or write, as the placement will see them.
void unit_roots(const std::vector<Stmt>& list, std::set<const BufferNode*>& out);
// The roots the DMA blocks in `list` copy between (both sides of every copy).
void dma_roots(const std::vector<Stmt>& list, std::set<const BufferNode*>& out);
Affine flat_of(const BufferNode& b, const std::vector<Expr>& idx, const SourceLoc& loc);
Expr flat_expr(const BufferNode& view, const std::vector<Expr>& idx, int64_t minus, const SourceLoc& loc);

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

struct Tiled {
  const BufferNode* root;
  std::vector<const Access*> acc;
  bool read = false, write = false;
  int slots = 1;
  std::vector<std::pair<int64_t, int64_t>> span;  // per tile
  std::vector<Buffer> slot;                       // the L1 slot buffers
  Buffer flat;                                    // a 1-D view of the root, for the DMA
};

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

// The element range access `a` touches while the tiled loop runs over [i0, i0 + n).
std::pair<int64_t, int64_t> range(const Access& a, const VarNode* tiled, int64_t i0, int64_t n);
// Whether the writes of `a` over a tile cover [lo, hi] (else the tile is read first, so the
// elements it does not write keep their DDR values when it is copied back).
bool covers(const Access& a, const VarNode* tiled, int64_t i0, int64_t n, int64_t lo, int64_t hi);
Stmt copy_block(const Buffer& dst, const Buffer& src, bool into_slot, int64_t lo, int64_t n, const std::string& id,
                const SourceLoc& loc);
Stmt sync(const std::vector<std::string>& waits, const SourceLoc& loc);
Stmt* innermost_datapath(const Stmt& s);
// The shared_ptr of f's param or buffer r (a CompileError if f does not hold it).
Buffer find_buffer(const PrimFunc& f, const BufferNode* r);

// The operands of a loop around one datapath: the DDR-backed roots every access of which moves
// with the loop variable (tiled, with their accesses), and those that stay whole (read at a fixed
// place, not DDR-backed, or used by another top-level statement). Holds pointers into `an`:
// neither copied nor moved.
struct Operands {
  explicit Operands(const VarNode* iv) : an(iv) {}
  Operands(const Operands&) = delete;
  Operands& operator=(const Operands&) = delete;
  Analysis an;
  std::map<const BufferNode*, Tiled, ByName> tiled;
  Roots whole;
};
enum class Split { Ok, DatapathHasId, NotAffine, NothingMoves };
// Fills `o` for `loop` (its innermost datapath must exist); `others` are the function's other
// top-level statements.
Split split_operands(const Stmt& loop, const std::vector<Stmt>& others, Operands& o);

}  // namespace axcore::compiler::tiling_detail
