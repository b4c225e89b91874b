// axtap's expression language: the seed's Python spelling of taplib chains.
//
//   expr    := compare
//   compare := arith [('==' | '!=') arith]
//   arith   := term {('+' | '-') term}        term := unary {('*' | '//' | '%') unary}
//   unary   := '-' unary | postfix
//   postfix := primary {'.' NAME | '(' args ')' | '[' subscript ']'}
//   primary := INT | NAME | '(' tuple ')' | '[' list ']'
// Names: full, arange, TensorAccessPattern (and TensorAccessPattern.full), None, True, False;
// any other name is a dispatch-time parameter (bound with --param NAME=VALUE).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "value.hpp"

namespace axcore::tap::cli {

Value evaluate(std::string_view source, const Bindings& params);

// Attribute lookup and calls (methods.cpp).
using Kwargs = std::vector<std::pair<std::string, Value>>;
Value attribute(const Value& object, const std::string& name);
Value call(const Callable& callee, std::vector<Value> args, Kwargs kwargs);
Value builtin(const std::string& name);  // None when `name` is not a builtin
Value subscript(const Value& object, std::vector<Value> items);

}  // namespace axcore::tap::cli
