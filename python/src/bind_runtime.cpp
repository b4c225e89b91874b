// compile() and the `.axb` bundle codec for Python: a compiled module comes back as the bundle's
// bytes (the runtime runs it in a child process), and a bundle's bytes decode to what the Python
// Bundle shows (buffers, graph, metadata).
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/script.hpp>
#include <axcore/num/float18.hpp>
#include <axcore/num/lut.hpp>
#include <axcore/runtime/bundle.hpp>
#include <chrono>

#include "bindings.hpp"

namespace py = pybind11;

namespace axcore::python {
namespace {

namespace A = compiler::A;

py::bytes to_bytes(const std::vector<uint8_t>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size()};  // NOLINT: bytes are chars
}

std::vector<uint8_t> from_bytes(const py::bytes& b) {
  const std::string s = b;
  return {s.begin(), s.end()};
}

py::object attr(const runtime::AttrValue& v) {
  return std::visit([](const auto& x) -> py::object { return py::cast(x); }, v);
}

py::dict info(const runtime::Bundle& b) {
  py::list buffers;
  for (const auto& d : b.buffers) {
    py::dict x;
    x["name"] = d.name;
    x["role"] = std::string(runtime::to_string(d.role));
    x["dtype"] = std::string(spec::to_string(d.dtype));
    x["shape"] = py::tuple(py::cast(d.shape));
    x["layout"] = std::string(runtime::to_string(d.layout.kind));
    x["axis"] = d.layout.axis;
    buffers.append(x);
  }
  py::list graph;
  for (const auto& n : b.graph) {
    py::dict attrs;
    for (const auto& [k, v] : n.attrs) attrs[py::str(k)] = attr(v);
    graph.append(py::dict(py::arg("op") = n.op, py::arg("inputs") = n.inputs, py::arg("outputs") = n.outputs,
                          py::arg("attrs") = attrs));
  }
  py::list scalars;
  for (const auto& s : b.dispatch.scalars)
    scalars.append(
        py::dict(py::arg("name") = s.name, py::arg("min") = s.min, py::arg("max") = s.max, py::arg("doc") = s.doc));
  py::dict r;
  r["dispatch_time"] = scalars;
  r["buffers"] = buffers;
  r["graph"] = graph;
  r["metadata"] = b.metadata;
  r["txn_words"] = b.txn.size();
  r["describe"] = runtime::describe(b);
  return r;
}

}  // namespace

void bind_runtime(py::module_& m) {
  m.def(
      "compile",
      [](const A::Module& mod, uint32_t cores, const std::string& name, const std::string& source, bool explain,
         bool hazards_are_errors) {
        compiler::CompileOptions opt;
        opt.cores = cores;
        opt.name = name;
        opt.source = source;
        opt.hazards_are_errors = hazards_are_errors;
        const auto r = compiler::compile(mod.ir().main(), opt);
        py::dict d;
        d["bundle"] = to_bytes(runtime::encode_bundle(r.bundle));
        d["total_ms"] = r.total_ms;
        d["explain"] = explain ? compiler::explain(r.program) : std::string();
        py::list warnings;  // the §14 hazards: (kind, message, hint, file, line, column, related file/line/column/what)
        for (const auto& w : r.warnings)
          warnings.append(py::make_tuple(w.kind, w.message, w.hint, w.loc.file, w.loc.line, w.loc.column,
                                         w.related.file, w.related.line, w.related.column, w.related_what));
        d["warnings"] = warnings;
        return d;
      },
      py::arg("module"), py::arg("cores") = 1, py::arg("name") = "", py::arg("source") = "", py::arg("explain") = false,
      py::arg("hazards_are_errors") = false);
  m.def("bundle_info", [](const py::bytes& b) { return info(runtime::decode_bundle(from_bytes(b))); });
  // The concrete bundle a call with these dispatch-time values runs (runtime::bind_dispatch); a
  // refused call is a ValueError with the guard's message.
  m.def("bind_dispatch", [](const py::bytes& b, const std::map<std::string, int64_t>& values) {
    runtime::DispatchValues v(values.begin(), values.end());
    try {
      return to_bytes(runtime::encode_bundle(runtime::bind_dispatch(runtime::decode_bundle(from_bytes(b)), v)));
    } catch (const runtime::DispatchError& e) { throw py::value_error(e.what()); }
  });
  // The guide's emu.rf18: a float32 array rounded to float18 precision (common/num).
  m.def("rf18", [](const py::array_t<float, py::array::c_style | py::array::forcecast>& a) {
    py::array_t<float> r(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()));
    const float* in = a.data();
    float* out = r.mutable_data();
    for (py::ssize_t k = 0; k < a.size(); ++k) out[k] = num::rf18(in[k]);
    return r;
  });
  // The guide's lut_chain utilities (§7, axcore.axol.utils.lut_chain): the fit of common/num, each
  // table as its packed float32 PWORD.
  m.def(
      "lut_fit",
      [](double x_min, double x_max, int n_luts, const std::function<double(double)>& f) {
        std::vector<std::vector<float>> out;
        for (const auto& p : num::compute_chained_lut_params(x_min, x_max, n_luts, f)) {
          const num::PwordF32 w = num::pack_lut_params_to_pword(p);
          out.emplace_back(w.begin(), w.end());
        }
        return out;
      },
      py::arg("x_min"), py::arg("x_max"), py::arg("n_luts"), py::arg("func"));
  // The DPU's LUT of float32 values (rounded to float18) against chained packed tables (emu.lut).
  m.def("lut_eval", [](const py::array_t<float, py::array::c_style | py::array::forcecast>& a,
                       const std::vector<std::vector<float>>& packed) {
    std::vector<num::PwordF18> tables;
    for (const auto& t : packed) {
      if (t.size() != num::kLanes) throw py::value_error("a LUT table is one PWORD of 64 float32 values");
      num::PwordF32 w{};
      std::copy(t.begin(), t.end(), w.begin());
      tables.push_back(num::load_lut_table(w));
    }
    py::array_t<float> r(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()));
    const float* in = a.data();
    float* out = r.mutable_data();
    for (py::ssize_t k = 0; k < a.size(); ++k)
      out[k] = num::to_float(num::lut_eval(num::f18_from_float(in[k]), tables));
    return r;
  });
  m.def("spec_hash", [] { return spec::kSpecHash; });
  // One IMC residency in 64x64 tiles (spec imc_tiles): where a reduction is split into K passes.
  m.attr("IMC_TILES") = static_cast<int>(spec::param::imc_tiles);
}

}  // namespace axcore::python
