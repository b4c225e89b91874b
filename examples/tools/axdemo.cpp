// axdemo --out DIR: compile the example kernels, run each on every backend this build has (fsim —
// the functional device; tlm and rtl when built), compare the outputs with fsim and print a table
// (backend, pass/fail, cycles, MVM tile-ops per cycle of the whole run, wall-clock). The simulator
// backends run in a child process each (SystemC elaborates once per process).
#include <sys/wait.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <axcore/compiler/compile.hpp>
#include <axcore/runtime/backend.hpp>
#include <axcore/runtime/buffer_image.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "catalog.hpp"

namespace ax = axcore::compiler;
namespace rt = axcore::runtime;

namespace {
rt::Arrays inputs_for(const rt::Bundle& b) {
  rt::Arrays in;
  uint32_t s = 1;
  for (const auto& d : b.buffers) {
    if (d.role != rt::BufferRole::INPUT) continue;
    axcore::ref::Shape sh(d.shape.begin(), d.shape.end());
    auto fill = [&](auto a) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        s = s * 1664525u + 1013904223u;
        using T = typename decltype(a)::value_type;
        a.data()[i] = static_cast<T>(static_cast<int>((s >> 16) % 200) - 100);
      }
      return rt::Arrays::mapped_type(a);
    };
    if (d.dtype == axcore::spec::Dtype::INT8)
      in[d.name] = fill(axcore::ref::NDArray<int8_t>(sh));
    else
      in[d.name] = fill(axcore::ref::NDArray<float>(sh));
  }
  return in;
}

// SystemC elaborates once per process: a simulator backend runs in a child process, which writes
// the outputs (.npy) and the cycle count into `dir`; the parent reads them back.
rt::RunResult run_in_child(const std::string& be, const rt::Bundle& b, const rt::Arrays& in,
                           const std::filesystem::path& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int rc = 0;
    try {
      const auto res = rt::make_backend(be)->run(b, in, {});
      for (const auto& [name, arr] : res.outputs) axcore::ref::save_npy((dir / (name + ".npy")).string(), arr);
      std::ofstream(dir / "cycles") << res.cycles << "\n";
    } catch (const std::exception& e) {
      std::ofstream(dir / "error") << e.what();
      rc = 1;
    }
    std::fflush(stdout);
    ::_exit(rc);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (std::ifstream err(dir / "error"); err) {
    std::string m((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
    throw std::runtime_error(m);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error(be + ": the run's process died");
  rt::RunResult res;
  std::ifstream(dir / "cycles") >> res.cycles;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".npy")
      res.outputs[e.path().stem().string()] = axcore::ref::load_npy(e.path().string());
  return res;
}

bool same(const rt::Arrays& a, const rt::Arrays& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end() || rt::array_bytes(v) != rt::array_bytes(it->second)) return false;
  }
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"axdemo — compile the examples, run them on every backend, compare"};
  std::string out = "build/demo";
  std::vector<std::string> only;
  app.add_option("--out", out, "output directory for bundles");
  app.add_option("--only", only, "run only these example kernels (axc examples lists them)")->delimiter(',');
  CLI11_PARSE(app, argc, argv);
  std::filesystem::create_directories(out);
  std::vector<std::pair<std::string, ax::A::Module>> kernels;
  for (const auto& e : axcore::examples::catalog())
    if (only.empty() || std::find(only.begin(), only.end(), e.name) != only.end())
      kernels.emplace_back(e.name, e.make());
  for (const auto& n : only)
    if (!axcore::examples::find_example(n)) {
      std::fprintf(stderr, "axdemo: no example kernel '%s' (axc examples lists them)\n", n.c_str());
      return 2;
    }
  const auto names = rt::backend_names();
  std::printf("%-17s %-8s %-6s %10s %8s %10s %10s\n", "kernel", "backend", "result", "cycles", "MVM/run", "wall ms",
              "bundle B");
  int failures = 0;
  for (const auto& [name, mod] : kernels) {
    const auto r = ax::compile(mod.ir().main(), {1, name, "examples/kernels"});
    const auto path = std::filesystem::path(out) / (name + ".axb");
    rt::save_bundle(path, r.bundle);
    const std::size_t bytes = rt::encode_bundle(r.bundle).size();
    uint64_t tile_ops = 0;
    for (const auto& s : r.program.steps)
      if (const auto* t = std::get_if<ax::Task>(&s)) tile_ops += t->mvm_tile_ops;
    const auto in = inputs_for(r.bundle);
    rt::Arrays golden;
    for (const std::string be : {"fsim", "tlm", "rtl"}) {
      if (std::find(names.begin(), names.end(), be) == names.end()) {
        std::printf("%-17s %-8s %-6s\n", name.c_str(), be.c_str(), "n/a (not in this build)");
        continue;
      }
      const auto t0 = std::chrono::steady_clock::now();
      try {
        const auto res = be == "fsim" ? rt::make_backend(be)->run(r.bundle, in, {})
                                      : run_in_child(be, r.bundle, in, std::filesystem::path(out) / (name + "." + be));
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        bool ok = true;
        if (be == "fsim")
          golden = res.outputs;
        else
          ok = same(golden, res.outputs);
        failures += ok ? 0 : 1;
        const double util =
            res.cycles && be != "fsim" ? 100.0 * static_cast<double>(tile_ops) / static_cast<double>(res.cycles) : 0.0;
        std::printf("%-17s %-8s %-6s %10llu %7.1f%% %10.2f %10zu\n", name.c_str(), be.c_str(), ok ? "pass" : "FAIL",
                    static_cast<unsigned long long>(res.cycles), util, ms, bytes);
      } catch (const std::exception& e) {
        ++failures;
        std::printf("%-17s %-8s %-6s %s\n", name.c_str(), be.c_str(), "FAIL", e.what());
      }
    }
  }
  std::printf("bundles written to %s\n", out.c_str());
  return failures ? 1 : 0;
}
