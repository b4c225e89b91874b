// axrun — run a program bundle on a backend.
//   axrun BUNDLE [--backend ref|tlm|rtl|fpga|regfile|fsim] [--input NAME=FILE.npy ...] [--seed N]
//         [--output-dir DIR] [--expect DIR] [--trace FILE] [--timeline FILE] [--stats-json FILE]
//         [--fst FILE [--fst-depth N] [--fst-from CYCLE] [--fst-to CYCLE]] [--param NAME=VALUE ...]
//         [--board SPEC] [--cores N] [--token-timeout CYCLES] [--idle-timeout CYCLES]
//         [--progress-interval SECONDS] [--txn-out FILE] [--describe] [--quiet]
//   axrun --serve --backend B [--cores N]   (axrun_serve.cpp: one job per request line on stdin)
// A bundle with dispatch-time scalars takes each as --param NAME=VALUE; a call whose guard fails is
// refused with the guard's message (exit 2) before any device is made.
// Prints progress on stderr at a fixed interval (waits done/total, cycle, cycles/s, an estimate),
// and at the end the cycles, per-unit utilization, per-DMA-channel busy/bytes/B per cycle, the
// roofline line and the sticky status registers (IMC_STALE_READS, TOKEN_DROPPED, ERROR_STATUS,
// WDOG_STATUS; a warning for each that is not zero). An input not given is filled with seeded random data (the arrays
// `axrand
// --inputs-for BUNDLE --seed N` writes), written to OUTDIR/inputs/NAME.npy and named on stderr;
// without --output-dir the outputs go to BUNDLE_STEM.out/ next to the bundle. Exit codes: 0 success, 1 the run failed
// on the device (timeout, error token, ...) or an output differs from --expect, 2 bad usage, bundle or inputs (messages
// say what was expected), 3 the backend or its configuration (e.g. the 4-core RTL model) is not in this build.
#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "axcore/ref/npy.hpp"
#include "axcore/runtime/backend.hpp"
#include "axcore/runtime/buffer_image.hpp"
#include "axcore/runtime/run_stats.hpp"
#include "axcore/runtime/trace_tools.hpp"
#include "axcore/txn/decode.hpp"
#include "axcore/txn/file.hpp"
#include "axrun_parts.hpp"

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

uint64_t count_waits(const std::vector<uint32_t>& words) {
  if (words.empty()) return 0;
  uint64_t n = 0;
  for (const auto& op : txn::decode(words).ops) n += std::holds_alternative<txn::Tct>(op.body);
  return n;
}

// Every input of the bundle not in `arrays` gets the seeded random array random_inputs makes for
// it, is written to OUT_DIR/inputs/NAME.npy, and is named on stderr with the seed and the flag that
// gives it a file: a run never uses data the user did not see. Returns the names filled.
std::vector<std::string> fill_missing_inputs(const runtime::Bundle& bundle, runtime::Arrays& arrays, uint64_t seed,
                                             const std::string& out_dir) {
  std::vector<std::string> filled;
  std::optional<runtime::RandomInputs> random;
  const auto dir = std::filesystem::path(out_dir) / "inputs";
  for (const auto& d : bundle.buffers) {
    if (d.role != runtime::BufferRole::INPUT || arrays.count(d.name)) continue;
    if (!random) {
      random = runtime::random_inputs(bundle, seed);
      std::filesystem::create_directories(dir);
    }
    auto& a = random->at(d.name);
    const auto file = (dir / (d.name + ".npy")).string();
    ref::save_npy(file, a);
    std::cerr << "axrun: input '" << d.name << "' not given: seeded random " << spec::to_string(d.dtype) << " "
              << runtime::shape_text(d.shape) << " (seed " << seed << ", " << runtime::random_input_range(d.dtype)
              << ") -> " << file << "; pass --input " << d.name << "=FILE.npy for your data\n";
    arrays.emplace(d.name, std::move(a));
    filled.push_back(d.name);
  }
  return filled;
}

