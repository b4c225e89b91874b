// The sink-and-unroll pass: loop sinking and unrolling (guide §9.2, §9.3).
#include "axcore/compiler/affine.hpp"
#include "axcore/compiler/passes.hpp"
#include "launch.hpp"

namespace axcore::compiler {
namespace {

int count_launches(const std::vector<Stmt>& list) {
  int n = 0;
  for (const auto& s : list) {
    if (is_launch(s))
      ++n;
    else
      n += count_launches(s->body) + count_launches(s->else_body);
  }
  return n;
}

Stmt loop_copy(const Stmt& loop, std::vector<Stmt> body) {
  auto l = std::make_shared<StmtNode>(*loop);
  l->body = std::move(body);
  return l;
}

// Wraps the work of a unit block in `loop`; declarations and the DPU preamble stay outside.
Stmt sink_block(const Stmt& block, const Stmt& loop) {
  auto b = std::make_shared<StmtNode>(*block);
  std::vector<Stmt> keep, work;
  for (const auto& s : block->body) {
    if (s->kind == StmtKind::DeclReg || (s->kind == StmtKind::Block && s->unit == Unit::Init))
      keep.push_back(s);
    else
      work.push_back(s);
  }
  if (!work.empty()) keep.push_back(loop_copy(loop, std::move(work)));
  b->body = std::move(keep);
  return b;
}

Stmt sink(const Stmt& launch, const Stmt& loop) {
  if (launch->kind != StmtKind::Datapath) return sink_block(launch, loop);
  auto d = std::make_shared<StmtNode>(*launch);
  d->body.clear();
  for (const auto& s : launch->body) d->body.push_back(s->kind == StmtKind::Block ? sink_block(s, loop) : s);
  return d;
}

std::vector<Stmt> expand(const Stmt& loop, const std::vector<Stmt>& body) {
  std::vector<Stmt> out;
  for (int64_t k = 0; k < loop->extent; ++k) {
    const Expr value = make_int(loop->start + k, loop->loc);
    for (const auto& s : body) out.push_back(substitute(clone(s), loop->var.get(), value));
  }
  return out;
}

std::vector<Stmt> rewrite(const std::vector<Stmt>& list, bool in_block);

// A nest of loops, one statement each, around one unit block inside a datapath (§6.2's
// `for kb: with A.IFD`, the convolution's `for kh, kw, cib in A.grid(...): with A.IFD`) is that
// unit's own loop nest: move it inside the block, innermost loop first.
Stmt sink_nest_into_block(const Stmt& c) {
  if (c->kind != StmtKind::For || c->body.size() != 1) return c;
  const Stmt inner = c->body[0]->kind == StmtKind::For ? sink_nest_into_block(c->body[0]) : c->body[0];
  return inner->kind == StmtKind::Block ? sink_block(inner, c) : c;
}

Stmt rewrite_children(const Stmt& s, bool in_block) {
  auto n = std::make_shared<StmtNode>(*s);
  const bool child_in_block =
      in_block || s->kind == StmtKind::Datapath || (s->kind == StmtKind::Block && s->unit != Unit::AICore);
  n->body = rewrite(s->body, child_in_block);
  n->else_body = rewrite(s->else_body, child_in_block);
  if (s->kind == StmtKind::Datapath) {
    for (auto& c : n->body) c = sink_nest_into_block(c);
  }
  return n;
}

std::vector<Stmt> rewrite(const std::vector<Stmt>& list, bool in_block) {
  std::vector<Stmt> out;
  for (const auto& s : list) {
    if (s->kind != StmtKind::For) {
      out.push_back(rewrite_children(s, in_block));
      continue;
    }
    std::vector<Stmt> body = rewrite(s->body, in_block);
    if (in_block) {
      if (s->loop == LoopKind::Unroll) {
        for (auto& x : expand(s, body)) out.push_back(x);
      } else {
        out.push_back(loop_copy(s, std::move(body)));
      }
      continue;
    }
    const int launches = count_launches(body);
    if (launches == 0) {
      out.push_back(loop_copy(s, std::move(body)));
    } else if (s->loop != LoopKind::Unroll && launches == 1 && body.size() == 1 && is_launch(body[0])) {
      out.push_back(sink(body[0], s));
    } else {
      for (auto& x : expand(s, body)) out.push_back(x);
    }
  }
  return out;
}

}  // namespace

void sink_and_unroll(PrimFunc& f) { f.body->body = rewrite(f.body->body, false); }

}  // namespace axcore::compiler
