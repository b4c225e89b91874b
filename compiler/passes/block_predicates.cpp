// A.where(cond) block predicates (guide §10): a predicate on an A.Datapath, A.CoreDMA or A.SysDMA
// bounds the data movement that block generates. It is decided when the program is built: each
// comparison of the conjunction is a build-time constant (the block runs or not) or bounds one
// loop variable around the block (only that range of the loop's iterations runs, so the IFD and
// ODR walks, the DMA transfers and the tiling pass's copies cover that range only). Anything else
// is refused at the A.where.
#include <algorithm>
#include <climits>
#include <set>

#include "axcore/compiler/affine.hpp"
#include "axcore/compiler/passes.hpp"
#include "axcore/compiler/printer.hpp"

namespace axcore::compiler {
namespace {

// "A.where(cond)" as written: the condition without the parentheses the printer puts around it.
std::string where_text(const Expr& cond) {
  std::string s = dump(cond);
  int depth = 0;
  bool wrapped = s.size() > 1 && s.front() == '(' && s.back() == ')';
  for (std::size_t k = 0; wrapped && k + 1 < s.size(); ++k) {
    depth += s[k] == '(' ? 1 : s[k] == ')' ? -1 : 0;
    if (depth == 0) wrapped = false;  // the first parenthesis closes before the end
  }
  return "A.where(" + (wrapped ? s.substr(1, s.size() - 2) : s) + ")";
}

bool guarded(const StmtNode& s) {
  return s.kind == StmtKind::Datapath ||
         (s.kind == StmtKind::Block && (s.unit == Unit::CoreDMA || s.unit == Unit::SysDMA));
}

int64_t floordiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The iterations [lo, hi) of one loop variable a comparison allows.
struct Range {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  // a * v + b >= 0 over the integers (a != 0).
  void at_least_zero(int64_t a, int64_t b) {
    if (a > 0)
      lo = std::max(lo, -floordiv(b, a));  // v >= ceil(-b / a)
    else
      hi = std::min(hi, floordiv(b, -a) + 1);  // v <= floor(b / -a)
  }
};

// One comparison of a predicate, lhs - rhs = sum coef * var + constant, REL 0.
struct Term {
  Expr e;
  Affine d;
  std::vector<const VarNode*> vars;
};

Term term_of(const Expr& t, const Expr& cond, const SourceLoc& loc) {
  const bool cmp = t->kind == ExprKind::Lt || t->kind == ExprKind::Le || t->kind == ExprKind::Gt ||
                   t->kind == ExprKind::Ge || t->kind == ExprKind::Eq || t->kind == ExprKind::Ne;
  Term r;
  r.e = t;
  try {
    r.d = cmp ? affine_of(t->args[0], loc) : affine_of(t, loc);
    if (cmp) r.d += affine_of(t->args[1], loc).scaled(-1);
  } catch (const CompileError&) {
    fail(loc,
         where_text(cond) + ": " + dump(t) +
             " is not a bound on the loop variables: a block predicate compares an affine expression of the loops "
             "around the block with build-time integers",
         "A.where(i < n), A.where(i >= lo); several conditions with && (tir.all)");
  }
  for (const auto& [v, c] : r.d.coef)
    if (c != 0) r.vars.push_back(v);
  if (!r.vars.empty() && (!cmp || t->kind == ExprKind::Ne))
    fail(loc,
         where_text(cond) + ": " + dump(t) +
             " does not bound a loop variable to a range of its iterations (a block predicate is <, <=, >, >= or == "
             "of a loop variable)",
         "A.where(i < n), A.where(i >= lo), A.where(i == k)");
  return r;
}

// Whether a constant term holds.
bool holds(const Term& t) {
  const int64_t d = t.d.constant;
  switch (t.e->kind) {
    case ExprKind::Lt: return d < 0;
    case ExprKind::Le: return d <= 0;
    case ExprKind::Gt: return d > 0;
    case ExprKind::Ge: return d >= 0;
    case ExprKind::Eq: return d == 0;
    case ExprKind::Ne: return d != 0;
    default: return d != 0;
  }
}

// The range of its one variable a term allows.
Range range_of(const Term& t) {
  const int64_t a = t.d.of(t.vars[0]), b = t.d.constant;
  Range r;
  switch (t.e->kind) {
    case ExprKind::Ge: r.at_least_zero(a, b); break;
    case ExprKind::Gt: r.at_least_zero(a, b - 1); break;
    case ExprKind::Le: r.at_least_zero(-a, -b); break;
    case ExprKind::Lt: r.at_least_zero(-a, -b - 1); break;
    default:  // Eq
      r.at_least_zero(a, b);
      r.at_least_zero(-a, -b);
  }
  return r;
}

// Narrows loop `l` to the iterations of `r`; false when none is left.
bool narrow(StmtNode& l, const Range& r) {
  const int64_t lo = std::max(l.start, r.lo), hi = std::min(l.start + l.extent, r.hi);
  l.start = lo;
  l.extent = std::max<int64_t>(0, hi - lo);
  return l.extent > 0;
}

// Takes the A.where statements out of `body` (recursively when `deep`: a DMA block's loop sunk
// into it carries them inside).
void take_wheres(std::vector<Stmt>& body, bool deep, std::vector<Stmt>& out) {
  std::vector<Stmt> keep;
  for (auto& s : body) {
    if (s->kind == StmtKind::Where) {
      out.push_back(s);
      continue;
    }
    if (deep) take_wheres(s->body, true, out);
    keep.push_back(s);
  }
  body = std::move(keep);
}

// The loops of variable `v` inside `body` (a sunk loop has a copy in every unit block).
void loops_of(std::vector<Stmt>& body, const VarNode* v, std::vector<StmtNode*>& out) {
  for (auto& s : body) {
    if (s->kind == StmtKind::For && s->var.get() == v) out.push_back(s.get());
    loops_of(s->body, v, out);
  }
}

class BlockPredicates {
 public:
  explicit BlockPredicates(bool final) : final_(final) {}

