// K-splitting (guide §6.2, §11.1, §14): a matmul whose resident matrix exceeds one IMC residency
// is split along K into chunks of kc blocks (kc * N_BLOCKS <= imc_tiles). Chunk c gets its own
// A.alloc_imc (a residency of its own), its LoadIMC placed right before its datapaths — so no
// chunk is reused after another was loaded — and a datapath that streams only its K range:
//   chunk 0       the datapath as written (its cast or bias epilogue), over K blocks [0, kc)
//   chunk c >= 1  out = f18(f18(acc_c) + f18(out)): the partial sum read back through IFD1 and
//                 accumulated in the DPU (the guide's partial=, written in place: each element is
//                 read before the ODR writes it)
// The partial sums are float18, as every result that reaches memory through the DPU is (§7).
#include <algorithm>

#include "axcore/compiler/affine.hpp"
#include "axcore/compiler/tiling.hpp"

namespace axcore::compiler {
namespace {

struct MatmulSite {
  std::size_t loop = 0;  // top-level statement: the loop nest around the datapath
  Stmt* datapath = nullptr;
  std::vector<std::size_t> loads;  // top-level statements that fill the IMC buffer
};

Stmt* innermost(Stmt& s) {
  Stmt* cur = &s;
  while ((*cur)->kind == StmtKind::For && (*cur)->body.size() == 1) cur = &(*cur)->body[0];
  return cur;
}

bool uses_imc(const Expr& e, const BufferNode* imc) {
  if (!e) return false;
  if (e->buf.get() == imc) return true;
  return std::any_of(e->args.begin(), e->args.end(), [&](const Expr& a) { return uses_imc(a, imc); });
}
bool uses_imc(const std::vector<Stmt>& list, const BufferNode* imc) {
  for (const auto& s : list)
    if (s->buf.get() == imc || uses_imc(s->value, imc) || uses_imc(s->body, imc) || uses_imc(s->else_body, imc))
      return true;
  return false;
}

Stmt find_block(const std::vector<Stmt>& list, Unit u) {
  for (const auto& s : list) {
    if (s->kind == StmtKind::Block && s->unit == u) return s;
    if (s->kind == StmtKind::For)
      if (Stmt b = find_block(s->body, u)) return b;
  }
  return nullptr;
}

// The For of extent k_blocks whose body leads to `u` (around the block, or inside it).
Stmt* k_loop(std::vector<Stmt>& list, Unit u, int64_t k_blocks, bool inside) {
  for (auto& s : list) {
    if (s->kind == StmtKind::For && s->extent == k_blocks && s->start == 0 && (inside || find_block(s->body, u)))
      return &s;
    if (s->kind == StmtKind::Block && s->unit == u)
      if (Stmt* l = k_loop(s->body, u, k_blocks, true)) return l;
    if (s->kind == StmtKind::For && !inside)
      if (Stmt* l = k_loop(s->body, u, k_blocks, false)) return l;
  }
  return nullptr;
}

Stmt deep(const Stmt& s) { return clone(s); }

// Rewrites every IMC tile read of `from` into `to` (the index stays: kb already counts the chunk).
Expr retarget(const Expr& e, const BufferNode* from, const Buffer& to) {
  if (!e) return e;
  auto n = std::make_shared<ExprNode>(*e);
  if (n->buf.get() == from) n->buf = to;
  for (auto& a : n->args) a = retarget(a, from, to);
  return n;
}
void retarget(std::vector<Stmt>& list, const BufferNode* from, const Buffer& to) {
  for (auto& s : list) {
    s->value = retarget(s->value, from, to);
    if (s->buf.get() == from) s->buf = to;
    retarget(s->body, from, to);
    retarget(s->else_body, from, to);
  }
}

class SplitK {
 public:
  SplitK(PrimFunc& f, const TilingOptions& o) : f_(f), opt_(o) {}

  void run() {
    for (const auto& b : std::vector<Buffer>(f_.buffers)) {
      if (b->role != BufferRole::Imc) continue;
      const int64_t kb = b->shape[0], nb = b->shape[1];
      if (kb * nb <= static_cast<int64_t>(opt_.imc_tiles)) continue;
      split(b, kb, nb);
    }
  }

 private:
  [[noreturn]] void refuse(const BufferNode& imc, const std::string& why) const {
    fail(imc.loc,
         "IMC tile budget exceeded: A.alloc_imc((" + std::to_string(imc.shape[0]) + ", " +
             std::to_string(imc.shape[1]) + ")) holds " + std::to_string(imc.shape[0] * imc.shape[1]) +
             " tiles; one residency holds at most " + std::to_string(opt_.imc_tiles) +
             " (spec imc_tiles, §14), and the compiler cannot split this matmul along K: " + why,
         "split it by hand: one A.alloc_imc per K range, atomic.matmul with partial= (§11.2)");
  }

