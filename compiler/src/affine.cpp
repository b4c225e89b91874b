#include "axcore/compiler/affine.hpp"

namespace axcore::compiler {

Affine& Affine::operator+=(const Affine& o) {
  constant += o.constant;
  for (const auto& [v, c] : o.coef) {
    coef[v] += c;
    if (coef[v] == 0) coef.erase(v);
  }
  return *this;
}
Affine Affine::scaled(int64_t k) const {
  Affine r;
  r.constant = constant * k;
  if (k != 0)
    for (const auto& [v, c] : coef) r.coef[v] = c * k;
  return r;
}
bool Affine::same_vars(const Affine& o) const { return coef == o.coef; }

static bool data_dependent(const Expr& e) {
  if (e->kind == ExprKind::Load || e->kind == ExprKind::Pop || e->kind == ExprKind::RegRead) return true;
  for (const auto& a : e->args)
    if (data_dependent(a)) return true;
  return false;
}

Affine affine_of(const Expr& e, const SourceLoc& where) {
  const SourceLoc& loc = where;
  switch (e->kind) {
    case ExprKind::Int: return Affine{e->ival, {}};
    case ExprKind::VarRef: {
      Affine a;
      a.coef[e->var.get()] = 1;
      return a;
    }
    case ExprKind::Add:
    case ExprKind::Sub: {
      Affine a = affine_of(e->args[0], where);
      a += affine_of(e->args[1], where).scaled(e->kind == ExprKind::Sub ? -1 : 1);
      return a;
    }
    case ExprKind::Mul: {
      Affine a = affine_of(e->args[0], where), b = affine_of(e->args[1], where);
      if (a.coef.empty()) return b.scaled(a.constant);
      if (b.coef.empty()) return a.scaled(b.constant);
      break;
    }
    case ExprKind::FloorDiv:
    case ExprKind::Mod: {
      Affine a = affine_of(e->args[0], where), b = affine_of(e->args[1], where);
      if (a.coef.empty() && b.coef.empty() && b.constant != 0) {
        int64_t q = a.constant / b.constant, r = a.constant % b.constant;
        if (r != 0 && ((r < 0) != (b.constant < 0))) {
          --q;
          r += b.constant;
        }
        return Affine{e->kind == ExprKind::FloorDiv ? q : r, {}};
      }
      break;
    }
    default:
      if (data_dependent(e))
        fail(loc, "Cannot match type handle vs int32",
             "an index computed from loop variables only, not from loaded data");
      break;
  }
  if (data_dependent(e))
    fail(loc, "Cannot match type handle vs int32", "an index computed from loop variables only, not from loaded data");
  fail(loc, "Expected linear index",
       "an address affine in the loop variables, e.g. buf[i * 64 + j] (not %, // or a product of two loop variables)");
}

int64_t const_int(const Expr& e, const SourceLoc& where, const char* what) {
  const Affine a = affine_of(e, where);
  if (!a.coef.empty())
    fail(where, std::string(what) + " must be a build-time integer, not an expression of a loop variable");
  return a.constant;
}

Expr substitute(const Expr& e, const VarNode* v, const Expr& value) {
  if (!e) return e;
  if (e->kind == ExprKind::VarRef) return e->var.get() == v ? value : e;
  bool changed = false;
  std::vector<Expr> args;
  for (const auto& a : e->args) {
    args.push_back(substitute(a, v, value));
    changed |= args.back() != a;
  }
  if (!changed) return e;
  auto n = std::make_shared<ExprNode>(*e);
  n->args = std::move(args);
  return n;
}

static void subst_list(std::vector<Stmt>& list, const VarNode* v, const Expr& value) {
  for (auto& s : list) s = substitute(s, v, value);
}

Stmt substitute(const Stmt& s, const VarNode* v, const Expr& value) {
  auto n = std::make_shared<StmtNode>(*s);
  n->value = substitute(s->value, v, value);
  for (auto& i : n->indices) i = substitute(i, v, value);
  subst_list(n->body, v, value);
  subst_list(n->else_body, v, value);
  return n;
}

Stmt clone(const Stmt& s) {
  auto n = std::make_shared<StmtNode>(*s);
  for (auto& b : n->body) b = clone(b);
  for (auto& b : n->else_body) b = clone(b);
  return n;
}

void split_conjuncts(const Expr& e, std::vector<Expr>& out) {
  if (e->kind == ExprKind::And) {
    split_conjuncts(e->args[0], out);
    split_conjuncts(e->args[1], out);
  } else {
    out.push_back(e);
  }
}

}  // namespace axcore::compiler
