// Shared pieces of the lowering: loop nests of a unit block, walk dimensions with guards,
// and the per-unit descriptor builders (one file each).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "axcore/compiler/affine.hpp"
#include "axcore/compiler/program.hpp"

namespace axcore::compiler::lower_detail {

struct Loop {
  const VarNode* var = nullptr;
  int64_t start = 0, extent = 1;
  SourceLoc loc;
};

// Descends through a block's single-statement For chain (skipping register declarations),
// appending the loops; returns the innermost statement list.
const std::vector<Stmt>& peel(const std::vector<Stmt>& body, std::vector<Loop>& loops);

using RegionOf = std::function<L1Region(const BufferNode&, const SourceLoc&)>;

// One walk dimension with the guard coefficients of its counter.
struct Dim {
  int64_t size = 1, stride = 0;
  std::array<int64_t, 3> g{};
};
struct Guard {
  int64_t offset = 0, extent = 0;
};
struct WalkPlan {
  int64_t base_row = 0;
  std::vector<Dim> dims;  // outermost first
  std::vector<Guard> guards;
  uint64_t elements() const;
};

// The row address of buf[idx] over `loops`, as walk dimensions (no guards yet).
WalkPlan plan_address(const std::vector<Loop>& loops, const BufferNode& buf, const std::vector<Expr>& idx,
                      const RegionOf& region, const SourceLoc& loc);
// A walk of `loops` that reads nothing (every element a pad).
WalkPlan plan_all_pad(const std::vector<Loop>& loops);
// Adds the guards of an IFD pad condition / ODR store predicate.
void add_guards(WalkPlan& w, const std::vector<Loop>& loops, const Expr& cond, const SourceLoc& loc);
// Merges contiguous dimensions and encodes; `unit` names the block in errors.
spec::Walk encode_walk(WalkPlan w, spec::Dtype dtype, spec::Dtype cast_from, uint32_t pad_value, const char* unit,
                       const SourceLoc& loc);

// Elements [from, from + count) of a walk, as one walk (the counters above the slice's level
// fixed), or nullopt when they are not one walk (they cross a run of their level) or do not fit.
std::optional<spec::Walk> slice_walk(const spec::Walk& w, uint64_t from, uint64_t count);

// Merges adjacent dims (outer k, inner k+1) when the walk visits the same addresses/guards.
std::vector<Dim> merge_dims(std::vector<Dim> dims);

// The DPU block compiled to a program; loads the block reads from buffers become an IFD1 walk.
struct DpuLowered {
  spec::DpuDesc desc;
  std::vector<spec::DpuInstr> code;
  bool implicit_ifd1 = false;
  spec::Walk ifd1;
  uint64_t ifd1_elements = 0;
  uint64_t pops_main = 0;  // main-input pops over the whole task
  uint64_t pops_side = 0;
  uint64_t pushes = 0;
};
struct StreamInfo {
  std::function<bool(const StreamNode*)> is_side;  // pushed by IFD(num=1)
  // A later segment of its feeder whose dtype differs from the first's: its POPs name their dtype
  // (spec dpu_pop own_dtype). Empty: none.
  std::map<const StreamNode*, spec::Dtype> own_dtype;
};
DpuLowered lower_dpu(const StmtNode& block, const std::vector<Loop>& outer, const StreamInfo& streams, spec::Dtype in0,
                     spec::Dtype in1, const RegionOf& region);

// The streams of one feeder a DPU block pops, in the order it pops them over its task (A.init
// once, then the body once per iteration of the datapath's sunk loops and its own), each a run
// with its pop count and first pop (lower_feeder.cpp). A stream popped again after another of the
// same feeder is the guide's interleaved hazard (§8.3): refused at that pop, `feeder` naming it.
struct PopRun {
  const StreamNode* stream = nullptr;
  uint64_t count = 0;
  SourceLoc at;
};
using FeederOf = std::function<bool(const StreamNode*)>;
std::vector<PopRun> feeder_pops(const StmtNode& dpu, const std::vector<Loop>& outer, const FeederOf& on_feeder,
                                const std::string& feeder);

// A.SysDMA / A.CoreDMA blocks (lower_dma.cpp): one side of the copy.
struct DmaSide {
  const BufferNode* buffer = nullptr;               // the root buffer
  bool ddr = false;                                 // addressed in DDR (patched with the buffer's address)
  std::optional<tap::TensorAccessPattern> pattern;  // in 32-bit words over the whole buffer
  spec::MemSel mem = spec::MemSel::DDR;
  uint32_t core = 0;
  uint64_t base = 0;  // byte address of the buffer's element 0 (L1 side)
};
struct DmaPlan {
  DmaSide src, dst;
  tap::Engine engine = tap::Engine::kSysDma;
  uint32_t core = 0;  // the core whose L1 (and, for CoreDMA, whose engine) the copy uses
  uint64_t words = 0;
  SourceLoc loc;
};
// Where a DMA side's buffer (a root) is addressed: in DDR (patched with the buffer's address), in
// L2 at byte `base`, or in L1 (its placed region).
struct HomePlace {
  Home home = Home::L1;
  uint64_t base = 0;
};
using HomeOf = std::function<HomePlace(const BufferNode&)>;
// An A.SysDMA block with a DDR side runs on the shim's SysDMA; one between L2 and L1 (or L2 and
// L2) on the mem tile's MemDMA, the engine beside L2; an A.CoreDMA block on its core's engine.
DmaPlan plan_dma(const StmtNode& block, const RegionOf& region, const HomeOf& home);
tap::BdTask dma_task(const DmaSide& side, bool mm2s, tap::Engine engine, uint32_t first_bd, const SourceLoc& loc);

// L1 placement (l1_alloc.cpp). A buffer's lifetime in launches (lower()'s walk order).
struct Lifetime {
  const BufferNode* buf = nullptr;
  uint32_t core = 0;
  std::size_t first = 0, last = 0;
  uint64_t rows = 0;
};
struct L1Plan {
  std::map<const BufferNode*, L1Region> region;
  std::map<const BufferNode*, std::vector<const BufferNode*>> reuses;  // earlier buffers whose rows it takes
  std::vector<uint32_t> rows_used;                                     // per core, the most rows in use at once
};
// `bufs` in first-use order. Throws CompileError at the buffer that does not fit.
L1Plan allocate_l1(const std::vector<Lifetime>& bufs, uint32_t cores, uint64_t l1_bytes);

}  // namespace axcore::compiler::lower_detail
