// The drop-empty-loops pass: zero-extent loops lower to nothing (guide §4.4), and a launch left
// with a unit that streams nothing goes with them.
#include "axcore/compiler/passes.hpp"
#include "launch.hpp"

namespace axcore::compiler {
namespace {

// Drops zero-extent loops (guide §4.4: a zero extent is legal and lowers to nothing). `emptied` is
// set when a unit block that had statements has none left: that unit streams nothing.
std::vector<Stmt> drop_empty(const std::vector<Stmt>& list, bool& emptied) {
  std::vector<Stmt> out;
  for (const auto& s : list) {
    if (s->kind == StmtKind::For && s->extent == 0) continue;
    auto n = std::make_shared<StmtNode>(*s);
    if (is_launch(s)) {
      // A datapath (or DMA / LoadIMC launch) in which a unit streams nothing lowers to nothing;
      // one whose zero loops leave every unit with work keeps the rest of its statements.
      bool unit_emptied = false;
      n->body = drop_empty(s->body, unit_emptied);
      n->else_body = drop_empty(s->else_body, unit_emptied);
      if (unit_emptied || (!s->body.empty() && n->body.empty())) continue;
    } else {
      n->body = drop_empty(s->body, emptied);
      n->else_body = drop_empty(s->else_body, emptied);
      if (s->kind == StmtKind::Block && !s->body.empty() && n->body.empty()) emptied = true;
    }
    out.push_back(n);
  }
  return out;
}

}  // namespace

void drop_empty_loops(PrimFunc& f) {
  bool emptied = false;
  f.body->body = drop_empty(f.body->body, emptied);
}

}  // namespace axcore::compiler