  std::vector<Stmt> list(const std::vector<Stmt>& in) {
    std::vector<Stmt> out;
    for (const auto& s : in)
      if (Stmt n = stmt(s)) out.push_back(std::move(n));
    return out;
  }

  // A.sync waits on an id whose only launches never run (their A.where is false) have nothing
  // to wait for: they are dropped.
  void drop_waits_on_removed(std::vector<Stmt>& in) {
    if (removed_ids_.empty()) return;
    std::set<std::string> live;
    ids(in, live);
    rewrite_waits(in, live);
  }

 private:
  struct Level {
    StmtNode* loop;  // an enclosing For (this pass's copy), or null for another enclosing statement
    bool single;     // its body is one statement
  };

  Stmt stmt(const Stmt& s) {
    if (s->kind == StmtKind::For) {
      auto n = std::make_shared<StmtNode>(*s);
      chain_.push_back({n.get(), s->body.size() == 1});
      n->body = list(s->body);
      chain_.pop_back();
      if (n->body.empty() && !s->body.empty()) return nullptr;  // its only work never runs
      return n;
    }
    if (guarded(*s)) return has_where(*s) ? launch(s) : s;
    if (s->body.empty() && s->else_body.empty()) return s;
    auto n = std::make_shared<StmtNode>(*s);
    chain_.push_back({nullptr, false});
    n->body = list(s->body);
    n->else_body = list(s->else_body);
    chain_.pop_back();
    return n;
  }

  bool has_where(const StmtNode& s) const {
    for (const auto& c : s.body)
      if (c->kind == StmtKind::Where || (final_ && has_where(*c))) return true;
    return false;
  }

  // The index in chain_ of the loop of `v` around the block, or -1.
  int level_of(const VarNode* v) const {
    for (std::size_t k = 0; k < chain_.size(); ++k)
      if (chain_[k].loop && chain_[k].loop->var.get() == v) return static_cast<int>(k);
    return -1;
  }
  // Whether the loop at `k` holds nothing but this block: only single-statement loops down to it.
  bool exclusive(int k) const {
    for (std::size_t j = static_cast<std::size_t>(k); j < chain_.size(); ++j)
      if (!chain_[j].loop || !chain_[j].single) return false;
    return true;
  }

  Stmt launch(const Stmt& s) {
    Stmt n = clone(s);
    std::vector<Stmt> wheres, kept;
    take_wheres(n->body, final_, wheres);
    bool runs = true;
    for (const auto& w : wheres) {
      std::vector<Expr> parts;
      split_conjuncts(w->value, parts);
      for (const auto& p : parts) {
        const Term t = term_of(p, w->value, w->loc);
        if (t.vars.empty()) {
          runs = runs && holds(t);
        } else if (!final_) {
          if (!phase_one(t, w, kept)) runs = false;
        } else if (t.vars.size() == 1) {
          std::vector<StmtNode*> loops;
          loops_of(n->body, t.vars[0], loops);
          if (loops.empty()) not_around(t, w);
          for (StmtNode* l : loops) runs = narrow(*l, range_of(t)) && runs;
        } else {
          two_vars(t, w);
        }
      }
    }
    if (!runs) {
      if (!n->id.empty()) removed_ids_.insert(n->id);
      return nullptr;
    }
    n->body.insert(n->body.begin(), kept.begin(), kept.end());
    return n;
  }

