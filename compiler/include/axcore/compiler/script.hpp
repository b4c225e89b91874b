// The builder: the guide's A namespace in C++ (guide §3), so that a reader of the guide can write
// a kernel without a second manual. The mapping is mechanical:
//
//   Python (guide)                          C++ (this header)
//   for i in A.grid(8):                     for (auto [i] : A::grid(8)) { ... }     device loop
//   for i, j in A.grid(H, W):               for (auto [i, j] : A::grid(H, W)) { ... }
//   for k in A.serial(K):                   for (auto k : A::serial(K)) { ... }
//   for c in range(cores):  (build time)    for (int c = 0; c < cores; ++c) { ... } build-time unroll
//   with A.Datapath(id="mm"):               A::Datapath({.id = "mm"}, [&] { ... });
//   with A.IFD(num=0): s.push(inp[i, 0])    A::IFD(0, [&] { s.push(inp(i, 0)); });
//   with A.pseudo.MatMul(): ...             A::MatMul([&] { ... });
//   with A.DPU(): ... / with A.init(): ...  A::DPU([&] { ... A::init([&] { ... }); });
//   with A.ODR(): out[i, 0] = s.pop()       A::ODR([&] { out(i, 0) = s.pop(); });
//   with A.If(c): with A.Then(): ... Else   A::If(c, [&] { ... }, [&] { ... });
//   w_imc[kb, nb] = w[kb*64 : kb*64+64, nb] A::LoadIMC([&] { w_imc(kb, nb) = w(A::slice(kb * 64, kb * 64 + 64), nb);
//   }); acc += A.mvm_1x1(x, w_imc[kb, nb])      acc += A::mvm_1x1(x, w_imc(kb, nb)); x = A.var("float18x64") auto x =
//   A::var("float18x64", "x");  x = ...;
//
// As in the guide, C++ code around the builder runs at build time; a C++ helper that returns a
// Value is the guide's build-time helper (§4.1): only the expression it returns enters the IR.
// Every construct records the caller's std::source_location; contract errors point there.
#pragma once

#include <array>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "axcore/compiler/ir.hpp"

namespace axcore::compiler::A {

using Loc = source_location;  // std::source_location (source_location.hpp)
using Body = std::function<void()>;

inline constexpr Scope DDR = Scope::DDR, L2 = Scope::L2, L1 = Scope::L1, DDR_WEAK = Scope::DDR_WEAK,
                       L2_WEAK = Scope::L2_WEAK, L1_WEAK = Scope::L1_WEAK, IMC = Scope::IMC,
                       DPU_REGISTERS = Scope::DPU_REGISTERS, MVM_ACCUMULATOR = Scope::MVM_ACCUMULATOR;
inline constexpr DpKind DP_MVMEXE = DpKind::MVMEXE, DP_DWPU = DpKind::DWPU;

// An expression (index arithmetic, a loaded value, a DPU computation).
class Value {
 public:
  Value() = default;
  Value(Expr e) : e_(std::move(e)) {}    // NOLINT(google-explicit-constructor)
  Value(int v, Loc l = Loc::current());  // NOLINT: integer immediates read naturally
  Value(int64_t v, Loc l = Loc::current());
  const Expr& expr() const { return e_; }
  explicit operator bool() const { return e_ != nullptr; }

