// Compile time of every example model (examples/models/*.yaml): parse + build, the passes,
// lowering, emission; median of N runs each. Prints a table; asserts nothing (a benchmark).
//   axc_model_bench [--runs N] [MODELS_DIR]
#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/frontend/model.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

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
    if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else dir = a;
  }
  std::vector<fs::path> models;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml") models.push_back(e.path());
  std::sort(models.begin(), models.end());
  if (models.empty()) {
    std::fprintf(stderr, "axc_model_bench: no .yaml models in %s\n", dir.string().c_str());
    return 2;
  }
  std::printf("%-16s %4s %6s %10s %10s %10s %10s %10s %10s %10s\n", "model", "ops", "tasks", "parse ms", "passes ms", "lower ms",
              "emit ms", "total ms", "first ms", "bundle B");
  for (const auto& p : models) {
    std::vector<double> parse, passes, lower, emit, total;
    std::size_t tasks = 0, bytes = 0, nops = 0;
    for (int r = 0; r < runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto m = ax::frontend::load_model(p);
      const double parse_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const auto c = ax::compile(m.module.ir().main(), {1, m.name, p.string()});
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
      nops = m.ops.size();
    }
    std::printf("%-16s %4zu %6zu %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10zu\n", p.stem().string().c_str(), nops, tasks,
                median(parse), median(passes), median(lower), median(emit), median(total), total.front(), bytes);
  }
  std::printf("(median of %d runs, and the first run, which fits the LUT tables it needs; parse = YAML + operator library\n"
              " building the IR; total also counts compile()'s IR copy and text dump)\n", runs);
  return 0;
}
