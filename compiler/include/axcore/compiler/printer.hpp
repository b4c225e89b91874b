// The textual IR (`axc --dump-ir`): AxScript-like, one statement per line, indented by nesting.
// It round-trips: parse_module / parse_prim_func (parser.hpp) read it back, and dumping what
// they return gives the same text.
#pragma once

#include <string>

#include "axcore/compiler/ir.hpp"

namespace axcore::compiler {

std::string dump(const Expr& e);
std::string dump(const PrimFunc& f);
std::string dump(const Module& m);
// A double in its shortest form that reads back to the same value ("2", "0.1", "-inf", "nan").
std::string number(double v);

}  // namespace axcore::compiler
