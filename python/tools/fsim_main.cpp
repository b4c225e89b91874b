// axcore-fsim: run a bundle on fsim, the functional device (runtime/fsim), the way axrun runs
// the other backends — the Python runtime's fsim backend (docs/python.md).
//   axcore-fsim BUNDLE --input NAME=FILE.npy ... --output-dir DIR [--cores N] [--trace FILE]
// Prints the cycles, the sticky status registers (IMC_STALE_READS, ...) as axrun does, and the
// outputs written. Exit codes
// as axrun: 0 ok, 1 the run failed on the device, 2 bad usage, bundle or inputs.
#include <CLI/CLI.hpp>
#include <axcore/ref/npy.hpp>
#include <axcore/runtime/backend.hpp>
#include <axcore/runtime/fsim_device.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "axcore/trace/record.hpp"

int main(int argc, char** argv) {
  using namespace axcore;
  CLI::App app{"axcore-fsim: run an .axb bundle on the functional device"};
  std::string bundle_path, out_dir, trace_path;
  std::vector<std::string> inputs;
  unsigned cores = 1;
  app.add_option("BUNDLE", bundle_path, ".axb bundle")->required();
  app.add_option("--input", inputs, "NAME=FILE.npy, one per input buffer");
  app.add_option("--output-dir", out_dir, "where NAME.npy of every output is written")->required();
  app.add_option("--cores", cores, "device cores");
  app.add_option("--trace", trace_path, "canonical trace file");
  CLI11_PARSE(app, argc, argv);
  runtime::RunResult res;
  runtime::Bundle bundle;
  std::ofstream trace_file;
  std::unique_ptr<trace::Writer> writer;
  try {
    bundle = runtime::load_bundle(bundle_path);
    runtime::Arrays arrays;
    for (const auto& s : inputs) {
      const auto eq = s.find('=');
      if (eq == std::string::npos) throw runtime::RunError("--input '" + s + "' is not NAME=FILE.npy");
      arrays.emplace(s.substr(0, eq), ref::load_npy(s.substr(eq + 1)));
    }
    runtime::check_inputs(bundle, arrays);
    runtime::FsimDevice dev(cores);
    if (!trace_path.empty()) {
      trace_file.open(trace_path);
      if (!trace_file) throw runtime::RunError("cannot write " + trace_path);
      writer = std::make_unique<trace::Writer>(trace_file);
      dev.set_trace_sink([&](const trace::Record& r) { writer->write(r); });
    }
    try {
      res = runtime::run_on_device(dev, bundle, arrays);
    } catch (const runtime::RunError&) { throw; } catch (const std::exception& e) {
      std::cerr << "axcore-fsim: the run failed: " << e.what() << "\n";
      return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "axcore-fsim: " << e.what() << "\n";
    return 2;
  }
  std::filesystem::create_directories(out_dir);
  for (const auto& [name, arr] : res.outputs)
    ref::save_npy((std::filesystem::path(out_dir) / (name + ".npy")).string(), arr);
  std::cout << "axcore-fsim: ran " << bundle_path << "\n  cycles: " << res.cycles << "\n";
  std::cout << "  " << runtime::sticky_line(res.sticky) << "\n";
  for (const auto& w : runtime::sticky_warnings(res.sticky)) std::cout << "  warning: " << w << "\n";
  return 0;
}
