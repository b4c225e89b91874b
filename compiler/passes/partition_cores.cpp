// The partition-cores pass: on a device of several cores, an outer loop around one datapath
// that the author did not tile (A.tiles) is split over the cores (guide §6 A.AICore, §12
// A.barrier). Runs before tile-l1, which leaves such loops to it.
#include <algorithm>
#include <functional>

#include "tile_common.hpp"

namespace axcore::compiler {
namespace {

using namespace tiling_detail;

class PartitionPass {
 public:
  PartitionPass(PrimFunc& f, const TilingOptions& opt) : f_(f), opt_(opt) {}

  void run() {
    if (opt_.cores <= 1) return;
    std::vector<Stmt> out;
    const auto& body = f_.body->body;
    for (std::size_t k = 0; k < body.size(); ++k) {
      const Stmt& s = body[k];
      if (s->kind != StmtKind::For || s->loop == LoopKind::Unroll || s->tiles || !innermost_datapath(s)) {
        out.push_back(s);
        continue;
      }
      std::vector<Stmt> others;
      for (std::size_t j = 0; j < body.size(); ++j)
        if (j != k) others.push_back(body[j]);
      Operands o(s->var.get());
      if (split_operands(s, others, o) != Split::Ok || !partition(s, o.an, o.tiled, o.whole, out)) out.push_back(s);
    }
    f_.body->body = std::move(out);
  }

 private:
  // The loop split over the cores (§6 A.AICore, §12 A.barrier): core c runs tile c. Every
  // buffer lives in one core's L1, so an operand read at a fixed place (weights, a bias) gets a
  // copy per core. The cores' copies in, their datapaths and their copies out each run side by
  // side, waited together; a barrier over the cores closes the loop.
  bool partition(const Stmt& loop, const Analysis& an, std::map<const BufferNode*, Tiled, ByName>& tiled,
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
      v->alias_of = find_buffer(f_, r);
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

  PrimFunc& f_;
  TilingOptions opt_;
  int loops_tiled_ = 0;
};

}  // namespace

void partition_cores(PrimFunc& f, const TilingOptions& opt) { PartitionPass(f, opt).run(); }

}  // namespace axcore::compiler
