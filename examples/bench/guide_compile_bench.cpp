// The C++ side of the Python front end's compile-time comparison (python_compile_bench.py runs
// this and, in the same run, the Python programs that build the same IR): for each program, the
// C++ builder's build (the module) and compile (compile() + encode_bundle(), what `axc compile`
// does before writing the file); median of N runs, and the first run. Prints one tab-separated
// row per program; asserts nothing (a benchmark).
//   axc_guide_bench [--runs N] [--dump DIR]    (--dump writes DIR/<program>.ir, the module's IR)
#include <algorithm>
#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/ops/op.hpp>
#include <axcore/compiler/printer.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "guide_kernels.hpp"

namespace ax = axcore::compiler;
namespace A = ax::A;
namespace ops = ax::ops;

namespace {

// The guide's §4.3 AtomicDpuCast (examples/guide/dpu_cast_op.py) as a C++ operator: the same
// arguments, checks, output and implementation, and the graph node the Python op records.
const ops::OpDef& dpu_cast_op() {
  static const ops::OpDef def = [] {
    ops::OpDef d;
    d.name = "atomic.dpu_cast";
    d.level = ops::Level::Atomic;
    d.args = {{"data", ops::ArgKind::Tensor, true, {}, "Input tensor."},
              {"datapath_kind", ops::ArgKind::String, false, {}, "Optional datapath kind."},
              {"core", ops::ArgKind::Int, false, {}, "Optional core."}};
    d.validate = [](const ops::Call& c) {
      const std::string t = c.tensor("data").dtype();
      if (t != "int8x64" && t != "float16x64" && t != "float32x64") c.refuse("data", "Unsupported input dtype");
    };
    d.infer_output = [](const ops::Call& c) {
      const auto x = c.tensor("data");
      return ops::BufferInfo{x.shape(), x.dtype(), x.scope()};
    };
    d.implementation = [](const ops::Call& c, const ops::Tensor& out) {
      const auto data = c.tensor("data");
      A::DatapathArgs dp;
      if (c.has("core")) dp.core = static_cast<int>(c.i("core"));
      A::grid_nest(data.shape(), [&](const std::vector<A::Value>& loop_vars) {
        A::Datapath(dp, [&] {
          auto ifd_stream = A::decl_stream(data.dtype());
          auto dpu_stream = A::decl_stream(out.dtype());
          A::IFD(0, [&] { ifd_stream.push(data.at(loop_vars).value()); });
          A::DPU([&] { dpu_stream.push(A::cast(ifd_stream.pop(), out.dtype())); });
          A::ODR([&] { out.at(loop_vars) = dpu_stream.pop(); });
        });
      });
    };
    d.emulate = [](const ops::Call& c, const ops::Tensor& out) {
      ax::PrimFunc::GraphNode n;
      n.op = "py:atomic.dpu_cast";
      n.inputs = {c.tensor("data").name()};
      n.outputs = {out.name()};
      n.str_attrs = {{"py.tensor_args", "data"}, {"py.out_dtype", out.dtype()}};
      n.num_attrs["py.out_shape"] = std::vector<double>(out.shape().begin(), out.shape().end());
      return std::vector<ax::PrimFunc::GraphNode>{n};
    };
    return d;
  }();
  return def;
}

A::Module dpu_cast_program() {
  A::Module mod("DpuCastProgram");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {4, 2}, "float32x64", A::DDR);
  A::Script script(f);
  A::output(ops::invoke_at(dpu_cast_op(), {inp}, {}, "", {}));
  return mod;
}

struct Program {
  const char* name;    // the row's name, and the Python twin's (python_compile_bench.py)
  const char* source;  // CompileOptions::source, as the Python front end passes it
  std::function<A::Module()> make;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 50;
  std::filesystem::path dump;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--dump" && i + 1 < argc) {
      dump = argv[++i];
    } else {
      std::fprintf(stderr, "usage: axc_guide_bench [--runs N] [--dump DIR]\n");
      return 2;
    }
  }
  namespace ex = axcore::examples;
  const std::vector<Program> programs = {
      {"scale", "examples/guide/scale.py", [] { return ex::scale(); }},
      {"scale_op", "examples/guide/scale_op.py", [] { return ex::scale_op(); }},
      {"dpu_cast_op", "examples/guide/dpu_cast_op.py", [] { return dpu_cast_program(); }},
      {"matmul_bias", "examples/bench/guide_twins.py", [] { return ex::matmul(16, 2, 2, true); }},
      {"matmul", "examples/bench/guide_twins.py", [] { return ex::matmul(64, 8, 4, false); }},
      {"conv3x3", "examples/bench/guide_twins.py", [] { return ex::conv3x3(6, 6, 2, 2); }},
  };
  std::printf("program\tbuild_ms\tcompile_ms\ttotal_ms\tfirst_ms\n");
  for (const auto& p : programs) {
    std::vector<double> build, comp, total;
    for (int r = 0; r < runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const A::Module mod = p.make();
      const double b = ms_since(t0);
      const auto t1 = std::chrono::steady_clock::now();
      const auto c = ax::compile(mod.ir().main(), {1, mod.ir().name, p.source});
      const auto bytes = axcore::runtime::encode_bundle(c.bundle);
      const double k = ms_since(t1);
      if (bytes.empty()) return 1;  // keeps the encode from being optimized away
      build.push_back(b);
      comp.push_back(k);
      total.push_back(b + k);
      if (r == 0 && !dump.empty()) std::ofstream(dump / (std::string(p.name) + ".ir")) << ax::dump(mod.ir());
    }
    std::printf("%s\t%.4f\t%.4f\t%.4f\t%.4f\n", p.name, median(build), median(comp), median(total), total.front());
  }
  return 0;
}
