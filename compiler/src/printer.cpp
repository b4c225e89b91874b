#include "axcore/compiler/printer.hpp"

#include <sstream>

namespace axcore::compiler {
namespace {

const char* op_text(ExprKind k) {
  switch (k) {
    case ExprKind::Add: return " + ";
    case ExprKind::Sub: return " - ";
    case ExprKind::Mul: return " * ";
    case ExprKind::FloorDiv: return " // ";
    case ExprKind::Mod: return " % ";
    case ExprKind::Lt: return " < ";
    case ExprKind::Le: return " <= ";
    case ExprKind::Gt: return " > ";
    case ExprKind::Ge: return " >= ";
    case ExprKind::Eq: return " == ";
    case ExprKind::Ne: return " != ";
    case ExprKind::And: return " and ";
    default: return " ? ";
  }
}

std::string indices(const std::vector<Expr>& idx) {
  std::string s;
  for (std::size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + dump(idx[i]);
  return s;
}

std::string shape(const std::vector<int64_t>& sh) {
  std::string s = "(";
  for (std::size_t i = 0; i < sh.size(); ++i) s += (i ? ", " : "") + std::to_string(sh[i]);
  return s + (sh.size() == 1 ? ",)" : ")");
}

void stmt(std::ostream& os, const Stmt& s, int depth);

void body(std::ostream& os, const std::vector<Stmt>& b, int depth) {
  if (b.empty()) os << std::string(2 * depth, ' ') << "pass\n";
  for (const auto& s : b) stmt(os, s, depth);
}

void stmt(std::ostream& os, const Stmt& s, int depth) {
  const std::string pad(2 * depth, ' ');
  switch (s->kind) {
    case StmtKind::Seq: body(os, s->body, depth); return;
    case StmtKind::For: {
      const char* k = s->loop == LoopKind::Serial ? "serial" : s->loop == LoopKind::Grid ? "grid" : "unroll";
      os << pad << "for " << s->var->name << " in A." << k << "(";
      if (s->start != 0) os << s->start << ", " << s->start + s->extent;
      else os << s->extent;
      os << "):\n";
      body(os, s->body, depth + 1);
      return;
    }
    case StmtKind::Datapath: {
      os << pad << "with A.Datapath(";
      std::string sep;
      if (s->dp_kind) { os << "kind=A.DP_" << (*s->dp_kind == DpKind::MVMEXE ? "MVMEXE" : "DWPU"); sep = ", "; }
      if (s->core >= 0) { os << sep << "core=" << s->core; sep = ", "; }
      if (!s->id.empty()) os << sep << "id=\"" << s->id << "\"";
      os << "):\n";
      body(os, s->body, depth + 1);
      return;
    }
    case StmtKind::Block: {
      os << pad << "with A.";
      switch (s->unit) {
        case Unit::IFD: os << "IFD(num=" << s->num << ")"; break;
        case Unit::MatMul: os << "pseudo.MatMul()"; break;
        case Unit::LoadIMC: os << "pseudo.LoadIMC()"; break;
        case Unit::CoreDMA: os << "CoreDMA(" << (s->core >= 0 ? "core=" + std::to_string(s->core) : "") << ")"; break;
        case Unit::AICore: os << "AICore(core=" << s->core << ")"; break;
        default: os << to_string(s->unit) << "()";
      }
      os << ":\n";
      body(os, s->body, depth + 1);
      return;
    }
    case StmtKind::Push: os << pad << s->stream->name << ".push(" << dump(s->value) << ")\n"; return;
    case StmtKind::Store:
      os << pad << s->buf->name;
      if (!s->buf->is_var) os << "[" << indices(s->indices) << "]";
      os << " = " << dump(s->value) << "\n";
      return;
    case StmtKind::Drop: os << pad << "A.drop(" << dump(s->value) << ")\n"; return;
    case StmtKind::If:
      os << pad << "with A.If(" << dump(s->value) << "):\n" << pad << "  with A.Then():\n";
      body(os, s->body, depth + 2);
      if (!s->else_body.empty()) {
        os << pad << "  with A.Else():\n";
        body(os, s->else_body, depth + 2);
      }
      return;
    case StmtKind::Reset: os << pad << "A.reset_accumulator(" << s->buf->name << ")\n"; return;
    case StmtKind::Accum: os << pad << s->buf->name << " += " << dump(s->value) << "\n"; return;
    case StmtKind::Sync: {
      os << pad << "A.sync(waits=[";
      for (std::size_t i = 0; i < s->waits.size(); ++i) os << (i ? ", " : "") << '"' << s->waits[i] << '"';
      os << "], signals=[";
      for (std::size_t i = 0; i < s->signals.size(); ++i) os << (i ? ", " : "") << '"' << s->signals[i] << '"';
      os << "])\n";
      return;
    }
    case StmtKind::Barrier: {
      os << pad << "A.barrier(";
      for (std::size_t i = 0; i < s->cores.size(); ++i) os << (i ? ", " : "") << s->cores[i];
      os << ")\n";
      return;
    }
    case StmtKind::DeclStream: return;
    case StmtKind::DeclReg:
      os << pad << s->buf->name << " = A." << (s->buf->is_var ? "var(\"" : "array(\"") << s->buf->dtype.str() << "\""
         << (s->buf->is_var ? "" : ", size=" + std::to_string(s->buf->shape[0])) << ")\n";
      return;
    case StmtKind::OpMarker: os << pad << "# op " << s->id << "\n"; return;
  }
}

}  // namespace

std::string dump(const Expr& e) {
  if (!e) return "None";
  switch (e->kind) {
    case ExprKind::Int:
      if (!e->name.empty()) return "A." + e->name + "(" + std::to_string(e->ival) + ")";
      return std::to_string(e->ival);
    case ExprKind::Float: {
      std::ostringstream os;
      os.precision(9);
      os << "A.float32(" << e->fval << ")";
      return os.str();
    }
    case ExprKind::VarRef: return e->var->name;
    case ExprKind::Min: return "A.min(" + dump(e->args[0]) + ", " + dump(e->args[1]) + ")";
    case ExprKind::Max: return "A.max(" + dump(e->args[0]) + ", " + dump(e->args[1]) + ")";
    case ExprKind::Load: return e->buf->name + "[" + indices(e->args) + "]";
    case ExprKind::RegRead:
      if (e->buf->is_var || e->args.empty()) return e->buf->name;
      return e->buf->name + "[" + indices(e->args) + "]";
    case ExprKind::Ramp:
      return "A.Ramp(" + dump(e->args[0]) + ", " + dump(e->args[1]) + ", " + dump(e->args[2]) + ")";
    case ExprKind::Pop: return e->stream->name + ".pop()";
    case ExprKind::Cast: return "A.cast(" + dump(e->args[0]) + ", \"" + e->name + "\")";
    case ExprKind::Broadcast: return "A.Broadcast(" + dump(e->args[0]) + ", " + std::to_string(e->ival) + ")";
    case ExprKind::IfThenElse:
      return "A.if_then_else(" + dump(e->args[0]) + ", " + dump(e->args[1]) + ", " + dump(e->args[2]) + ")";
    case ExprKind::Mvm: return "A.mvm_1x1(" + dump(e->args[0]) + ", " + dump(e->args[1]) + ")";
    case ExprKind::DpuCall: {
      std::string s = "A.dpu.ops." + e->name + "(";
      for (std::size_t i = 0; i < e->args.size(); ++i) s += (i ? ", " : "") + dump(e->args[i]);
      return s + ")";
    }
    default: return "(" + dump(e->args[0]) + op_text(e->kind) + dump(e->args[1]) + ")";
  }
}

std::string dump(const PrimFunc& f) {
  std::ostringstream os;
  os << "@A.prim_func\ndef " << f.name << "(";
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    const auto& b = *f.params[i];
    os << (i ? ", " : "") << b.name << ": A.Buffer(" << shape(b.shape) << ", \"" << b.dtype.str() << "\", scope=A."
       << to_string(b.scope) << ")";
  }
  os << "):\n";
  for (const auto& b : f.buffers) {
    if (b->alias_of) {
      os << "  " << b->name << " = " << b->alias_of->name << ".reshape(" << shape(b->shape) << ")\n";
    } else if (b->role == BufferRole::Constant) {
      os << "  " << b->name << " = A.alloc_constant(<" << b->data.size() << " values>, \"" << b->dtype.str()
         << "\", shape=" << shape(b->shape) << ", scope=A." << to_string(b->scope) << ")\n";
    } else if (b->role == BufferRole::Imc) {
      os << "  " << b->name << " = A.alloc_imc(" << shape(b->shape) << (b->core >= 0 ? ", core=" + std::to_string(b->core) : "")
         << ")\n";
    } else {
      os << "  " << b->name << " = A.alloc_buffer(" << shape(b->shape) << ", \"" << b->dtype.str() << "\", scope=A."
         << to_string(b->scope) << ")\n";
    }
  }
  for (const auto& s : f.streams) os << "  " << s->name << " = A.decl_stream(\"" << s->dtype.str() << "\")\n";
  body(os, f.body->body, 1);
  for (const auto& o : f.outputs) os << "  A.output(" << o->name << ")\n";
  return os.str();
}

std::string dump(const Module& m) {
  std::string s = "@A.ir_module\nclass " + m.name + ":\n";
  for (const auto& f : m.funcs) {
    std::istringstream in(dump(*f));
    for (std::string line; std::getline(in, line);) s += "  " + line + "\n";
  }
  return s;
}

}  // namespace axcore::compiler
