// Emission of the runtime's `.axb` bundle (runtime/bundle): the TXN stream (BD writes with
// DDR_PATCHes, descriptors blockwritten into core command memory ahead of their first push, queue
// pushes with tokens, TCT waits) — a self-contained program, no preloaded command streams —
// constants, the buffer table (logical <-> device layout) and the ref graph.
#pragma once

#include <axcore/runtime/bundle.hpp>

#include "axcore/compiler/program.hpp"

namespace axcore::compiler {

struct EmitOptions {
  std::string name;
  std::string source;
};

runtime::Bundle emit_bundle(const PrimFunc& f, const Program& p, const EmitOptions& opt = {});

// The logical shape a buffer has at the model boundary: logical_shape if the front end set it,
// else the PWORD-packed shape with the lanes unpacked into the last axis.
std::vector<int64_t> logical_shape(const BufferNode& b);

}  // namespace axcore::compiler
