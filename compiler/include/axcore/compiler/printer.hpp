// The textual IR (`axc --dump-ir`): AxScript-like, one statement per line, indented by nesting.
#pragma once

#include <string>

#include "axcore/compiler/ir.hpp"

namespace axcore::compiler {

std::string dump(const Expr& e);
std::string dump(const PrimFunc& f);
std::string dump(const Module& m);

}  // namespace axcore::compiler
