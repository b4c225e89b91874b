// Tiling of outer loops against L1 with SysDMA insertion and the sync between the copies and the
// datapaths (guide §11, §12, §14). See tiling.hpp for what it does; this file is how.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>

#include "tile_common.hpp"

namespace axcore::compiler {
namespace {

using namespace tiling_detail;

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
    // The top-level statements each root is live over in L1 (first to last touching it there; an
    // output a unit touches to the end, where it is copied out): a loop moving an L2 buffer counts
    // only these beside its tiles (tile()).
    for (std::size_t k = 0; k < body.size(); ++k) {
      std::set<const BufferNode*> r, d;
      unit_roots({body[k]}, r);
      dma_roots({body[k]}, d);
      for (const BufferNode* b : d)
        if (home_of(*b) == Home::L1) r.insert(b);
      for (const BufferNode* b : r) {
        auto [it, fresh] = live_.emplace(b, std::make_pair(k, b->output ? body.size() : k));
        if (!fresh) it->second.second = std::max(it->second.second, k);
      }
    }
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
      if (!tile(s, k, others, total, out)) out.push_back(s);
    }
    f_.body->body = std::move(out);
  }

 private:
  bool tile(const Stmt& loop, std::size_t at, const std::vector<Stmt>& others, uint64_t& total,
            std::vector<Stmt>& out) {
    const bool directed = loop->tiles.has_value();
    const TileBounds bounds = loop->tiles.value_or(TileBounds{});
    // On several cores a loop the author did not tile is the partition-cores pass's
    // (partition_cores.cpp), which ran before: what it left stays whole.
    if (opt_.cores > 1 && !directed) return false;
    if (!directed && total <= opt_.l1_bytes) return false;
    const VarNode* iv = loop->var.get();
    Operands o(iv);
    switch (split_operands(loop, others, o)) {
      case Split::DatapathHasId:
        if (directed)
          fail(loop->loc,
               "A.tiles: the datapath carries id=\"" + (*innermost_datapath(loop))->id +
                   "\", and every tile is a launch of its own",
               "drop the id (the tiling pass inserts the sync between tiles)");
        return false;
      case Split::NotAffine:
        if (directed)
          fail(loop->loc,
               "A.tiles: the loop's datapath has an access the tiling pass cannot split (a slice or a non-affine "
               "index)");
        return false;
      case Split::NothingMoves:
        if (directed)
          fail(loop->loc, "A.tiles: no DDR operand of the datapath moves with this loop, so there is nothing to tile");
        return false;
      case Split::Ok: break;
    }
    auto& tiled = o.tiled;
    const int64_t E = loop->extent, i_start = loop->start;
    const int64_t drain = bounds.drain;
    for (auto& [r, t] : tiled) t.slots = (t.read ? drain >= 1 : drain >= 2) ? 2 : 1;
    uint64_t fixed = total;
    for (const auto& [r, t] : tiled) fixed -= bytes_of(*r);
    // A loop moving a scratch homed in L2 or a weak one in DDR (guide §5.1: an L2 scratch, or one
    // moved out of L1) counts beside its tiles only the buffers live in L1 over it, as the placement does:
    // the loops around it tile their own operands, so their whole size never sits in L1.
    uint64_t resident = fixed;
    if (std::any_of(tiled.begin(), tiled.end(), [](const auto& e) {
          return home_of(*e.first) == Home::L2 ||
                 (e.first->role == BufferRole::Local && e.first->scope == Scope::DDR_WEAK);
        })) {
      resident = 0;
      for (const auto& [r, span] : live_)
        if (span.first <= at && at <= span.second && !tiled.count(r)) resident += bytes_of(*r);
    }
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
    const uint64_t budget = opt_.l1_bytes > resident ? opt_.l1_bytes - resident : 0;
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
      v->alias_of = std::const_pointer_cast<BufferNode>(find_buffer(f_, r));
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

  PrimFunc& f_;
  TilingOptions opt_;
  int loops_tiled_ = 0;
  std::map<const BufferNode*, std::pair<std::size_t, std::size_t>> live_;
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
      throw L1Overflow(loc,
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
  throw L1Overflow(
      loc,
      "no tile of this loop fits L1: a tile of " + std::to_string(lo) + " needs " +
          (need == UINT64_MAX ? std::string("regions the DMA cannot split") : std::to_string(need) + " bytes") + "; " +
          std::to_string(budget) + " bytes of L1 are left for it",
      "a smaller tile_min, or tile another loop (nest A.tiles), or keep fewer buffers in L1");
}

void tile_for_l1(PrimFunc& f, const TilingOptions& opt) { TilingPass(f, opt).run(); }

}  // namespace axcore::compiler
