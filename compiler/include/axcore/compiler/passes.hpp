// The pass manager and the IR-to-IR passes. A pass holds no state across runs; the manager runs
// them in order, times each (the one list of pass timings, CompileResult::timings), verifies the
// IR before the first and after every pass when asked (verify.hpp), and stops at the first
// CompileError (which carries the user's location). compile() runs the whole pipeline under it:
// the IR passes, then `lower` and `emit`, which read the IR and fill the program and the bundle.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "axcore/compiler/ir.hpp"

namespace axcore::compiler {

struct PassTiming {
  std::string name;
  double ms = 0;
};

class PassManager {
 public:
  using Fn = std::function<void(PrimFunc&)>;
  PassManager& add(std::string name, Fn fn);
  // With verify_each, check_ir(f) runs before the first pass and after each (its time is not
  // the passes': it is the last entry, "verify-ir").
  std::vector<PassTiming> run(PrimFunc& f, bool verify_each = false) const;

 private:
  std::vector<std::pair<std::string, Fn>> passes_;
};

// The passes, one per file in compiler/passes/.
// §9: a serial/grid loop around exactly one datapath (or LoadIMC) is sunk into its units; a loop
// around two or more, and every A.unroll, is unrolled. Inside unit blocks, A.unroll loops expand.
void sink_and_unroll(PrimFunc& f);
// Removes loops of extent 0 (they lower to nothing, §4.4) and datapaths left without work.
void drop_empty_loops(PrimFunc& f);
// §6: infers each datapath's kind (MatMul -> DP_MVMEXE, else DP_DWPU) and refuses a pinned kind
// that contradicts the blocks.
void infer_datapath_kinds(PrimFunc& f);
// §10: A.where(cond) block predicates (passes/block_predicates.cpp). Each comparison of the conjunction is a
// build-time constant (false: the block never runs and is removed) or bounds one loop variable
// around the block (that loop runs the allowed range only). Run before the tiling pass (final =
// false: a bound on a loop that holds nothing but the block narrows it, so the tiling copies that
// range only; terms over loops that will be unrolled stay) and after sink-and-unroll (final = true:
// every term is decided or refused at its A.where).
void apply_block_predicates(PrimFunc& f, bool final);
// §12 fusion (passes/fuse.cpp): an elementwise consumer datapath appended to its producers' DPU
// epilogue (a float32 intermediate, matched element for element), and a copy datapath folded into
// its readers' IFD walks. `automatic`: wherever it is safe and no A.prevent_fuse() says otherwise;
// else only inside A.fuse(...). An A.fuse(strict=True) group left apart is a CompileError at its
// line. What was fused and why other pairs were not: PrimFunc::fusion_notes.
void fuse_datapaths(PrimFunc& f, bool automatic);
// The builder's check of an A.where predicate at the user's line: loop variables, integers,
// arithmetic and comparisons only (no buffer, stream or register read).
void check_block_predicate(const Expr& cond, const SourceLoc& loc);

}  // namespace axcore::compiler
