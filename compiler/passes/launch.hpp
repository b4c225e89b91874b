// What the loop passes treat as one launch: a datapath, or a LoadIMC / CoreDMA / SysDMA block
// (passes-internal).
#pragma once

#include "axcore/compiler/ir.hpp"

namespace axcore::compiler {

inline bool is_launch(const Stmt& s) {
  return s->kind == StmtKind::Datapath ||
         (s->kind == StmtKind::Block &&
          (s->unit == Unit::LoadIMC || s->unit == Unit::CoreDMA || s->unit == Unit::SysDMA));
}

}  // namespace axcore::compiler