  void split(const Buffer& imc, int64_t k_blocks, int64_t n_blocks) {
    if (n_blocks > static_cast<int64_t>(opt_.imc_tiles)) refuse(*imc, "N_BLOCKS alone exceeds a residency (split N)");
    std::vector<Stmt>& top = f_.body->body;
    MatmulSite site;
    bool have_dp = false;
    for (std::size_t i = 0; i < top.size(); ++i) {
      if (!uses_imc({top[i]}, imc.get())) continue;
      Stmt* in = innermost(top[i]);
      if ((*in)->kind == StmtKind::Block && (*in)->unit == Unit::LoadIMC) {
        site.loads.push_back(i);
      } else if ((*in)->kind == StmtKind::Datapath && !have_dp) {
        site.loop = i;
        site.datapath = in;
        have_dp = true;
      } else {
        refuse(*imc, "its tiles are used by more than one datapath loop, or outside a loop around one datapath");
      }
    }
    if (!have_dp || site.loads.empty())
      refuse(*imc, "it needs one LoadIMC loop and one loop around the matmul datapath");
    if (site.loads.back() > site.loop) refuse(*imc, "the matrix is loaded after the matmul");
    const int64_t kc = static_cast<int64_t>(opt_.imc_tiles) / n_blocks;
    const int64_t chunks = (k_blocks + kc - 1) / kc;

    // The parts of the datapath the rewrite needs.
    StmtNode& dp = **site.datapath;
    const Stmt odr = find_block(dp.body, Unit::ODR), dpu = find_block(dp.body, Unit::DPU),
               mm = find_block(dp.body, Unit::MatMul);
    if (!odr || !dpu || !mm) refuse(*imc, "the datapath needs its MatMul, DPU and ODR blocks");
    if (!dp.id.empty()) refuse(*imc, "the datapath carries an id, and each K chunk is a launch of its own");
    const Stmt* store = nullptr;
    for (const Stmt* s = &odr; s && !store;) {
      const auto& b = (*s)->body;
      if (b.size() != 1) break;
      if (b[0]->kind == StmtKind::Store)
        store = &b[0];
      else if (b[0]->kind == StmtKind::For)
        s = &b[0];
      else
        break;
    }
    if (!store || (*store)->buf->dtype.base != DType::Base::Float32 || (*store)->value->kind != ExprKind::Pop)
      refuse(*imc, "the partial sums accumulate in a float32x64 output the ODR stores unguarded (out[...] = s.pop())");
    if (!odr->body.empty() && odr->body[0]->kind == StmtKind::For)
      refuse(*imc, "the ODR loops inside its block; write the loop around the datapath");
    if (!epilogue_is_additive(*dpu))
      refuse(
          *imc,
          "its DPU epilogue is not a cast or a cast plus one bias term (a scale does not distribute over the chunks)");
    const Stream out_stream = (*store)->value->stream;
    Stream mvm_stream;
    for (const auto& s : mm->body)
      if (s->kind == StmtKind::Push) mvm_stream = s->stream;
    if (!mvm_stream) refuse(*imc, "the MatMul does not push its accumulator");

    // Chunk c: its IMC buffer, its LoadIMCs, its datapath loop.
    std::vector<Stmt> seq;
    for (int64_t c = 0; c < chunks; ++c) {
      const int64_t k0 = c * kc, kn = std::min(kc, k_blocks - k0);
      auto ic = std::make_shared<BufferNode>(*imc);
      ic->name = imc->name + ".k" + std::to_string(c);
      ic->shape = {kn, n_blocks};
      f_.buffers.push_back(ic);
      for (std::size_t li : site.loads) seq.push_back(chunk_load(top[li], imc, ic, k_blocks, k0, kn));
      Stmt l = deep(top[site.loop]);
      StmtNode& d = **innermost(l);
      chunk_k(d.body, Unit::IFD, k_blocks, k0, kn, /*shift=*/true);
      chunk_k(d.body, Unit::MatMul, k_blocks, k0, kn, /*shift=*/false);
      retarget(d.body, imc.get(), ic);
      if (c > 0) {
        accumulate_dpu(d, out_stream, mvm_stream, **store);
        // The epilogue's side input (a streamed bias) belongs to chunk 0 only.
        std::erase_if(d.body,
                      [](const Stmt& s) { return s->kind == StmtKind::Block && s->unit == Unit::IFD && s->num == 1; });
      }
      seq.push_back(l);
    }
    std::vector<Stmt> out;
    for (std::size_t i = 0; i < top.size(); ++i) {
      if (std::find(site.loads.begin(), site.loads.end(), i) != site.loads.end()) continue;
      if (i == site.loop)
        out.insert(out.end(), seq.begin(), seq.end());
      else
        out.push_back(top[i]);
    }
    top = std::move(out);
    f_.buffers.erase(std::remove(f_.buffers.begin(), f_.buffers.end(), imc), f_.buffers.end());
  }

  // push(cast(pop, f32)) or push(cast(cast(pop, f18) + cast(X, f18), f32)).
  static bool epilogue_is_additive(const StmtNode& dpu) {
    std::vector<const StmtNode*> work;
    for (const auto& s : dpu.body)
      if (s->kind != StmtKind::DeclReg && s->kind != StmtKind::OpMarker) work.push_back(s.get());
    if (work.size() != 1 || work[0]->kind != StmtKind::Push) return false;
    const Expr& v = work[0]->value;
    if (v->kind != ExprKind::Cast) return false;
    const Expr& x = v->args[0];
    if (x->kind == ExprKind::Pop) return true;
    return x->kind == ExprKind::Add && x->args[0]->kind == ExprKind::Cast && x->args[0]->args[0]->kind == ExprKind::Pop;
  }

