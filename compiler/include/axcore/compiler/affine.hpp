// Affine index analysis: an index expression as constant + sum(coef * loop var), the form every
// movement unit's address and guard must take (guide §5, §8: "Expected linear index").
#pragma once

#include <map>

#include "axcore/compiler/ir.hpp"

namespace axcore::compiler {

struct Affine {
  int64_t constant = 0;
  std::map<const VarNode*, int64_t> coef;
  int64_t of(const VarNode* v) const {
    auto it = coef.find(v);
    return it == coef.end() ? 0 : it->second;
  }
  Affine& operator+=(const Affine& o);
  Affine scaled(int64_t k) const;
  bool same_vars(const Affine& o) const;
};

// Throws CompileError "Expected linear index" (non-affine) or "Cannot match type handle vs int32"
// (a data-dependent index), at `where` when the expression has no location of its own.
Affine affine_of(const Expr& e, const SourceLoc& where);
// A build-time integer (throws when the expression depends on a loop variable).
int64_t const_int(const Expr& e, const SourceLoc& where, const char* what);

// Replaces loop variable `v` by `value` everywhere in `e` / a statement tree (deep copy).
Expr substitute(const Expr& e, const VarNode* v, const Expr& value);
Stmt substitute(const Stmt& s, const VarNode* v, const Expr& value);
Stmt clone(const Stmt& s);

// The terms of a conjunction `a && b && ...` (an expression that is no And is one term), in order.
void split_conjuncts(const Expr& e, std::vector<Expr>& out);

}  // namespace axcore::compiler
