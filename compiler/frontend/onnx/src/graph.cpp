// ModelProto -> onnx::Graph (graph.hpp). Protobuf decodes the wire format (a truncated or corrupt
// file fails there); everything after is checked here: element counts against dims (with an
// overflow-safe product and a size cap), raw_data lengths, external data (refused), empty or
// duplicate names, opsets.
#include "axcore/compiler/onnx/graph.hpp"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace axcore::compiler::onnx {
namespace {

constexpr std::size_t kMaxElements = std::size_t{1} << 28;  // a tensor larger than this is refused
constexpr std::size_t kMaxDims = 8;

[[noreturn]] void bad(const std::string& what, const std::string& why) { throw OnnxError(what + ": " + why); }

std::size_t checked_count(const std::vector<int64_t>& dims, const std::string& what) {
  if (dims.size() > kMaxDims) bad(what, "rank " + std::to_string(dims.size()) + " exceeds " + std::to_string(kMaxDims));
  std::size_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) bad(what, "negative extent " + std::to_string(d));
    if (d != 0 && n > kMaxElements / static_cast<std::size_t>(d))
      bad(what, "more than " + std::to_string(kMaxElements) + " elements");
    n *= static_cast<std::size_t>(d);
  }
  return n;
}

template <class T>
void from_raw(const std::string& raw, std::size_t n, std::vector<double>& out, const std::string& what) {
  if (raw.size() != n * sizeof(T))
    bad(what, "raw_data holds " + std::to_string(raw.size()) + " bytes, the dims need " + std::to_string(n) + " x " +
                  std::to_string(sizeof(T)));
  out.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    T v;
    std::memcpy(&v, raw.data() + k * sizeof(T), sizeof(T));  // little-endian hosts only (x86-64, aarch64)
    out[k] = static_cast<double>(v);
  }
}

template <class Field>
void from_field(const Field& f, std::size_t n, std::vector<double>& out, const std::string& what, const char* field) {
  if (static_cast<std::size_t>(f.size()) != n)
    bad(what,
        std::string(field) + " holds " + std::to_string(f.size()) + " values, the dims need " + std::to_string(n));
  out.assign(f.begin(), f.end());
}

TensorData tensor(const ::onnx::TensorProto& t, const std::string& ctx) {
  TensorData d;
  d.name = t.name();
  d.elem_type = t.data_type();
  d.dims.assign(t.dims().begin(), t.dims().end());
  const std::string what = ctx + " tensor '" + d.name + "'";
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL || t.external_data_size() > 0)
    bad(what,
        "uses external data; save the model with the weights inside the file (onnx.save(..., "
        "save_as_external_data=False))");
  if (t.has_segment()) bad(what, "is segmented; segments are not supported");
  const std::size_t n = checked_count(d.dims, what);
  const bool raw = t.has_raw_data();
  switch (d.elem_type) {
    case kFloat:
      raw ? from_raw<float>(t.raw_data(), n, d.values, what)
          : from_field(t.float_data(), n, d.values, what, "float_data");
      break;
    case kDouble:
      raw ? from_raw<double>(t.raw_data(), n, d.values, what)
          : from_field(t.double_data(), n, d.values, what, "double_data");
      break;
    case kUint8:
      raw ? from_raw<uint8_t>(t.raw_data(), n, d.values, what)
          : from_field(t.int32_data(), n, d.values, what, "int32_data");
      break;
    case kInt8:
      raw ? from_raw<int8_t>(t.raw_data(), n, d.values, what)
          : from_field(t.int32_data(), n, d.values, what, "int32_data");
      break;
    case kInt32:
      raw ? from_raw<int32_t>(t.raw_data(), n, d.values, what)
          : from_field(t.int32_data(), n, d.values, what, "int32_data");
      break;
    case kInt64:
      raw ? from_raw<int64_t>(t.raw_data(), n, d.values, what)
          : from_field(t.int64_data(), n, d.values, what, "int64_data");
      break;
    default: d.readable = false; break;
  }
  if (d.elem_type == kUint8 || d.elem_type == kInt8)
    for (double v : d.values)
      if (v != static_cast<double>(static_cast<int64_t>(v)) || v < (d.elem_type == kInt8 ? -128 : 0) ||
          v > (d.elem_type == kInt8 ? 127 : 255))
        bad(what, "holds " + std::to_string(v) + ", outside its element type " + elem_type_name(d.elem_type));
  return d;
}

ValueInfo value_info(const ::onnx::ValueInfoProto& v, const std::string& ctx) {
  ValueInfo r;
  r.name = v.name();
  if (r.name.empty()) bad(ctx, "a value without a name");
  if (v.has_type() && v.type().has_tensor_type()) {
    const auto& tt = v.type().tensor_type();
    r.elem_type = tt.elem_type();
    if (tt.has_shape()) {
      r.has_shape = true;
      if (static_cast<std::size_t>(tt.shape().dim_size()) > kMaxDims)
        bad(ctx + " '" + r.name + "'",
            "rank " + std::to_string(tt.shape().dim_size()) + " exceeds " + std::to_string(kMaxDims));
      for (const auto& d : tt.shape().dim()) r.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
      for (int64_t d : r.dims)
        if (d < -1 || d > static_cast<int64_t>(kMaxElements))
          bad(ctx + " '" + r.name + "'", "extent " + std::to_string(d));
    }
  }
  return r;
}

