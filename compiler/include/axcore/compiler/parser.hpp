// The textual IR read back: what dump() (printer.hpp) prints parses into the same IR, so that
// dump(parse(dump(x))) == dump(x). Every node the parser builds carries the line:column of the
// IR text it came from, so contract errors found while compiling parsed IR point into that text.
// Malformed text throws CompileError at the offending line and column, naming what was expected.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "axcore/compiler/ir.hpp"

namespace axcore::compiler {

// An `@A.ir_module class NAME:` holding `@A.prim_func` definitions.
std::shared_ptr<Module> parse_module(std::string_view text, const std::string& file = "<ir>");
// One `@A.prim_func def NAME(...):` (what dump(const PrimFunc&) prints).
std::shared_ptr<PrimFunc> parse_prim_func(std::string_view text, const std::string& file = "<ir>");

}  // namespace axcore::compiler
