// The pieces of the _axcore extension (module.cpp): one function per binding file.
#pragma once

#include <pybind11/pybind11.h>

#include "fast_caster.hpp"  // before any binding converts a builder handle

#include <axcore/compiler/script.hpp>
#include <optional>
#include <string>

namespace axcore::python {

void bind_script(pybind11::module_& m);   // the builder: the guide's A namespace (bind_script.cpp)
void bind_ops(pybind11::module_& m);      // the operator library and Python-authored ops (bind_ops.cpp)
void bind_runtime(pybind11::module_& m);  // compile, bundles (bind_runtime.cpp)
void bind_parser(pybind11::module_& m);   // the parser's statement loop (bind_parser.cpp)

// Shared by the bindings (bind_script.cpp):
// The statement being built: the parser sets its file once per region and its line per statement.
compiler::SourceLoc& statement_location();
void set_statement_line(uint32_t line, uint32_t column);
// A.Datapath(kind=..., core=..., id=...)'s arguments, the kind checked.
compiler::A::DatapathArgs datapath_args(const std::optional<std::string>& kind, int core, const std::string& id);
// The name hint of the statement being built, once ("" outside a parsed region; bind_parser.cpp).
std::string name_hint();
// Whether a parsed region is being built on this thread (bind_parser.cpp).
bool in_parsed_region();
// "serial" / "grid" / "unroll".
compiler::LoopKind loop_kind(const std::string& kind);

}  // namespace axcore::python
