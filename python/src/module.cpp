// _axcore: the C++ builder, operator library and bundle codec under the Python package `axcore`
// (docs/python.md). The Python side parses the user's source and calls these; every contract is
// checked here, in C++, and a CompileError arrives in Python as NativeCompileError(message, hint,
// file, line, column, text).
#include <pybind11/pybind11.h>

#include <axcore/compiler/diag.hpp>
#include <axcore/runtime/bundle.hpp>

#include "bindings.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_axcore, m) {
  m.doc() = "axcore's compiler builder, operator library and bundle codec (used by the axcore package)";
  static py::exception<axcore::compiler::CompileError> compile_error(m, "NativeCompileError");
  static py::exception<axcore::runtime::BundleError> bundle_error(m, "NativeBundleError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const axcore::compiler::CompileError& e) {
      const auto& l = e.loc();
      py::tuple args = py::make_tuple(e.message(), e.hint(), l.file, l.line, l.column, std::string(e.what()));
      PyErr_SetObject(compile_error.ptr(), args.ptr());
    } catch (const axcore::runtime::BundleError& e) { PyErr_SetString(bundle_error.ptr(), e.what()); }
  });
  auto script = m.def_submodule("script", "the builder (axcore/compiler/script.hpp)");
  axcore::python::bind_script(script);
  axcore::python::bind_parser(script);
  auto ops = m.def_submodule("ops", "the operator library (axcore/compiler/ops/op.hpp)");
  axcore::python::bind_ops(ops);
  auto rt = m.def_submodule("runtime", "compile and bundles");
  axcore::python::bind_runtime(rt);
}
