// Runs the jobs of a suite in parallel: each job in its own folder under the output directory, each
// step a process with the job's deadline, outputs compared against the reference backend, TLM and
// RTL traces compared with `axtrace compare`, a live progress line while it runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "axcore/regress/suite.hpp"

namespace axcore::regress {

enum class Status { PASS, FAIL, ERROR, TIMEOUT, SKIP };
const char* to_string(Status s);
std::optional<Status> parse_status(const std::string& s);

// The tools a job calls; found next to axregress in the build tree or on PATH (see find_tools).
struct Tools {
  std::filesystem::path axc, axrun, axtrace, axrand;
  std::filesystem::path build;  // the build tree ({build} in commands)
};
Tools find_tools(const std::filesystem::path& build_dir);

struct StepResult {
  std::string name;  // backend (ref/tlm/rtl/fpga), "compile", "generate", "tlm~rtl", "cmd"
  Status status = Status::SKIP;
  uint64_t cycles = 0;  // simulated cycles (tlm/rtl/fpga), from the last trace record
  double seconds = 0;
  std::string message;               // why it failed, or a short figure
  std::string log, trace, timeline;  // paths relative to the output directory ("" when absent)
  int exit_code = -1;                // of the step's process (-1: none, killed or timed out)
  // From axrun --stats-json (timed backends): macs / (4096 * cores * cycles) and roofline / cycles.
  std::optional<double> mvm_utilization, of_roofline;
  // From its "sticky": the device's sticky status registers after the run ("core0.IMC_STALE_READS",
  // "shim.TOKEN_DROPPED", "<tile>.ERROR_STATUS", "coreN.WDOG_STATUS").
  std::map<std::string, uint64_t> sticky;
};
// Reads axrun's --stats-json file into the step (nothing when it is absent or unreadable).
void read_stats(const std::filesystem::path& file, StepResult& s);

struct JobResult {
  std::string id, test;
  Kind kind = Kind::COMMAND;
  unsigned cores = 1;
  uint64_t seed = 1;
  std::vector<std::string> tags;
  Status status = Status::SKIP;
  std::string message;
  double seconds = 0;
  bool reused = false;  // taken from an earlier run by --resume
  std::vector<StepResult> steps;
  std::optional<double> tlm_rtl_ratio;      // TLM cycles / RTL cycles
  std::vector<std::string> coverage;        // functional coverage points (random programs' coverage.json)
  std::vector<std::string> coverage_space;  // every point the program's kind can hit (coverage_space.json)
  const StepResult* step(const std::string& name) const;
};

struct RunOptions {
  std::filesystem::path out_dir;
  std::filesystem::path suite_dir;  // {suite_dir} in commands
  unsigned jobs = 2;
  bool resume = false;
  bool progress_tty = false;  // redraw one line; otherwise one line per finished job
  Tools tools;
  std::vector<std::string> extra_axrun_args;  // e.g. --coverage
  // TLM steps run in an `axrun --serve` per worker thread and core count (server.hpp): SystemC is
  // elaborated once per server, each job runs in a child forked from it. A step's seconds are then
  // the request to the job's end; the server's start-up is a "tlm-server" step of the job that
  // started it. A server that cannot start: the step runs as its own axrun process (said in its message).
  bool tlm_server = false;
  // When it becomes true (the local launcher's SIGINT/SIGTERM handler sets it) the running steps'
  // processes are killed, no further step or job starts, and run_suite returns: the jobs it stopped
  // are ERROR "interrupted: ..." (kInterrupted), those it never started ERROR "interrupted: not started".
  const std::atomic<bool>* stop = nullptr;
};
// The message prefix of a job (or step) the runner's stop ended; --resume reruns such jobs.
inline constexpr const char* kInterrupted = "interrupted";

struct Summary {
  unsigned passed = 0, failed = 0, skipped = 0;
  double seconds = 0;
  std::string closing_line() const;  // "N passed, N failed" (", N skipped" when any)
};
Summary summarize(const std::vector<JobResult>& results, double seconds);

// A job's result before anything ran: its id, test, kind, cores, seed and tags.
JobResult new_result(const Job& job);

struct ServerPool;
// Runs one job (used by run_suite; public for tests). `servers`: the worker's axrun servers, used for
// the TLM steps when opt.tlm_server (null: every step its own process).
JobResult run_job(const Job& job, const RunOptions& opt, ServerPool* servers = nullptr);

// --resume: copies the jobs that passed in `previous` into `results` (sized like `jobs`, marked
// reused) and returns the indices of the jobs still to run (all of them without `resume`).
std::vector<std::size_t> take_resumed(const std::vector<Job>& jobs, const std::vector<JobResult>& previous, bool resume,
                                      std::vector<JobResult>& results);

// Runs every job; `previous` (from results.json) feeds --resume. Results are in job order (every
// job has one, also after opt.stop).
std::vector<JobResult> run_suite(const std::vector<Job>& jobs, const RunOptions& opt,
                                 const std::vector<JobResult>& previous = {});

}  // namespace axcore::regress
