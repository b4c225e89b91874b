#include "axcore/compiler/ir.hpp"

namespace axcore::compiler {

DType DType::parse(const std::string& s, const SourceLoc& loc) {
  if (s == "int32" || s == "index") return index();
  const auto x = s.find('x');
  const std::string base = s.substr(0, x);
  DType d;
  if (base == "int8")
    d.base = Base::Int8;
  else if (base == "int32")
    d.base = Base::Int32;
  else if (base == "float16")
    d.base = Base::Float16;
  else if (base == "float32")
    d.base = Base::Float32;
  else if (base == "float18")
    d.base = Base::Float18;
  else
    fail(loc, "unknown dtype '" + s + "'", "\"<base>x<lanes>\" with base int8, int32, float16, float32 or float18");
  if (x == std::string::npos) fail(loc, "dtype '" + s + "' has no lane count", s + "x64");
  const std::string lanes = s.substr(x + 1);
  if (lanes != "64" && !(lanes == "4096" && d.base == Base::Int8))
    fail(loc, "dtype '" + s + "': the lane count is 64 (a PWORD), or int8x4096 for an IMC tile", base + "x64");
  d.lanes = static_cast<uint32_t>(std::stoul(lanes));
  return d;
}

std::string DType::str() const {
  static const char* names[] = {"int8", "int32", "float16", "float32", "float18", "int32"};
  if (is_index()) return "int32";
  return std::string(names[static_cast<int>(base)]) + "x" + std::to_string(lanes);
}

spec::Dtype DType::spec() const {
  switch (base) {
    case Base::Int8: return spec::Dtype::INT8;
    case Base::Int32: return spec::Dtype::INT32;
    case Base::Float16: return spec::Dtype::FLOAT16;
    case Base::Float32: return spec::Dtype::FLOAT32;
    case Base::Float18: return spec::Dtype::FLOAT18;
    case Base::Index: break;
  }
  throw std::logic_error("DType::spec of an index type");
}

uint32_t DType::rows() const {
  switch (base) {
    case Base::Int8: return lanes == 4096 ? 64 : 1;
    case Base::Float16: return 2;
    default: return 4;
  }
}
uint32_t DType::bytes() const { return rows() * 64; }

std::string to_string(Scope s) {
  static const char* names[] = {
      "DDR", "L2", "L1", "DDR_WEAK", "L2_WEAK", "L1_WEAK", "IMC", "DPU_REGISTERS", "MVM_ACCUMULATOR"};
  return names[static_cast<int>(s)];
}
std::optional<Scope> parse_scope(const std::string& s) {
  for (int i = 0; i <= static_cast<int>(Scope::MVM_ACCUMULATOR); ++i)
    if (to_string(static_cast<Scope>(i)) == s) return static_cast<Scope>(i);
  return std::nullopt;
}
bool is_weak(Scope s) { return s == Scope::DDR_WEAK || s == Scope::L2_WEAK || s == Scope::L1_WEAK; }

Home home_of(const BufferNode& b) {
  if (b.role == BufferRole::Input || b.role == BufferRole::Constant || b.output || b.scope == Scope::DDR ||
      b.scope == Scope::DDR_WEAK)
    return Home::DDR;
  if (b.role == BufferRole::Local && (b.scope == Scope::L2 || b.scope == Scope::L2_WEAK)) return Home::L2;
  return Home::L1;
}

int64_t BufferNode::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string to_string(Unit u) {
  static const char* names[] = {"IFD",  "MatMul",  "DPU",    "ODR",    "LoadIMC",
                                "init", "CoreDMA", "SysDMA", "AICore", "Depthwise"};
  return names[static_cast<int>(u)];
}

Expr make_int(int64_t v, SourceLoc loc) {
  auto e = std::make_shared<ExprNode>();
  e->kind = ExprKind::Int;
  e->ival = v;
  e->loc = std::move(loc);
  return e;
}
Expr make_var(const Var& v, SourceLoc loc) {
  auto e = std::make_shared<ExprNode>();
  e->kind = ExprKind::VarRef;
  e->var = v;
  e->loc = std::move(loc);
  return e;
}
bool is_arith(ExprKind k) { return k >= ExprKind::Add && k <= ExprKind::Max; }
bool is_compare(ExprKind k) { return k >= ExprKind::Lt && k <= ExprKind::And; }

Expr make_binary(ExprKind k, Expr a, Expr b, SourceLoc loc) {
  auto e = std::make_shared<ExprNode>();
  e->kind = k;
  e->loc = std::move(loc);
  if (is_compare(k))
    e->dtype = DType::index();
  else if (!a->dtype.is_index())
    e->dtype = a->dtype;
  else
    e->dtype = b->dtype;
  e->args = {std::move(a), std::move(b)};
  return e;
}

bool is_bypassed(const StmtNode& block) {
  for (const auto& s : block.body)
    if (s->kind == StmtKind::Bypass || (s->kind == StmtKind::For && is_bypassed(*s))) return true;
  return false;
}

Stmt make_stmt(StmtKind k, SourceLoc loc) {
  auto s = std::make_shared<StmtNode>();
  s->kind = k;
  s->loc = std::move(loc);
  return s;
}

PrimFunc& Module::main() const {
  for (const auto& f : funcs)
    if (f->name == "main") return *f;
  if (funcs.empty()) throw CompileError({}, "module '" + name + "' has no prim_func");
  return *funcs.front();
}

}  // namespace axcore::compiler
