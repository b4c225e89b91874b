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
#include <deque>
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
  ArgSpec() = default;
  ArgSpec(std::string n, ArgKind k, bool req, ArgValue d, std::string text, std::string alt = {}, bool out = false)
      : name(std::move(n)),
        kind(k),
        required(req),
        def(std::move(d)),
        doc(std::move(text)),
        scalar_alt(std::move(alt)),
        is_output(out) {}
  std::string name;
  ArgKind kind = ArgKind::Tensor;
  bool required = false;
  ArgValue def;     // the default when not required (monostate: absent)
  std::string doc;  // what it is, and its limits
  // A tensor argument that also takes a number: a number given here (by position or by name)
  // binds this argument instead — atomic.mul(inp, 2.0) is mul(inp, value=2.0) (guide Part II §2).
  std::string scalar_alt;
  // The output (guide §4.3 Arg(is_output=True)): the buffer the call writes. Not given, it is
  // allocated from infer_output. Every operator has one ("output", appended last when the op
  // declares none), so output= works on every call, and by position where the guide passes it
  // so (atomic.load_imc(weight, imc)).
  bool is_output = false;
  // Keyword-only (guide §4.3 Arg(kw=True)): passed by name only — dpu_cast(x, core=0), never
  // dpu_cast(x, 0). Positional arguments bind the others in declaration order.
  bool kw_only = false;
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
  // A given output must have infer_output's shape and dtype (the library's operators). An op
  // authored like the guide's ScriptOp takes a given output as it is (its dtype may choose what
  // it computes, AtomicDpuCast's cast target) and checks it in validate.
  bool check_given_output = true;
  // The tensor arguments a given output may be (the op reads each element before it writes it:
  // elementwise ops, matmul's partial=); any other alias of the output is refused.
  std::vector<std::string> in_place;
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

// The registry of every operator, in listing order: the library's, then those register_op added.
const std::deque<OpDef>& registry();
// By full name ("core.linear"), or by a bare name resolved aten -> core -> atomic. nullptr if none.
// An operator added by register_op under a library name is the one found.
const OpDef* find_op(const std::string& name);

// register_op (guide §4.3): adds a user operator to the registry under `def.name`
// ("atomic.<name>", "core.<name>" or "aten.<name>"; `def.level` is set from the prefix), callable
// by name through invoke, listed by describe_ops, usable in YAML models. Registering a name again
// (a library operator's too) replaces it for later calls. Refuses (std::invalid_argument) a name
// without a level, a level `atomic` disagrees with (atomic=true is axol.atomic only), an op with
// neither implementation nor compose, or without infer_output when it has an implementation.
// An output argument is appended when the op declares none. Returns the registered definition.
const OpDef& register_op(OpDef def, bool atomic = false);
// " (did you mean 'atomic.relu'?)" naming the candidate nearest to a misspelt name (operators,
// arguments, YAML keys), or "" when none is close.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);
// `axc ops`: every operator with its arguments.
std::string describe_ops();

// Binds positional and named arguments against the op's schema (kinds checked, defaults filled),
// then validates, allocates the output (or takes the given output=), emits the implementation and
// records the reference. Must run inside an A::Script. `out_name` "" picks a fresh name.
//
// Every call also takes the guide's call keywords (§10, §12), unless the op declares an argument
// of that name itself (the guide's AtomicDpuCast declares its own core=):
//   id="load"   tags every launch the call makes (its datapaths, LoadIMCs, DMAs); they are not
//               waited after the call: A::sync / A::waits("load") waits for all of them
//   core=n      runs the call's launches on core n (the call inside A::AICore(n))
//   where=b     a build-time condition gating the call: false emits nothing and records no
//               reference, so the call's output= keeps what it held (output= is then required)
Tensor invoke(const std::string& op, const std::vector<ArgValue>& positional,
              const std::map<std::string, ArgValue>& named = {}, const std::string& out_name = "",
              A::Loc l = A::Loc::current());
Tensor invoke_at(const OpDef& op, const std::vector<ArgValue>& positional, const std::map<std::string, ArgValue>& named,
                 const std::string& out_name, const SourceLoc& loc);

}  // namespace axcore::compiler::ops
