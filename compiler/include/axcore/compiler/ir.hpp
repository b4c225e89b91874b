// The compiler's IR: a module of prim_funcs whose bodies are statement trees over buffers,
// streams, loop variables and expressions — the guide's A-namespace constructs as data
// (guide §3). Nodes are immutable once built except Stmt bodies, which the builder appends to
// and passes rewrite into new trees. Every node carries the SourceLoc it was written at.
#pragma once

#include <axcore/spec.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "axcore/compiler/diag.hpp"

namespace axcore::compiler {

// "<base>x<lanes>": int8x64, int32x64, float16x64, float32x64, float18x64, int8x4096 (an IMC
// tile), and "int32" for index values.
struct DType {
  enum class Base : uint8_t { Int8, Int32, Float16, Float32, Float18, Index };
  Base base = Base::Index;
  uint32_t lanes = 1;
  static DType parse(const std::string& s, const SourceLoc& loc = {});
  static DType index() { return {}; }
  std::string str() const;
  bool is_index() const { return base == Base::Index; }
  bool is_float() const { return base == Base::Float16 || base == Base::Float32 || base == Base::Float18; }
  spec::Dtype spec() const;  // throws for Index / non-PWORD lanes
  uint32_t rows() const;     // L1 rows of one element (int8 1, float16 2, int32/float32 4)
  uint32_t bytes() const;    // bytes of one element
  bool operator==(const DType&) const = default;
};

enum class Scope : uint8_t { DDR, L2, L1, DDR_WEAK, L2_WEAK, L1_WEAK, IMC, DPU_REGISTERS, MVM_ACCUMULATOR };
std::string to_string(Scope s);
std::optional<Scope> parse_scope(const std::string& s);
bool is_weak(Scope s);

enum class BufferRole : uint8_t { Input, Output, Local, Constant, Register, Accumulator, Imc };

struct BufferNode;
using Buffer = std::shared_ptr<BufferNode>;
struct BufferNode {
  std::string name;
  std::vector<int64_t> shape;  // PWORD-packed: the lanes live in the dtype
  DType dtype;
  Scope scope = Scope::DDR;
  BufferRole role = BufferRole::Local;
  bool is_var = false;       // A.var (registers): accessed without an index
  int core = -1;             // A.alloc_imc(core=) / A.AICore
  std::vector<double> data;  // Constant: the values, C order over shape x lanes
  Buffer alias_of;           // a reshaped view of another buffer (same storage)
  // An IMC buffer the operator library filled (atomic.load_imc): the weight it holds, which
  // atomic.matmul's reference reads. Null for every other buffer and for a hand-written A.alloc_imc.
  Buffer imc_source;
  // Model-level metadata for emission: the logical shape and the packed axis of an I/O buffer.
  std::vector<int64_t> logical_shape;
  int32_t packed_axis = -1;  // the logical axis its lanes pack (an NCHW model's C: 1); set with logical_shape
  bool output = false;       // named by A.output
  SourceLoc loc;
  int64_t elements() const;
  const BufferNode* root() const { return alias_of ? alias_of->root() : this; }
};

// Where a buffer's data lives between the launches that touch it (guide §5.1; units reach L1
// only, so a buffer homed in DDR or L2 is copied into L1 around the launches that touch it):
// DDR — an input, a constant, an output, a DDR / DDR_WEAK scratch; L2 — an L2 / L2_WEAK scratch
// (the mem tile's SRAM); L1 — every other buffer a unit touches, which has no copy elsewhere.
enum class Home : uint8_t { L1, L2, DDR };
Home home_of(const BufferNode& b);

struct StreamNode {
  std::string name;
  DType dtype;
  std::string scope;  // "" = inferred from the unit that pushes it
  SourceLoc loc;
};
using Stream = std::shared_ptr<StreamNode>;

struct VarNode {
  std::string name;
};
using Var = std::shared_ptr<VarNode>;

enum class ExprKind : uint8_t {
  Int,
  Float,
  VarRef,  // immediates and loop variables
  Add,
  Sub,
  Mul,
  FloorDiv,
  Mod,
  Min,
  Max,  // arithmetic (index or vector)
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  And,         // predicates (index)
  Load,        // buf[indices]; an index may be a Ramp (a slice)
  Ramp,        // base, step(int), lanes(int)
  Pop,         // stream.pop()
  Cast,        // A.cast(value, dtype)
  Broadcast,   // A.Broadcast(scalar, lanes)
  IfThenElse,  // A.if_then_else(cond, a, b)
  RegRead,     // reg[i] / var
  Mvm,         // A.mvm_1x1(x, imc[kb, nb])
  DpuCall,     // A.dpu.ops.<name>(args...)
  Vtrsp,       // A.vtrsp(value): the DWPU ODR's lane transpose of its store value (guide §8.4)
};

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;
struct ExprNode {
  ExprKind kind = ExprKind::Int;
  int64_t ival = 0;
  double fval = 0;
  std::string name;  // Cast: dtype; DpuCall: op; Float: dtype
  DType dtype;       // result type
  Buffer buf;        // Load, RegRead, Mvm (the IMC)
  Stream stream;     // Pop
  Var var;           // Var
  std::vector<Expr> args;
  SourceLoc loc;
};

Expr make_int(int64_t v, SourceLoc loc = {});
Expr make_var(const Var& v, SourceLoc loc = {});
Expr make_binary(ExprKind k, Expr a, Expr b, SourceLoc loc = {});
bool is_arith(ExprKind k);
bool is_compare(ExprKind k);

enum class LoopKind : uint8_t { Serial, Grid, Unroll };
// A.tiles(extent, tile_min=, tile_max=, num_tiles=, drain=) on a device loop (guide §11.2, §12):
// the tiling pass splits the loop into tiles within these bounds (0 = unbounded / not given).
struct TileBounds {
  int64_t tile_min = 0, tile_max = 0, num_tiles = 0, drain = 0;
  bool operator==(const TileBounds&) const = default;
};
// Depthwise is the operator library's DWPU block (the guide has no A.pseudo block for it yet, §6.3):
// num = spec::DwpuOp, extent = taps, start = AVERAGE divisor, buf = the weights in L1.
enum class Unit : uint8_t { IFD, MatMul, DPU, ODR, LoadIMC, Init, CoreDMA, SysDMA, AICore, Depthwise };
std::string to_string(Unit u);
enum class DpKind : uint8_t { MVMEXE, DWPU };

enum class StmtKind : uint8_t {
  Seq,
  For,
  Datapath,
  Block,
  Push,     // stream.push(value)
  Store,    // buf[indices] = value (buffers and registers)
  Drop,     // A.drop(stream.pop())
  If,       // A.If / Then / Else (body = then, else_body)
  Reset,    // A.reset_accumulator(acc)
  Accum,    // acc += A.mvm_1x1(...)
  Sync,     // A.sync(waits, signals)
  Barrier,  // A.barrier(cores)
  DeclStream,
  DeclReg,
  OpMarker,  // a boundary between operators (name, for traces and the graph)
  Where,     // A.where(value): the block predicate of the Datapath / CoreDMA / SysDMA holding it (§10)
  Bypass,    // A.bypass(): the stream unit block holding it is bypassed (§6.4), as if omitted
};

struct StmtNode;
using Stmt = std::shared_ptr<StmtNode>;
struct StmtNode {
  StmtKind kind = StmtKind::Seq;
  std::vector<Stmt> body, else_body;
  // For
  Var var;
  int64_t start = 0, extent = 0;
  LoopKind loop = LoopKind::Serial;
  std::optional<TileBounds> tiles;  // written as A.tiles(...): a directive for the tiling pass
  // Datapath / Block
  std::optional<DpKind> dp_kind;
  int core = -1;
  std::string id;
  bool id_generated = false;  // the id is a pass's (tile-l1 pipelining), not the author's
  int fuse_scope = -1;        // Datapath: the innermost A.fuse / A.prevent_fuse around it (PrimFunc::fuse_scopes)
  Unit unit = Unit::IFD;
  int num = 0;  // IFD num
  // Push / Store / Drop / If
  Stream stream;
  Buffer buf;
  std::vector<Expr> indices;
  Expr value;  // Push/Store value, If condition, Accum rhs
  // Sync
  std::vector<std::string> waits, signals;
  std::vector<Buffer> guards;  // A.sync(buffers=): the buffers the sync guards (§12)
  std::vector<int> cores;
  SourceLoc loc;
};

Stmt make_stmt(StmtKind k, SourceLoc loc = {});
// A unit block holding A.bypass() (§6.4), directly or in the loops a pass sank into it.
bool is_bypassed(const StmtNode& block);

struct PrimFunc {
  std::string name;
  std::vector<Buffer> params;   // A.input order
  std::vector<Buffer> buffers;  // every buffer allocated in the body (constants, locals, IMC)
  std::vector<Stream> streams;
  std::vector<Buffer> outputs;  // A.output order
  Stmt body = make_stmt(StmtKind::Seq);
  // The operator graph the ref backend runs, filled by the operator library.
  struct GraphNode {
    std::string op;
    std::vector<std::string> inputs, outputs;
    std::map<std::string, std::vector<double>> num_attrs;
    std::map<std::string, std::string> str_attrs;
  };
  std::vector<GraphNode> graph;
  // `with A.fuse(...)` / `with A.prevent_fuse()` (guide §12), in the order written; a datapath built
  // inside one names the innermost in StmtNode::fuse_scope. The fusion pass (passes/fuse.cpp) reads them.
  struct FuseScope {
    bool prevent = false;                // A.prevent_fuse(): nothing inside is fused
    bool strict = true;                  // A.fuse: refuse the program if the group stays apart
    bool reg_pressure_heuristic = true;  // false: fuse past the DPU register / instruction check
    bool loop_legalization = false;      // accepted; this pass matches flat addresses (no loop rewrite)
    SourceLoc loc;
  };
  std::vector<FuseScope> fuse_scopes;
  // What the fusion pass fused and why it left other producer/consumer pairs apart (axc explain).
  std::vector<std::string> fusion_notes;
  // How the operator library cut a call (column chunks in pieces, row bands) and why (axc explain);
  // like the fusion notes, not part of the IR text.
  std::vector<std::string> operator_notes;
  // The number the operator library gives the next buffer it generates in this function
  // (`y_epi0`, ...): a function's generated names depend on nothing built before it.
  uint64_t generated_names = 0;
  // Where the place-scopes pass put each scratch buffer and why (`axc compile --explain`).
  std::vector<std::string> placement_notes;
  SourceLoc loc;
};

struct Module {
  std::string name;
  std::vector<std::shared_ptr<PrimFunc>> funcs;
  PrimFunc& main() const;
};

}  // namespace axcore::compiler
