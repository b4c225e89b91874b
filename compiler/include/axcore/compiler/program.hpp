// The lowered program: what runs where, in program order — DMA transfers (BD tasks), command
// processor tasks (datapath / LoadIMC descriptors in command memory) and the waits between them.
// Built from a sunk, unrolled PrimFunc by lower(); turned into a bundle by emit_bundle().
#pragma once

#include <axcore/spec.hpp>
#include <axcore/tap/bd.hpp>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "axcore/compiler/ir.hpp"

namespace axcore::compiler {

struct L1Region {
  uint32_t core = 0;
  uint32_t base_row = 0;
  uint32_t rows = 0;
};

// One thing a launch reads or writes (the overlap scheduler and the race verifier, sync.hpp):
// L1 rows [lo, hi) or IMC tiles [lo, hi) of a core, or a whole DDR or L2 buffer.
struct Access {
  enum class Space : uint8_t { L1, Imc, Ddr, L2 };
  Space space = Space::L1;
  uint32_t core = 0;
  uint64_t lo = 0, hi = 0;
  const BufferNode* ddr = nullptr;  // Ddr, L2: the buffer (its root)
  bool write = false;
  std::string what;  // the buffer, for explanations
};

// A DMA copy: a whole DDR or L2 buffer to or from its L1 region, or an A.SysDMA / A.CoreDMA block
// (written by hand or inserted by the tiling pass). SysDMA runs on the shim (a copy with a DDR
// side), MemDMA on the mem tile (copies between L2 and L1 without a DDR side), CoreDMA on its core.
struct Transfer {
  const BufferNode* buffer = nullptr;       // the DDR-side buffer (its root); null for an L1-to-L1 copy
  const BufferNode* s2mm_buffer = nullptr;  // a DDR-to-DDR copy: the buffer the S2MM side writes
  bool to_l1 = true;
  L1Region l1;
  tap::BdTask mm2s, s2mm;  // BD ids assigned by lower() (no two in-flight copies share a BD)
  uint64_t words = 0;
  std::string id;                           // "" = default sync (waited right after launch)
  bool ddr_mm2s = false, ddr_s2mm = false;  // which side is patched with the DDR buffer's address
  tap::Engine engine = tap::Engine::kSysDma;
  uint32_t core = 0;     // CoreDMA: the core tile of the engine
  uint32_t channel = 0;  // channel pair: 0 for copies into L1, 1 for copies out of it
  // A DDR read the overlap scheduler may put on any channel of its engine (the one its model
  // finds free first); `channel` is lower()'s choice, kept without the scheduler.
  bool any_channel = false;
  std::string name;  // "load x (tile 2)" for `axc explain`
  std::vector<Access> footprint;
};

// The DMA engine tile a copy runs on, as the launch keys count them: 0 the shim (SysDMA), 1 + c
// core c's CoreDMA, 1 + max_cores the mem tile (MemDMA).
inline uint32_t dma_tile(const Transfer& t) {
  if (t.engine == tap::Engine::kCoreDma) return 1 + t.core;
  return t.engine == tap::Engine::kMemDma ? 1 + spec::param::max_cores : 0;
}

// One command-processor task: a descriptor in core command memory, pushed to a queue.
struct Task {
  uint32_t core = 0;
  spec::Queue queue = spec::Queue::MVMEXE;
  std::vector<uint32_t> words;  // the descriptor
  uint32_t cmd_word = 0;        // where it sits in CMD_MEM (assigned by lower())
  std::string name;             // "dp3.mvmexe (linear0)"
  std::string id;
  // What the task does, for `axc explain` and the performance model.
  uint64_t mvm_tile_ops = 0;  // MVM tile-ops (64x64 MACs each)
  uint64_t ifd0_elems = 0, ifd1_elems = 0, odr_elems = 0, dpu_instr_per_iter = 0, dpu_iterations = 0;
  uint64_t ifd1_rows = 0, odr_rows = 0;  // L1 rows those elements take (R(dtype) each, docs/timing.md)
  uint64_t predicted_cycles = 0;
  std::vector<Access> footprint;
};

struct Wait {
  std::size_t launch = 0;  // index into Program::steps of the launch waited for
};

struct Barrier {
  std::vector<int> cores;
};

using Step = std::variant<Transfer, Task, Wait, Barrier>;

struct Program {
  std::vector<Step> steps;
  std::map<const BufferNode*, L1Region> l1;  // placement of every buffer a unit touches (roots)
  std::map<const BufferNode*, uint64_t> l2;  // byte address in L2 of every buffer homed there (roots)
  uint32_t cores = 1;
  std::vector<uint32_t> l1_rows_used;         // per core: the most rows in use at once
  uint64_t l1_bytes = spec::param::l1_bytes;  // the L1 budget it was placed against
  std::map<std::string, std::string> notes;
  // `axc compile --explain`: how the overlap scheduler ordered the launches (what waited for
  // what and why) and where the IMC residencies and L1 buffers went.
  bool overlapped = false;  // scheduled by schedule_overlap (else: a wait after every launch)
  std::vector<std::string> sync_notes, placement_notes;
  // What the scheduler's model changed, and why: DDR reads moved to another channel than
  // lower()'s round robin, core-queue tasks pushed before earlier ones of their queue (backfilled).
  std::vector<std::string> reorder_notes;
  // What the fusion pass fused and why it left other pairs apart (PrimFunc::fusion_notes).
  std::vector<std::string> fusion_notes;
  // How the operator library cut its calls and why (PrimFunc::operator_notes).
  std::vector<std::string> operator_notes;
  // The §14 hazards found (diag.hpp), in program order, each once; empty when
  // LowerOptions::hazards_are_errors (the first one throws).
  std::vector<Diagnostic> warnings;
};

struct LowerOptions {
  uint32_t cores = 1;
  // The L1 bytes per core the placement may use (a smaller L1 than the spec's, e.g.
  // firmware/fpga/small.yaml's 256 KiB, compiles for that device and runs on this one).
  uint64_t l1_bytes = spec::param::l1_bytes;
  // The L2 bytes the buffers homed in L2 may take (guide §5.1; at most the spec's l2_bytes).
  uint64_t l2_bytes = spec::param::l2_bytes;
  // Overlap data movement with compute (schedule_overlap, sync.hpp): launches wait only for what
  // they touch. false: the guide's default sync, a wait right after every launch (the program
  // order, for comparisons). Multi-core programs always use the default sync.
  bool overlap = true;
  // The IMC tiles matrices are packed into (a residency holds at most this many; tests shrink it).
  uint32_t imc_tiles = spec::param::imc_tiles;
  // A §14 hazard (lower_hazards.cpp) is a CompileError instead of a warning.
  bool hazards_are_errors = false;
};

// Places buffers, inserts DMA transfers and default sync, and lowers every datapath, LoadIMC and
// movement block to descriptors. Contract violations throw CompileError at the user's line.
Program lower(const PrimFunc& f, const LowerOptions& opt = {});

// Human-readable listing of the program (axc explain).
std::string explain(const Program& p);

}  // namespace axcore::compiler