 private:
  Expr e_;
};
Value operator+(const Value& a, const Value& b);
Value operator-(const Value& a, const Value& b);
Value operator*(const Value& a, const Value& b);
Value operator/(const Value& a, const Value& b);  // floor division (index)
Value operator%(const Value& a, const Value& b);
Value operator-(const Value& a);
Value operator<(const Value& a, const Value& b);
Value operator<=(const Value& a, const Value& b);
Value operator>(const Value& a, const Value& b);
Value operator>=(const Value& a, const Value& b);
Value operator==(const Value& a, const Value& b);
Value operator&&(const Value& a, const Value& b);

// An index: a Value or a slice (A::slice / A::Ramp). Records where it was written.
struct Ix {
  Ix() = default;
  Ix(Value v, Loc l = Loc::current());    // NOLINT
  Ix(int v, Loc l = Loc::current());      // NOLINT
  Ix(int64_t v, Loc l = Loc::current());  // NOLINT
  Value v;
  SourceLoc loc;
  bool present = false;
};

class BufferHandle;
// buf(i, j): reads as a Value, assigning stores (an ODR store, a LoadIMC store, a DMA copy).
class Element {
 public:
  Element(Buffer b, std::vector<Expr> idx, SourceLoc loc)
      : b_(std::move(b)), idx_(std::move(idx)), loc_(std::move(loc)) {}
  operator Value() const;  // NOLINT
  Value value() const { return Value(*this); }
  void operator=(const Value& v);                          // NOLINT(misc-unconventional-assign-operator)
  void operator=(const Element& e) { *this = e.value(); }  // NOLINT(bugprone-unhandled-self-assignment): an IR store

 private:
  Buffer b_;
  std::vector<Expr> idx_;
  SourceLoc loc_;
};

struct Tile;
struct TileRegion;
class BufferHandle {
 public:
  BufferHandle() = default;
  explicit BufferHandle(Buffer b) : b_(std::move(b)) {}
  BufferHandle(Buffer view, std::shared_ptr<const TileRegion> region)
      : b_(std::move(view)), region_(std::move(region)) {}
  Element operator()(Ix i0, Ix i1 = {}, Ix i2 = {}, Ix i3 = {}, Ix i4 = {}, Ix i5 = {}) const;
  Element at(const std::vector<Value>& idx, Loc l = Loc::current()) const;
  // buf.tile(handle, dim=N) (guide §11.2): the part of this buffer a tile handle covers along
  // dimension `dim` (elements base .. base + lanes - 1), chainable (buf.tile(m, 0).tile(n, 1)).
  // The handle may also be a stride-1 A::Ramp whose base and lanes are build-time integers (the
  // guide's A.Ramp(k_tile.base * 64, 1, k_tile.lanes * 64)). A view: no copy; indexing it
  // indexes this buffer, and an operator given it reads or writes that region only.
  BufferHandle tile(const Tile& t, int dim, Loc l = Loc::current()) const;
  BufferHandle tile(const Value& ramp, int dim, Loc l = Loc::current()) const;
  // buf[k] (guide §12, a pipelined buffer's leading slot dimension indexed by step): the view of
  // index k of the first dimension, that dimension dropped. k is a build-time integer.
  BufferHandle operator[](Ix k) const;
  // The region a tile view covers in its parent (nullptr for a whole buffer or a reshape).
  const TileRegion* region() const { return region_.get(); }
  const std::vector<int64_t>& shape() const { return b_->shape; }
  std::string dtype() const { return b_->dtype.str(); }
  Scope scope() const { return b_->scope; }
  const std::string& name() const { return b_->name; }
  // A view with another shape over the same storage (element count must match).
  BufferHandle reshape(std::vector<int64_t> shape, Loc l = Loc::current()) const;
  const Buffer& node() const { return b_; }
  explicit operator bool() const { return b_ != nullptr; }

 private:
  Buffer b_;
  std::shared_ptr<const TileRegion> region_;  // set for a tile view (tile(), operator[])
};

// A tile view's place in its parent (never itself a tile view: views of views compose): per
// dimension of the parent, the first index and whether the view keeps that dimension.
struct TileRegion {
  BufferHandle parent;
  std::vector<int64_t> origin;
  std::vector<bool> kept;
};

// A DPU register file (A.array) or single register (A.var).
class Reg {
 public:
  Reg() = default;
  explicit Reg(Buffer b) : b_(std::move(b)) {}
  // A.var: read and write without an index.
  operator Value() const;                             // NOLINT
  void operator=(const Value& v);                     // NOLINT(misc-unconventional-assign-operator)
  void operator=(const Reg& r) { *this = Value(r); }  // NOLINT(bugprone-unhandled-self-assignment): an IR store
  // A.array: reg[i].
  Element operator[](Ix i) const;
  const Buffer& node() const { return b_; }

