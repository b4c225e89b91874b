// The textual IR. Every construct the builder makes prints in an AxScript-like form that
// parse_module() / parse_prim_func() (parser.hpp) read back: dump -> parse -> dump is the
// identity. Constants print their values (runs of one value as `[v] * n`), floats in their
// shortest round-trip form.
#include "axcore/compiler/printer.hpp"

#include <charconv>
#include <cmath>
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

std::string quoted_list(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
  return s + "]";
}

// `[a, b] + [v] * 64 + [c]`: runs of four or more equal values are written as a repeat.
std::string values(const std::vector<double>& v) {
  if (v.empty()) return "[]";
  std::string s, plain;
  auto flush = [&] {
    if (plain.empty()) return;
    s += (s.empty() ? "[" : " + [") + plain + "]";
    plain.clear();
  };
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j < v.size() && (v[j] == v[i] || (v[j] != v[j] && v[i] != v[i]))) ++j;
    if (j - i >= 4) {
      flush();
      s += (s.empty() ? "[" : " + [") + number(v[i]) + "] * " + std::to_string(j - i);
      i = j;
    } else {
      plain += (plain.empty() ? "" : ", ") + number(v[i]);
      ++i;
    }
  }
  flush();
  return s;
}

std::string block_args(const StmtNode& s) {
  std::vector<std::string> a;
  switch (s.unit) {
    case Unit::IFD: a.push_back("num=" + std::to_string(s.num)); break;
    case Unit::CoreDMA:
    case Unit::AICore:
      if (s.core >= 0) a.push_back("core=" + std::to_string(s.core));
      break;
    case Unit::Depthwise:
      a.push_back("op=\"" + std::string(spec::to_string(static_cast<spec::DwpuOp>(s.num))) + "\"");
      a.push_back("taps=" + std::to_string(s.extent));
      a.push_back("weights=" + (s.buf ? s.buf->name : std::string("None")));
      a.push_back("divisor=" + std::to_string(s.start));
      break;
    default: break;
  }
  if (!s.id.empty()) a.push_back("id=\"" + s.id + "\"");
  std::string r;
  for (std::size_t i = 0; i < a.size(); ++i) r += (i ? ", " : "") + a[i];
  return r;
}

const char* block_name(Unit u) {
  switch (u) {
    case Unit::MatMul: return "pseudo.MatMul";
    case Unit::LoadIMC: return "pseudo.LoadIMC";
    default: return nullptr;
  }
}

void stmt(std::ostream& os, const Stmt& s, int depth);

void body(std::ostream& os, const std::vector<Stmt>& b, int depth) {
  std::size_t printed = 0;
  for (const auto& s : b) {
    if (s->kind == StmtKind::DeclStream) continue;
    stmt(os, s, depth);
    ++printed;
  }
  if (printed == 0) os << std::string(2 * depth, ' ') << "pass\n";
}

void stmt(std::ostream& os, const Stmt& s, int depth) {
  const std::string pad(2 * depth, ' ');
  switch (s->kind) {
    case StmtKind::Seq: body(os, s->body, depth); return;
    case StmtKind::For: {
      const char* k = s->tiles                      ? "tiles"
                      : s->loop == LoopKind::Serial ? "serial"
                      : s->loop == LoopKind::Grid   ? "grid"
                                                    : "unroll";
      os << pad << "for " << s->var->name << " in A." << k << "(";
      if (s->start != 0)
        os << s->start << ", " << s->start + s->extent;
      else
        os << s->extent;
      if (s->tiles) {
        const TileBounds& t = *s->tiles;
        for (const auto& [n, v] : {std::pair{"tile_min", t.tile_min}, std::pair{"tile_max", t.tile_max},
                                   std::pair{"num_tiles", t.num_tiles}, std::pair{"drain", t.drain}})
          if (v) os << ", " << n << "=" << v;
      }
      os << "):\n";
      body(os, s->body, depth + 1);
      return;
    }
    case StmtKind::Datapath: {
      os << pad << "with A.Datapath(";
      std::string sep;
      if (s->dp_kind) {
        os << "kind=A.DP_" << (*s->dp_kind == DpKind::MVMEXE ? "MVMEXE" : "DWPU");
        sep = ", ";
      }
      if (s->core >= 0) {
        os << sep << "core=" << s->core;
        sep = ", ";
      }
      if (!s->id.empty()) os << sep << "id=\"" << s->id << "\"";
      os << "):\n";
      body(os, s->body, depth + 1);
      return;
    }
    case StmtKind::Block: {
      const char* n = block_name(s->unit);
      os << pad << "with A." << (n ? std::string(n) : to_string(s->unit)) << "(" << block_args(*s) << "):\n";
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
    case StmtKind::Sync:
      os << pad << "A.sync(waits=" << quoted_list(s->waits) << ", signals=" << quoted_list(s->signals);
      if (!s->guards.empty()) {
        os << ", buffers=[";
        for (std::size_t i = 0; i < s->guards.size(); ++i) os << (i ? ", " : "") << s->guards[i]->name;
        os << "]";
      }
      os << ")\n";
      return;
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
    case StmtKind::Where: os << pad << "A.where(" << dump(s->value) << ")\n"; return;
    case StmtKind::Bypass: os << pad << "A.bypass()\n"; return;
  }
}

std::string buffer_extras(const BufferNode& b) {
  std::string s;
  if (!b.logical_shape.empty()) s += ", logical_shape=" + shape(b.logical_shape);
  if (b.core >= 0 && b.role != BufferRole::Imc) s += ", core=" + std::to_string(b.core);
  return s;
}

}  // namespace

