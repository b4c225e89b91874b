// Memory scopes (guide §5.1): where each scratch buffer lives — pinned scopes where written, weak
// ones moved between L1, L2 and DDR to fit (tiling.hpp says what; this file is how).
#include <algorithm>
#include <map>
#include <set>

#include "tile_common.hpp"

namespace axcore::compiler {
namespace {

using namespace tiling_detail;

bool is_launch(const Stmt& s) {
  return s->kind == StmtKind::Datapath || (s->kind == StmtKind::Block && (s->unit == Unit::LoadIMC || is_dma(s)));
}

// Every root the launches inside `s` touch.
void roots_in(const Stmt& s, std::set<const BufferNode*>& out) {
  if (is_dma(s)) {
    dma_roots(s->body, out);
  } else if (is_launch(s)) {
    unit_roots({s}, out);
  } else {
    for (const auto& b : s->body) roots_in(b, out);
  }
}

std::size_t launches_in(const Stmt& s) {
  if (is_launch(s)) return 1;
  std::size_t n = 0;
  for (const auto& b : s->body) n += launches_in(b);
  return n;
}

// Which launches (program order) each root is live over, as the lowering's placement sees them
// (l1_alloc.cpp: first to last launch touching it): a loop around one launch is that launch (it
// is sunk), a loop around several is unrolled, so what it touches is live over all of it.
struct Liveness {
  std::map<const BufferNode*, std::pair<std::size_t, std::size_t>> live;
  std::size_t n = 0;

