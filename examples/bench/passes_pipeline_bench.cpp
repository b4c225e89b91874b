// Benchmark: what A.tiles(drain=) buys on the TLM. Compiles a tiled elementwise kernel and a
// tiled matmul with drain 0, 1 and 2, runs each through `axrun --backend tlm` (a process per run)
// and prints the device cycles, the launches and the compile time. Prints figures, asserts nothing
// beyond the runs succeeding.
#include <unistd.h>
#include <axcore/compiler/compile.hpp>
#include <axcore/ref/npy.hpp>
#include <axcore/runtime/bundle.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "guide_kernels.hpp"
#include "tiling_kernels.hpp"

namespace ax = axcore;
namespace cc = axcore::compiler;

namespace {

template <class In>
uint64_t tlm_cycles(const cc::CompileResult& r, const ax::ref::NDArray<In>& x, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("axc_pipeline_bench_" + std::to_string(::getpid())) / name;
  std::filesystem::create_directories(dir);
  ax::runtime::save_bundle((dir / "k.axb").string(), r.bundle);
  ax::ref::save_npy((dir / "inp.npy").string(), x);
  const std::string cmd = std::string(AXRUN_PATH) + " " + (dir / "k.axb").string() +
                          " --backend tlm --input inp=" + (dir / "inp.npy").string() + " --output-dir " +
                          (dir / "out").string() + " > " + (dir / "log.txt").string() + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::cerr << "axrun failed:\n" << std::ifstream(dir / "log.txt").rdbuf();
    std::exit(1);
  }
  std::ifstream log(dir / "log.txt");
  uint64_t cycles = 0;
  for (std::string line; std::getline(log, line);)
    if (auto p = line.find("cycles: "); p != std::string::npos) cycles = std::stoull(line.substr(p + 8));
  std::filesystem::remove_all(dir);
  return cycles;
}

}  // namespace

int main() {
  std::printf("%-34s %6s %10s %9s %11s\n", "kernel", "drain", "tlm cycles", "launches", "compile ms");
  const int64_t rows = 256, cols = 4;
  auto x = ax::examples::pseudo<float>({256, 256}, 3, -50, 50);
  for (int64_t drain : {0, 1, 2}) {
    auto m = ax::examples::scale_rows(rows, cols,
                                      cc::TileBounds{.tile_min = 0, .tile_max = 32, .num_tiles = 0, .drain = drain});
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = cc::compile(m.ir().main());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::size_t launches = 0;
    for (const auto& s : r.program.steps) launches += !std::holds_alternative<cc::Wait>(s);
    std::printf("%-34s %6lld %10llu %9zu %11.2f\n", "scale 256x4 f32, 8 tiles of 32", static_cast<long long>(drain),
                static_cast<unsigned long long>(tlm_cycles(r, x, "scale" + std::to_string(drain))), launches, ms);
  }
  auto mod = ax::examples::matmul(256, 4, 2, true, 7);
  auto xi = ax::examples::pseudo<int8_t>({256, 256}, 13, -128, 127);
  for (uint64_t budget : {uint64_t{1} << 20, uint64_t{96} << 10}) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = cc::compile(mod.ir().main(), {},
                               cc::TilingOptions{.l1_bytes = budget, .imc_tiles = ax::spec::param::imc_tiles});
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::size_t launches = 0;
    for (const auto& s : r.program.steps) launches += !std::holds_alternative<cc::Wait>(s);
    const std::string name = "matmul 256x256x128+bias, L1 " + std::to_string(budget >> 10) + "K";
    std::printf("%-34s %6s %10llu %9zu %11.2f\n", name.c_str(), "-",
                static_cast<unsigned long long>(tlm_cycles(r, xi, "mm" + std::to_string(budget))), launches, ms);
  }
  return 0;
}