std::string number(double v) {
  if (v == 0 && std::signbit(v)) return "-0.0";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string dump(const Expr& e) {
  if (!e) return "None";
  switch (e->kind) {
    case ExprKind::Int:
      if (!e->name.empty()) return "A." + e->name + "(" + std::to_string(e->ival) + ")";
      return std::to_string(e->ival);
    case ExprKind::Float: return "A.float32(" + number(e->fval) + ")";
    case ExprKind::VarRef: return e->var->name;
    case ExprKind::Min: return "A.min(" + dump(e->args[0]) + ", " + dump(e->args[1]) + ")";
    case ExprKind::Max: return "A.max(" + dump(e->args[0]) + ", " + dump(e->args[1]) + ")";
    case ExprKind::Load: return e->buf->name + "[" + indices(e->args) + "]";
    case ExprKind::RegRead:
      if (e->buf->is_var || e->args.empty()) return e->buf->name;
      return e->buf->name + "[" + indices(e->args) + "]";
    case ExprKind::Ramp: return "A.Ramp(" + dump(e->args[0]) + ", " + dump(e->args[1]) + ", " + dump(e->args[2]) + ")";
    case ExprKind::Pop: return e->stream->name + ".pop()";
    case ExprKind::Cast: return "A.cast(" + dump(e->args[0]) + ", \"" + e->name + "\")";
    case ExprKind::Vtrsp: return "A.vtrsp(" + dump(e->args[0]) + ")";
    case ExprKind::Broadcast: return "A.Broadcast(" + dump(e->args[0]) + ", " + std::to_string(e->ival) + ")";
    case ExprKind::IfThenElse:
      return "A.if_then_else(" + dump(e->args[0]) + ", " + dump(e->args[1]) + ", " + dump(e->args[2]) + ")";
    case ExprKind::Mvm: return "A.mvm_1x1(" + dump(e->args[0]) + ", " + dump(e->args[1]) + ")";
    case ExprKind::DpuCall: {
      std::string s = "A.dpu.ops." + e->name + "(";
      for (std::size_t i = 0; i < e->args.size(); ++i) s += (i ? ", " : "") + dump(e->args[i]);
      if (e->ival != 0) s += ", tables=" + std::to_string(e->ival);  // a chained LUT
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
       << to_string(b.scope) << buffer_extras(b) << ")";
  }
  os << "):\n";
  for (const auto& b : f.buffers) {
    os << "  " << b->name << " = ";
    if (b->alias_of) {
      os << b->alias_of->name << ".reshape(" << shape(b->shape) << ")\n";
    } else if (b->role == BufferRole::Constant) {
      os << "A.alloc_constant(" << values(b->data) << ", \"" << b->dtype.str() << "\", shape=" << shape(b->shape)
         << ", scope=A." << to_string(b->scope) << buffer_extras(*b) << ")\n";
    } else if (b->role == BufferRole::Imc) {
      os << "A.alloc_imc(" << shape(b->shape) << (b->core >= 0 ? ", core=" + std::to_string(b->core) : "") << ")\n";
    } else {
      os << "A.alloc_buffer(" << shape(b->shape) << ", \"" << b->dtype.str() << "\", scope=A." << to_string(b->scope)
         << buffer_extras(*b) << ")\n";
    }
  }
  for (const auto& s : f.streams) {
    os << "  " << s->name << " = A.decl_stream(\"" << s->dtype.str() << "\"";
    if (!s->scope.empty()) os << ", scope=\"" << s->scope << "\"";
    os << ")\n";
  }
  body(os, f.body->body, 1);
  for (const auto& o : f.outputs) os << "  A.output(" << o->name << ")\n";
  for (const auto& n : f.graph) {
    os << "  A.graph(\"" << n.op << "\", inputs=" << quoted_list(n.inputs) << ", outputs=" << quoted_list(n.outputs);
    for (const auto& [k, v] : n.num_attrs) os << ", " << k << "=" << values(v);
    for (const auto& [k, v] : n.str_attrs) os << ", " << k << "=\"" << v << "\"";
    os << ")\n";
  }
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
