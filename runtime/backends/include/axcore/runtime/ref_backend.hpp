// The `ref` backend: runs a bundle's operator graph through common/ref (no TXN, no device) —
// the golden every timed backend is compared with. Ops and attributes: docs/runtime.md.
#pragma once

#include "axcore/runtime/program.hpp"

namespace axcore::runtime {

// Outputs for every OUTPUT buffer. RunError for a missing op, a wrong input count or type, or an
// attribute the op needs.
RunResult run_ref(const Bundle& b, const Arrays& inputs, const RunOptions& opt = {});

// The ops run_ref knows.
std::vector<std::string> ref_ops();

}  // namespace axcore::runtime
