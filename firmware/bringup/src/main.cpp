// axbringup: the bring-up steps against a device backend. Exit 0 when every step passes, 1 at the
// first failing step, 2 for usage errors (naming this binary's tree). The log streams as each step
// ends, to the terminal and to --log FILE; a step far below the spec's figure is WARN. scripts/bringup/bringup is the
// one-command wrapper.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <streambuf>

#include "axcore/bringup/bringup.hpp"
#include "axcore/runtime/backend.hpp"

namespace {

// Writes every character to two stream buffers (the terminal and the log file); a flush flushes both.
class Tee : public std::streambuf {
 public:
  Tee(std::streambuf* a, std::streambuf* b) : a_(a), b_(b) {}

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    const auto ch = traits_type::to_char_type(c);
    if (a_->sputc(ch) == traits_type::eof()) return traits_type::eof();
    if (b_ && b_->sputc(ch) == traits_type::eof()) return traits_type::eof();
    return c;
  }
  int sync() override { return (a_->pubsync() == 0 && (!b_ || b_->pubsync() == 0)) ? 0 : -1; }

 private:
  std::streambuf *a_, *b_;
};

}  // namespace

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
    device::Device& d = f == bringup::Fault::NONE ? *dev : static_cast<device::Device&>(faulty);
    // The log goes to the terminal as each step ends and, with --log, to the file as well.
    std::ofstream file;
    if (!log_path.empty()) {
      file.open(log_path);
      if (!file) throw std::runtime_error("cannot write the log " + log_path);
    }
    Tee tee(std::cout.rdbuf(), file.is_open() ? file.rdbuf() : nullptr);
    std::ostream log(&tee);
    const auto res = bringup::run(d, opt, log);
    std::string skipped, warned;
    for (const auto& r : res) {
      if (r.status == bringup::Status::SKIP) skipped += (skipped.empty() ? "" : ", ") + r.name;
      if (r.status == bringup::Status::WARN) warned += (warned.empty() ? "" : ", ") + r.name;
    }
    const bool ok = !res.empty() && !res.back().failed() && res.size() == bringup::step_names().size();
    log << (ok ? "bring-up PASSED (" : "bring-up FAILED at step '" + res.back().name + "' (") << res.size() << " of "
        << bringup::step_names().size() << " steps run"
        << (skipped.empty() ? std::string() : "; skipped, the device lacks the unit: " + skipped)
        << (warned.empty() ? std::string() : "; WARN: " + warned) << ")\n"
        << std::flush;
    if (!log_path.empty()) std::cout << "log: " << log_path << "\n";
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    std::cerr << "axbringup: " << e.what() << (ec ? "" : " (this axbringup: " + self.string() + ")") << "\n";
    return 2;
  }
}