  // Before sinking: a bound on a loop that holds only this block narrows that loop; a term over a
  // loop that holds more stays (that loop is unrolled, so after unrolling the term is a constant).
  // False when the narrowed loop has no iteration left.
  bool phase_one(const Term& t, const Stmt& w, std::vector<Stmt>& kept) {
    bool later = false;
    for (const VarNode* v : t.vars) {
      const int k = level_of(v);
      if (k < 0) not_around(t, w);
      later = later || !exclusive(k);
    }
    if (later) {
      auto keep = make_stmt(StmtKind::Where, w->loc);
      keep->value = t.e;
      kept.push_back(keep);
      return true;
    }
    if (t.vars.size() > 1) two_vars(t, w);
    return narrow(*chain_[static_cast<std::size_t>(level_of(t.vars[0]))].loop, range_of(t));
  }

  [[noreturn]] static void not_around(const Term& t, const Stmt& w) {
    std::string names;
    for (const VarNode* v : t.vars) names += (names.empty() ? "" : ", ") + v->name;
    fail(w->loc,
         where_text(w->value) + ": " + dump(t.e) + " uses " + names +
             ", which is not a loop around this block: a block predicate bounds the loops that enclose the "
             "block",
         "A.where over the loop variables of the loops written around the with A.Datapath() / A.CoreDMA() / "
         "A.SysDMA() block");
  }
  [[noreturn]] static void two_vars(const Term& t, const Stmt& w) {
    fail(w->loc,
         where_text(w->value) + ": " + dump(t.e) +
             " bounds several loop variables at once; this compiler honours a comparison that bounds one loop "
             "variable (a range of that loop's iterations runs)",
         "bound each loop variable on its own, e.g. A.where(i < n - c * 4) with c a build-time value");
  }

  void ids(const std::vector<Stmt>& in, std::set<std::string>& live) const {
    for (const auto& s : in) {
      if (!s->id.empty() && s->kind != StmtKind::OpMarker) live.insert(s->id);
      ids(s->body, live);
      ids(s->else_body, live);
    }
  }
  void rewrite_waits(std::vector<Stmt>& in, const std::set<std::string>& live) const {
    for (auto& s : in) {
      if (s->kind == StmtKind::Sync) {
        auto n = std::make_shared<StmtNode>(*s);
        std::erase_if(n->waits, [&](const std::string& w) { return removed_ids_.count(w) && !live.count(w); });
        s = n;
      } else if (!s->body.empty() || !s->else_body.empty()) {
        auto n = std::make_shared<StmtNode>(*s);
        rewrite_waits(n->body, live);
        rewrite_waits(n->else_body, live);
        s = n;
      }
    }
  }

  bool final_;
  std::vector<Level> chain_;
  std::set<std::string> removed_ids_;
};

}  // namespace

void check_block_predicate(const Expr& cond, const SourceLoc& loc) {
  const auto walk = [&](const auto& self, const Expr& e) -> void {
    switch (e->kind) {
      case ExprKind::Int:
      case ExprKind::VarRef: return;
      case ExprKind::Add:
      case ExprKind::Sub:
      case ExprKind::Mul:
      case ExprKind::FloorDiv:
      case ExprKind::Mod:
      case ExprKind::Lt:
      case ExprKind::Le:
      case ExprKind::Gt:
      case ExprKind::Ge:
      case ExprKind::Eq:
      case ExprKind::Ne:
      case ExprKind::And:
        for (const auto& a : e->args) self(self, a);
        return;
      default:
        fail(loc,
             where_text(cond) + " reads " + dump(e) +
                 ": a block predicate is decided when the program is built, from the loop variables around the "
                 "block and build-time integers",
             "A.where(i < n); to store or drop per element at run time, A.If in the ODR (§8.4)");
    }
  };
  walk(walk, cond);
}

namespace {
bool any_where(const std::vector<Stmt>& list) {
  for (const auto& s : list)
    if (s->kind == StmtKind::Where || any_where(s->body) || any_where(s->else_body)) return true;
  return false;
}
}  // namespace

void apply_block_predicates(PrimFunc& f, bool final) {
  if (!any_where(f.body->body)) return;
  BlockPredicates p(final);
  f.body->body = p.list(f.body->body);
  p.drop_waits_on_removed(f.body->body);
}

}  // namespace axcore::compiler
