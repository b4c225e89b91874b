// An ONNX model decoded into plain C++ (graph.cpp): the nodes in file order with their attributes,
// the initializers as numbers, the graph's inputs and outputs with their shapes. parse_graph checks
// everything a later stage reads (tensor sizes against their dims, element counts, names) so a
// malformed, truncated or hostile file is an OnnxError naming what is wrong, never a crash.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace axcore::compiler::onnx {

class OnnxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// onnx.TensorProto.DataType values the importer reads; others are kept as their number.
enum ElemType : int32_t { kFloat = 1, kUint8 = 2, kInt8 = 3, kInt32 = 6, kInt64 = 7, kDouble = 11 };
std::string elem_type_name(int32_t t);

struct TensorData {
  std::string name;
  int32_t elem_type = 0;
  std::vector<int64_t> dims;
  std::vector<double> values;  // C order; empty with `readable` false for an element type not read
  bool readable = true;
  std::size_t size() const;  // the product of dims
};

struct ValueInfo {
  std::string name;
  int32_t elem_type = 0;
  std::vector<int64_t> dims;  // -1: a symbolic or missing extent
  bool has_shape = false;
};

struct Attr {
  enum class Kind : uint8_t { Int, Float, Ints, Floats, String, Tensor, Other };
  std::string name;
  Kind kind = Kind::Other;
  int64_t i = 0;
  double f = 0;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::string s;
  std::optional<TensorData> t;
};
std::string attr_kind_name(Attr::Kind k);

struct Node {
  std::size_t index = 0;  // position in graph.node, 0-based
  std::string name;       // the node's name, or "<op_type>#<index>" when it has none
  std::string op_type, domain;
  std::vector<std::string> inputs, outputs;  // "" = an omitted optional input
  std::vector<Attr> attrs;
  const Attr* attr(const std::string& n) const;
};

struct Graph {
  std::string name, producer;
  int64_t ir_version = 0, opset = 0;       // opset of the default domain
  std::vector<ValueInfo> inputs, outputs;  // inputs without the initializers
  std::map<std::string, TensorData> initializers;
  std::vector<Node> nodes;
};

// Decodes a serialized ModelProto. `what` names the source in errors.
Graph parse_graph(const void* data, std::size_t size, const std::string& what);
Graph load_graph(const std::filesystem::path& path);

}  // namespace axcore::compiler::onnx
