// MVM utilization of a model's matmuls on a timed backend (default: the MLP on the RTL). Compiles
// the model, runs it with `axrun --backend BE --trace` in a process of its own, checks the outputs
// against the ref backend, and prints per MVMEXE task: the task's span in the command processor's
// trace records (TASK_START .. TASK_DONE, device cycles), the ideal tile-ops (one 64x64 tile-op per
// cycle) and their ratio. A benchmark: it prints figures and fails only when the run itself fails.
//   axc_mvm_util_bench [--backend rtl|tlm] [MODEL.yaml]
#include <unistd.h>
#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/frontend/model.hpp>
#include <axcore/ref/npy.hpp>
#include <axcore/runtime/backend.hpp>
#include <axcore/runtime/buffer_image.hpp>
#include <axcore/trace/record.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

namespace fs = std::filesystem;
namespace ax = axcore::compiler;
namespace rt = axcore::runtime;
using axcore::ref::NDArray;

namespace {
rt::Arrays inputs_for(const rt::Bundle& b) {
  rt::Arrays in;
  uint32_t s = 42;
  for (const auto& d : b.buffers) {
    if (d.role != rt::BufferRole::INPUT) continue;
    const axcore::ref::Shape sh(d.shape.begin(), d.shape.end());
    auto fill = [&](auto a) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        s = s * 1664525u + 1013904223u;
        a.data()[i] = static_cast<typename decltype(a)::value_type>(static_cast<int>((s >> 16) % 256) - 128);
      }
      return rt::Arrays::mapped_type(a);
    };
    in[d.name] = d.dtype == axcore::spec::Dtype::INT8 ? fill(NDArray<int8_t>(sh)) : fill(NDArray<float>(sh));
  }
  return in;
}
}  // namespace

int main(int argc, char** argv) {
  std::string backend = "rtl";
  fs::path model = fs::path(AXCORE_EXAMPLE_MODELS) / "mlp.yaml";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--backend" && i + 1 < argc)
      backend = argv[++i];
    else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "usage: axc_mvm_util_bench [--backend rtl|tlm] [MODEL.yaml]\n");
      return 2;
    } else
      model = a;
  }
  try {
    const auto m = ax::frontend::load_model(model);
    const auto r = ax::compile(m.module.ir().main(), {1, m.name, model.string()});
    const fs::path dir = fs::temp_directory_path() / ("axc_mvm_util_" + m.name + "_" + std::to_string(::getpid()));
    fs::create_directories(dir / "out");
    rt::save_bundle(dir / "m.axb", r.bundle);
    const auto in = inputs_for(r.bundle);
    std::string cmd = std::string(AXRUN) + " " + (dir / "m.axb").string() + " --backend " + backend +
                      " -q --output-dir " + (dir / "out").string() + " --trace " + (dir / "run.trace").string();
    for (const auto& [k, v] : in) {
      axcore::ref::save_npy((dir / (k + ".npy")).string(), v);
      cmd += " --input " + k + "=" + (dir / (k + ".npy")).string();
    }
    cmd += " > " + (dir / "axrun.log").string() + " 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      std::fprintf(stderr, "axc_mvm_util_bench: %s failed (see %s)\n", backend.c_str(), (dir / "axrun.log").c_str());
      return 1;
    }
    const auto want = rt::make_backend("ref")->run(r.bundle, in, {});
    bool equal = true;
    for (const auto& [k, v] : want.outputs)
      equal =
          equal && rt::array_bytes(axcore::ref::load_npy((dir / "out" / (k + ".npy")).string())) == rt::array_bytes(v);
    // The command processor's task spans by descriptor word address.
    std::map<uint64_t, uint64_t> start, span;
    uint64_t last = 0;
    for (const auto& rec : axcore::trace::read_trace_file((dir / "run.trace").string())) {
      last = std::max(last, rec.cycle);
      if (rec.unit != axcore::trace::Unit::CMDPROC) continue;
      if (rec.kind == axcore::trace::Kind::TASK_START) start[rec.addr] = rec.cycle;
      if (rec.kind == axcore::trace::Kind::TASK_DONE && start.count(rec.addr))
        span[rec.addr] = rec.cycle - start[rec.addr];
    }
    std::printf("%s on %s: outputs %s the reference, %llu cycles in all\n", m.name.c_str(), backend.c_str(),
                equal ? "equal" : "DIFFER FROM", static_cast<unsigned long long>(last));
    std::printf("%-34s %10s %10s %12s\n", "MVMEXE task", "tile-ops", "cycles", "utilization");
    for (const auto& s : r.program.steps) {
      const auto* t = std::get_if<ax::Task>(&s);
      if (!t || t->queue != axcore::spec::Queue::MVMEXE) continue;
      const auto it = span.find(t->cmd_word);
      if (it == span.end() || it->second == 0) {
        std::printf("%-34s %10llu %10s\n", t->name.c_str(), static_cast<unsigned long long>(t->mvm_tile_ops),
                    "no span");
        continue;
      }
      std::printf("%-34s %10llu %10llu %11.1f%%\n", t->name.c_str(), static_cast<unsigned long long>(t->mvm_tile_ops),
                  static_cast<unsigned long long>(it->second),
                  100.0 * static_cast<double>(t->mvm_tile_ops) / static_cast<double>(it->second));
    }
    fs::remove_all(dir);
    return equal ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "axc_mvm_util_bench: %s\n", e.what());
    return 1;
  }
}
