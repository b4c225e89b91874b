// The importer's working state, shared by the per-concern files: the value every ONNX tensor name
// holds (a constant, a quantized constant, or a device tensor — real float32, quantized int8, or a
// DequantizeLinear of one not yet materialised), the current node, and the refusal helper.
#pragma once

#include <functional>
#include <map>
#include <set>

#include "axcore/compiler/onnx/import.hpp"

namespace axcore::compiler::onnx::detail {

using ops::Tensor;

// Per-tensor (one entry) or per-axis scale and zero point, zero points in the int8 domain (a
// uint8 zero point z is held as z - 128 and its values shifted the same way).
struct QParams {
  std::vector<double> scale, zero;
  int64_t axis = 1;
  bool per_tensor() const { return scale.size() == 1; }
  bool operator==(const QParams&) const = default;
};

// How a device tensor's ONNX shape lies on the device. Rows: the ONNX shape with its last axis
// packed (padded to 64 lanes). Image: an NCHW (N, C, H, W) tensor as (N, H, W, C/64) x 64 lanes.
enum class Layout { Rows, Image };

struct Value {
  enum class Kind { Const, QConst, Real, Quant, Dq };
  Kind kind = Kind::Const;
  TensorData c;                // Const: the values; QConst: the integers (int8 domain)
  QParams q;                   // QConst, Quant, Dq
  Tensor t;                    // Real: float32; Quant / Dq: int8
  std::vector<int64_t> shape;  // the ONNX shape (every kind)
  Layout layout = Layout::Rows;
  // A flattened NCHW image (Flatten / Reshape to (N, C*H*W)): the device holds the features in
  // (H, W, C padded) order; feature_map[device index] is the ONNX feature index, or -1 for a pad
  // channel. Only a MatMul / Gemm takes it (its weight rows are laid out through the map).
  std::vector<int64_t> feature_map;
  bool device() const { return kind == Kind::Real || kind == Kind::Quant || kind == Kind::Dq; }
};

class Ctx {
 public:
  Ctx(const Graph& graph, std::string path) : g(graph), file(std::move(path)) {}
  const Graph& g;
  std::string file;
  std::map<std::string, Value> values;
  std::map<std::string, std::vector<std::size_t>> consumers;  // tensor -> the nodes reading it
  std::set<std::string> graph_outputs;
  std::set<std::size_t> fused;  // nodes an earlier node's lowering already covered
  const Node* node = nullptr;
  std::vector<std::string> ops_of_node;       // the operators the current node became
  std::string note;                           // a layout or fusion note for the mapping line
  std::vector<std::function<void()>> at_end;  // run after every node (I/O buffers' bundle shapes)

  SourceLoc loc() const;
  // "node 'conv1' (Conv): <what>; supported: <supported>" at the node.
  [[noreturn]] void refuse(const std::string& what, const std::string& supported) const;
  bool has_in(std::size_t i) const;
  const Value& in(std::size_t i) const;
  const TensorData& const_in(std::size_t i, const std::string& role) const;  // a Const input
  int64_t attr_i(const std::string& n, int64_t def) const;
  double attr_f(const std::string& n, double def) const;
  std::vector<int64_t> attr_ints(const std::string& n, std::vector<int64_t> def) const;
  std::string attr_s(const std::string& n, std::string def) const;
  // Refuses every attribute of the current node not in `known`.
  void known_attrs(const std::vector<std::string>& known) const;
  // A device name for an ONNX tensor name (unique); a graph output's name is kept as it is.
  std::string dev_name(const std::string& onnx, const std::string& suffix = "");
  // ops::invoke_at at the node; an operator's refusal is rethrown naming the node.
  Tensor invoke(const std::string& op, const std::vector<ops::ArgValue>& pos,
                const std::map<std::string, ops::ArgValue>& named, const std::string& out);
  // The single consumer of `tensor` when it has exactly one and is not a graph output.
  const Node* sole_consumer(const std::string& tensor) const;
  void set_out(std::size_t i, Value v);

 private:
  std::set<std::string> used_names_;
};

std::string shape_text(const std::vector<int64_t>& s);      // "(1, 3, 8, 8)"
inline int64_t blocks(int64_t n) { return (n + 63) / 64; }  // PWORDs of n lanes

// quant.cpp
QParams qparams(Ctx& c, std::size_t scale_in, std::size_t zero_in, int64_t axis, const std::string& what);
std::vector<double> int8_domain(const TensorData& t);                 // uint8 values shifted by -128
Tensor real_tensor(Ctx& c, const Value& v, const std::string& stem);  // float32 on the device
void lower_quantize(Ctx& c);
void lower_dequantize(Ctx& c);

// layout.cpp
Value graph_input(Ctx& c, A::Func& f, const ValueInfo& vi, std::vector<std::string>& layouts);
void graph_output(Ctx& c, const ValueInfo& vi, std::vector<std::string>& layouts);
std::vector<int64_t> device_shape(const std::vector<int64_t>& onnx, Layout l);  // packed
Tensor image_plane(Ctx& c, const Value& v, int64_t n);  // image n of an Image value as (H, W, Cb)
Tensor stack_images(Ctx& c, const std::vector<Tensor>& planes, const std::string& out);  // -> (N, H, W, Cb)
Tensor make_constant(const std::string& name, const std::vector<int64_t>& packed, const std::string& dtype,
                     std::vector<double> values);
Tensor channel_vector(Ctx& c, const std::string& stem, const std::vector<double>& v);  // (C,) float32, padded

// lower_*.cpp: one function per ONNX op type; registry in import.cpp.
using Lowering = std::function<void(Ctx&)>;
void add_mvm_lowerings(std::map<std::string, Lowering>& r);
void add_elementwise_lowerings(std::map<std::string, Lowering>& r);
void add_shape_lowerings(std::map<std::string, Lowering>& r);
void add_pool_lowerings(std::map<std::string, Lowering>& r);

}  // namespace axcore::compiler::onnx::detail
