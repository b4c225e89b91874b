// Shared pieces of the operator implementations: logical shapes, constants made at build time
// (re-laid weights, scalars, LUT tables), graph nodes of the reference, shape checks.
#pragma once

#include <string>
#include <vector>

#include "axcore/compiler/emit.hpp"
#include "axcore/compiler/ops/op.hpp"

namespace axcore::compiler::ops::detail {

using Node = PrimFunc::GraphNode;

std::string fresh(const std::string& stem);

// The location of the operator call being expanded: buffers the library allocates for it carry
// it, so placement errors (L1 full, ...) point at the user's call or YAML line.
const SourceLoc& call_loc();
class CallScope : ScopedValue<SourceLoc> {  // sets call_loc() for its lifetime
 public:
  explicit CallScope(const SourceLoc& loc);
};
std::string shape_str(const std::vector<int64_t>& s);

// The logical (unpacked) shape of a tensor: the packed shape with the last axis times 64.
std::vector<int64_t> logical(const Tensor& t);
bool is_constant(const Tensor& t);
// The values of a constant tensor (C order over the logical shape); refuses a non-constant.
const std::vector<double>& constant_values(const Call& c, const std::string& arg);

// A constant buffer built at compile time. `logical` overrides the logical shape the bundle and
// the reference see (a per-tensor scalar is one PWORD on the device but shape (1,) to the ref).
Tensor make_constant(const std::string& stem, std::vector<int64_t> packed, const std::string& dtype,
                     std::vector<double> values, std::vector<int64_t> logical_shape = {});
// A (1,) float32 constant for the reference only (never placed on the device).
Tensor scalar_for_ref(const std::string& stem, double v);

Node node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs);

// Checks a tensor's dtype against a list ("int8x64" ...), refusing with the argument's name.
void require_dtype(const Call& c, const std::string& arg, const std::vector<std::string>& allowed);
void require_rank(const Call& c, const std::string& arg, std::size_t lo, std::size_t hi);

// The scalar dtype name of a PWORD dtype ("float32x64" -> "float32").
std::string base_name(const std::string& dtype);

// Registration, one function per operator family.
void add_movement_ops(std::vector<OpDef>& r);
void add_elementwise_ops(std::vector<OpDef>& r);
void add_matmul_ops(std::vector<OpDef>& r);
void add_conv_ops(std::vector<OpDef>& r);
void add_depthwise_ops(std::vector<OpDef>& r);
void add_norm_ops(std::vector<OpDef>& r);
void add_aten_ops(std::vector<OpDef>& r);

}  // namespace axcore::compiler::ops::detail
