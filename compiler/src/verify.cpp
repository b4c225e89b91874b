// The IR verifier (verify.hpp): one walk over a prim_func collecting every broken invariant.
#include "axcore/compiler/verify.hpp"

#include <cstdlib>
#include <map>
#include <set>
#include <utility>

namespace axcore::compiler {
namespace {

std::size_t arity(ExprKind k) {
  if (is_arith(k) || is_compare(k)) return 2;
  switch (k) {
    case ExprKind::Ramp:
    case ExprKind::IfThenElse: return 3;
    case ExprKind::Cast:
    case ExprKind::Broadcast:
    case ExprKind::Vtrsp: return 1;
    case ExprKind::Mvm: return 2;
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::VarRef:
    case ExprKind::Pop: return 0;
    default: return SIZE_MAX;  // Load, RegRead, DpuCall: checked by kind
  }
}

const char* kind_name(ExprKind k) {
  static const char* names[] = {"Int",       "Float",      "VarRef",  "Add",  "Sub",     "Mul",  "FloorDiv",
                                "Mod",       "Min",        "Max",     "Lt",   "Le",      "Gt",   "Ge",
                                "Eq",        "Ne",         "And",     "Load", "Ramp",    "Pop",  "Cast",
                                "Broadcast", "IfThenElse", "RegRead", "Mvm",  "DpuCall", "Vtrsp"};
  return names[static_cast<int>(k)];
}

bool scope_fits(const BufferNode& b) {
  switch (b.role) {
    case BufferRole::Imc: return b.scope == Scope::IMC;
    case BufferRole::Register: return b.scope == Scope::DPU_REGISTERS;
    case BufferRole::Accumulator: return b.scope == Scope::MVM_ACCUMULATOR;
    default: return b.scope != Scope::IMC && b.scope != Scope::DPU_REGISTERS && b.scope != Scope::MVM_ACCUMULATOR;
  }
}

class Verifier {
 public:
  explicit Verifier(const PrimFunc& f) : f_(f) {}

  std::vector<IrProblem> run() {
    std::map<std::string, const BufferNode*> names;
    auto declare = [&](const Buffer& b, bool param) {
      if (!b) return problem(f_.loc, std::string("a null buffer in the function's ") + (param ? "params" : "buffers"));
      if (!names.emplace(b->name, b.get()).second) problem(b->loc, "buffer name '" + b->name + "' is declared twice");
      declared_.insert(b.get());
      if (param && b->role != BufferRole::Input) problem(b->loc, "param " + b->name + " is not an input buffer");
      if (!param && b->role == BufferRole::Input && !b->alias_of)
        problem(b->loc, "input " + b->name + " is not among the params");
      buffer(*b);
    };
    for (const auto& b : f_.params) declare(b, true);
    for (const auto& b : f_.buffers) declare(b, false);
    for (const auto& b : f_.buffers)
      if (b && b->alias_of && !declared(b->alias_of.get()))
        problem(b->loc, "view " + b->name + " aliases " + b->alias_of->name + ", which the function does not declare");
    std::set<std::string> stream_names;
    for (const auto& s : f_.streams) {
      if (!s) {
        problem(f_.loc, "a null stream in the function's streams");
        continue;
      }
      if (!stream_names.insert(s->name).second) problem(s->loc, "stream name '" + s->name + "' is declared twice");
      streams_.insert(s.get());
    }
    for (const auto& o : f_.outputs)
      if (!o || !declared(o.get()))
        problem(f_.loc, "output " + (o ? o->name : std::string("(null)")) + " is not a buffer of the function");
    if (!f_.body)
      problem(f_.loc, "the function has no body");
    else
      stmt(*f_.body);
    return std::move(problems_);
  }

 private:
  void problem(const SourceLoc& loc, std::string m) { problems_.push_back({loc, std::move(m)}); }

  bool declared(const BufferNode* b) const {
    for (; b; b = b->alias_of.get())
      if (declared_.count(b)) return true;
    return false;
  }

