# Finds every dependency with CMake's own mechanisms. A missing one fails configure with the
# Debian package that provides it and the command that installs everything.
set(_axcore_setup_hint "run scripts/setup-deps (it apt-get installs what is missing)")

macro(axcore_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "axcore: ${what} not found: install the Debian package '${package}' "
                        "or ${_axcore_setup_hint}")
  endif()
endmacro()

find_package(yaml-cpp QUIET)
axcore_require(yaml-cpp_FOUND "yaml-cpp" libyaml-cpp-dev)
find_package(fmt QUIET)
axcore_require(fmt_FOUND "fmt" libfmt-dev)
find_package(CLI11 QUIET)
axcore_require(CLI11_FOUND "CLI11" libcli11-dev)
find_package(nlohmann_json 3.10 QUIET)
axcore_require(nlohmann_json_FOUND "nlohmann-json" nlohmann-json3-dev)
find_package(GTest QUIET)
axcore_require(GTest_FOUND "GoogleTest" "libgtest-dev libgmock-dev")
find_package(benchmark QUIET)
axcore_require(benchmark_FOUND "Google Benchmark" libbenchmark-dev)
find_package(Boost 1.74 QUIET)
axcore_require(Boost_FOUND "Boost" libboost-dev)
find_package(Threads REQUIRED)
find_package(PkgConfig QUIET)
axcore_require(PKG_CONFIG_FOUND "pkg-config" pkg-config)

if(AXCORE_BUILD_TLM)
  pkg_check_modules(SYSTEMC QUIET IMPORTED_TARGET systemc)
  axcore_require(SYSTEMC_FOUND "SystemC (pkg-config systemc)" libsystemc-dev)
endif()
if(AXCORE_BUILD_RTL)
  find_package(verilator QUIET HINTS /usr/share/verilator $ENV{VERILATOR_ROOT})
  axcore_require(verilator_FOUND "Verilator" verilator)
  find_program(AXCORE_VERILATOR_BIN verilator)
  axcore_require(AXCORE_VERILATOR_BIN "the verilator executable" verilator)
endif()

# The Python package (python/, docs/python.md): Debian's python3-dev, pybind11-dev, python3-numpy and
# python3-pytest, for the interpreter those packages install into (not another python3 on PATH).
if(AXCORE_BUILD_PYTHON)
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python3 QUIET COMPONENTS Interpreter Development.Module)
  axcore_require(Python3_FOUND "Python 3 with its headers (or configure with -DAXCORE_BUILD_PYTHON=OFF)" python3-dev)
  find_package(pybind11 CONFIG QUIET)
  axcore_require(pybind11_FOUND "pybind11 (or configure with -DAXCORE_BUILD_PYTHON=OFF)" pybind11-dev)
  foreach(_mod numpy pytest)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import ${_mod}" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    if(_rc EQUAL 0)
      set(AXCORE_PY_${_mod}_FOUND TRUE)
    else()
      set(AXCORE_PY_${_mod}_FOUND FALSE)
    endif()
  endforeach()
  axcore_require(AXCORE_PY_numpy_FOUND "NumPy for ${Python3_EXECUTABLE} (or -DAXCORE_BUILD_PYTHON=OFF)" python3-numpy)
  axcore_require(AXCORE_PY_pytest_FOUND "pytest for ${Python3_EXECUTABLE} (or -DAXCORE_BUILD_PYTHON=OFF)" python3-pytest)
endif()

# Optional: clang with its libFuzzer runtime builds the fuzz targets (axcore_fuzz_target, AxcoreHelpers).
find_program(AXCORE_CLANGXX NAMES clang++ clang++-14)
if(NOT AXCORE_CLANGXX)
  message(STATUS "axcore: clang++ not found, fuzz targets are skipped: install the Debian packages "
                 "'clang libclang-rt-14-dev' or ${_axcore_setup_hint}")
endif()

# Optional: ONNX import (compiler/frontend/onnx) needs libonnx-dev's protobuf classes.
find_package(Protobuf QUIET)
find_package(ONNX QUIET)
set(AXCORE_ONNX_OK OFF)
if(Protobuf_FOUND AND TARGET onnx_proto)
  set(AXCORE_ONNX_OK ON)
else()
  message(STATUS "axcore: ONNX import (axc compile MODEL.onnx) not built: install the Debian packages "
                 "'libonnx-dev libprotobuf-dev' or ${_axcore_setup_hint}")
endif()

# Optional: yosys for the open-source synthesis estimate (firmware/fpga/estimate, scripts/setup-deps synth).
find_program(AXCORE_YOSYS_BIN yosys)

find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_C_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()
