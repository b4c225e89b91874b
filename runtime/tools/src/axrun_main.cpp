// axrun — run a program bundle on a backend.
//   axrun BUNDLE --backend ref|tlm|rtl|fpga|regfile --input NAME=FILE.npy ... --output-dir DIR
//         [--trace FILE] [--timeline FILE] [--fst FILE] [--param NAME=VALUE ...]
//         [--board SPEC] [--cores N] [--token-timeout CYCLES] [--idle-timeout CYCLES]
//         [--describe] [--quiet]
// Prints progress on long runs (ops, cycles, rate) to stderr, and at the end the cycles, per-unit
// utilization and bytes moved. Exit codes: 0 success, 1 the run failed on the device (timeout,
// error token, ...), 2 bad usage, bundle or inputs (messages say what was expected), 3 the backend
// or its configuration (e.g. the 4-core RTL model) is not in this build.
#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "axcore/ref/npy.hpp"
#include "axcore/runtime/backend.hpp"
#include "axcore/runtime/trace_tools.hpp"
#include "axcore/txn/decode.hpp"

namespace {

using namespace axcore;
using Clock = std::chrono::steady_clock;

std::pair<std::string, std::string> split_eq(const std::string& s, const char* what) {
  const auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0) throw runtime::RunError(std::string(what) + " '" + s + "' is not NAME=VALUE");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"axrun: run an .axb program bundle on a backend"};
  std::string bundle_path, backend = "ref", out_dir, trace_path, timeline_path, fst, board;
  std::vector<std::string> inputs, params;
  int cores = -1;
  uint64_t token_timeout = 0, idle_timeout = 0;
  bool describe = false, quiet = false;
  app.add_option("BUNDLE", bundle_path, ".axb bundle")->required();
  app.add_option("--backend", backend, "ref, tlm, rtl, fpga or regfile");
  app.add_option("--input", inputs, "NAME=FILE.npy, one per input buffer");
  app.add_option("--output-dir", out_dir, "where NAME.npy of every output is written");
  app.add_option("--trace", trace_path, "canonical trace file (timed backends)");
  app.add_option("--timeline", timeline_path, "Chrome/Perfetto trace-event JSON (timed backends)");
  app.add_option("--fst", fst, "FST waveform (rtl)");
  app.add_option("--param", params, "NAME=VALUE runtime parameter");
  app.add_option("--board", board, "fpga: uio=/dev/uioN,dma=/dev/udmabufN | uio=..,mem=PHYS:BYTES | fake=LOG");
  app.add_option("--cores", cores, "device cores (default: the TXN header's)");
  app.add_option("--token-timeout", token_timeout,
                 "cycles a TCT waits for its token before the watchdog reports the task (default 50M)");
  app.add_option("--idle-timeout", idle_timeout, "cycles the device may stay busy after the TXN (default 10M)");
  app.add_flag("--describe", describe, "print the bundle's contents and exit");
  app.add_flag("-q,--quiet", quiet, "no progress output");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  runtime::Bundle bundle;
  runtime::Arrays arrays;
  runtime::RunOptions opt;
  std::unique_ptr<runtime::Backend> be;
  try {
    bundle = runtime::load_bundle(bundle_path);
    if (describe) {
      std::cout << runtime::describe(bundle);
      return 0;
    }
    if (out_dir.empty()) throw Usage("--output-dir is required");
    for (const auto& s : inputs) {
      auto [name, file] = split_eq(s, "--input");
      if (arrays.count(name)) throw Usage("input '" + name + "' given twice");
      try {
        arrays.emplace(name, ref::load_npy(file));
      } catch (const std::exception& e) { throw Usage("input '" + name + "': " + e.what()); }
    }
    for (const auto& s : params) {
      auto [name, value] = split_eq(s, "--param");
      opt.params[name] = value;
    }
    if (token_timeout) opt.play.token_timeout_cycles = token_timeout;
    if (idle_timeout) opt.idle_timeout_cycles = idle_timeout;
    runtime::check_inputs(bundle, arrays);
    runtime::param_bits(bundle, opt.params);
    runtime::BackendConfig cfg;
    cfg.board = board;
    cfg.fst = fst;
    if (cores >= 0)
      cfg.cores = static_cast<unsigned>(cores);
    else if (!bundle.txn.empty()) {
      const auto h = txn::decode_header(bundle.txn);
      cfg.cores = h.device.num_rows > 2 ? h.device.num_rows - 2 : 0;
    }
    be = runtime::make_backend(backend, cfg);
  } catch (const runtime::UnavailableError& e) {
    std::cerr << "axrun: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "axrun: " << e.what() << "\n";
    return 2;
  }

  std::ofstream trace_file;
  std::unique_ptr<trace::Writer> writer;
  std::vector<trace::Record> records;
  const bool want_records = !trace_path.empty() || !timeline_path.empty();
  if (want_records) {
    if (!be->device()) {
      std::cerr << "axrun: the " << backend
                << " backend writes no trace (--trace/--timeline need tlm, rtl or regfile)\n";
      return 2;
    }
    if (!trace_path.empty()) {
      trace_file.open(trace_path);
      if (!trace_file) {
        std::cerr << "axrun: cannot write " << trace_path << "\n";
        return 2;
      }
      writer = std::make_unique<trace::Writer>(trace_file);
    }
    be->device()->set_trace_sink([&](const trace::Record& r) {
      if (writer) writer->write(r);
      if (!timeline_path.empty()) records.push_back(r);
    });
  }
  const auto t0 = Clock::now();
  if (!quiet) {
    opt.play.progress_every_ops = 100000;
    opt.play.progress = [&, last = Clock::now()](const runtime::PlayProgress& p) mutable {
      const auto now = Clock::now();
      if (now - last < std::chrono::seconds(1)) return;
      last = now;
      const double s = std::chrono::duration<double>(now - t0).count();
      std::cerr << "[axrun] " << p.waits << " waits, cycle " << p.cycle << ", "
                << static_cast<uint64_t>(static_cast<double>(p.cycle) / s) << " cycles/s\n";
    };
  }
  runtime::RunResult res;
  try {
    res = be->run(bundle, arrays, opt);
  } catch (const runtime::RunError& e) {
    std::cerr << "axrun: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "axrun: the run failed on " << backend << ": " << e.what() << "\n";
    return 1;
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  try {
    std::filesystem::create_directories(out_dir);
    for (const auto& [name, arr] : res.outputs)
      ref::save_npy((std::filesystem::path(out_dir) / (name + ".npy")).string(), arr);
    if (!timeline_path.empty()) {
      std::ofstream t(timeline_path);
      if (!t) throw std::runtime_error("cannot write " + timeline_path);
      runtime::write_timeline(t, records);
    }
  } catch (const std::exception& e) {
    std::cerr << "axrun: " << e.what() << "\n";
    return 2;
  }
  std::cout << "axrun: " << backend << " ran "
            << (bundle.metadata.count("name") ? bundle.metadata.at("name") : bundle_path) << " in " << wall << " s\n";
  if (be->device()) {
    std::cout << "  cycles: " << res.cycles << " ("
              << static_cast<uint64_t>(static_cast<double>(res.cycles) / std::max(wall, 1e-9)) << " cycles/s)\n";
    std::cout << "  TXN: " << res.play.ops << " ops, " << res.play.waits << " waits, " << res.play.patches
              << " patches\n";
    for (const auto& u : res.units) {
      if (!u.counters.busy && !u.counters.stall_in && !u.counters.stall_out && !u.counters.tasks) continue;
      const double c = static_cast<double>(std::max<uint64_t>(res.cycles, 1));
      char line[160];
      std::snprintf(line, sizeof line, "  %-16s busy %5.1f%%  stall in %5.1f%%  out %5.1f%%  tasks %u\n",
                    u.name.c_str(), 100.0 * u.counters.busy / c, 100.0 * u.counters.stall_in / c,
                    100.0 * u.counters.stall_out / c, u.counters.tasks);
      std::cout << line;
    }
    std::cout << "  bytes moved: DMA " << res.dma_bytes << ", host in " << res.host_bytes_in << ", host out "
              << res.host_bytes_out << "\n";
    if (writer) std::cout << "  trace: " << writer->count() << " records -> " << trace_path << "\n";
  }
  for (const auto& [name, arr] : res.outputs)
    std::cout << "  output " << name << " -> " << (std::filesystem::path(out_dir) / (name + ".npy")).string() << "\n";
  return 0;
}
