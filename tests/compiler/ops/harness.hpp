// Shared by the operator and model tests: build a one-function module around a few operator
// calls, compile it, run the bundle on the functional device (fsim) and on the ref backend (the
// operators' references through common/ref), and compare the outputs bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/ops/op.hpp>
#include <axcore/num/pword.hpp>
#include <axcore/runtime/backend.hpp>
#include <axcore/runtime/buffer_image.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>

namespace axtest {

namespace A = axcore::compiler::A;
namespace ops = axcore::compiler::ops;
namespace rt = axcore::runtime;
using axcore::ref::NDArray;

// Uniform pseudo-random values in [lo, hi] (integers for int8), reproducible.
inline rt::Arrays random_inputs(const rt::Bundle& b, uint32_t seed, double lo = -100, double hi = 100) {
  rt::Arrays in;
  uint32_t s = seed * 2654435761u + 7;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return (s >> 8) / 16777216.0;
  };
  for (const auto& d : b.buffers) {
    if (d.role != rt::BufferRole::INPUT) continue;
    axcore::ref::Shape sh(d.shape.begin(), d.shape.end());
    if (d.dtype == axcore::spec::Dtype::INT8) {
      NDArray<int8_t> a(sh);
      for (std::size_t i = 0; i < a.size(); ++i)
        a.data()[i] = static_cast<int8_t>(std::max(-128.0, std::min(127.0, std::floor(lo + (hi - lo + 1) * next()))));
      in[d.name] = a;
    } else if (d.dtype == axcore::spec::Dtype::FLOAT16) {
      NDArray<axcore::num::Float16> a(sh);
      for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = axcore::num::f16_from_double(lo + (hi - lo) * next());
      in[d.name] = a;
    } else {
      NDArray<float> a(sh);
      for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<float>(lo + (hi - lo) * next());
      in[d.name] = a;
    }
  }
  return in;
}

// A module whose main() is built by `body` (inputs declared there with f.input).
inline A::Module module_of(const std::function<void(A::Func&)>& body) {
  A::Module m("OpTest");
  A::Func f = m.prim_func("main");
  A::Script s(f);
  body(f);
  return m;
}

struct RunOutputs {
  axcore::compiler::CompileResult compiled;
  rt::RunResult device, reference;
};

// Compiles, runs on fsim and ref, and expects every output equal byte for byte.
inline RunOutputs expect_matches_reference(const A::Module& m, const rt::Arrays& in,
                                           const axcore::compiler::TilingOptions& t = {}) {
  RunOutputs r;
  r.compiled = axcore::compiler::compile(m.ir().main(), {}, t);
  r.device = rt::make_backend("fsim")->run(r.compiled.bundle, in, {});
  r.reference = rt::make_backend("ref")->run(r.compiled.bundle, in, {});
  EXPECT_FALSE(r.device.outputs.empty());
  for (const auto& [name, want] : r.reference.outputs) {
    auto it = r.device.outputs.find(name);
    if (it == r.device.outputs.end()) {
      ADD_FAILURE() << "fsim produced no output " << name;
      continue;
    }
    EXPECT_EQ(rt::shape_of(it->second), rt::shape_of(want)) << name;
    const auto a = rt::array_bytes(it->second), b = rt::array_bytes(want);
    if (a.size() != b.size()) {
      ADD_FAILURE() << name << ": " << a.size() << " bytes from the device, " << b.size() << " from the reference";
      continue;
    }
    const std::size_t lane = axcore::num::lane_bytes(rt::dtype_of(want));
    for (std::size_t i = 0; i < a.size(); i += lane) {
      if (std::memcmp(&a[i], &b[i], lane) != 0) {
        uint32_t x = 0, y = 0;
        std::memcpy(&x, &a[i], lane);
        std::memcpy(&y, &b[i], lane);
        ADD_FAILURE() << name << ": element " << i / lane << " differs: device 0x" << std::hex << x << ", reference 0x"
                      << y;
        break;
      }
    }
  }
  return r;
}

// The message of the CompileError `f` throws (fails the test if it throws none).
inline axcore::compiler::CompileError compile_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const axcore::compiler::CompileError& e) { return e; }
  ADD_FAILURE() << "no CompileError";
  return axcore::compiler::CompileError({}, "");
}

// `body` sets `line` on the line of its failing call; expects the CompileError there, in a file
// whose name contains `file`, with every fragment in its text.
inline void expect_refused(const std::function<void(A::Func&, uint32_t&)>& body,
                           const std::vector<std::string>& fragments, const std::string& file) {
  uint32_t line = 0;
  const auto e = compile_error([&] { (void)module_of([&](A::Func& f) { body(f, line); }); });
  EXPECT_EQ(e.loc().line, line) << e.what();
  EXPECT_NE(e.loc().file.find(file), std::string::npos) << e.loc().str();
  for (const auto& fr : fragments)
    EXPECT_NE(std::string(e.what()).find(fr), std::string::npos) << "missing '" << fr << "' in: " << e.what();
}

}  // namespace axtest
