// The pieces of axrun (axrun_main.cpp): progress at a fixed interval, the run summary, --expect.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <tuple>

#include "axcore/runtime/backend.hpp"
#include "axcore/runtime/program.hpp"
#include "axcore/trace/record.hpp"

namespace axcore::axrun {

// Prints "[axrun] 3/24 waits, cycle 1 234 567, 85 000 cycles/s, about 12 s left" on `err` every
// `interval` seconds from a thread of its own, from the last state the run published (so a device
// that hangs still shows where it stands). Nothing is printed for runs shorter than one interval.
class Progress {
 public:
  Progress(std::ostream& err, uint64_t total_waits, double interval_s);
  ~Progress();
  void update_cycle(uint64_t c) { cycle_.store(c, std::memory_order_relaxed); }
  void update_waits(uint64_t w) { waits_.store(w, std::memory_order_relaxed); }
  void stop();
  static std::string line(uint64_t waits, uint64_t total, uint64_t cycle, double seconds);

 private:
  void loop();
  std::ostream& err_;
  uint64_t total_;
  std::chrono::duration<double> interval_;
  std::chrono::steady_clock::time_point t0_;
  std::atomic<uint64_t> cycle_{0}, waits_{0};
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// Per (tile, unit) task time from the trace: TASK_START .. TASK_DONE summed, and the last cycle.
struct Activity {
  std::map<std::tuple<uint8_t, uint8_t, trace::Unit>, uint64_t> busy;
  std::map<std::tuple<uint8_t, uint8_t, trace::Unit, uint64_t>, uint64_t> open;
  uint64_t last_cycle = 0;
  bool any = false;
  void add(const trace::Record& r);
  uint64_t busy_of(uint32_t row, trace::Unit u) const;
};

// The DMA rows of the summary: per channel that moved bytes, busy %, bytes and B/cycle.
void print_dma_rows(std::ostream& out, const runtime::RunResult& res, const Activity& act, uint64_t cycles);

// --expect DIR: every DIR/NAME.npy must equal the output NAME bit for bit (same dtype and shape).
// Returns "" when all match, else the first difference ("y.npy[3,17]: 5 vs 7").
std::string expect_outputs(const std::filesystem::path& dir, const runtime::Arrays& outputs);

// A backend built once by `axrun --serve` (axrun_serve.cpp) for the runs of its children.
struct MadeBackend {
  runtime::Backend* backend = nullptr;
  std::string name;
  unsigned cores = 1;
};

// One run of axrun with its command line (axrun_main.cpp); with `made`, on that backend.
int run_main(int argc, char** argv, const MadeBackend* made);

// axrun --serve --backend B --cores N: builds the backend once, then runs job after job, each in
// a child forked from the built backend (axrun_serve.cpp, docs/regress.md "TLM server").
int serve(int argc, char** argv);

// Thousands grouped with spaces ("2 980 465").
std::string grouped(uint64_t v);

}  // namespace axcore::axrun