 private:
  Buffer b_;
};

// The MVM accumulator register (A.mvm_accumulator()).
class Acc {
 public:
  Acc() = default;
  explicit Acc(Buffer b) : b_(std::move(b)) {}
  void operator+=(const Value& mvm);
  Element operator[](Ix i) const;  // refused: the accumulator takes no index
  const Buffer& node() const { return b_; }

 private:
  Buffer b_;
};

class StreamHandle {
 public:
  StreamHandle() = default;
  explicit StreamHandle(Stream s) : s_(std::move(s)) {}
  void push(const Value& v, Loc l = Loc::current()) const;
  void push(const Acc& acc, Loc l = Loc::current()) const;
  Value pop(Loc l = Loc::current()) const;
  const Stream& node() const { return s_; }

 private:
  Stream s_;
};

// ---- functions and scripts ------------------------------------------------------------------
class Module;
// A prim_func under construction. Use Script to make it the current function.
class Func {
 public:
  explicit Func(std::shared_ptr<PrimFunc> f) : f_(std::move(f)) {}
  BufferHandle input(const std::string& name, std::vector<int64_t> shape, const std::string& dtype,
                     Scope scope = Scope::DDR, Loc l = Loc::current());
  PrimFunc& ir() const { return *f_; }
  const std::shared_ptr<PrimFunc>& ptr() const { return f_; }

 private:
  std::shared_ptr<PrimFunc> f_;
};

class Module {
 public:
  explicit Module(std::string name) : m_(std::make_shared<compiler::Module>()) { m_->name = std::move(name); }
  Func prim_func(const std::string& name = "main", Loc l = Loc::current());
  const compiler::Module& ir() const { return *m_; }
  std::shared_ptr<compiler::Module> ptr() const { return m_; }

 private:
  std::shared_ptr<compiler::Module> m_;
};

// with A.script(): statements built while a Script is alive go into `f`'s body (or, nested,
// wherever the enclosing construct is). Scripts nest; the innermost wins.
class Script {
 public:
  explicit Script(Func& f);
  ~Script();
  Script(const Script&) = delete;
  Script& operator=(const Script&) = delete;
};

// The function being built (throws outside a Script).
PrimFunc& current_func();

// ---- buffers, streams, registers --------------------------------------------------------------
BufferHandle alloc_buffer(std::vector<int64_t> shape, const std::string& dtype, Scope scope = Scope::L1_WEAK,
                          const std::string& name = "", Loc l = Loc::current());
// Values in C order over shape x lanes; a single PWORD's 64 values for shape (1,).
BufferHandle alloc_constant(std::vector<double> values, const std::string& dtype, Scope scope = Scope::DDR,
                            std::vector<int64_t> shape = {}, const std::string& name = "", Loc l = Loc::current());
BufferHandle alloc_imc(std::vector<int64_t> tiles, const std::string& dtype = "int8x4096", int core = -1,
                       const std::string& name = "", Loc l = Loc::current());
Acc mvm_accumulator(Loc l = Loc::current());
void reset_accumulator(const Acc& acc, Loc l = Loc::current());
Reg var(const std::string& dtype, const std::string& name = "", Loc l = Loc::current());
Reg array(const std::string& dtype, int64_t size, const std::string& name = "", Loc l = Loc::current());
// scope: "" (inferred from the unit that pushes it, §6.1) or a pin, one of IFD_0_STREAM,
// IFD_1_STREAM, MVM_STREAM, DPU_STREAM (the stream of that feeder / unit's output; a push from
// another unit is refused at the push). ODR_STREAM names an ODR's output stream, which a datapath
// here does not have (the ODR stores to memory): refused, as is any other scope.
StreamHandle decl_stream(const std::string& dtype, const std::string& scope = "", const std::string& name = "",
                         Loc l = Loc::current());
void output(const BufferHandle& b, Loc l = Loc::current());

// ---- loops ------------------------------------------------------------------------------------
// A device loop nest. Iterating it once opens the loops; the body is what runs at device time.
// Scalar: the loop variable is delivered as a Value (A::serial); otherwise as an array for
// structured bindings (A::grid, like the guide's always-tuple form).
template <std::size_t N, bool Scalar = false>
class Loops {
 public:
  using Vars = std::conditional_t<Scalar, Value, std::array<Value, N>>;
  Loops(LoopKind kind, std::array<int64_t, N> starts, std::array<int64_t, N> extents, SourceLoc loc,
        std::optional<TileBounds> tiles = std::nullopt)
      : kind_(kind), starts_(starts), extents_(extents), loc_(std::move(loc)), tiles_(tiles) {}
  struct Sentinel {};
  class It {
   public:
    explicit It(Loops* l) : l_(l) {}
    Vars operator*() const { return l_->vars(); }
    It& operator++() {
      l_->close();
      return *this;
    }
    bool operator!=(Sentinel) const { return l_->open_; }