  void buffer(const BufferNode& b) {
    if (!scope_fits(b)) problem(b.loc, "buffer " + b.name + " has scope " + to_string(b.scope) + " for its role");
    if (b.role == BufferRole::Constant && !b.alias_of &&
        static_cast<int64_t>(b.data.size()) != b.elements() * static_cast<int64_t>(b.dtype.lanes))
      problem(b.loc, "constant " + b.name + " holds " + std::to_string(b.data.size()) + " values for " +
                         std::to_string(b.elements()) + " x " + std::to_string(b.dtype.lanes) + " lanes");
    if (b.imc_source && b.role != BufferRole::Imc)
      problem(b.loc, "buffer " + b.name + " records the weight it was loaded from but is no IMC buffer");
    for (int64_t d : b.shape)
      if (d < 0) problem(b.loc, "buffer " + b.name + " has a negative dimension");
  }

  // A buffer named at `loc` by a statement or expression.
  void use(const Buffer& b, const SourceLoc& loc, const char* what) {
    if (!b) return problem(loc, std::string(what) + " names no buffer");
    switch (b->role) {
      case BufferRole::Register:
        if (!regs_.count(b.get()))
          problem(loc, "register " + b->name + " is used before its A.var / A.array in this datapath");
        return;
      case BufferRole::Accumulator:
        if (!in_matmul_) problem(loc, "the MVM accumulator " + b->name + " is used outside a MatMul block");
        return;
      default:
        if (!declared(b.get())) problem(loc, "buffer " + b->name + " is not declared in the function");
    }
  }

  void indices(const BufferNode& b, std::size_t n, const SourceLoc& loc) {
    if (!b.is_var && n != b.shape.size())
      problem(loc, b.name + " has " + std::to_string(b.shape.size()) + " dimensions but is indexed with " +
                       std::to_string(n));
  }

  void expr(const Expr& e, const SourceLoc& at) {
    if (!e) return problem(at, "a missing expression");
    for (const auto& a : e->args) expr(a, e->loc.known() ? e->loc : at);
    const SourceLoc& loc = e->loc.known() ? e->loc : at;
    const std::size_t n = arity(e->kind);
    if (n != SIZE_MAX && e->args.size() != n)
      problem(loc, std::string("a ") + kind_name(e->kind) + " expression has " + std::to_string(e->args.size()) +
                       " operands, its kind takes " + std::to_string(n));
    switch (e->kind) {
      case ExprKind::VarRef:
        if (!e->var)
          problem(loc, "a loop-variable reference names no variable");
        else if (!bound_.count(e->var.get()))
          problem(loc, "loop variable " + e->var->name + " is used outside the loop that binds it");
        break;
      case ExprKind::Load:
        use(e->buf, loc, "a load");
        if (e->buf) indices(*e->buf, e->args.size(), loc);
        break;
      case ExprKind::RegRead: use(e->buf, loc, "a register read"); break;
      case ExprKind::Mvm:
        if (e->args.size() == 2 && e->args[1] &&
            (e->args[1]->kind != ExprKind::Load || !e->args[1]->buf || e->args[1]->buf->role != BufferRole::Imc))
          problem(loc, "A.mvm_1x1's matrix operand is not a tile of an IMC buffer");
        break;
      case ExprKind::Pop:
        if (!e->stream || !streams_.count(e->stream.get()))
          problem(loc, "a pop from stream " + (e->stream ? e->stream->name : std::string("(null)")) +
                           ", which the function does not declare");
        break;
      default: break;
    }
  }

  void stmts(const std::vector<Stmt>& list) {
    for (const auto& s : list) {
      if (!s)
        problem(f_.loc, "a null statement");
      else
        stmt(*s);
    }
  }

  // An id a pass made up (id_generated) names one launch: the sync the pass placed waits for it.
  void generated_id(const StmtNode& s) {
    if (s.id_generated && !s.id.empty() && !generated_ids_.insert(s.id).second)
      problem(s.loc, "the generated id \"" + s.id + "\" tags two launches");
  }