Attr attribute(const ::onnx::AttributeProto& a, const std::string& ctx) {
  Attr r;
  r.name = a.name();
  if (r.name.empty()) bad(ctx, "an attribute without a name");
  using P = ::onnx::AttributeProto;
  switch (a.type()) {
    case P::INT:
      r.kind = Attr::Kind::Int;
      r.i = a.i();
      break;
    case P::FLOAT:
      r.kind = Attr::Kind::Float;
      r.f = a.f();
      break;
    case P::INTS:
      r.kind = Attr::Kind::Ints;
      r.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case P::FLOATS:
      r.kind = Attr::Kind::Floats;
      r.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case P::STRING:
      r.kind = Attr::Kind::String;
      r.s = a.s();
      break;
    case P::TENSOR:
      r.kind = Attr::Kind::Tensor;
      r.t = tensor(a.t(), ctx + " attribute '" + r.name + "'");
      break;
    default: r.kind = Attr::Kind::Other; break;
  }
  return r;
}

}  // namespace

std::string elem_type_name(int32_t t) {
  switch (t) {
    case kFloat: return "float32";
    case kUint8: return "uint8";
    case kInt8: return "int8";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case kDouble: return "float64";
    case 10: return "float16";
    case 9: return "bool";
    default: return "element type " + std::to_string(t);
  }
}

std::string attr_kind_name(Attr::Kind k) {
  switch (k) {
    case Attr::Kind::Int: return "int";
    case Attr::Kind::Float: return "float";
    case Attr::Kind::Ints: return "ints";
    case Attr::Kind::Floats: return "floats";
    case Attr::Kind::String: return "string";
    case Attr::Kind::Tensor: return "tensor";
    case Attr::Kind::Other: return "graph/sparse/other";
  }
  return "?";
}

std::size_t TensorData::size() const {
  std::size_t n = 1;
  for (int64_t d : dims) n *= static_cast<std::size_t>(d);
  return n;
}

const Attr* Node::attr(const std::string& n) const {
  for (const auto& a : attrs)
    if (a.name == n) return &a;
  return nullptr;
}

Graph parse_graph(const void* data, std::size_t size, const std::string& what) {
  if (size > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    bad(what, "larger than 2 GiB (protobuf's limit)");
  ::onnx::ModelProto m;
  if (!m.ParseFromArray(data, static_cast<int>(size)))
    bad(what, "not an ONNX model: the protobuf does not decode (truncated or corrupt file)");
  if (!m.has_graph()) bad(what, "the model has no graph (an empty or non-ONNX file?)");
  Graph g;
  g.ir_version = m.ir_version();
  g.producer = m.producer_name();
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") g.opset = o.version();
  if (g.opset == 0) bad(what, "no opset_import for the default ONNX domain");
  const auto& gp = m.graph();
  g.name = gp.name();
  std::set<std::string> init_names;
  for (const auto& t : gp.initializer()) {
    if (t.name().empty()) bad(what, "an initializer without a name");
    TensorData d = tensor(t, what + ": initializer");
    if (!g.initializers.emplace(d.name, std::move(d)).second)
      bad(what, "initializer '" + t.name() + "' is defined twice");
  }
  if (gp.sparse_initializer_size() > 0) bad(what, "sparse initializers are not supported");
  for (const auto& v : gp.input()) {
    ValueInfo vi = value_info(v, what + ": graph input");
    if (!g.initializers.count(vi.name)) g.inputs.push_back(std::move(vi));
  }
  for (const auto& v : gp.output()) g.outputs.push_back(value_info(v, what + ": graph output"));
  for (const auto& np : gp.node()) {
    Node n;
    n.index = g.nodes.size();
    n.op_type = np.op_type();
    n.domain = np.domain();
    n.name = np.name().empty() ? n.op_type + "#" + std::to_string(n.index) : np.name();
    if (n.op_type.empty()) bad(what, "node " + std::to_string(n.index) + " has no op_type");
    const std::string ctx = what + ": node '" + n.name + "' (" + n.op_type + ")";
    n.inputs.assign(np.input().begin(), np.input().end());
    n.outputs.assign(np.output().begin(), np.output().end());
    for (const auto& o : n.outputs)
      if (o.empty()) bad(ctx, "an output without a name");
    for (const auto& a : np.attribute()) n.attrs.push_back(attribute(a, ctx));
    g.nodes.push_back(std::move(n));
  }
  if (g.outputs.empty()) bad(what, "the graph has no outputs");
  return g;
}

Graph load_graph(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw OnnxError("cannot open " + path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  return parse_graph(bytes.data(), bytes.size(), path.string());
}

}  // namespace axcore::compiler::onnx
