// The ONNX importer: an ONNX graph (graph.hpp) -> the prim_func the compiler lowers, built from the
// same operator-library calls as the YAML front end (compiler/frontend). Quantized graphs in the
// QDQ form (QuantizeLinear / DequantizeLinear around Conv, MatMul, Gemm, pools, ...) and the
// QOperator form (QLinearConv, QLinearMatMul), per-tensor and per-channel weight scales; NCHW
// tensors live on the device as (N, H, W, C) with the channels packed, and the bundle's inputs
// and outputs keep the ONNX names, shapes and layouts (PWORDS on the channel axis for NCHW).
// Anything the operator library cannot run exactly is refused naming the node, its op type, what
// is unsupported and what is (CompileError at "<file>:<node number>:1"). docs/onnx.md.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "axcore/compiler/onnx/graph.hpp"
#include "axcore/compiler/ops/op.hpp"

namespace axcore::compiler::onnx {

struct Imported {
  std::string name;
  A::Module module{"onnx"};
  std::vector<std::string> inputs, outputs;
  std::vector<std::string> mapping;  // one line per ONNX node: node -> the operators it became
  std::vector<std::string> layouts;  // one line per graph input / output: the device layout chosen
};

Imported import_graph(const Graph& g, const std::string& file, const ops::Target& target = {});
// load_graph + import_graph; an OnnxError (malformed file) becomes a CompileError naming the file.
Imported import_model(const std::filesystem::path& path, const ops::Target& target = {});
// What `axc import` prints: the layouts, then the node -> operator mapping.
std::string describe(const Imported& m);

}  // namespace axcore::compiler::onnx