void print_units(const runtime::RunResult& res, uint64_t cycles) {
  const double c = static_cast<double>(std::max<uint64_t>(cycles, 1));
  for (const auto& u : res.units) {
    if (!u.counters.busy && !u.counters.stall_in && !u.counters.stall_out && !u.counters.tasks) continue;
    char line[160];
    std::snprintf(line, sizeof line, "  %-16s busy %5.1f%%  stall in %5.1f%%  out %5.1f%%  tasks %u\n", u.name.c_str(),
                  100.0 * u.counters.busy / c, 100.0 * u.counters.stall_in / c, 100.0 * u.counters.stall_out / c,
                  u.counters.tasks);
    std::cout << line;
  }
}

}  // namespace

// One axrun run. `made` (the server's child, axrun_serve.cpp) is a backend built before the run's
// arguments were known; the run must ask for that backend and core count.
int axcore::axrun::run_main(int argc, char** argv, const axrun::MadeBackend* made) {
  CLI::App app{"axrun: run an .axb program bundle on a backend"};
  std::string bundle_path, backend = "ref", out_dir, txn_out, trace_path, timeline_path, stats_path, expect_dir, board;
  runtime::BackendConfig cfg;
  std::vector<std::string> inputs, params;
  int cores = -1;
  uint64_t token_timeout = 0, idle_timeout = 0, seed = 1;
  double progress_interval = 1.0;
  bool describe = false, quiet = false;
  app.add_option("BUNDLE", bundle_path, ".axb bundle")->required();
  app.add_option("--backend", backend, "ref, tlm, rtl, fpga, regfile or fsim");
  app.add_option("--input", inputs,
                 "NAME=FILE.npy for an input buffer; an input not given is filled with seeded random data of its "
                 "dtype and shape (see --seed), said on stderr");
  app.add_option("--seed", seed,
                 "seed of the random data of the inputs not given (default 1; the arrays axrand --inputs-for "
                 "BUNDLE --seed N writes)");
  app.add_option("--output-dir", out_dir,
                 "where NAME.npy of every output is written (default: BUNDLE_STEM.out/ next to the bundle; filled "
                 "inputs go to its inputs/)");
  app.add_option("--expect", expect_dir, "folder of NAME.npy the outputs must equal bit for bit (exit 1 if not)");
  app.add_option("--trace", trace_path, "canonical trace file (timed backends)");
  app.add_option("--timeline", timeline_path, "Chrome/Perfetto trace-event JSON (timed backends)");
  app.add_option("--stats-json", stats_path, "cycles, MACs, DDR bytes, DPU instructions, roofline, MVM utilization");
  app.add_option("--fst", cfg.fst, "FST waveform (rtl; GTKWave or Surfer open it)");
  app.add_option("--fst-depth", cfg.fst_depth, "hierarchy levels the FST traces (default all)")
      ->check(CLI::Range(1, 99));
  app.add_option("--fst-from", cfg.fst_from, "first device cycle the FST dumps (default: reset)");
  app.add_option("--fst-to", cfg.fst_to, "last device cycle the FST dumps (default: the end)");
  app.add_option("--param", params,
                 "NAME=VALUE runtime parameter, or the value of a dispatch-time scalar (a call whose guard fails is "
                 "refused with its message)");
  app.add_option("--txn-out", txn_out,
                 "write the TXN the device plays (dispatch-time values bound, parameters applied) to FILE, for "
                 "axtxn");
  app.add_option("--board", board, "fpga: uio=/dev/uioN,dma=/dev/udmabufN | uio=..,mem=PHYS:BYTES | fake=LOG");
  app.add_option("--cores", cores, "device cores (default: the TXN header's)");
  app.add_option("--token-timeout", token_timeout,
                 "cycles a TCT waits for its token before the watchdog reports the task (default 50M)");
  app.add_option("--idle-timeout", idle_timeout, "cycles the device may stay busy after the TXN (default 10M)");
  app.add_option("--progress-interval", progress_interval, "seconds between progress lines on stderr (default 1)")
      ->check(CLI::PositiveNumber);
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
  std::vector<std::string> filled;
  runtime::RunOptions opt;
  std::unique_ptr<runtime::Backend> own;
  try {
    bundle = runtime::load_bundle(bundle_path);
    if (describe) {
      std::cout << runtime::describe(bundle);
      return 0;
    }
    if (out_dir.empty()) {
      const std::filesystem::path p(bundle_path);
      out_dir = (p.parent_path() / (p.stem().string() + ".out")).string();
    }
    if (!cfg.fst.empty() && backend != "rtl") throw Usage("--fst needs --backend rtl (the waveform is the RTL's)");
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
    if (!bundle.dispatch.empty()) {  // the call's sizes: refused here, before any device exists
      try {
        auto call = runtime::dispatch_call(bundle, opt.params);
        bundle = std::move(call.bundle);
        opt.params = std::move(call.params);
      } catch (const runtime::DispatchError& e) {
        std::cerr << "axrun: the call is refused: " << e.what() << "\n";
        return 2;
      }
    }
    if (token_timeout) opt.play.token_timeout_cycles = token_timeout;
    if (idle_timeout) opt.idle_timeout_cycles = idle_timeout;
    runtime::check_inputs(bundle, arrays, /*allow_missing=*/true);
    filled = fill_missing_inputs(bundle, arrays, seed, out_dir);
    const auto bits = runtime::param_bits(bundle, opt.params);
    if (!txn_out.empty()) txn::save(txn_out, runtime::program_txn(bundle, bits).txn);
    cfg.board = board;
    if (cores >= 0)
      cfg.cores = static_cast<unsigned>(cores);
    else if (!bundle.txn.empty()) {
      const auto h = txn::decode_header(bundle.txn);
      cfg.cores = h.device.num_rows > 2 ? h.device.num_rows - 2 : 0;
    }
    if (!made) {
      own = runtime::make_backend(backend, cfg);
    } else if (backend != made->name || cfg.cores != made->cores || !cfg.fst.empty() || !board.empty()) {
      throw Usage("this axrun server runs --backend " + made->name + " --cores " + std::to_string(made->cores) +
                  " jobs (without --fst/--board), not --backend " + backend + " --cores " + std::to_string(cfg.cores));
    }
  } catch (const runtime::UnavailableError& e) {
    std::cerr << "axrun: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "axrun: " << e.what() << "\n";
    return 2;
  }
  runtime::Backend* be = made ? made->backend : own.get();

  std::ofstream trace_file;
  std::unique_ptr<trace::Writer> writer;
  std::vector<trace::Record> records;
  axrun::Activity activity;
  std::unique_ptr<axrun::Progress> progress;
  if ((!trace_path.empty() || !timeline_path.empty()) && !be->device()) {
    std::cerr << "axrun: the " << backend << " backend writes no trace (--trace/--timeline need tlm, rtl or regfile)\n";
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
  if (!quiet && be->device())
    progress = std::make_unique<axrun::Progress>(std::cerr, count_waits(bundle.txn), progress_interval);
  if (be->device()) {
    // Always on: the summary's DMA busy figures, the cycle count and progress come from the trace.
    be->device()->set_trace_sink([&](const trace::Record& r) {
      activity.add(r);
      if (progress) progress->update_cycle(r.cycle);
      if (writer) writer->write(r);
      if (!timeline_path.empty()) records.push_back(r);
    });
  }
  if (progress) {
    opt.play.progress_every_ops = 64;
    opt.play.progress = [&](const runtime::PlayProgress& p) {
      progress->update_waits(p.waits);
      progress->update_cycle(p.cycle);
    };
  }
  const auto t0 = Clock::now();
  runtime::RunResult res;
  try {
    res = be->run(bundle, arrays, opt);
  } catch (const runtime::RunError& e) {
    if (progress) progress->stop();
    std::cerr << "axrun: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    if (progress) progress->stop();
    std::cerr << "axrun: the run failed on " << backend << ": " << e.what() << "\n";
    return 1;
  }
  if (progress) progress->stop();
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  // One cycle count for every tool: the cycle of the device's last trace record (what axtrace
  // compare and axregress report); the host's polling after it is not the program's time.
  const uint64_t cycles = activity.any ? activity.last_cycle : res.cycles;
  const auto work = runtime::count_work(bundle);
  runtime::RunResult counted = res;
  counted.cycles = cycles;
  const auto stats = runtime::run_stats(work, counted);
  try {
    std::filesystem::create_directories(out_dir);
    for (const auto& [name, arr] : res.outputs)
      ref::save_npy((std::filesystem::path(out_dir) / (name + ".npy")).string(), arr);
    if (!timeline_path.empty()) {
      std::ofstream t(timeline_path);
      if (!t) throw std::runtime_error("cannot write " + timeline_path);
      auto topt = runtime::timeline_options(bundle.metadata.count("steps") ? bundle.metadata.at("steps") : "");
      topt.task_units = [cmd_mem = runtime::command_memory(bundle)](unsigned row, uint64_t word) {
        return runtime::task_units(cmd_mem, row - spec::param::first_core_row, static_cast<uint32_t>(word));
      };
      runtime::write_timeline(t, records, topt);
    }
    if (!stats_path.empty()) {
      std::ofstream s(stats_path);
      if (!s) throw std::runtime_error("cannot write " + stats_path);
      s << runtime::stats_json(stats);
    }
  } catch (const std::exception& e) {
    std::cerr << "axrun: " << e.what() << "\n";
    return 2;
  }
  std::cout << "axrun: " << backend << " ran "
            << (bundle.metadata.count("name") ? bundle.metadata.at("name") : bundle_path) << " in " << wall << " s\n";
  if (be->device()) {
    std::cout << "  cycles: " << cycles << " ("
              << axrun::grouped(static_cast<uint64_t>(static_cast<double>(cycles) / std::max(wall, 1e-9)))
              << " cycles/s; the device's last trace record, as axtrace compare counts)\n";
    std::cout << "  TXN: " << res.play.ops << " ops, " << res.play.waits << " waits, " << res.play.patches
              << " patches\n";
    print_units(res, cycles);
    axrun::print_dma_rows(std::cout, res, activity, cycles);
    std::cout << "  bytes moved: DMA " << axrun::grouped(res.dma_bytes) << ", host in "
              << axrun::grouped(res.host_bytes_in) << ", host out " << axrun::grouped(res.host_bytes_out) << "\n";
    std::cout << "  " << runtime::stats_line(work, stats) << "\n";
    for (const auto& m : stats.mismatches) std::cout << "  warning: " << m << "\n";
    std::cout << "  " << runtime::sticky_line(res.sticky) << "\n";
    for (const auto& w : runtime::sticky_warnings(res.sticky)) std::cout << "  warning: " << w << "\n";
    if (writer) std::cout << "  trace: " << writer->count() << " records -> " << trace_path << "\n";
  }
  for (const auto& name : filled)
    std::cout << "  input " << name << ": seeded random data, seed " << seed << " -> "
              << (std::filesystem::path(out_dir) / "inputs" / (name + ".npy")).string() << "\n";
  for (const auto& [name, arr] : res.outputs)
    std::cout << "  output " << name << " -> " << (std::filesystem::path(out_dir) / (name + ".npy")).string() << "\n";
  if (!expect_dir.empty()) {
    const std::string diff = axrun::expect_outputs(expect_dir, res.outputs);
    if (!diff.empty()) {
      std::cerr << "axrun: the outputs differ from " << expect_dir << ": " << diff << "\n";
      return 1;
    }
    std::cout << "  outputs equal " << expect_dir << "\n";
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "--serve") return axcore::axrun::serve(argc, argv);
  return axcore::axrun::run_main(argc, argv, nullptr);
}
