// Compile time of every example model (examples/models/*.yaml) and example kernel
// (examples/kernels/catalog.hpp): parse / build, the passes, lowering, emission; median of N runs
// each. Prints a table; asserts nothing (a benchmark). The IR text is not printed (compile()
// prints it only when asked: CompileResult::ir_lowered(), axc --dump-ir).
//   axc_model_bench [--runs N] [MODELS_DIR]
#include <algorithm>
#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/frontend/model.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "catalog.hpp"

namespace fs = std::filesystem;
namespace ax = axcore::compiler;

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  fs::path dir = AXCORE_EXAMPLE_MODELS;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else
      dir = a;
  }
  std::vector<fs::path> models;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    if (!ax::frontend::model_dispatch_scalars(text.str(), e.path().string()).empty()) {
      std::printf("(%s: dispatch-time scalars, one build per size: axc compile stages it)\n",
                  e.path().filename().string().c_str());
      continue;
    }
    models.push_back(e.path());
  }
  std::sort(models.begin(), models.end());
  if (models.empty()) {
    std::fprintf(stderr, "axc_model_bench: no .yaml models in %s\n", dir.string().c_str());
    return 2;
  }
  std::printf("%-18s %4s %6s %10s %10s %10s %10s %10s %10s %10s %12s\n", "model / kernel", "ops", "tasks", "build ms",
              "passes ms", "lower ms", "emit ms", "total ms", "first ms", "bundle B", "IR text ms");
  // One row: `build` makes the module (YAML parse + operator library, or the builder code) and
  // returns its op count; the rest is compile().
  auto row = [&](const std::string& name, const std::function<ax::A::Module(std::size_t&)>& build,
                 const std::string& source) {
    std::vector<double> parse, passes, lower, emit, total, text;
    std::size_t tasks = 0, bytes = 0, nops = 0;
    for (int r = 0; r < runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto mod = build(nops);
      const double parse_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const auto c = ax::compile(mod.ir().main(), {1, name, source});
      std::map<std::string, double> t;
      double pass_ms = 0;
      for (const auto& pt : c.timings) {
        t[pt.name] += pt.ms;
        if (pt.name != "lower" && pt.name != "emit") pass_ms += pt.ms;
      }
      parse.push_back(parse_ms);
      passes.push_back(pass_ms);
      lower.push_back(t["lower"]);
      emit.push_back(t["emit"]);
      total.push_back(parse_ms + c.total_ms);
      tasks = 0;
      for (const auto& s : c.program.steps) tasks += std::holds_alternative<ax::Task>(s) ? 1 : 0;
      bytes = axcore::runtime::encode_bundle(c.bundle).size();
      const auto t1 = std::chrono::steady_clock::now();  // what --dump-ir adds (not part of total)
      (void)c.ir_lowered();
      text.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count());
    }
    std::printf("%-18s %4zu %6zu %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10zu %12.2f\n", name.c_str(), nops, tasks,
                median(parse), median(passes), median(lower), median(emit), median(total), total.front(), bytes,
                median(text));
  };
  for (const auto& p : models)
    row(
        p.stem().string(),
        [&](std::size_t& nops) {
          auto m = ax::frontend::load_model(p);
          nops = m.ops.size();
          return m.module;
        },
        p.string());
  for (const auto& e : axcore::examples::catalog())
    row(
        e.name,
        [&](std::size_t& nops) {
          nops = 0;
          return e.make();
        },
        "examples/kernels");
  std::printf(
      "(median of %d runs, and the first run, which fits the LUT tables it needs; build = YAML + operator library\n"
      " building the IR, or the kernel's builder code; total = build + compile(); IR text = printing the lowered IR,\n"
      " which compile() no longer does unless asked, e.g. axc --dump-ir)\n",
      runs);
  return 0;
}