  // The LoadIMC nest for K blocks [k0, k0 + kn): the kb loop runs kn times and the weight slice
  // is shifted by k0 blocks.
  Stmt chunk_load(const Stmt& nest, const Buffer& imc, const Buffer& ic, int64_t k_blocks, int64_t k0,
                  int64_t kn) const {
    Stmt l = deep(nest);
    Stmt* block = innermost(l);
    StmtNode* st = nullptr;
    std::vector<Stmt>* cur = &(*block)->body;
    std::vector<Stmt*> loops;
    for (Stmt* s = &l; (*s)->kind == StmtKind::For; s = &(*s)->body[0]) loops.push_back(s);
    while (cur->size() == 1 && (*cur)[0]->kind == StmtKind::For) loops.push_back(&(*cur)[0]), cur = &(*cur)[0]->body;
    for (auto& s : *cur)
      if (s->kind == StmtKind::Store && s->buf == imc) st = s.get();
    if (!st || st->indices.size() != 2)
      refuse(*imc, "the LoadIMC is not w_imc[kb, nb] = weights[kb * 64 : kb * 64 + 64, nb]");
    const Expr& kidx = st->indices[0];
    if (kidx->kind != ExprKind::VarRef) refuse(*imc, "the LoadIMC's K-block index is not a loop variable");
    Stmt* kl = nullptr;
    for (Stmt* s : loops)
      if ((*s)->var == kidx->var) kl = s;
    if (!kl || (*kl)->extent != k_blocks || (*kl)->start != 0)
      refuse(*imc, "the LoadIMC's K loop does not run over the K blocks");
    const Expr shifted = make_binary(ExprKind::Add, make_var(kidx->var, st->loc), make_int(k0, st->loc), st->loc);
    st->value = substitute(st->value, kidx->var.get(), shifted);
    st->buf = ic;
    (*kl)->extent = kn;
    return l;
  }

  // The K loop of the IFD (shift: its addresses move to block k0) or the MatMul (the IMC index
  // counts blocks of the chunk) runs kn times.
  void chunk_k(std::vector<Stmt>& body, Unit u, int64_t k_blocks, int64_t k0, int64_t kn, bool shift) const {
    Stmt* l = k_loop(body, u, k_blocks, false);
    if (!l)
      fail((*find_block(body, u)).loc,
           "K-splitting: the " + to_string(u) + " has no loop over the " + std::to_string(k_blocks) +
               " K blocks (a flat reduction loop is what the split shortens)",
           "for kb in A.serial(K_BLOCKS) around the IFD push and in the MatMul");
    auto n = std::make_shared<StmtNode>(**l);
    n->extent = kn;
    if (shift) {
      const Expr v = make_binary(ExprKind::Add, make_var(n->var, n->loc), make_int(k0, n->loc), n->loc);
      std::vector<Stmt> b;
      for (const auto& s : n->body) b.push_back(substitute(s, n->var.get(), v));
      n->body = std::move(b);
    }
    *l = n;
  }

  // out = f18(f18(acc) + f18(out)) for chunks after the first.
  static void accumulate_dpu(StmtNode& d, const Stream& out_stream, const Stream& mvm_stream, const StmtNode& store) {
    for (auto& s : d.body) {
      if (s->kind != StmtKind::Block || s->unit != Unit::DPU) continue;
      auto dpu = std::make_shared<StmtNode>(*s);
      const SourceLoc& loc = s->loc;
      auto pop = std::make_shared<ExprNode>();
      pop->kind = ExprKind::Pop;
      pop->stream = mvm_stream;
      pop->dtype = mvm_stream->dtype;
      pop->loc = loc;
      auto prev = std::make_shared<ExprNode>();
      prev->kind = ExprKind::Load;
      prev->buf = store.buf;
      prev->args = store.indices;
      prev->dtype = store.buf->dtype;
      prev->loc = loc;
      auto cast = [&](Expr x, const char* dt) {
        auto c = std::make_shared<ExprNode>();
        c->kind = ExprKind::Cast;
        c->name = dt;
        c->dtype = DType::parse(dt);
        c->args = {std::move(x)};
        c->loc = loc;
        return Expr(c);
      };
      auto push = make_stmt(StmtKind::Push, loc);
      push->stream = out_stream;
      push->value =
          cast(make_binary(ExprKind::Add, cast(pop, "float18x64"), cast(prev, "float18x64"), loc), "float32x64");
      dpu->body = {push};
      s = dpu;
    }
  }

  PrimFunc& f_;
  TilingOptions opt_;
};

}  // namespace

void split_k(PrimFunc& f, const TilingOptions& opt) { SplitK(f, opt).run(); }

}  // namespace axcore::compiler
