// The IR verifier: the invariants every pass takes and keeps (ir.hpp). The pass manager runs it
// before the first pass and after every pass when asked (CompileOptions::verify_each, on by
// default in debug builds, `axc compile --verify-each`); a violation is a compiler bug, reported
// at the offending node with the pass that left it.
#pragma once

#include <string>
#include <vector>

#include "axcore/compiler/ir.hpp"

namespace axcore::compiler {

struct IrProblem {
  SourceLoc loc;
  std::string message;
};

// Every invariant f breaks, in program order (empty: well-formed):
// - buffers: names unique over params and allocations; every buffer a statement or expression
//   names is a param, an allocation of f, or a view whose chain ends in one (registers: declared
//   by an A.var / A.array earlier in the same datapath; the MVM accumulator: inside a MatMul
//   block); role and scope agree (IMC, registers, accumulator); only an IMC buffer records an
//   imc_source; a constant holds its values;
//   params are inputs; outputs are buffers of f;
// - streams: names unique; every stream pushed or popped is declared in f.streams;
// - loops: every loop variable used is bound by an enclosing loop (defined before use), no loop
//   rebinds the variable of a loop around it; extents are >= 0;
// - launches: an id a pass generated (id_generated) tags one launch (an author's id may tag
//   several: a sync waits for all of them);
// - nodes: each statement and expression carries the operands its kind needs (arity, the
//   indices of a buffer's rank, A.mvm_1x1's matrix a tile of an IMC buffer).
std::vector<IrProblem> verify_ir(const PrimFunc& f);

// Throws a CompileError at the first problem, naming `after` (the pass that ran last, or
// "the input").
void check_ir(const PrimFunc& f, const std::string& after);

// CompileOptions::verify_each's default: on in debug builds (no NDEBUG), or when the environment
// variable AXCORE_VERIFY_EACH is set to anything but "" or "0".
bool verify_each_default();

}  // namespace axcore::compiler
