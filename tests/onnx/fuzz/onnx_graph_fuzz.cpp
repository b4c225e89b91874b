// libFuzzer over the ONNX graph loader (compiler/frontend/onnx/src/graph.cpp): any byte string
// either decodes to a Graph whose every readable tensor holds exactly its dims' element count,
// or is refused with an OnnxError; nothing else escapes, and ASan/UBSan see no fault.
#include <cstdint>
#include <cstdlib>

#include "axcore/compiler/onnx/graph.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace axcore::compiler::onnx;
  try {
    const Graph g = parse_graph(data, size, "fuzz.onnx");
    for (const auto& [name, t] : g.initializers)
      if (t.readable && t.values.size() != t.size()) std::abort();
    for (const auto& n : g.nodes)
      for (const auto& a : n.attrs)
        if (a.t && a.t->readable && a.t->values.size() != a.t->size()) std::abort();
  } catch (const OnnxError&) {}
  return 0;
}