   private:
    Loops* l_;
  };
  It begin() {
    open();
    return It(this);
  }
  Sentinel end() { return {}; }

 private:
  void open();
  void close();
  Vars vars() const {
    if constexpr (Scalar)
      return vars_[0];
    else
      return vars_;
  }
  LoopKind kind_;
  std::array<int64_t, N> starts_, extents_;
  SourceLoc loc_;
  std::optional<TileBounds> tiles_;
  std::array<Value, N> vars_{};
  bool open_ = false;
};

namespace detail {
// The DWPU stage, for the operator library (the guide has no A.pseudo block for depthwise yet,
// §6.3): inside, a loop nest over the outputs whose innermost statement is
// out_stream.push(A::detail::dwpu_window(in_stream.pop(), group)), `taps` pops per output.
void Depthwise(spec::DwpuOp op, int64_t taps, const BufferHandle& weights, int64_t divisor, const Body& body,
               Loc l = Loc::current());
Value dwpu_window(const Value& popped, const Value& weight_group, Loc l = Loc::current());
Value open_loop(LoopKind kind, int64_t start, int64_t extent, const SourceLoc& loc,
                const std::optional<TileBounds>& tiles = std::nullopt);
void close_loop();
}  // namespace detail

template <std::size_t N, bool Scalar>
void Loops<N, Scalar>::open() {
  for (std::size_t k = 0; k < N; ++k)
    vars_[k] = detail::open_loop(kind_, starts_[k], extents_[k], loc_, k == 0 ? tiles_ : std::nullopt);
  open_ = true;
}
template <std::size_t N, bool Scalar>
void Loops<N, Scalar>::close() {
  for (std::size_t k = 0; k < N; ++k) detail::close_loop();
  open_ = false;
}

Loops<1, true> serial(int64_t extent, Loc l = Loc::current());
Loops<1, true> serial(int64_t start, int64_t stop, Loc l = Loc::current());
Loops<1, true> unroll(int64_t extent, Loc l = Loc::current());
Loops<1, true> unroll(int64_t start, int64_t stop, Loc l = Loc::current());
Loops<1> grid(int64_t a, Loc l = Loc::current());
Loops<2> grid(int64_t a, int64_t b, Loc l = Loc::current());
Loops<3> grid(int64_t a, int64_t b, int64_t c, Loc l = Loc::current());
Loops<4> grid(int64_t a, int64_t b, int64_t c, int64_t d, Loc l = Loc::current());
// with A.tiles(extent, tile_min=, tile_max=, num_tiles=, drain=): a device loop over 0..extent-1
// that the tiling pass splits into tiles within the bounds (§11.2) and, with drain=, pipelines
// (§12). The loop variable is the element index; the pass derives each tile's DMA regions.
Loops<1, true> tiles(int64_t extent, TileBounds bounds = {}, Loc l = Loc::current());
// with A.tiles(extent, ...) as t: (guide §11.2, §12) around operator calls, nested tile loops or
// several datapaths: a loop of tile steps the builder unrolls (guide §9.3: a loop around two or
// more datapaths is unrolled), calling `body` once per step with the step's tile handle. The tile
// factor: num_tiles= gives ceil(extent / num_tiles), else tile_max= (at most the extent), else
// tile_min= (at least 1): the largest tile the bounds allow, one element of the extent per tile
// when none is given. drain=N runs num_tiles + N steps (software pipelining, §12): the handle's
// stage(k) is the tile stage k works on in that step and whether it has one; the predicates
// is_load / is_compute / is_store are known per step at build time, for where= and A::when.
void tiles(int64_t extent, TileBounds bounds, const std::function<void(const Tile&)>& body, Loc l = Loc::current());
// A.grid(*shape, always_tuple=True): a nest of any depth; `body` gets the loop variables.
void grid_nest(const std::vector<int64_t>& extents, const std::function<void(const std::vector<Value>&)>& body,
               Loc l = Loc::current());

// ---- datapaths and blocks ---------------------------------------------------------------------
struct DatapathArgs {
  std::optional<DpKind> kind;
  int core = -1;
  std::string id;
};
void Datapath(const Body& body, Loc l = Loc::current());
void Datapath(const DatapathArgs& args, const Body& body, Loc l = Loc::current());
void Datapath(DpKind kind, const Body& body, Loc l = Loc::current());
void Datapath(const std::string& id, const Body& body, Loc l = Loc::current());
// A.IFD(num=0 | 1): num given, the block is that feeder. A.IFD() without num is the main feeder
// (num=0) unless the stream it pushes is pinned to IFD_1_STREAM (§6.1: the pin binds the stream,
// and so the block, to that feeder).
void IFD(int num, const Body& body, Loc l = Loc::current());
void IFD(const Body& body, Loc l = Loc::current());
void MatMul(const Body& body, Loc l = Loc::current());  // A.pseudo.MatMul
void DPU(const Body& body, Loc l = Loc::current());
void init(const Body& body, Loc l = Loc::current());
void ODR(const Body& body, Loc l = Loc::current());
void LoadIMC(const Body& body, Loc l = Loc::current());  // A.pseudo.LoadIMC
void CoreDMA(const Body& body, int core = -1, const std::string& id = "", Loc l = Loc::current());
void SysDMA(const Body& body, const std::string& id = "", Loc l = Loc::current());
void AICore(int core, const Body& body, Loc l = Loc::current());
// with A.fuse(unsafe=False, strict=True, disable_dpu_reg_pressure_heuristic=False,
//             enable_loop_legalization=False): (guide §12) the datapaths built in `body` (written or
// made by operator calls) must fuse: every producer/consumer pair among them merges into one
// datapath (passes/fuse.cpp), or, with strict, compile() refuses the program at this line naming
// why. unsafe sets both of the other flags; disable_dpu_reg_pressure_heuristic fuses past the DPU
// register / instruction estimate; enable_loop_legalization is accepted (the pass matches flat
// addresses, it never rewrites loops). with A.prevent_fuse(): nothing built in `body` is fused.
// Outside both, fusion runs where it is safe (CompileOptions::fuse). Written outside every datapath.
struct FuseArgs {
  bool unsafe = false;
  bool strict = true;
  bool disable_dpu_reg_pressure_heuristic = false;
  bool enable_loop_legalization = false;
};
void fuse(const FuseArgs& args, const Body& body, Loc l = Loc::current());
void fuse(const Body& body, Loc l = Loc::current());
void prevent_fuse(const Body& body, Loc l = Loc::current());
// For the operator library's call keywords (ops::invoke, guide §12): A.AICore at the call's
// location (core=), and `body` with every launch it builds (datapath, LoadIMC, DMA block) that has
// no id of its own tagged `id` (id=: one id may name all the launches of one operator call).
void AICore(int core, const Body& body, const SourceLoc& loc);
void tag_launches(const std::string& id, const Body& body, const SourceLoc& loc);
// Outside every unit block (a kernel's top level, a tile loop's body) a predicate gates launches:
// it is decided at build time (a tile step's is_load, a C++ bool), the branch not taken is not
// built; a device-time predicate there is refused at the call. Inside a unit block it is the
// device-time choice of §8.4 (the ODR's store or drop).
void If(const Value& cond, const Body& then_body, const Body& else_body = {}, Loc l = Loc::current());
void when(const Value& cond, const Body& body, Loc l = Loc::current());
void drop(const Value& popped, Loc l = Loc::current());
// A.where(cond) (guide §10): the block predicate of the A.Datapath, A.CoreDMA or A.SysDMA it is
// written in (directly, not inside a loop of the block): it bounds the data movement the block
// generates. Decided when the program is built (pass block-predicates): each comparison is a
// build-time constant or bounds one loop variable around the block; anything else is refused at
// this line. Inert in a stream unit block (IFD, MatMul, DPU, ODR: the guide's "it has no effect
// there"); refused anywhere else.
void where(const Value& cond, Loc l = Loc::current());
// A.bypass() (guide §6.4): the enclosing stream unit block is bypassed — the datapath runs as if
// the block were omitted (its neighbours joined directly). The block holds nothing else. The main
// feeder IFD(num=0) and the ODR cannot be bypassed (a datapath starts and ends with them); a
// bypassed MatMul leaves a DP_DWPU datapath.
void bypass(Loc l = Loc::current());

// The tile handle of A.tiles (guide §11.2): a ramp over the extent, base = index * size and
// lanes = min(size, extent - base) (the last tile is short when size does not divide the
// extent). In a pipelined loop (drain=N, §12) the body runs num_tiles + N steps; the handle it
// gets is stage 0's (the load's: tile `step`), stage(k) stage k's (tile step - min(k, drain)).
// A stage without a tile in this step (active false) reports the nearest real tile, so the
// operands of a call it gates off (where=false) stay well-formed.
struct Tile {
  int64_t base = 0, lanes = 0;  // this tile: elements base .. base + lanes - 1
  int64_t index = 0;            // the tile's number, 0 .. num_tiles - 1
  int64_t step = 0;             // the pipeline step, 0 .. num_tiles + drain - 1 (== index without drain)
  int64_t size = 0, extent = 0, num_tiles = 0, drain = 0;
  bool active = true;  // the stage has a tile in this step
  Tile stage(int64_t k) const;
  bool is_load() const { return stage(0).active; }                 // stage 0
  bool is_compute() const { return stage(1).active; }              // stage min(1, drain)
  bool is_store() const { return stage(2).active; }                // stage min(2, drain)
  int64_t slot(int64_t slots = 2) const { return index % slots; }  // a pipelined buffer's slot
  operator Value() const;  // NOLINT(google-explicit-constructor): A.Ramp(base, 1, lanes)
};

// ---- sync ---------------------------------------------------------------------------------------
// A.sync(waits=, signals=, buffers=) (guide §12). waits: the launches tagged with these ids finish
// before anything after this point starts. signals: this point marks these ids done — a later
// wait on one waits for every launch made before this point (those still in flight there).
// buffers: the data the sync guards — it applies to the launches that touch those buffers only
// (of the waited ids; with no waits and no signals, every launch in flight touching them).
void sync(const std::vector<std::string>& waits, const std::vector<std::string>& signals = {}, Loc l = Loc::current());
void sync(const std::vector<std::string>& waits, const std::vector<std::string>& signals,
          const std::vector<BufferHandle>& buffers, Loc l = Loc::current());
void waits(const std::string& id, Loc l = Loc::current());
void signals(const std::string& id, Loc l = Loc::current());
void barrier(const std::vector<int>& cores, Loc l = Loc::current());
// An operator boundary (the operator library marks each call; traces and `axc explain` use it).
void op_marker(const std::string& name, Loc l = Loc::current());

// ---- values -------------------------------------------------------------------------------------
Value cast(const Value& v, const std::string& dtype, Loc l = Loc::current());
// A.vtrsp(value) (guide §8.4): the store value of a DP_DWPU datapath's ODR — the popped element,
// maybe cast — lane-transposed in blocks of 64 consecutive stores: store 64b + i gets lane i of
// pops 64b .. 64b + 63 in its lanes 0..63 (spec walk field transpose). Any 64-lane L1 dtype.
Value vtrsp(const Value& v, Loc l = Loc::current());
Value Broadcast(const Value& scalar, int64_t lanes, Loc l = Loc::current());
Value if_then_else(const Value& cond, const Value& a, const Value& b, Loc l = Loc::current());
Value int8(int64_t v, Loc l = Loc::current());
Value int32(int64_t v, Loc l = Loc::current());
Value float32(double v, Loc l = Loc::current());
Value Ramp(const Value& base, int64_t step, int64_t lanes, Loc l = Loc::current());
Value slice(const Value& start, const Value& stop, Loc l = Loc::current());  // buf[a:b]
Value all(std::initializer_list<Value> conds, Loc l = Loc::current());       // tir.all
Value Min(const Value& a, const Value& b, Loc l = Loc::current());
Value Max(const Value& a, const Value& b, Loc l = Loc::current());
// A.min / A.max (guide §3, §7): the lower-case spellings of A.Min / A.Max (the DPU's MIN / MAX).
Value min(const Value& a, const Value& b, Loc l = Loc::current());
Value max(const Value& a, const Value& b, Loc l = Loc::current());
Value mvm_1x1(const Value& x, const Value& imc_tile, Loc l = Loc::current());
// A.IntImm(dtype, value) (guide §3, §5): an integer immediate. "int8" is A.int8(value) (a pad value
// of an int8 stream); "int32" / "int64" (TVM's index dtypes) an index immediate, usable wherever a
// C++ integer is — an index, loop arithmetic, a register number, the pad of an int32 stream. Any
// other dtype, or a value out of the dtype's range, is refused at the call.
Value IntImm(const std::string& dtype, int64_t value, Loc l = Loc::current());
// A.buffer_store(buf, value, indices) (guide §8.4, §8.5): buf[indices] = value written as a call —
// a memory buffer (an ODR store, a DMA copy) or a DPU register file (regs[i] = value, §8.5).
void buffer_store(const BufferHandle& buf, const Value& value, const std::vector<Value>& indices,
                  Loc l = Loc::current());
void buffer_store(const Reg& regs, const Value& value, const std::vector<Value>& indices, Loc l = Loc::current());

namespace dpu {
Value lut(const Value& x, const Value& table, Loc l = Loc::current());
// Chained tables (guide §7 n_luts; spec lut_max_chain): `tables` consecutive registers starting at
// `table`, which must be an A.array element with a literal index.
Value lut(const Value& x, const Value& table, int64_t tables, Loc l = Loc::current());
Value prelu(const Value& x, const Value& slope, Loc l = Loc::current());
Value fma(const Value& a, const Value& b, const Value& c, Loc l = Loc::current());
Value add_reduce(const Value& x, Loc l = Loc::current());
Value max_reduce(const Value& x, Loc l = Loc::current());
Value min_reduce(const Value& x, Loc l = Loc::current());
// A.dpu.ops.dpu_reduce(x, op) (guide §7): what add_reduce / max_reduce / min_reduce wrap; op is
// "add" (or "sum"), "max" or "min" (another op is refused at the call).
Value dpu_reduce(const Value& x, const std::string& op, Loc l = Loc::current());
// A.dpu.ops.dpu_fma(a, b, c) (guide §7): a * b + c, the DPU's FMA (the same as fma).
Value dpu_fma(const Value& a, const Value& b, const Value& c, Loc l = Loc::current());
}  // namespace dpu

}  // namespace axcore::compiler::A
