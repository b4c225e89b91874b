// The compiler driver: one pass pipeline — the IR passes (K-splitting, multi-core partitioning,
// tiling against L1, sinking/unrolling, empty loops, kind inference), then lowering and emission.
#pragma once

#include <memory>

#include "axcore/compiler/emit.hpp"
#include "axcore/compiler/passes.hpp"
#include "axcore/compiler/program.hpp"
#include "axcore/compiler/tiling.hpp"
#include "axcore/compiler/verify.hpp"

namespace axcore::compiler {

struct CompileOptions {
  uint32_t cores = 1;
  std::string name;
  std::string source;
  bool overlap = true;  // LowerOptions::overlap: launches wait only for what they touch
  // The guide's §14 hazards (diag.hpp Diagnostic) refuse the program instead of warning
  // (`axc compile --Werror=hazard`).
  bool hazards_are_errors = false;
  // Run the IR verifier (verify.hpp) before the first pass and after every pass
  // (`axc compile --verify-each`); on by default in debug builds.
  bool verify_each = verify_each_default();
  // §12 fusion wherever it is safe (passes/fuse.cpp); false: only inside A.fuse(...)
  // (`axc compile --no-fuse`).
  bool fuse = true;
};

struct CompileResult {
  runtime::Bundle bundle;
  Program program;
  std::vector<PassTiming> timings;
  std::shared_ptr<const PrimFunc> lowered;  // the IR after the passes (sunk, unrolled)
  double total_ms = 0;
  // The §14 hazards the compiler found (Program::warnings): the program runs as written.
  std::vector<Diagnostic> warnings;
  // The text of `lowered` (printer.hpp's dump), printed when asked (axc --dump-ir): with every
  // constant's values in it, printing it costs more than the rest of compile() for a model.
  std::string ir_lowered() const;
};

CompileResult compile(const PrimFunc& f, const CompileOptions& opt = {});
// The same with the tiling pass's L1 budget given (tests tile small kernels with a small budget).
CompileResult compile(const PrimFunc& f, const CompileOptions& opt, const TilingOptions& tiling);

}  // namespace axcore::compiler