  void touch(const std::set<const BufferNode*>& roots, std::size_t lo, std::size_t hi) {
    for (const BufferNode* b : roots) {
      auto [it, fresh] = live.emplace(b, std::make_pair(lo, hi));
      if (!fresh) it->second = {std::min(it->second.first, lo), std::max(it->second.second, hi)};
    }
  }
  void walk(const std::vector<Stmt>& list) {
    for (const auto& s : list) {
      const std::size_t k = launches_in(s);
      if (k == 0) continue;
      std::set<const BufferNode*> roots;
      roots_in(s, roots);
      if (is_launch(s) || (s->kind == StmtKind::For && k == 1)) {
        touch(roots, n, n);
        ++n;
      } else {
        const std::size_t first = n;
        walk(s->body);
        if (s->kind == StmtKind::For && s->extent >= 2) touch(roots, first, n - 1);
      }
    }
  }
};

std::string bytes_str(uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

class ScopePlacement {
 public:
  ScopePlacement(PrimFunc& f, const TilingOptions& opt) : f_(f), opt_(opt) {}

  void run() {
    lv_.walk(f_.body->body);
    std::vector<const BufferNode*> scratch;  // used scratch roots, in declaration order
    for (const auto& b : f_.buffers)
      if (!b->alias_of && b->role == BufferRole::Local && !b->output && lv_.live.count(b.get()) &&
          b->scope != Scope::IMC)
        scratch.push_back(b.get());
    uint64_t l2_left = opt_.l2_bytes;
    // Pinned L2: where it is written, or an error at its line.
    for (const BufferNode* b : scratch) {
      if (b->scope != Scope::L2) continue;
      if (bytes_of(*b) > l2_left)
        fail(b->loc,
             b->name + " is pinned to L2 (A.L2) and needs " + bytes_str(bytes_of(*b)) + ", but only " +
                 bytes_str(l2_left) + " of the " + bytes_str(opt_.l2_bytes) +
                 " of L2 are left beside the L2 buffers declared before it",
             "declare it A.L2_WEAK (the compiler may then place it in DDR), or make it smaller");
      l2_left -= bytes_of(*b);
      note(*b, "L2", "pinned (A.L2)");
    }
    // Weak buffers compile() moved out of L1 after an L1 overflow: to L2, or DDR when L2 is full.
    for (const BufferNode* b : scratch) {
      auto why = opt_.spill.find(b->name);
      if (!is_weak(b->scope) || why == opt_.spill.end()) continue;
      const std::string was = "A." + to_string(b->scope) + " moved out of L1 (" + why->second + ")";
      if (bytes_of(*b) <= l2_left) {
        l2_left -= bytes_of(*b);
        move(b, Scope::L2);
        note(*b, "L2", was + "; it fits the L2 left, so the tiling pass streams it through L1 from L2 (§11)");
      } else {
        move(b, Scope::DDR_WEAK);  // still weak: the tiling pass streams it through L1
        note(*b, "DDR", was + "; only " + bytes_str(l2_left) + " of L2 are left, so it is streamed from DDR");
      }
    }
    // L2_WEAK: in L1 alone when every L1 buffer still fits there with it (one core: the
    // placement's L1 is per core), else in L2, else in DDR.
    std::vector<const BufferNode*> l2_weak;
    for (const BufferNode* b : scratch)
      if (b->scope == Scope::L2_WEAK && !moved_.count(b)) l2_weak.push_back(b);
    if (!l2_weak.empty() && opt_.cores == 1) {
      const Peak p =
          peak([&](const BufferNode* b) { return scope_of(b) == Scope::L2_WEAK || home_after(b) == Home::L1; });
      if (p.bytes <= opt_.l1_bytes)
        for (const BufferNode* b : l2_weak) {
          move(b, Scope::L1_WEAK);  // still weak: an L1 overflow moves it back out (compile())
          note(*b, "L1",
               "A.L2_WEAK moved: the L1 buffers live at once need at most " + bytes_str(p.bytes) +
                   " with it, and L1 holds " + bytes_str(opt_.l1_bytes) +
                   ", so it lives in L1 alone (no copies between L2 and L1)");
        }
    }
    for (const BufferNode* b : l2_weak) {
      if (moved_.count(b)) continue;
      if (bytes_of(*b) <= l2_left) {
        l2_left -= bytes_of(*b);
        note(*b, "L2",
             "A.L2_WEAK kept: " + std::string(opt_.cores > 1 ? "a multi-core program" : "L1 is too full") +
                 ", and it fits the " + bytes_str(l2_left + bytes_of(*b)) + " of L2 left");
      } else {
        move(b, Scope::DDR_WEAK);  // still weak: the tiling pass streams it through L1
        note(*b, "DDR",
             "A.L2_WEAK moved: it needs " + bytes_str(bytes_of(*b)) + " and only " + bytes_str(l2_left) +
                 " of L2 are left");
      }
    }
    for (const BufferNode* b : scratch)
      if (!noted_.count(b))
        note(
            *b,
            home_after(b) == Home::DDR  ? "DDR"
            : home_after(b) == Home::L2 ? "L2"
                                        : "L1",
            is_weak(b->scope) ? "weak, kept where written: everything fits" : "pinned (A." + to_string(b->scope) + ")");
    apply();
  }

 private:
  struct Peak {
    uint64_t bytes = 0;
    std::size_t at = 0;
  };
  template <class Pred>
  Peak peak(Pred counts) const {
    Peak best;
    for (std::size_t i = 0; i < lv_.n; ++i) {
      uint64_t sum = 0;
      for (const auto& [b, r] : lv_.live)
        if (r.first <= i && i <= r.second && counts(b)) sum += bytes_of(*b);
      if (sum > best.bytes) best = {sum, i};
    }
    return best;
  }

  Scope scope_of(const BufferNode* b) const { return moved_.count(b) ? moved_.at(b) : b->scope; }
  Home home_after(const BufferNode* b) const {
    BufferNode probe;
    probe.role = b->role;
    probe.output = b->output;
    probe.scope = scope_of(b);
    return home_of(probe);
  }
  void move(const BufferNode* b, Scope to) { moved_[b] = to; }
  void note(const BufferNode& b, const std::string& where, const std::string& why) {
    noted_.insert(&b);
    f_.placement_notes.push_back(b.name + " (A." + to_string(b.scope) + ", " + bytes_str(bytes_of(b)) + ") -> " +
                                 where + ": " + why);
  }

  // The moved buffers as new nodes (and the views of them), every use rewritten.
  Buffer get(const Buffer& b) {
    if (!b) return b;
    if (auto it = map_.find(b.get()); it != map_.end()) return it->second;
    Buffer out = b;
    if (auto m = moved_.find(b.get()); m != moved_.end()) {
      out = std::make_shared<BufferNode>(*b);
      out->scope = m->second;
    } else if (b->alias_of) {
      Buffer parent = get(b->alias_of);
      if (parent != b->alias_of) {
        out = std::make_shared<BufferNode>(*b);
        out->alias_of = parent;
        out->scope = parent->scope;
      }
    }
    map_[b.get()] = out;
    return out;
  }
  Expr expr(const Expr& e) {
    if (!e) return e;
    bool changed = false;
    std::vector<Expr> args;
    for (const auto& a : e->args) {
      args.push_back(expr(a));
      changed |= args.back() != a;
    }
    const Buffer b = get(e->buf);
    if (!changed && b == e->buf) return e;
    auto n = std::make_shared<ExprNode>(*e);
    n->args = std::move(args);
    n->buf = b;
    return n;
  }
  Stmt stmt(const Stmt& s) {
    auto n = std::make_shared<StmtNode>(*s);
    bool changed = false;
    n->buf = get(s->buf);
    changed |= n->buf != s->buf;
    n->value = expr(s->value);
    changed |= n->value != s->value;
    for (auto& i : n->indices) {
      const Expr x = expr(i);
      changed |= x != i;
      i = x;
    }
    for (auto* list : {&n->body, &n->else_body})
      for (auto& c : *list) {
        const Stmt x = stmt(c);
        changed |= x != c;
        c = x;
      }
    return changed ? n : s;
  }
  void apply() {
    if (moved_.empty()) return;
    for (auto& b : f_.buffers) b = get(b);
    for (auto& c : f_.body->body) c = stmt(c);
  }

  PrimFunc& f_;
  TilingOptions opt_;
  Liveness lv_;
  std::map<const BufferNode*, Scope> moved_;
  std::map<const BufferNode*, Buffer> map_;
  std::set<const BufferNode*> noted_;
};

}  // namespace

void place_scopes(PrimFunc& f, const TilingOptions& opt) { ScopePlacement(f, opt).run(); }

}  // namespace axcore::compiler
