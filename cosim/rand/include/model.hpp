// Random YAML models through the whole stack (issue 26 §5, compiler fuzzing as Csmith does for C
// compilers): a chain or small DAG of 2–8 operators of the operator library (linear, conv,
// depthwise conv, pools, elementwise with a per-channel, scalar or tensor operand, relu, quantize,
// softmax, layer norm, reshape, concat, slices) on random legal shapes and attributes, constants
// seeded. The model is plain data (JSON) like the other random programs: shapes are derived from
// the input shape and the operators' attributes, so a reducer can drop operators or shrink the
// input and get a model that is legal again (or is told why not). The golden is the ref backend:
// the runner compiles model.yaml with axc and runs it on every backend.
//
// `dwpu` is the one-operator form: a single DWPU datapath (depthwise conv, or a MAX/MIN/SUM/AVERAGE
// pool, 1-D or 2-D) with random windows, strides, dilations, ceil_mode and AVERAGE divisors.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace axcore::rand {

struct ModelOp {
  std::string op;  // linear conv dwconv pool add sub mul prelu relu quantize softmax layernorm reshape concat slice
  int src = -1;    // the input tensor: 0 = the model input, i = the result of op i-1; -1 = the previous result
  int src2 = -1;   // add/sub/mul/prelu with a tensor operand, concat: the second tensor
  int64_t n = 64;  // linear / conv: output channels
  int64_t kh = 1, kw = 1, stride = 1, dilation = 1, pad = 0;  // conv / dwconv / pool windows
  bool one_d = false;                                         // dwconv / pool: the 1-D form on (L, C)
  bool ceil_mode = false;                                     // pool
  int64_t divisor = 0;                                        // pool AVERAGE: divisor_override
  std::string pool;                                           // MAX MIN SUM AVERAGE
  bool relu = false, bias = false;                            // linear / conv epilogue
  double scale = 0;                                           // quantize: > 0; linear / conv: 0 = none
  std::string operand;                                        // add/sub/mul/prelu: channel, scalar or tensor
  double value = 0;                                           // scalar operand
  int64_t start = 0, end = 0, step = 1;  // slice along dim 0; reshape: end = the new leading extent
  uint64_t seed = 0;                     // its constants
};

struct ModelProgram {
  uint64_t seed = 0;
  uint32_t cores = 1;
  std::string kind = "model";  // model or dwpu
  std::vector<int64_t> input_shape;
  std::string input_dtype = "int8";  // int8 or float32
  std::vector<ModelOp> ops;
};

struct TensorInfo {
  std::vector<int64_t> shape;
  std::string dtype;  // int8 or float32
  bool view = false;  // a reshape of the model input (not an output)
};

// The shapes of the input and of every op's result, or why the model is not legal.
struct Derived {
  std::vector<TensorInfo> tensors;
  std::string error;  // "" when legal
};
Derived derive(const ModelProgram& p);

ModelProgram generate_model(uint64_t seed, uint32_t cores, const std::string& kind = "model");

nlohmann::json to_json(const ModelProgram& p);
ModelProgram model_from_json(const nlohmann::json& j);  // throws std::runtime_error naming the field
bool is_model_json(const nlohmann::json& j);            // "kind": model / dwpu

std::string model_yaml(const ModelProgram& p);  // throws std::runtime_error when not legal
std::vector<std::string> coverage_points(const ModelProgram& p);
std::vector<std::string> model_coverage_space(const std::string& kind);
std::string summary(const ModelProgram& p);

// Writes DIR/model.json, DIR/model.yaml, DIR/coverage.json, DIR/coverage_space.json.
void write_model_program(const ModelProgram& p, const std::filesystem::path& dir);

// Smaller legal variants, smallest model first: fewer operators (the last dropped, one inside
// bypassed), a smaller input (fewer rows, a smaller image, fewer channels), simpler attributes.
std::vector<ModelProgram> shrink_model(const ModelProgram& p);
// Greedy: the first candidate that still fails is kept, until none does (a fixpoint).
ModelProgram reduce_model(ModelProgram p, const std::function<bool(const ModelProgram&)>& fails,
                          unsigned* tried = nullptr);
// The size the reducer minimises: operators first, then input elements.
std::pair<std::size_t, int64_t> model_size(const ModelProgram& p);

}  // namespace axcore::rand
