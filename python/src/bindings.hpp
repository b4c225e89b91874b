// The pieces of the _axcore extension (module.cpp): one function per binding file.
#pragma once

#include <pybind11/pybind11.h>

namespace axcore::python {

void bind_script(pybind11::module_& m);   // the builder: the guide's A namespace (bind_script.cpp)
void bind_ops(pybind11::module_& m);      // the operator library and Python-authored ops (bind_ops.cpp)
void bind_runtime(pybind11::module_& m);  // compile, bundles (bind_runtime.cpp)

}  // namespace axcore::python
