// axbringup: the bring-up steps against a device backend. Exit 0 when every step passes, 1 at the
// first failing step, 2 for usage errors. scripts/bringup/bringup is the one-command wrapper.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "axcore/bringup/bringup.hpp"
#include "axcore/runtime/backend.hpp"

int main(int argc, char** argv) {
  using namespace axcore;
  CLI::App app{
      "axbringup: ordered bring-up steps (identity, registers, memories, DMA, tokens, datapath kernels, "
      "performance)"};
  std::string target = "regfile", board, log_path, fault = "none";
  unsigned cores = 1;
  bringup::Options opt;
  app.add_option("--target", target, "fpga, tlm, rtl or regfile")->capture_default_str();
  app.add_option("--board", board, "fpga: uio=/dev/uio0,dma=/dev/udmabuf0 (see docs/bringup.md)");
  app.add_option("--cores", cores, "cores the device has")->capture_default_str();
  app.add_option("--seed", opt.seed, "seed of the random memory patterns")->capture_default_str();
  app.add_option("--mem-words", opt.mem_words, "words per memory-test window")->capture_default_str();
  app.add_option("--log", log_path, "also write the log here");
  app.add_option("--inject", fault,
                 "break one thing on purpose (tests): spec-hash, reset-value, scratch-bit, "
                 "stuck-ddr-bit, dma-drop, token-tag, copy-bit, mvm-bit, dpu-bit, dwpu-bit, perf-timer; no-dwpu (the "
                 "device lacks the DWPU)");
  CLI11_PARSE(app, argc, argv);
  try {
    const auto f = bringup::parse_fault(fault);
    runtime::BackendConfig cfg;
    cfg.cores = cores;
    cfg.board = board;
    auto dev = runtime::make_device(target, cfg);
    bringup::FaultyDevice faulty(*dev, f);
    runtime::Device& d = f == bringup::Fault::NONE ? *dev : static_cast<runtime::Device&>(faulty);
    std::ostringstream log;
    const auto res = bringup::run(d, opt, log);
    std::cout << log.str();
    if (!log_path.empty()) std::ofstream(log_path) << log.str();
    std::string skipped;
    for (const auto& r : res)
      if (r.status == bringup::Status::SKIP) skipped += (skipped.empty() ? "" : ", ") + r.name;
    const bool ok = !res.empty() && !res.back().failed() && res.size() == bringup::step_names().size();
    std::cout << (ok ? "bring-up PASSED (" : "bring-up FAILED at step '" + res.back().name + "' (") << res.size()
              << " of " << bringup::step_names().size() << " steps run"
              << (skipped.empty() ? std::string() : "; skipped, the device lacks the unit: " + skipped) << ")\n";
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "axbringup: " << e.what() << "\n";
    return 2;
  }
}
