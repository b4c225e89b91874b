// The YAML model front end (guide §13's composed form): a model file names its inputs (logical
// shape, dtype), its constants (an .npy file, a seeded random init, or a fill value), an ordered
// list of operators with their arguments and result names, and its outputs. load_model builds
// the prim_func the compiler lowers; every error is a CompileError at the file's line:column.
//
//   name: mlp
//   inputs:
//     - {name: x, shape: [8, 256], dtype: int8}
//   constants:
//     - {name: w1, shape: [256, 128], dtype: int8, init: {seed: 1, low: -8, high: 8}}
//     - {name: b1, file: b1.npy}
//   ops:
//     - {op: core.linear, input: x, weight: w1, bias: b1, activation: relu, out: h}
//   outputs: [h]
#pragma once

#include <axcore/runtime/bundle.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "axcore/compiler/ops/op.hpp"

namespace axcore::compiler::frontend {

struct Model {
  std::string name;
  A::Module module{"model"};
  std::vector<std::string> inputs, constants, outputs;
  std::vector<std::string> ops;  // the operator of each entry, in order
  std::string source;            // the file it came from
};

// Parses `text`; `file` is what errors name, `base` where relative .npy paths resolve. The
// operators are built for `target` (its L1 budget: compile with the same TilingOptions::l1_bytes).
Model parse_model(const std::string& text, const std::string& file, const std::filesystem::path& base,
                  const ops::Target& target = {});
Model load_model(const std::filesystem::path& path, const ops::Target& target = {});

// The model's dispatch-time scalars (issue 24), empty for a static model:
//   dispatch_time:
//     - {name: M, min: 1, max: 64, multiple_of: 8, doc: rows streamed}
// An extent (or integer argument) may then name a scalar (`shape: [M, 64]`); `multiple_of` is a
// guard (`M must be a multiple of 8`). Such a model is built by stage_dispatch
// (compiler/dispatch.hpp; axc compile does), which parses it once per value of the scalars.
std::vector<runtime::DispatchScalar> model_dispatch_scalars(const std::string& text, const std::string& file);

// The seeded init the model files use (portable: the same values on every platform): int8
// integers uniform in [low, high], floats uniform in [low, high) rounded to float32.
std::vector<double> seeded_values(std::size_t n, uint64_t seed, double low, double high, bool integers);

}  // namespace axcore::compiler::frontend