  void stmt(const StmtNode& s) {
    const SourceLoc& loc = s.loc;
    if (s.kind == StmtKind::Datapath || s.kind == StmtKind::Block) generated_id(s);
    switch (s.kind) {
      case StmtKind::For: {
        if (!s.var) return problem(loc, "a loop without a variable");
        if (s.extent < 0) problem(loc, "loop " + s.var->name + " has a negative extent");
        if (!bound_.insert(s.var.get()).second) {
          problem(loc, "loop variable " + s.var->name + " is bound again inside its own loop");
          stmts(s.body);
          return;
        }
        stmts(s.body);
        bound_.erase(s.var.get());
        return;
      }
      case StmtKind::Datapath: {
        const auto saved = std::exchange(regs_, {});
        stmts(s.body);
        regs_ = saved;
        return;
      }
      case StmtKind::Block: {
        if (s.unit == Unit::Depthwise && s.buf) use(s.buf, loc, "a Depthwise block's weights");
        const bool saved = std::exchange(in_matmul_, in_matmul_ || s.unit == Unit::MatMul);
        stmts(s.body);
        in_matmul_ = saved;
        return;
      }
      case StmtKind::Push:
        if (!s.stream || !streams_.count(s.stream.get()))
          problem(loc, "a push to stream " + (s.stream ? s.stream->name : std::string("(null)")) +
                           ", which the function does not declare");
        expr(s.value, loc);
        return;
      case StmtKind::Store:
        use(s.buf, loc, "a store");
        if (s.buf) indices(*s.buf, s.indices.size(), loc);
        for (const auto& i : s.indices) expr(i, loc);
        expr(s.value, loc);
        return;
      case StmtKind::Drop:
      case StmtKind::Where: expr(s.value, loc); return;
      case StmtKind::If:
        expr(s.value, loc);
        stmts(s.body);
        stmts(s.else_body);
        return;
      case StmtKind::Reset: use(s.buf, loc, "A.reset_accumulator"); return;
      case StmtKind::Accum:
        use(s.buf, loc, "an accumulation");
        expr(s.value, loc);
        return;
      case StmtKind::DeclReg:
        if (!s.buf || s.buf->role != BufferRole::Register)
          problem(loc, "a register declaration without a register");
        else
          regs_.insert(s.buf.get());
        return;
      case StmtKind::Seq: stmts(s.body); return;
      case StmtKind::Sync:
        for (const auto& b : s.guards) use(b, loc, "A.sync(buffers=)");
        return;
      case StmtKind::DeclStream:
      case StmtKind::Bypass:
      case StmtKind::Barrier:
      case StmtKind::OpMarker: return;
    }
  }

  const PrimFunc& f_;
  std::set<const BufferNode*> declared_, regs_;
  std::set<const StreamNode*> streams_;
  std::set<const VarNode*> bound_;
  std::set<std::string> generated_ids_;
  bool in_matmul_ = false;
  std::vector<IrProblem> problems_;
};

}  // namespace

std::vector<IrProblem> verify_ir(const PrimFunc& f) { return Verifier(f).run(); }

void check_ir(const PrimFunc& f, const std::string& after) {
  const auto p = verify_ir(f);
  if (p.empty()) return;
  std::string more = p.size() > 1 ? " (and " + std::to_string(p.size() - 1) + " more)" : "";
  throw CompileError(
      p.front().loc, "IR verifier, after " + after + ": " + p.front().message + more,
      "a compiler bug: the IR breaks an invariant of ir.hpp (compiler/include/axcore/compiler/verify.hpp)");
}

bool verify_each_default() {
#ifndef NDEBUG
  return true;
#else
  const char* v = std::getenv("AXCORE_VERIFY_EACH");
  return v && *v && std::string(v) != "0";
#endif
}

}  // namespace axcore::compiler
