// Tiling against L1 with DMA insertion (guide §11, §12) and K-splitting against the IMC (§6.2,
// §14): the entry points the pass manager and the operator library use.
//
// tile_for_l1 splits an outer device loop around one datapath (a tiling candidate, §11.1) when
// the kernel's buffers do not fit L1, or when the loop is written A.tiles(...). Each DDR operand
// whose address moves with the loop gets an L1 slot buffer per in-flight tile; every tile copies
// its input region in with A.SysDMA, runs the datapath over the tile, and copies its output region
// out. drain=0 runs load / compute / store in program order (default sync); drain=1 overlaps the
// next tile's load with this tile's compute (two input slots); drain=2 also overlaps the previous
// tile's store (two output slots). The ids and A.sync waits it inserts order every reuse of a slot
// after the work that last read it (§12, §14 "a pipelined buffer needs one slot per in-flight step").
#pragma once

#include <axcore/spec.hpp>
#include <functional>
#include <map>
#include <string>

#include "axcore/compiler/ir.hpp"

namespace axcore::compiler {

struct TilingOptions {
  uint64_t l1_bytes = spec::param::l1_bytes;  // the L1 budget of the kernel's buffers
  uint64_t l2_bytes = spec::param::l2_bytes;  // the L2 the scratch buffers may take (place_scopes)
  // Weak scratch buffers (by name) place_scopes moves out of L1, each with why: compile() adds the
  // largest one still in L1 after each L1 overflow (guide §5.1, "weak: the placement may move it").
  std::map<std::string, std::string> spill = {};
  uint32_t imc_tiles = spec::param::imc_tiles;  // one IMC residency (split_k)
  uint32_t cores = 1;  // > 1: loops around one datapath are partitioned over the cores instead (partition_cores)
};

struct TileChoice {
  int64_t tile = 0;  // iterations per tile (the last tile may be shorter: extent - base)
  int64_t num_tiles = 0;
  uint64_t bytes = 0;  // the L1 bytes the choice needs
};

// The factor A.tiles picks (§11.2): num_tiles= fixes it (tile = ceil(extent / num_tiles)), else
// the largest tile in [tile_min, tile_max] (0 = unbounded) whose working set, bytes_for(tile),
// fits `budget`. Throws CompileError at `loc` when no tile in the bounds fits.
TileChoice choose_tile(int64_t extent, const TileBounds& bounds, const std::function<uint64_t(int64_t)>& bytes_for,
                       uint64_t budget, const SourceLoc& loc);

// Memory scopes (guide §5.1; passes/place_scopes.cpp), run before tile_for_l1: decides where each
// scratch buffer (A.alloc_buffer) lives. Pinned scopes (A.L1, A.L2, A.DDR) stay where they are
// written — an A.L2 buffer that does not fit the L2 left is a CompileError at its line. Weak scopes
// move: a buffer named in opt.spill leaves L1 for L2 (DDR when L2 is full), so the tiling pass
// streams it through L1 in tiles copied from and to L2; an A.L2_WEAK one stays in L2 when it fits
// (DDR when not) — or, on one core, lives in L1 alone when the L1 buffers live at once still fit
// with it (no copies between L2 and L1). A moved buffer is a new node (the input function is not
// changed); f.placement_notes says where each scratch buffer went and why.
void place_scopes(PrimFunc& f, const TilingOptions& opt = {});

// The pass (passes/tile_l1.cpp). Run before sink-and-unroll: tiling reads the loops the author
// wrote (§11.1). With opt.cores > 1 it tiles only the loops written A.tiles(...).
void tile_for_l1(PrimFunc& f, const TilingOptions& opt = {});

// Multi-core partitioning (passes/partition_cores.cpp), run before tile_for_l1 when opt.cores > 1:
// a top-level loop around one datapath, not written A.tiles and without a matmul, is split into
// one part per core — each core copies its part of the moving operands (and its own copy of those
// read whole) into its L1 with SysDMA, runs its datapath, copies its part out; the copies, the
// datapaths and the copies out are each waited together, and a barrier over the cores closes it.
void partition_cores(PrimFunc& f, const TilingOptions& opt = {});

// K-splitting (split_k.cpp): a matmul whose A.alloc_imc((K_BLOCKS, N_BLOCKS)) exceeds imc_tiles
// becomes chunks of kc = imc_tiles / N_BLOCKS K blocks, each with its own residency (IMC buffer),
// its LoadIMC right before its datapaths, and, after the first, a DPU that adds the chunk's
// product onto the float32 output read back through IFD1 (the partial= accumulation of §11.2).
// The datapath's epilogue must be a cast or a cast plus one bias (applied once, in chunk 0).
void split_k(PrimFunc& f, const TilingOptions& opt = {});

}  // namespace axcore::compiler
