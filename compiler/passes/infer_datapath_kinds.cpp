// The infer-datapath-kinds pass (guide §6): a datapath holding a MatMul is DP_MVMEXE, any other
// DP_DWPU; a pinned kind that contradicts the blocks is refused.
#include "axcore/compiler/passes.hpp"

namespace axcore::compiler {
namespace {

bool contains_unit(const std::vector<Stmt>& list, Unit u) {
  for (const auto& s : list)
    if ((s->kind == StmtKind::Block && s->unit == u && !is_bypassed(*s)) || contains_unit(s->body, u)) return true;
  return false;
}

void infer(std::vector<Stmt>& list) {
  for (auto& s : list) {
    if (s->kind == StmtKind::Datapath) {
      const bool mm = contains_unit(s->body, Unit::MatMul);
      const DpKind k = mm ? DpKind::MVMEXE : DpKind::DWPU;
      if (s->dp_kind && *s->dp_kind != k)
        fail(s->loc,
             std::string("this datapath is pinned to ") + (*s->dp_kind == DpKind::MVMEXE ? "DP_MVMEXE" : "DP_DWPU") +
                 " but " + (mm ? "holds a MatMul (DP_MVMEXE)" : "has no MatMul: only DP_MVMEXE datapaths run the MVM"),
             "omit kind= and let the compiler infer it (§6)");
      s->dp_kind = k;
    }
    infer(s->body);
  }
}

}  // namespace

void infer_datapath_kinds(PrimFunc& f) { infer(f.body->body); }

}  // namespace axcore::compiler
