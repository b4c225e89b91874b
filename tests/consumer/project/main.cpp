// consumer BACKEND: a small model (a linear layer: int8 weights, float bias, scale, ReLU) built
// with the compiler library from the installed axcore package, compiled, run on BACKEND through
// the runtime, and compared bit for bit with the ref backend (the operator's reference through
// common/ref). Exit 0 and "consumer: BACKEND matches the reference" when they agree.
#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/ops/op.hpp>
#include <axcore/runtime/backend.hpp>
#include <axcore/runtime/buffer_image.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace A = axcore::compiler::A;
namespace ops = axcore::compiler::ops;
namespace rt = axcore::runtime;

namespace {

// Reproducible integers in [lo, hi].
std::vector<double> ints(std::size_t n, uint32_t seed, int lo, int hi) {
  std::vector<double> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = lo + static_cast<int>((seed >> 8) % static_cast<uint32_t>(hi - lo + 1));
  }
  return v;
}

A::Module linear_relu() {
  A::Module m("ConsumerLinear");
  A::Func f = m.prim_func("main");
  auto x = f.input("x", {4, 2}, "int8x64", A::DDR);  // (4, 128) int8, packed by 64 lanes
  A::Script script(f);
  auto w = A::alloc_constant(ints(128 * 64, 7, -8, 8), "int8x64", A::DDR, {128, 1}, "w");  // (128, 64)
  auto b = A::alloc_constant(ints(64, 9, -300, 300), "float32x64", A::DDR, {1}, "b");
  A::output(
      ops::invoke("core.linear", {x, w}, {{"bias", b}, {"scale", 0.125}, {"activation", std::string("relu")}}, "y"));
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer BACKEND (one of the runtime's backends, e.g. fsim, tlm, rtl)\n");
    return 2;
  }
  const std::string backend = argv[1];
  try {
    const A::Module m = linear_relu();
    const auto compiled = axcore::compiler::compile(m.ir().main(), {});
    rt::Arrays in;
    axcore::ref::NDArray<int8_t> x(axcore::ref::Shape{4, 128});  // the logical shape
    const auto xs = ints(x.size(), 3, -128, 127);
    for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<int8_t>(xs[i]);
    in["x"] = x;
    const auto got = rt::make_backend(backend)->run(compiled.bundle, in, {});
    const auto want = rt::make_backend("ref")->run(compiled.bundle, in, {});
    if (want.outputs.empty()) {
      std::fprintf(stderr, "consumer: the reference produced no output\n");
      return 1;
    }
    std::size_t nonzero = 0;
    for (const auto& [name, ref] : want.outputs) {
      const auto it = got.outputs.find(name);
      if (it == got.outputs.end()) {
        std::fprintf(stderr, "consumer: %s produced no output %s\n", backend.c_str(), name.c_str());
        return 1;
      }
      const auto a = rt::array_bytes(it->second), r = rt::array_bytes(ref);
      if (rt::shape_of(it->second) != rt::shape_of(ref) || a != r) {
        std::fprintf(stderr, "consumer: %s output %s differs from the reference\n", backend.c_str(), name.c_str());
        return 1;
      }
      for (auto byte : r) nonzero += byte != 0;
    }
    if (nonzero == 0) {  // all-zero outputs would hide a model that computed nothing
      std::fprintf(stderr, "consumer: the reference output is all zeros\n");
      return 1;
    }
    std::printf("consumer: %s matches the reference (%zu outputs, %llu device cycles)\n", backend.c_str(),
                want.outputs.size(), static_cast<unsigned long long>(got.cycles));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s: %s\n", backend.c_str(), e.what());
    return 1;
  }
}
