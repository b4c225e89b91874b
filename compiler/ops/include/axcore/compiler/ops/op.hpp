// The operator library (AXOL's three levels, guide §4.3): an operator declares its arguments,
// refuses what it does not support (validate), says what it produces (infer_output), emits its
// datapaths with the A-namespace builder (implementation), and names its reference
// (emulate: the graph nodes the runtime's ref backend runs through common/ref).
//
//   atomic — one datapath primitive (copy, full, dpu_cast, add_tensor, relu, load_imc, matmul, ...)
//   core   — several datapaths, or composed from atomics (linear, convolution, dwpu_pool, softmax, ...)
//   aten   — the PyTorch surface over core (aten.linear takes PyTorch's (out, in) weight, ...)
//
// Call an operator with ops::invoke("core.linear", {x, w}, {{"bias", b}}) inside an A::Script, or
// through the typed wrappers in library.hpp. Errors are CompileErrors at the caller's location
// naming the argument and the limit.
#pragma once

#include <axcore/spec.hpp>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "axcore/compiler/scoped_value.hpp"
#include "axcore/compiler/script.hpp"

namespace axcore::compiler::ops {

enum class Level : uint8_t { Atomic, Core, Aten };
std::string to_string(Level l);

enum class ArgKind : uint8_t { Tensor, Tensors, Int, Float, Ints, String, Bool };
std::string to_string(ArgKind k);

using Tensor = A::BufferHandle;
using ArgValue =
    std::variant<std::monostate, Tensor, std::vector<Tensor>, int64_t, double, std::vector<int64_t>, std::string, bool>;

struct ArgSpec {
  std::string name;
  ArgKind kind = ArgKind::Tensor;
  bool required = false;
  ArgValue def;     // the default when not required (monostate: absent)
  std::string doc;  // what it is, and its limits
};

// What an operator produces: the packed shape (lanes in the dtype), the dtype, the scope.
struct BufferInfo {
  std::vector<int64_t> shape;
  std::string dtype;
  Scope scope = Scope::L1_WEAK;
};

struct OpDef;

// One bound call: the arguments by name (defaults filled in), where it was written, and the name
// its result gets.
class Call {
 public:
  Call(const OpDef& op, SourceLoc loc, std::string out_name)
      : op_(&op), loc_(std::move(loc)), out_(std::move(out_name)) {}
  const OpDef& op() const { return *op_; }
  const SourceLoc& loc() const { return loc_; }
  const std::string& out_name() const { return out_; }
  std::map<std::string, ArgValue>& args() { return args_; }
  const std::map<std::string, ArgValue>& args() const { return args_; }

  bool has(const std::string& name) const;
  Tensor tensor(const std::string& name) const;
  std::vector<Tensor> tensors(const std::string& name) const;
  int64_t i(const std::string& name) const;
  double f(const std::string& name) const;
  std::string s(const std::string& name) const;
  bool b(const std::string& name) const;
  std::vector<int64_t> ints(const std::string& name) const;  // as given (an int is a 1-list)
  // An int list of length n; a single int (or a one-element list) is repeated n times.
  std::vector<int64_t> ints(const std::string& name, std::size_t n) const;
  // Refuses the call: "<op>: argument '<arg>': <why>" at the call's location.
  [[noreturn]] void refuse(const std::string& arg, const std::string& why, const std::string& hint = {}) const;

 private:
  const OpDef* op_;
  SourceLoc loc_;
  std::string out_;
  std::map<std::string, ArgValue> args_;
};

struct OpDef {
  std::string name;  // "core.linear"
  Level level = Level::Atomic;
  std::string doc;
  std::vector<ArgSpec> args;
  std::function<void(const Call&)> validate;
  std::function<BufferInfo(const Call&)> infer_output;
  // Set for an op whose output is not a buffer of its own: a view (reshape), or a composite that
  // returns what the operators it invokes produce (the last one named c.out_name()). Then no
  // output is allocated and `implementation` is unused.
  std::function<Tensor(const Call&)> compose;
  // Emits the datapaths writing `out` (already allocated from infer_output). A composite op
  // invokes other operators here instead, and their references make up its own.
  std::function<void(const Call&, const Tensor& out)> implementation;
  // The reference: graph nodes (common/ref operators, run by the runtime's ref backend) that
  // compute `out` from the call's inputs. Empty for composites (their parts add theirs).
  std::function<std::vector<PrimFunc::GraphNode>(const Call&, const Tensor& out)> emulate;
};

// The device the operators size their working sets for, set around a model's build (the YAML
// front end's ModelOptions, axc --l1-bytes). core.linear whose input, weight and result do not
// fit `l1_bytes` together streams the weight through L1 one chunk of output blocks at a time (a
// SysDMA of the chunk before its LoadIMC), so only the chunk is in L1 next to the input and result.
struct Target {
  uint64_t l1_bytes = spec::param::l1_bytes;
};
const Target& target();
class TargetScope : ScopedValue<Target> {  // sets target() for its lifetime
 public:
  explicit TargetScope(const Target& t);
};

// The registry of every operator, in listing order.
const std::vector<OpDef>& registry();
// By full name ("core.linear"), or by a bare name resolved aten -> core -> atomic. nullptr if none.
const OpDef* find_op(const std::string& name);
// " (did you mean 'atomic.relu'?)" naming the candidate nearest to a misspelt name (operators,
// arguments, YAML keys), or "" when none is close.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);
// `axc ops`: every operator with its arguments.
std::string describe_ops();

// Binds positional and named arguments against the op's schema (kinds checked, defaults filled),
// then validates, allocates the output, emits the implementation and records the reference.
// Must run inside an A::Script. `out_name` "" picks a fresh name.
Tensor invoke(const std::string& op, const std::vector<ArgValue>& positional,
              const std::map<std::string, ArgValue>& named = {}, const std::string& out_name = "",
              A::Loc l = A::Loc::current());
Tensor invoke_at(const OpDef& op, const std::vector<ArgValue>& positional, const std::map<std::string, ArgValue>& named,
                 const std::string& out_name, const SourceLoc& loc);

}  // namespace axcore::compiler::ops
