// The builder context: a stack of open statement containers per Script, and the block units
// enclosing the point being built (for the checks that need to know "which block am I in").
#include "axcore/compiler/script.hpp"

#include "axcore/compiler/passes.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>

#include "axcore/compiler/printer.hpp"

namespace axcore::compiler::A {
namespace {

struct Ctx {
  PrimFunc* func = nullptr;
  std::vector<std::vector<Stmt>*> containers;
  std::vector<Unit> units;  // enclosing blocks, innermost last
  int datapaths = 0;        // enclosing Datapath regions
  std::vector<Stmt> open_loops;
  std::vector<int> fuse_scopes;        // open A.fuse / A.prevent_fuse regions (PrimFunc::fuse_scopes), innermost last
  std::vector<StmtNode*> open_blocks;  // the enclosing Block statements, innermost last
  std::set<const StmtNode*> ifd_num_from_stream;  // A.IFD() without num: the pushed stream's pin decides
  // Tile views made so far (buf.tile, buf[k]): one node per region of a parent, so the same
  // region written twice is the same buffer to the operators (atomic.load_imc's IMC region is
  // the one atomic.matmul names).
  std::map<std::tuple<const BufferNode*, std::vector<int64_t>, std::vector<bool>, std::vector<int64_t>>, Buffer> views;
};
thread_local std::vector<Ctx> g_ctx;

Ctx& ctx(const SourceLoc& loc = {}) {
  if (g_ctx.empty())
    fail(loc, "this construct is only valid inside a parsed region",
         "open an A::Script(func) first (the C++ form of `with A.script():`)");
  return g_ctx.back();
}

void append(Stmt s) { ctx(s->loc).containers.back()->push_back(std::move(s)); }

// A generated name from the function's one counter (PrimFunc::generated_names, which the operator
// library numbers from too): a function's names depend on nothing built before it.
std::string fresh(PrimFunc& f, const std::string& stem) { return stem + std::to_string(f.generated_names++); }
std::string fresh(const std::string& stem, const SourceLoc& loc = {}) { return fresh(*ctx(loc).func, stem); }

// Where an operator expression was written: a loop variable's location is its loop header, so
// prefer an operand written at the expression itself (an immediate, a load, a call).
SourceLoc first_loc(std::initializer_list<const Expr*> es) {
  for (const Expr* e : es)
    if (*e && (*e)->loc.known() && (*e)->kind != ExprKind::VarRef) return (*e)->loc;
  for (const Expr* e : es)
    if (*e && (*e)->loc.known()) return (*e)->loc;
  return {};
}

std::shared_ptr<ExprNode> mk(ExprKind k, const SourceLoc& loc) {
  auto e = std::make_shared<ExprNode>();
  e->kind = k;
  e->loc = loc;
  return e;
}

const char* block_name(const Ctx& c) {
  if (c.units.empty()) return c.datapaths ? "Datapath" : "top-level";
  switch (c.units.back()) {
    case Unit::IFD: return "IFD";
    case Unit::MatMul: return "MatMul";
    case Unit::DPU: return "DPU";
    case Unit::ODR: return "ODR";
    case Unit::LoadIMC: return "LoadIMC";
    case Unit::Init: return "DPU";
    case Unit::CoreDMA: return "CoreDMA";
    case Unit::SysDMA: return "SysDMA";
    case Unit::AICore: return "AICore";
    case Unit::Depthwise: return "Depthwise";
  }
  return "?";
}

bool in_dpu(const Ctx& c) { return std::find(c.units.begin(), c.units.end(), Unit::DPU) != c.units.end(); }

std::string index_text(const Expr& e) {
  if (e->kind == ExprKind::Int) return std::to_string(e->ival);
  if (e->kind == ExprKind::VarRef) return e->var->name;
  return "<expr>";
}

void check_register_access(const Buffer& b, const SourceLoc& loc) {
  if (b->role != BufferRole::Register) return;
  Ctx& c = ctx(loc);
  if (!in_dpu(c))
    fail(loc,
         b->name + " is a DPU register: registers may only be read or written in a DPU block, and this is " +
             (c.units.empty() ? std::string("outside any block") : std::string("an ") + block_name(c) + " block"),
         "move the access into a with A.DPU() block, or stream the value to the DPU");
}

void check_register_index(const Buffer& b, const std::vector<Expr>& idx, bool store, const SourceLoc& loc) {
  if (b->role == BufferRole::Accumulator) {
    const std::string at = "[" + (idx.empty() ? std::string() : index_text(idx[0])) + "]";
    fail(loc,
         (store ? "Cannot store into " + b->name + " at " + at : "Cannot index " + b->name + " with " + at) +
             ": the MVM accumulator is a register, read and written without an index",
         "acc += A.mvm_1x1(...) and stream.push(acc)");
  }
  if (b->role != BufferRole::Register) return;
  check_register_access(b, loc);
  if (b->is_var) {
    const std::string at = idx.empty() ? "" : index_text(idx[0]);
    if (store)
      fail(loc, "Cannot store into " + b->name + " at " + at, b->name + " = value  (an A.var is assigned directly)");
    fail(loc, "Cannot index " + b->name + " with [" + at + "]: it is a var (a.k.a. single element buffer)",
         "read " + b->name + " directly, or declare it with A.array(dtype, size=N) to index it");
  }
  if (idx.size() != 1) fail(loc, "register file " + b->name + " takes one index, got " + std::to_string(idx.size()));
  const Expr& i = idx[0];
  if (i->kind == ExprKind::Ramp)
    fail(loc, "Cannot index " + b->name + " with a slice or a Ramp: a register file is indexed one register at a time",
         b->name + "[i] with a whole-number index");
  if (i->kind == ExprKind::Float || !i->dtype.is_index())
    fail(loc, "Cannot index " + b->name + " with a non-integer index: registers are indexed by whole numbers",
         b->name + "[k] with an integer k or a device-loop variable");
  if (i->kind == ExprKind::Int && (i->ival < 0 || i->ival >= b->shape[0]))
    fail(loc,
         b->name + "[" + std::to_string(i->ival) + "] is out of range: " + b->name +
             " was declared with size=" + std::to_string(b->shape[0]),
         "an index in 0.." + std::to_string(b->shape[0] - 1) + ", or a larger A.array size");
}

Buffer new_buffer(std::vector<int64_t> shape, const std::string& dtype, Scope scope, BufferRole role,
                  const std::string& name, const SourceLoc& loc) {
  auto b = std::make_shared<BufferNode>();
  b->name = name.empty() ? fresh(role == BufferRole::Register ? "reg" : "buf", loc) : name;
  b->shape = std::move(shape);
  b->dtype = DType::parse(dtype, loc);
  b->scope = scope;
  b->role = role;
  b->loc = loc;
  for (int64_t d : b->shape)
    if (d < 0) fail(loc, "buffer " + b->name + " has a negative extent");
  return b;
}

}  // namespace

// ---- Value ---------------------------------------------------------------------------------------
Value::Value(int v, Loc l) : e_(make_int(v, SourceLoc::from(l))) {}
Value::Value(int64_t v, Loc l) : e_(make_int(v, SourceLoc::from(l))) {}

static Value bin(ExprKind k, const Value& a, const Value& b) {
  return Value(make_binary(k, a.expr(), b.expr(), first_loc({&a.expr(), &b.expr()})));
}
Value operator+(const Value& a, const Value& b) { return bin(ExprKind::Add, a, b); }
Value operator-(const Value& a, const Value& b) { return bin(ExprKind::Sub, a, b); }
Value operator*(const Value& a, const Value& b) { return bin(ExprKind::Mul, a, b); }
Value operator/(const Value& a, const Value& b) { return bin(ExprKind::FloorDiv, a, b); }
Value operator%(const Value& a, const Value& b) { return bin(ExprKind::Mod, a, b); }
Value operator-(const Value& a) { return bin(ExprKind::Sub, Value(make_int(0, a.expr()->loc)), a); }
Value operator<(const Value& a, const Value& b) { return bin(ExprKind::Lt, a, b); }
Value operator<=(const Value& a, const Value& b) { return bin(ExprKind::Le, a, b); }
Value operator>(const Value& a, const Value& b) { return bin(ExprKind::Gt, a, b); }
Value operator>=(const Value& a, const Value& b) { return bin(ExprKind::Ge, a, b); }
Value operator==(const Value& a, const Value& b) { return bin(ExprKind::Eq, a, b); }
Value operator&&(const Value& a, const Value& b) { return bin(ExprKind::And, a, b); }

Ix::Ix(Value value, Loc l) : v(std::move(value)), loc(SourceLoc::from(l)), present(true) {}
Ix::Ix(int value, Loc l) : v(Value(make_int(value, SourceLoc::from(l)))), loc(SourceLoc::from(l)), present(true) {}
Ix::Ix(int64_t value, Loc l) : v(Value(make_int(value, SourceLoc::from(l)))), loc(SourceLoc::from(l)), present(true) {}

// ---- Element ---------------------------------------------------------------------------------------
Element::operator Value() const {
  check_register_index(b_, idx_, false, loc_);
  auto e = mk(b_->role == BufferRole::Register ? ExprKind::RegRead : ExprKind::Load, loc_);
  e->buf = b_;
  e->args = idx_;
  e->dtype = b_->dtype;
  return Value(Expr(e));
}

void Element::operator=(const Value& v) {
  check_register_index(b_, idx_, true, loc_);
  auto s = make_stmt(StmtKind::Store, loc_);
  s->buf = b_;
  s->indices = idx_;
  s->value = v.expr();
  append(s);
}

namespace {
std::vector<Expr> parent_indices(const BufferHandle& view, const std::vector<Expr>& idx, const SourceLoc& loc);
}

Element BufferHandle::operator()(Ix i0, Ix i1, Ix i2, Ix i3, Ix i4, Ix i5) const {
  std::vector<Expr> idx;
  for (const Ix* i : {&i0, &i1, &i2, &i3, &i4, &i5})
    if (i->present) idx.push_back(i->v.expr());
  if (region_) return Element(region_->parent.node(), parent_indices(*this, idx, i0.loc), i0.loc);
  return Element(b_, std::move(idx), i0.loc);
}

Element BufferHandle::at(const std::vector<Value>& idx, Loc l) const {
  std::vector<Expr> e;
  for (const auto& v : idx) e.push_back(v.expr());
  if (region_) return Element(region_->parent.node(), parent_indices(*this, e, SourceLoc::from(l)), SourceLoc::from(l));
  return Element(b_, std::move(e), SourceLoc::from(l));
}

BufferHandle BufferHandle::reshape(std::vector<int64_t> shape, Loc l) const {
  if (region_) {
    if (shape == b_->shape) return *this;
    fail(SourceLoc::from(l),
         b_->name + " is a tile view (a region of " + region_->parent.name() +
             "), not storage of its own: it cannot be viewed with another shape",
         "copy the tile into a buffer of its own (atomic.copy) and reshape that");
  }
  auto v = std::make_shared<BufferNode>(*b_);
  v->name = fresh(b_->name + ".view", SourceLoc::from(l));
  v->shape = std::move(shape);
  v->alias_of = b_;
  v->data.clear();
  v->loc = SourceLoc::from(l);
  if (v->elements() != b_->elements())
    fail(v->loc, "reshape of " + b_->name + ": " + std::to_string(b_->elements()) + " elements cannot view as " +
                     std::to_string(v->elements()));
  if (!g_ctx.empty()) g_ctx.back().func->buffers.push_back(v);
  return BufferHandle(v);
}

// ---- registers, accumulator, streams -------------------------------------------------------------
Reg::operator Value() const {
  const SourceLoc loc{};
  check_register_access(b_, loc);
  if (!b_->is_var) {
    fail(b_->loc, b_->name + " is a register file (A.array): read it with an index", b_->name + "[i]");
  }
  auto e = mk(ExprKind::RegRead, {});
  e->buf = b_;
  e->dtype = b_->dtype;
  return Value(Expr(e));
}

void Reg::operator=(const Value& v) {
  const SourceLoc loc = v.expr() ? v.expr()->loc : SourceLoc{};
  check_register_access(b_, loc);
  if (!b_->is_var)
    fail(loc, "Cannot store into " + b_->name + " without an index: it is a register file (A.array)",
         b_->name + "[i] = value");
  auto s = make_stmt(StmtKind::Store, loc);
  s->buf = b_;
  s->value = v.expr();
  append(s);
}

Element Reg::operator[](Ix i) const { return Element(b_, {i.v.expr()}, i.loc); }

void Acc::operator+=(const Value& mvm) {
  const SourceLoc loc = mvm.expr() ? mvm.expr()->loc : SourceLoc{};
  auto s = make_stmt(StmtKind::Accum, loc);
  s->buf = b_;
  s->value = mvm.expr();
  append(s);
}

Element Acc::operator[](Ix i) const {
  check_register_index(b_, {i.v.expr()}, false, i.loc);
  return Element(b_, {}, i.loc);
}

namespace {
// The stream scope a push from the innermost open block binds its stream to (§6.1): an IFD's
// feeder stream, the MatMul's MVM_STREAM, the DPU's DPU_STREAM; "" where no pin applies (the
// operator library's depthwise stage, a push outside any block, which lowering refuses).
std::string bound_scope(Ctx& c, const StreamNode& st) {
  if (c.open_blocks.empty()) return {};
  StmtNode* b = c.open_blocks.back();
  switch (b->unit) {
    case Unit::IFD:
      if (c.ifd_num_from_stream.count(b) && st.scope == "IFD_1_STREAM") b->num = 1;  // the pin picks the feeder
      c.ifd_num_from_stream.erase(b);
      return "IFD_" + std::to_string(b->num) + "_STREAM";
    case Unit::MatMul: return "MVM_STREAM";
    case Unit::DPU:
    case Unit::Init: return "DPU_STREAM";
    default: return {};
  }
}
}  // namespace

void StreamHandle::push(const Value& v, Loc l) const {
  const SourceLoc loc = SourceLoc::from(l);
  Ctx& c = ctx(loc);
  const std::string bound = bound_scope(c, *s_);
  if (!s_->scope.empty() && !bound.empty() && s_->scope != bound) {
    const StmtNode* b = c.open_blocks.back();
    const std::string unit =
        b->unit == Unit::IFD ? "A.IFD(num=" + std::to_string(b->num) + ")" : "A." + to_string(b->unit);
    fail(loc,
         s_->name + " is pinned to " + s_->scope + " (scope= at " + s_->loc.str() + "), but this " + unit +
             " block pushes it, which binds it to " + bound + ": a pinned stream is pushed by its own unit (§6.1)",
         s_->scope == "IFD_0_STREAM" || s_->scope == "IFD_1_STREAM"
             ? "push it from with A.IFD(num=" + s_->scope.substr(4, 1) +
                   "):, or drop scope= to let the compiler infer it"
             : "push it from the unit " + s_->scope + " names, or drop scope= to let the compiler infer it");
  }
  auto s = make_stmt(StmtKind::Push, loc);
  s->stream = s_;
  s->value = v.expr();
  append(s);
}

void StreamHandle::push(const Acc& acc, Loc l) const {
  auto e = mk(ExprKind::RegRead, SourceLoc::from(l));
  e->buf = acc.node();
  e->dtype = DType::parse("int32x64");
  push(Value(Expr(e)), l);
}

Value StreamHandle::pop(Loc l) const {
  auto e = mk(ExprKind::Pop, SourceLoc::from(l));
  e->stream = s_;
  e->dtype = s_->dtype;
  return Value(Expr(e));
}

// ---- functions ---------------------------------------------------------------------------------------
Func Module::prim_func(const std::string& name, Loc l) {
  auto f = std::make_shared<PrimFunc>();
  f->name = name;
  f->loc = SourceLoc::from(l);
  m_->funcs.push_back(f);
  return Func(f);
}

BufferHandle Func::input(const std::string& name, std::vector<int64_t> shape, const std::string& dtype, Scope scope,
                         Loc l) {
  auto b = new_buffer(std::move(shape), dtype, scope, BufferRole::Input, name.empty() ? fresh(*f_, "buf") : name,
                      SourceLoc::from(l));
  f_->params.push_back(b);
  return BufferHandle(b);
}

Script::Script(Func& f) {
  Ctx c;
  c.func = &f.ir();
  c.containers.push_back(&f.ir().body->body);
  g_ctx.push_back(std::move(c));
}
Script::~Script() { g_ctx.pop_back(); }

PrimFunc& current_func() { return *ctx().func; }

BufferHandle alloc_buffer(std::vector<int64_t> shape, const std::string& dtype, Scope scope, const std::string& name,
                          Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  if (scope == Scope::DPU_REGISTERS || scope == Scope::MVM_ACCUMULATOR)
    fail(loc, "A.alloc_buffer cannot allocate the register scope " + to_string(scope),
         scope == Scope::DPU_REGISTERS
             ? "A.array(dtype, size=N) (it checks the register count and the block the file is declared in)"
             : "A.mvm_accumulator()");
  if (scope == Scope::IMC) fail(loc, "A.alloc_buffer cannot allocate IMC", "A.alloc_imc((K_BLOCKS, N_BLOCKS))");
  auto b = new_buffer(std::move(shape), dtype, scope, BufferRole::Local, name, loc);
  ctx(loc).func->buffers.push_back(b);
  return BufferHandle(b);
}

BufferHandle alloc_constant(std::vector<double> values, const std::string& dtype, Scope scope,
                            std::vector<int64_t> shape, const std::string& name, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  const DType d = DType::parse(dtype, loc);
  if (shape.empty()) shape = {static_cast<int64_t>(values.size() / std::max<uint32_t>(d.lanes, 1))};
  auto b = new_buffer(std::move(shape), dtype, scope, BufferRole::Constant, name, loc);
  if (static_cast<int64_t>(values.size()) != b->elements() * d.lanes)
    fail(loc, "A.alloc_constant: " + std::to_string(values.size()) + " values for a buffer of " +
                  std::to_string(b->elements()) + " x " + std::to_string(d.lanes) + " lanes");
  b->data = std::move(values);
  ctx(loc).func->buffers.push_back(b);
  return BufferHandle(b);
}

BufferHandle alloc_imc(std::vector<int64_t> tiles, const std::string& dtype, int core, const std::string& name, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  if (tiles.size() != 2) fail(loc, "A.alloc_imc takes the matrix in tiles: (K_BLOCKS, N_BLOCKS)");
  if (dtype != "int8x4096") fail(loc, "A.alloc_imc holds int8x4096 tiles, not " + dtype, "dtype=\"int8x4096\"");
  auto b = new_buffer(std::move(tiles), dtype, Scope::IMC, BufferRole::Imc, name.empty() ? fresh("imc") : name, loc);
  b->core = core;
  ctx(loc).func->buffers.push_back(b);
  return BufferHandle(b);
}

Acc mvm_accumulator(Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  Ctx& c = ctx(loc);
  if (c.units.empty() || c.units.back() != Unit::MatMul)
    fail(loc, "A.mvm_accumulator() is the MVM's own register: declare it inside the MatMul block",
         "with A.pseudo.MatMul(): acc = A.mvm_accumulator()");
  auto b = new_buffer({1}, "int32x64", Scope::MVM_ACCUMULATOR, BufferRole::Accumulator, fresh("acc"), loc);
  b->is_var = true;
  return Acc(b);
}

void reset_accumulator(const Acc& acc, Loc l) {
  auto s = make_stmt(StmtKind::Reset, SourceLoc::from(l));
  s->buf = acc.node();
  append(s);
}

static Reg new_reg(const std::string& dtype, int64_t size, bool is_var, const std::string& name, const SourceLoc& loc) {
  Ctx& c = ctx(loc);
  const bool ok = (!c.units.empty() && (c.units.back() == Unit::DPU || c.units.back() == Unit::Init)) ||
                  (c.units.empty() && c.datapaths > 0);
  const char* what = is_var ? "A.var" : "A.array";
  if (!ok)
    fail(loc,
         std::string(what) + " declares a DPU register: declare it inside a DPU block or on a Datapath, not " +
             (c.units.empty() ? std::string("outside any datapath") : std::string("in an ") + block_name(c) + " block"),
         "declare it at the top of the with A.DPU() block");
  if (size <= 0)
    fail(loc, std::string(what) + " size must be a build-time positive integer, got " + std::to_string(size));
  const DType d = DType::parse(dtype, loc);
  if (d.base != DType::Base::Float18)
    fail(loc, "DPU registers hold float18x64, not " + dtype, std::string(what) + "(\"float18x64\", ...)");
  auto b = new_buffer({size}, dtype, Scope::DPU_REGISTERS, BufferRole::Register, name, loc);
  b->is_var = is_var;
  auto s = make_stmt(StmtKind::DeclReg, loc);
  s->buf = b;
  append(s);
  return Reg(b);
}

Reg var(const std::string& dtype, const std::string& name, Loc l) {
  return new_reg(dtype, 1, true, name, SourceLoc::from(l));
}
Reg array(const std::string& dtype, int64_t size, const std::string& name, Loc l) {
  return new_reg(dtype, size, false, name, SourceLoc::from(l));
}

StreamHandle decl_stream(const std::string& dtype, const std::string& scope, const std::string& name, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  auto s = std::make_shared<StreamNode>();
  s->name = name.empty() ? fresh("s") : name;
  s->dtype = DType::parse(dtype, loc);
  s->scope = scope;
  s->loc = loc;
  if (scope == "ODR_STREAM")
    fail(loc,
         "ODR_STREAM is an ODR's output stream: the ODR here stores to memory and pushes no stream, so nothing "
         "could feed " +
             s->name + " (§6.1)",
         "store from the ODR (out[idx] = s.pop()) and read the buffer in the next datapath's IFD; or omit scope=");
  if (!scope.empty() && scope != "IFD_0_STREAM" && scope != "IFD_1_STREAM" && scope != "MVM_STREAM" &&
      scope != "DPU_STREAM")
    fail(loc,
         "scope=" + scope +
             " is not a stream scope: a stream binds to IFD_0_STREAM, IFD_1_STREAM, MVM_STREAM or "
             "DPU_STREAM (§6.1)" +
             (parse_scope(scope) ? std::string(" — ") + scope + " is a memory scope (§5.1)" : ""),
         "omit scope= (the compiler infers it from the unit that pushes the stream), or pin one of the stream scopes");
  ctx(loc).func->streams.push_back(s);
  return StreamHandle(s);
}

void output(const BufferHandle& b, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  Ctx& c = ctx(loc);
  if (b.region())
    fail(loc, b.name() + " is a tile view (a region of " + b.region()->parent.name() + "): an output is a whole buffer",
         "name the buffer: A.output(" + b.region()->parent.name() + ")");
  BufferNode* root = b.node().get();
  while (root->alias_of) root = root->alias_of.get();
  if (root != b.node().get()) {
    // A view (reshape) as the result: the device writes the viewed buffer, the bundle names and
    // shapes it as the view (the same bytes: the lanes of each PWORD stay together).
    if (root->role == BufferRole::Input || root->role == BufferRole::Constant)
      fail(loc,
           b.name() + " is a view of the " + (root->role == BufferRole::Input ? "input " : "constant ") + root->name +
               ": an output is written by the program",
           "copy it into a buffer of its own and name that");
    if (!root->logical_shape.empty() && !root->shape.empty() &&
        root->logical_shape.back() != root->shape.back() * static_cast<int64_t>(root->dtype.lanes))
      fail(loc,
           b.name() + " views " + root->name + ", whose lanes are padded: the view would not hold its bytes in order",
           "copy it into a buffer of its own and name that");
  }
  for (const auto& o : c.func->outputs)
    if (o->root() == root)
      fail(loc,
           o.get() == b.node().get()
               ? b.name() + " is named as an output twice"
               : b.name() + " and " + o->name + " share storage (one views the other): a buffer is one output",
           "copy one of them into a buffer of its own");
  b.node()->output = true;
  root->output = true;
  c.func->outputs.push_back(b.node());
}

// ---- loops -------------------------------------------------------------------------------------------
namespace detail {
Value open_loop(LoopKind kind, int64_t start, int64_t extent, const SourceLoc& loc,
                const std::optional<TileBounds>& tiles) {
  if (extent < 0) fail(loc, "a loop extent must be >= 0, got " + std::to_string(extent));
  auto s = make_stmt(StmtKind::For, loc);
  s->tiles = tiles;
  s->var = std::make_shared<VarNode>();
  s->var->name = fresh("i");
  s->start = start;
  s->extent = extent;
  s->loop = kind;
  append(s);
  Ctx& c = ctx(loc);
  c.containers.push_back(&s->body);
  c.open_loops.push_back(s);
  auto v = std::make_shared<ExprNode>();
  v->kind = ExprKind::VarRef;
  v->var = s->var;
  v->loc = loc;
  return Value(Expr(v));
}
void close_loop() {
  Ctx& c = ctx();
  c.containers.pop_back();
  c.open_loops.pop_back();
}
}  // namespace detail

Loops<1, true> serial(int64_t extent, Loc l) {
  return Loops<1, true>(LoopKind::Serial, {0}, {extent}, SourceLoc::from(l));
}
Loops<1, true> serial(int64_t start, int64_t stop, Loc l) {
  return Loops<1, true>(LoopKind::Serial, {start}, {std::max<int64_t>(0, stop - start)}, SourceLoc::from(l));
}
Loops<1, true> unroll(int64_t extent, Loc l) {
  return Loops<1, true>(LoopKind::Unroll, {0}, {extent}, SourceLoc::from(l));
}
Loops<1, true> unroll(int64_t start, int64_t stop, Loc l) {
  return Loops<1, true>(LoopKind::Unroll, {start}, {std::max<int64_t>(0, stop - start)}, SourceLoc::from(l));
}
Loops<1, true> tiles(int64_t extent, TileBounds b, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  if (b.tile_min < 0 || b.tile_max < 0 || b.num_tiles < 0 || b.drain < 0)
    fail(loc, "A.tiles bounds must be >= 0 (0 leaves a bound to the compiler)");
  if (b.tile_max && b.tile_min > b.tile_max)
    fail(loc, "A.tiles: tile_min=" + std::to_string(b.tile_min) + " exceeds tile_max=" + std::to_string(b.tile_max));
  if (b.drain > 2)
    fail(loc,
         "A.tiles: drain=" + std::to_string(b.drain) + "; this compiler pipelines load / compute / store, drain=0..2");
  return Loops<1, true>(LoopKind::Serial, {0}, {extent}, loc, b);
}
Loops<1> grid(int64_t a, Loc l) { return Loops<1>(LoopKind::Grid, {0}, {a}, SourceLoc::from(l)); }
Loops<2> grid(int64_t a, int64_t b, Loc l) { return Loops<2>(LoopKind::Grid, {0, 0}, {a, b}, SourceLoc::from(l)); }
Loops<3> grid(int64_t a, int64_t b, int64_t c, Loc l) {
  return Loops<3>(LoopKind::Grid, {0, 0, 0}, {a, b, c}, SourceLoc::from(l));
}
Loops<4> grid(int64_t a, int64_t b, int64_t c, int64_t d, Loc l) {
  return Loops<4>(LoopKind::Grid, {0, 0, 0, 0}, {a, b, c, d}, SourceLoc::from(l));
}

void grid_nest(const std::vector<int64_t>& extents, const std::function<void(const std::vector<Value>&)>& body, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  std::vector<Value> vars;
  for (int64_t e : extents) vars.push_back(detail::open_loop(LoopKind::Grid, 0, e, loc));
  body(vars);
  for (std::size_t k = 0; k < extents.size(); ++k) detail::close_loop();
}

// ---- blocks -------------------------------------------------------------------------------------------
namespace {
// A unit block holding A.bypass() holds nothing else (§6.4: the unit does no work).
void check_bypassed_block(const StmtNode& b) {
  const StmtNode* bypass = nullptr;
  for (const auto& s : b.body)
    if (s->kind == StmtKind::Bypass) bypass = s.get();
  if (!bypass) return;
  for (const auto& s : b.body)
    if (s->kind != StmtKind::Bypass)
      fail(s->loc,
           "this A." + to_string(b.unit) + " block is bypassed (A.bypass() at " + bypass->loc.str() +
               "): a bypassed unit does no work, so its block holds nothing else (§6.4)",
           "remove A.bypass() to run the unit, or move this statement out of the block");
}

struct Opened {
  Opened(Stmt s, std::optional<Unit> unit, bool datapath) : unit_(unit), dp_(datapath) {
    Ctx& c = ctx(s->loc);
    append(s);
    c.containers.push_back(&s->body);
    if (unit_) {
      c.units.push_back(*unit_);
      c.open_blocks.push_back(s.get());
    }
    if (dp_) ++c.datapaths;
  }
  ~Opened() {
    Ctx& c = ctx();
    c.containers.pop_back();
    if (unit_) {
      c.units.pop_back();
      c.ifd_num_from_stream.erase(c.open_blocks.back());
      c.open_blocks.pop_back();
    }
    if (dp_) --c.datapaths;
  }
  Opened(const Opened&) = delete;
  Opened& operator=(const Opened&) = delete;
  std::optional<Unit> unit_;
  bool dp_;
};

void block(Unit unit, int num, const Body& body, const SourceLoc& loc, bool num_from_stream = false) {
  Ctx& c = ctx(loc);
  const bool in_dp = c.datapaths > 0;
  const bool stream_unit = unit == Unit::IFD || unit == Unit::MatMul || unit == Unit::DPU || unit == Unit::ODR;
  if (stream_unit && !in_dp)
    fail(loc, "A." + to_string(unit) + " is a stream unit: write it inside a with A.Datapath() region",
         "with A.Datapath(): with A." + to_string(unit) + "(): ...");
  if (stream_unit && !c.units.empty() && c.units.back() != Unit::AICore)
    fail(loc, "A." + to_string(unit) + " cannot be nested in an " + block_name(c) + " block");
  if ((unit == Unit::LoadIMC || unit == Unit::CoreDMA || unit == Unit::SysDMA) && in_dp)
    fail(loc, "A." + std::string(unit == Unit::LoadIMC ? "pseudo.LoadIMC" : to_string(unit)) +
                  " is a datapath of its own: write it outside any A.Datapath");
  if (unit == Unit::Init && (c.units.empty() || c.units.back() != Unit::DPU))
    fail(loc, "A.init is the DPU's preamble: write it inside a DPU block");
  auto s = make_stmt(StmtKind::Block, loc);
  s->unit = unit;
  s->num = num;
  Opened o(s, unit, false);
  if (num_from_stream) c.ifd_num_from_stream.insert(s.get());
  body();
  check_bypassed_block(*s);
}
}  // namespace

void Datapath(const Body& body, Loc l) { Datapath(DatapathArgs{}, body, l); }
void Datapath(const DatapathArgs& args, const Body& body, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  Ctx& c = ctx(loc);
  if (c.datapaths > 0) fail(loc, "a Datapath cannot be nested in another Datapath");
  if (!c.units.empty() && c.units.back() != Unit::AICore)
    fail(loc, "a Datapath cannot be written inside an " + std::string(block_name(c)) + " block");
  auto s = make_stmt(StmtKind::Datapath, loc);
  s->dp_kind = args.kind;
  s->core = args.core;
  s->id = args.id;
  s->fuse_scope = c.fuse_scopes.empty() ? -1 : c.fuse_scopes.back();
  Opened o(s, std::nullopt, true);
  body();
}
void Datapath(DpKind kind, const Body& body, Loc l) {
  DatapathArgs a;
  a.kind = kind;
  Datapath(a, body, l);
}
void Datapath(const std::string& id, const Body& body, Loc l) {
  DatapathArgs a;
  a.id = id;
  Datapath(a, body, l);
}
namespace {
void fuse_region(PrimFunc::FuseScope scope, const Body& body, const char* what) {
  Ctx& c = ctx(scope.loc);
  if (c.datapaths > 0 || !c.units.empty())
    fail(scope.loc, std::string("with A.") + what + " groups datapaths: write it outside any A.Datapath or unit block",
         std::string("with A.") + what + ": around the datapaths or operator calls");
  c.func->fuse_scopes.push_back(scope);
  c.fuse_scopes.push_back(static_cast<int>(c.func->fuse_scopes.size()) - 1);
  struct Close {
    ~Close() { ctx().fuse_scopes.pop_back(); }
  } close;
  body();
}
}  // namespace

void fuse(const FuseArgs& args, const Body& body, Loc l) {
  PrimFunc::FuseScope s;
  s.strict = args.strict;
  s.reg_pressure_heuristic = !(args.unsafe || args.disable_dpu_reg_pressure_heuristic);
  s.loop_legalization = args.unsafe || args.enable_loop_legalization;
  s.loc = SourceLoc::from(l);
  fuse_region(s, body, "fuse(...)");
}
void fuse(const Body& body, Loc l) { fuse(FuseArgs{}, body, l); }
void prevent_fuse(const Body& body, Loc l) {
  PrimFunc::FuseScope s;
  s.prevent = true;
  s.strict = false;
  s.loc = SourceLoc::from(l);
  fuse_region(s, body, "prevent_fuse()");
}
void IFD(int num, const Body& body, Loc l) { block(Unit::IFD, num, body, SourceLoc::from(l)); }
void IFD(const Body& body, Loc l) { block(Unit::IFD, 0, body, SourceLoc::from(l), true); }
void MatMul(const Body& body, Loc l) { block(Unit::MatMul, 0, body, SourceLoc::from(l)); }
void DPU(const Body& body, Loc l) { block(Unit::DPU, 0, body, SourceLoc::from(l)); }
void init(const Body& body, Loc l) { block(Unit::Init, 0, body, SourceLoc::from(l)); }
void ODR(const Body& body, Loc l) { block(Unit::ODR, 0, body, SourceLoc::from(l)); }
void LoadIMC(const Body& body, Loc l) { block(Unit::LoadIMC, 0, body, SourceLoc::from(l)); }
void CoreDMA(const Body& body, int core, const std::string& id, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  auto s = make_stmt(StmtKind::Block, loc);
  s->unit = Unit::CoreDMA;
  s->core = core;
  s->id = id;
  if (ctx(loc).datapaths > 0) fail(loc, "A.CoreDMA is a movement block: write it outside any A.Datapath");
  Opened o(s, Unit::CoreDMA, false);
  body();
}
void SysDMA(const Body& body, const std::string& id, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  auto s = make_stmt(StmtKind::Block, loc);
  s->unit = Unit::SysDMA;
  s->id = id;
  if (ctx(loc).datapaths > 0) fail(loc, "A.SysDMA is a movement block: write it outside any A.Datapath");
  Opened o(s, Unit::SysDMA, false);
  body();
}
void AICore(int core, const Body& body, Loc l) { AICore(core, body, SourceLoc::from(l)); }
void AICore(int core, const Body& body, const SourceLoc& loc) {
  auto s = make_stmt(StmtKind::Block, loc);
  s->unit = Unit::AICore;
  s->core = core;
  Opened o(s, Unit::AICore, false);
  body();
}

namespace {
void tag(const std::vector<Stmt>& list, const std::string& id) {
  for (const auto& s : list) {
    const bool launch = s->kind == StmtKind::Datapath ||
                        (s->kind == StmtKind::Block &&
                         (s->unit == Unit::LoadIMC || s->unit == Unit::CoreDMA || s->unit == Unit::SysDMA));
    if (launch) {
      if (s->id.empty()) s->id = id;
      continue;
    }
    tag(s->body, id);
    tag(s->else_body, id);
  }
}
}  // namespace

void tag_launches(const std::string& id, const Body& body, const SourceLoc& loc) {
  std::vector<Stmt>& into = *ctx(loc).containers.back();
  const std::size_t first = into.size();
  body();
  tag(std::vector<Stmt>(into.begin() + static_cast<std::ptrdiff_t>(first), into.end()), id);
}

namespace {
bool gates_launches(const SourceLoc& loc);
void build_time_branch(const Value& cond, const Body& then_body, const Body& else_body, const SourceLoc& loc);
}  // namespace

void If(const Value& cond, const Body& then_body, const Body& else_body, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  if (gates_launches(loc)) return build_time_branch(cond, then_body, else_body, loc);
  auto s = make_stmt(StmtKind::If, loc);
  s->value = cond.expr();
  append(s);
  Ctx& c = ctx(loc);
  c.containers.push_back(&s->body);
  then_body();
  c.containers.pop_back();
  if (else_body) {
    c.containers.push_back(&s->else_body);
    else_body();
    c.containers.pop_back();
  }
}
void when(const Value& cond, const Body& body, Loc l) { If(cond, body, {}, l); }

void drop(const Value& popped, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  Ctx& c = ctx(loc);
  if (c.units.empty() || c.units.back() != Unit::ODR)
    fail(loc, "A.drop(stream.pop()) is valid only in an ODR block (the store-or-drop pattern, §8.4)");
  if (!popped.expr() || popped.expr()->kind != ExprKind::Pop)
    fail(loc, "A.drop takes a stream pop", "A.drop(stream.pop())");
  auto s = make_stmt(StmtKind::Drop, loc);
  s->stream = popped.expr()->stream;
  s->value = popped.expr();
  append(s);
}

void where(const Value& cond, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  Ctx& c = ctx(loc);
  if (!c.units.empty()) {
    const Unit u = c.units.back();
    if (u == Unit::IFD || u == Unit::MatMul || u == Unit::DPU || u == Unit::ODR || u == Unit::Init ||
        u == Unit::Depthwise)
      return;  // a stream unit: the block predicate is never applied there (§8.4, §10)
  }
  // The statement whose body is being written is the last one of the container below it.
  const std::size_t n = c.containers.size();
  const StmtNode* block = n >= 2 && !c.containers[n - 2]->empty() ? c.containers[n - 2]->back().get() : nullptr;
  const bool top = block && &block->body == c.containers.back() &&
                   (block->kind == StmtKind::Datapath ||
                    (block->kind == StmtKind::Block && (block->unit == Unit::CoreDMA || block->unit == Unit::SysDMA)));
  if (!top)
    fail(loc,
         std::string("A.where(cond) is the block predicate of A.Datapath, A.CoreDMA and A.SysDMA (§10); here it is ") +
             (block && block->kind == StmtKind::For  ? "inside a loop"
              : c.units.empty() && c.datapaths == 0  ? "outside any block"
              : block && block->kind == StmtKind::If ? "inside an A.If"
                                                     : std::string("in an ") + block_name(c) + " block"),
         "write it directly in the with A.Datapath() / A.CoreDMA() / A.SysDMA() block it guards, before its work; "
         "to gate other statements, with A.when(cond):");
  if (!cond) fail(loc, "A.where takes a condition", "A.where(i < n)");
  check_block_predicate(cond.expr(), loc);
  auto s = make_stmt(StmtKind::Where, loc);
  s->value = cond.expr();
  append(s);
}

void bypass(Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  Ctx& c = ctx(loc);
  const StmtNode* b = c.open_blocks.empty() ? nullptr : c.open_blocks.back();
  const bool stream_unit =
      b && (b->unit == Unit::IFD || b->unit == Unit::MatMul || b->unit == Unit::DPU || b->unit == Unit::ODR);
  if (!stream_unit || c.containers.back() != &b->body)
    fail(loc,
         std::string("A.bypass() marks the enclosing stream unit bypassed (§6.4); here it is ") +
             (b && stream_unit             ? "inside a loop or a branch of the block"
              : b && b->unit == Unit::Init ? std::string("in the DPU's A.init preamble")
              : b                          ? std::string("in an ") + block_name(c) + " block"
                                           : "outside any unit block"),
         "write it directly in the with A.IFD(num=1) / A.pseudo.MatMul() / A.DPU() block it bypasses");
  if (b->unit == Unit::ODR)
    fail(loc, "the ODR cannot be bypassed: a datapath ends in the ODR that stores (or drops) its results (§6.4)",
         "keep the ODR; to discard every element: with A.ODR(): A.drop(s.pop())");
  if (b->unit == Unit::IFD && b->num == 0 && !c.ifd_num_from_stream.count(b))
    fail(loc, "A.IFD(num=0) cannot be bypassed: it is the datapath's main feeder, where its data comes in (§8.2)",
         "bypass the side input A.IFD(num=1), or omit that block");
  if (b->unit == Unit::IFD && c.ifd_num_from_stream.count(b))
    fail(loc, "A.IFD() without num is the main feeder, which cannot be bypassed (§8.2)",
         "with A.IFD(num=1): A.bypass() bypasses the side input");
  append(make_stmt(StmtKind::Bypass, loc));
}

// ---- sync -----------------------------------------------------------------------------------------------
void sync(const std::vector<std::string>& w, const std::vector<std::string>& s, Loc l) { sync(w, s, {}, l); }
void sync(const std::vector<std::string>& w, const std::vector<std::string>& s,
          const std::vector<BufferHandle>& buffers, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  auto st = make_stmt(StmtKind::Sync, loc);
  st->waits = w;
  st->signals = s;
  for (const auto& b : buffers) {
    if (!b) fail(loc, "A.sync(buffers=[...]) takes buffers");
    if (b.node()->role == BufferRole::Register || b.node()->role == BufferRole::Accumulator)
      fail(loc, b.name() + " is a register: A.sync(buffers=) guards memory that launches read and write (§12)");
    // A tile view guards its parent (the launches touch the parent's rows).
    st->guards.push_back(b.region() ? b.region()->parent.node() : b.node());
  }
  append(st);
}
void waits(const std::string& id, Loc l) { sync({id}, {}, l); }
void signals(const std::string& id, Loc l) { sync({}, {id}, l); }
void barrier(const std::vector<int>& cores, Loc l) {
  auto st = make_stmt(StmtKind::Barrier, SourceLoc::from(l));
  st->cores = cores;
  append(st);
}
void op_marker(const std::string& name, Loc l) {
  auto st = make_stmt(StmtKind::OpMarker, SourceLoc::from(l));
  st->id = name;
  append(st);
}

// ---- values ------------------------------------------------------------------------------------------------
Value cast(const Value& v, const std::string& dtype, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  auto e = mk(ExprKind::Cast, loc);
  e->name = dtype;
  e->dtype = DType::parse(dtype, loc);
  e->args = {v.expr()};
  return Value(Expr(e));
}
Value vtrsp(const Value& v, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  if (!v) fail(loc, "A.vtrsp takes the popped element of an ODR store", "out[idx] = A.vtrsp(s.pop())");
  auto e = mk(ExprKind::Vtrsp, loc);
  e->dtype = v.expr()->dtype;
  e->args = {v.expr()};
  return Value(Expr(e));
}
Value Broadcast(const Value& scalar, int64_t lanes, Loc l) {
  auto e = mk(ExprKind::Broadcast, SourceLoc::from(l));
  e->ival = lanes;
  e->args = {scalar.expr()};
  e->dtype = scalar.expr()->dtype;
  e->dtype.lanes = static_cast<uint32_t>(lanes);
  return Value(Expr(e));
}
Value if_then_else(const Value& cond, const Value& a, const Value& b, Loc l) {
  auto e = mk(ExprKind::IfThenElse, SourceLoc::from(l));
  e->args = {cond.expr(), a.expr(), b.expr()};
  e->dtype = a.expr()->dtype;
  return Value(Expr(e));
}
static Value typed_imm(int64_t v, const char* dtype, Loc l) {
  auto e = mk(ExprKind::Int, SourceLoc::from(l));
  e->ival = v;
  e->name = dtype;
  e->dtype = DType::parse(std::string(dtype) + "x64");
  e->dtype.lanes = 1;
  return Value(Expr(e));
}
Value int8(int64_t v, Loc l) { return typed_imm(v, "int8", l); }
Value int32(int64_t v, Loc l) { return typed_imm(v, "int32", l); }
Value float32(double v, Loc l) {
  auto e = mk(ExprKind::Float, SourceLoc::from(l));
  e->fval = v;
  e->name = "float32";
  e->dtype = DType::parse("float32x64");
  e->dtype.lanes = 1;
  return Value(Expr(e));
}
Value Ramp(const Value& base, int64_t step, int64_t lanes, Loc l) {
  auto e = mk(ExprKind::Ramp, SourceLoc::from(l));
  e->args = {base.expr(), make_int(step), make_int(lanes)};
  return Value(Expr(e));
}
Value slice(const Value& start, const Value& stop, Loc l) {
  // buf[a:b] == A.Ramp(a, 1, b - a); b - a must be a build-time constant (checked at lowering).
  auto e = mk(ExprKind::Ramp, SourceLoc::from(l));
  e->args = {start.expr(), make_int(1), make_binary(ExprKind::Sub, stop.expr(), start.expr())};
  return Value(Expr(e));
}
Value all(std::initializer_list<Value> conds, Loc l) {
  Value r;
  for (const Value& c : conds) r = r ? Value(make_binary(ExprKind::And, r.expr(), c.expr(), SourceLoc::from(l))) : c;
  return r;
}
Value Min(const Value& a, const Value& b, Loc l) {
  return Value(make_binary(ExprKind::Min, a.expr(), b.expr(), SourceLoc::from(l)));
}
Value Max(const Value& a, const Value& b, Loc l) {
  return Value(make_binary(ExprKind::Max, a.expr(), b.expr(), SourceLoc::from(l)));
}
Value min(const Value& a, const Value& b, Loc l) { return Min(a, b, l); }
Value max(const Value& a, const Value& b, Loc l) { return Max(a, b, l); }
Value mvm_1x1(const Value& x, const Value& imc_tile, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  Ctx& c = ctx(loc);
  if (c.units.empty() || c.units.back() != Unit::MatMul)
    fail(loc, "A.mvm_1x1 is the MatMul intrinsic: call it inside a MatMul block");
  auto e = mk(ExprKind::Mvm, loc);
  e->args = {x.expr(), imc_tile.expr()};
  e->dtype = DType::parse("int32x64");
  return Value(Expr(e));
}

Value IntImm(const std::string& dtype, int64_t value, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  const bool i8 = dtype == "int8", i32 = dtype == "int32";
  if (!i8 && !i32 && dtype != "int64")
    fail(loc,
         "A.IntImm(\"" + dtype + "\", " + std::to_string(value) + "): an integer immediate is int8, int32 or int64",
         "A.IntImm(\"int32\", v) for an index or an int32 pad value, A.IntImm(\"int8\", v) for an int8 pad value");
  const int64_t lo = i8 ? INT8_MIN : i32 ? INT32_MIN : INT64_MIN, hi = i8 ? INT8_MAX : i32 ? INT32_MAX : INT64_MAX;
  if (value < lo || value > hi)
    fail(loc, "A.IntImm(\"" + dtype + "\", " + std::to_string(value) + "): the value does not fit " + dtype,
         "a value in " + std::to_string(lo) + ".." + std::to_string(hi));
  return i8 ? int8(value, l) : Value(make_int(value, loc));
}

void buffer_store(const BufferHandle& buf, const Value& value, const std::vector<Value>& indices, Loc l) {
  buf.at(indices, l) = value;
}

void buffer_store(const Reg& regs, const Value& value, const std::vector<Value>& indices, Loc l) {
  if (regs.node()->is_var && indices.empty()) {  // an A.var is stored without an index (§5.2)
    Reg v(regs.node());
    v = value;
    return;
  }
  std::vector<Expr> idx;
  for (const auto& i : indices) idx.push_back(i.expr());
  Element(regs.node(), std::move(idx), SourceLoc::from(l)) = value;
}

namespace dpu {
static Value call(const char* op, std::vector<Expr> args, Loc l) {
  auto e = mk(ExprKind::DpuCall, SourceLoc::from(l));
  e->name = op;
  e->dtype = args[0]->dtype;
  e->args = std::move(args);
  return Value(Expr(e));
}
Value lut(const Value& x, const Value& table, Loc l) { return call("lut", {x.expr(), table.expr()}, l); }
Value lut(const Value& x, const Value& table, int64_t tables, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  if (tables < 1 || tables > static_cast<int64_t>(spec::param::lut_max_chain))
    fail(loc, "A.dpu.ops.lut chains 1.." + std::to_string(spec::param::lut_max_chain) +
                  " tables (lut_max_chain), not " + std::to_string(tables));
  const Expr& t = table.expr();
  if (tables > 1) {
    if (!t || t->kind != ExprKind::RegRead || t->buf->is_var || t->args.size() != 1 ||
        t->args[0]->kind != ExprKind::Int)
      fail(loc,
           "chained LUT tables are consecutive registers: pass the first as tables[k] of an A.array, with a literal k",
           "tables = A.array(\"float18x64\", size=N); A.dpu.ops.lut(x, tables[0], N)");
    if (t->args[0]->ival + tables > t->buf->shape[0])
      fail(loc, "the chain " + t->buf->name + "[" + std::to_string(t->args[0]->ival) + " .. " +
                    std::to_string(t->args[0]->ival + tables - 1) + "] runs past its size " +
                    std::to_string(t->buf->shape[0]));
  }
  Value v = call("lut", {x.expr(), t}, l);
  std::const_pointer_cast<ExprNode>(v.expr())->ival = tables;  // the chain length (DpuCall's ival)
  return v;
}
Value prelu(const Value& x, const Value& slope, Loc l) { return call("prelu", {x.expr(), slope.expr()}, l); }
Value fma(const Value& a, const Value& b, const Value& c, Loc l) {
  return call("fma", {a.expr(), b.expr(), c.expr()}, l);
}
Value add_reduce(const Value& x, Loc l) { return call("add_reduce", {x.expr()}, l); }
Value max_reduce(const Value& x, Loc l) { return call("max_reduce", {x.expr()}, l); }
Value min_reduce(const Value& x, Loc l) { return call("min_reduce", {x.expr()}, l); }
Value dpu_reduce(const Value& x, const std::string& op, Loc l) {
  if (op == "add" || op == "sum") return add_reduce(x, l);
  if (op == "max") return max_reduce(x, l);
  if (op == "min") return min_reduce(x, l);
  fail(SourceLoc::from(l),
       "A.dpu.ops.dpu_reduce(x, \"" + op + "\"): the DPU reduces across the lanes by add, max or min",
       "A.dpu.ops.dpu_reduce(x, \"add\"), \"max\" or \"min\" (add_reduce / max_reduce / min_reduce)");
}
Value dpu_fma(const Value& a, const Value& b, const Value& c, Loc l) { return fma(a, b, c, l); }
}  // namespace dpu

namespace detail {
void Depthwise(spec::DwpuOp op, int64_t taps, const BufferHandle& weights, int64_t divisor, const Body& body, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  if (ctx(loc).datapaths == 0) fail(loc, "the depthwise stage is a stream unit: write it inside a Datapath");
  auto s = make_stmt(StmtKind::Block, loc);
  s->unit = Unit::Depthwise;
  s->num = static_cast<int>(op);
  s->extent = taps;
  s->start = divisor;
  s->buf = weights.node();
  Opened o(s, Unit::Depthwise, false);
  body();
}
Value dwpu_window(const Value& popped, const Value& group, Loc l) {
  auto e = mk(ExprKind::DpuCall, SourceLoc::from(l));
  e->name = "dwpu";
  e->args = {popped.expr(), group.expr()};
  e->dtype = DType::parse("int32x64");
  return Value(Expr(e));
}
}  // namespace detail

// ---- tile handles, tile views, build-time predicates (guide §10, §11.2, §12) ----------------------
namespace {

// The value of an index expression made of immediates (+ - * // %, comparisons, &&, Min, Max);
// false when it depends on anything known only at device time.
bool const_int(const Expr& e, int64_t& v) {
  if (!e) return false;
  if (e->kind == ExprKind::Int) {
    v = e->ival;
    return true;
  }
  int64_t a = 0, b = 0;
  if (e->args.size() != 2 || !const_int(e->args[0], a) || !const_int(e->args[1], b)) return false;
  switch (e->kind) {
    case ExprKind::Add: v = a + b; return true;
    case ExprKind::Sub: v = a - b; return true;
    case ExprKind::Mul: v = a * b; return true;
    case ExprKind::FloorDiv:
    case ExprKind::Mod: {
      if (b == 0) return false;
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      v = e->kind == ExprKind::FloorDiv ? q : a - q * b;
      return true;
    }
    case ExprKind::Min: v = std::min(a, b); return true;
    case ExprKind::Max: v = std::max(a, b); return true;
    case ExprKind::Lt: v = a < b; return true;
    case ExprKind::Le: v = a <= b; return true;
    case ExprKind::Gt: v = a > b; return true;
    case ExprKind::Ge: v = a >= b; return true;
    case ExprKind::Eq: v = a == b; return true;
    case ExprKind::Ne: v = a != b; return true;
    case ExprKind::And: v = (a != 0) && (b != 0); return true;
    default: return false;
  }
}

// Outside every unit block and datapath (AICore regions aside): where a predicate gates launches.
bool gates_launches(const SourceLoc& loc) {
  const Ctx& c = ctx(loc);
  if (c.datapaths > 0) return false;
  return std::all_of(c.units.begin(), c.units.end(), [](Unit u) { return u == Unit::AICore; });
}

// with A.when(cond): / A.If at the top level: decided at build time (guide §9.3: a loop around two
// or more datapaths is unrolled, so a pipeline step and the predicates derived from it are known
// per step); the branch not taken is not built.
void build_time_branch(const Value& cond, const Body& then_body, const Body& else_body, const SourceLoc& loc) {
  int64_t v = 0;
  if (!const_int(cond.expr(), v))
    fail(loc,
         "A.when / A.If outside a unit block gates launches, and this compiler decides such a predicate at build "
         "time; " +
             (cond.expr() ? dump(cond.expr()) : std::string("the condition")) +
             " is known only at device time (a device loop variable or data)",
         "derive it from build-time values: a tile step's t.is_load / t.is_compute / t.is_store inside "
         "A.tiles(..., drain=N), or a C++ / Python value; a device-time choice belongs in a unit block (the ODR's "
         "store or drop, §8.4)");
  if (v != 0) {
    if (then_body) then_body();
  } else if (else_body) {
    else_body();
  }
}

std::vector<Expr> parent_indices(const BufferHandle& view, const std::vector<Expr>& idx, const SourceLoc& loc) {
  const TileRegion& r = *view.region();
  if (idx.size() != view.shape().size())
    fail(loc, view.name() + " (a tile of " + r.parent.name() + ") has " + std::to_string(view.shape().size()) +
                  " dimensions but is indexed with " + std::to_string(idx.size()));
  std::vector<Expr> out;
  std::size_t j = 0;
  for (std::size_t d = 0; d < r.origin.size(); ++d) {
    const int64_t o = r.origin[d];
    if (!r.kept[d]) {
      out.push_back(make_int(o, loc));
      continue;
    }
    const Expr& e = idx[j++];
    if (o == 0) {
      out.push_back(e);
    } else if (e->kind == ExprKind::Ramp) {  // a slice: its base moves
      auto m = std::make_shared<ExprNode>(*e);
      m->args = {make_binary(ExprKind::Add, e->args[0], make_int(o, loc), e->loc), e->args[1], e->args[2]};
      out.push_back(m);
    } else {
      out.push_back(make_binary(ExprKind::Add, e, make_int(o, loc), e->loc));
    }
  }
  return out;
}

// The view of `self`'s elements first[d] .. first[d] + count[d] - 1 per dimension, keeping the
// dimensions `keep` says (a dropped one has count 1). Views of views compose onto the parent.
BufferHandle make_view(const BufferHandle& self, const std::vector<int64_t>& first, const std::vector<int64_t>& count,
                       const std::vector<bool>& keep, const SourceLoc& loc) {
  const BufferNode& me = *self.node();
  if (me.role == BufferRole::Register || me.role == BufferRole::Accumulator)
    fail(loc, me.name + " is a register: a tile is a region of a buffer in memory");
  for (std::size_t d = 0; d < first.size(); ++d)
    if (first[d] < 0 || count[d] < 1 || first[d] + count[d] > me.shape[d])
      fail(loc,
           "a tile of " + me.name + " covers elements " + std::to_string(first[d]) + " .. " +
               std::to_string(first[d] + count[d] - 1) + " of dimension " + std::to_string(d) + ", which has " +
               std::to_string(me.shape[d]),
           "a tile inside the buffer (a tile handle's base .. base + lanes - 1)");
  TileRegion r;
  if (const TileRegion* outer = self.region()) {
    r.parent = outer->parent;
    r.origin = outer->origin;
    r.kept = outer->kept;
    std::size_t j = 0;
    for (std::size_t d = 0; d < r.origin.size(); ++d) {
      if (!r.kept[d]) continue;
      r.origin[d] += first[j];
      r.kept[d] = keep[j];
      ++j;
    }
  } else {
    r.parent = self;
    r.origin = first;
    r.kept = keep;
  }
  const BufferNode& p = *r.parent.node();
  if (p.scope != Scope::IMC && !p.logical_shape.empty()) {
    std::vector<int64_t> natural = p.shape.empty() ? std::vector<int64_t>{1} : p.shape;
    natural.back() *= p.dtype.lanes;
    if (p.logical_shape != natural)
      fail(loc,
           p.name + " has a model operand's layout (its packed axis is not its last): this compiler has no tiles of it",
           "copy it into a buffer of the program's layout first");
  }
  // Per parent dimension: how many elements the view covers (1 for a dropped one).
  std::vector<int64_t> counts(r.origin.size(), 1);
  if (const TileRegion* outer = self.region()) {
    std::size_t j = 0;
    for (std::size_t d = 0; d < counts.size(); ++d)
      if (outer->kept[d]) counts[d] = count[j++];
  } else {
    counts = count;
  }
  std::vector<int64_t> shape;
  for (std::size_t d = 0; d < counts.size(); ++d)
    if (r.kept[d]) shape.push_back(counts[d]);
  Ctx& c = ctx(loc);
  Buffer& v = c.views[std::make_tuple(r.parent.node().get(), r.origin, r.kept, shape)];
  if (!v) {
    v = std::make_shared<BufferNode>(p);
    v->name = fresh(*c.func, p.name + ".tile");
    v->shape = shape;
    v->alias_of = r.parent.node();
    v->output = false;
    v->logical_shape.clear();
    v->packed_axis = -1;
    v->loc = loc;
    v->data.clear();
    const std::vector<double>* data = nullptr;  // a constant's values (a reshape shares its root's)
    for (const BufferNode* b = &p; b && !data; b = b->alias_of.get())
      if (!b->data.empty()) data = &b->data;
    if (data) {  // the region's values, C order over the view's shape x lanes
      const auto lanes = static_cast<int64_t>(p.dtype.lanes);
      for (int64_t i = 0; i < v->elements(); ++i) {
        int64_t rem = i, flat = 0, stride = 1;
        for (std::size_t d = counts.size(); d-- > 0;) {
          flat += (r.origin[d] + rem % counts[d]) * stride;
          rem /= counts[d];
          stride *= p.shape[d];
        }
        v->data.insert(v->data.end(), data->begin() + flat * lanes, data->begin() + (flat + 1) * lanes);
      }
    }
  }
  return BufferHandle(v, std::make_shared<const TileRegion>(std::move(r)));
}

int64_t build_time_int(const Expr& e, const SourceLoc& loc, const std::string& what) {
  int64_t v = 0;
  if (!const_int(e, v))
    fail(loc, what + " must be a build-time integer, not " + (e ? dump(e) : std::string("nothing")),
         "a tile handle's base / lanes, or a value computed from them");
  return v;
}

BufferHandle tile_along(const BufferHandle& self, int64_t base, int64_t lanes, int dim, const SourceLoc& loc) {
  const auto rank = static_cast<int>(self.shape().size());
  if (dim < -rank || dim >= rank)
    fail(loc, self.name() + ".tile(..., dim=" + std::to_string(dim) + "): the buffer has " + std::to_string(rank) +
                  " dimensions");
  const auto d = static_cast<std::size_t>(dim < 0 ? dim + rank : dim);
  std::vector<int64_t> first(self.shape().size(), 0), count = self.shape();
  first[d] = base;
  count[d] = lanes;
  return make_view(self, first, count, std::vector<bool>(self.shape().size(), true), loc);
}
}  // namespace

BufferHandle BufferHandle::tile(const Tile& t, int dim, Loc l) const {
  return tile_along(*this, t.base, t.lanes, dim, SourceLoc::from(l));
}

BufferHandle BufferHandle::tile(const Value& ramp, int dim, Loc l) const {
  const SourceLoc loc = SourceLoc::from(l);
  const Expr& e = ramp.expr();
  if (!e || e->kind != ExprKind::Ramp)
    fail(loc, name() + ".tile(...) takes a tile handle or an A.Ramp(base, 1, lanes), not " + (e ? dump(e) : "nothing"),
         "with A.tiles(extent) as t: ... buf.tile(t, dim=0)");
  if (build_time_int(e->args[1], loc, "the A.Ramp's stride") != 1)
    fail(loc, "a tile is a contiguous run: the A.Ramp's stride must be 1, not " + dump(e->args[1]));
  return tile_along(*this, build_time_int(e->args[0], loc, "the A.Ramp's base"),
                    build_time_int(e->args[2], loc, "the A.Ramp's lanes"), dim, loc);
}

BufferHandle BufferHandle::operator[](Ix k) const {
  if (shape().size() < 2)
    fail(k.loc, name() + "[k] of a one-dimensional buffer is one element, not a buffer",
         "index it inside a unit block (" + name() + "(k)), or give the buffer a leading slot dimension");
  const int64_t i = build_time_int(k.v.expr(), k.loc, name() + "[k]'s index");
  std::vector<int64_t> first(shape().size(), 0), count = shape();
  first[0] = i;
  count[0] = 1;
  std::vector<bool> keep(shape().size(), true);
  keep[0] = false;
  return make_view(*this, first, count, keep, k.loc);
}

Tile Tile::stage(int64_t k) const {
  Tile t = *this;
  t.index = step - std::min(std::max<int64_t>(k, 0), drain);
  t.active = t.index >= 0 && t.index < num_tiles;
  if (num_tiles > 0) t.index = std::clamp<int64_t>(t.index, 0, num_tiles - 1);
  t.base = t.index * size;
  t.lanes = std::min(size, extent - t.base);
  return t;
}

Tile::operator Value() const { return Ramp(Value(base), 1, lanes); }

void tiles(int64_t extent, TileBounds b, const std::function<void(const Tile&)>& body, Loc l) {
  const SourceLoc loc = SourceLoc::from(l);
  if (ctx(loc).datapaths > 0)
    fail(loc, "A.tiles inside a datapath: a loop in a datapath is its units' streaming loop and is never tiled (§11.1)",
         "write the tile loop around the datapaths and operator calls");
  if (extent < 0) fail(loc, "A.tiles over a negative extent " + std::to_string(extent));
  if (b.tile_min < 0 || b.tile_max < 0 || b.num_tiles < 0 || b.drain < 0)
    fail(loc, "A.tiles bounds must be >= 0 (0 leaves a bound to the compiler)");
  if (b.tile_max && b.tile_min > b.tile_max)
    fail(loc, "A.tiles: tile_min=" + std::to_string(b.tile_min) + " exceeds tile_max=" + std::to_string(b.tile_max));
  if (extent == 0) return;
  int64_t size = 0;
  if (b.num_tiles) {
    size = (extent + b.num_tiles - 1) / b.num_tiles;
    if ((extent + size - 1) / size != b.num_tiles)
      fail(loc, "A.tiles: num_tiles=" + std::to_string(b.num_tiles) + " cannot split " + std::to_string(extent) +
                    " into that many non-empty tiles (tiles of " + std::to_string(size) + " make " +
                    std::to_string((extent + size - 1) / size) + ")");
    if ((b.tile_min && size < b.tile_min) || (b.tile_max && size > b.tile_max))
      fail(loc, "A.tiles: num_tiles=" + std::to_string(b.num_tiles) + " gives tiles of " + std::to_string(size) +
                    ", outside tile_min=" + std::to_string(b.tile_min) + " / tile_max=" + std::to_string(b.tile_max));
  } else if (b.tile_max) {
    size = std::min(b.tile_max, extent);
  } else {
    if (b.tile_min > extent)
      fail(loc, "A.tiles: tile_min=" + std::to_string(b.tile_min) + " exceeds the extent " + std::to_string(extent));
    size = std::max<int64_t>(b.tile_min, 1);
  }
  Tile t;
  t.size = size;
  t.extent = extent;
  t.num_tiles = (extent + size - 1) / size;
  t.drain = b.drain;
  for (int64_t step = 0; step < t.num_tiles + b.drain; ++step) {
    t.step = step;
    body(t.stage(0));
  }
}

}  // namespace axcore::compiler::A
