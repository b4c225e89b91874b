// Where the jobs of a suite run: `local` (worker threads on this machine, run_suite) or `slurm`
// (every job a Slurm job array task: sbatch, state from squeue/sacct, scancel on interrupt). Both
// write the same results, so --resume works across launchers. See docs/regress.md "Launchers".
#pragma once

#include <signal.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "axcore/regress/runner.hpp"
#include "axcore/regress/suite.hpp"

namespace axcore::regress {

enum class LauncherKind { LOCAL, SLURM };
LauncherKind parse_launcher(const std::string& s);  // "local" / "slurm"; throws std::invalid_argument
const char* to_string(LauncherKind k);

struct SlurmOptions {
  unsigned retries = 2;                  // resubmissions of a job lost to a node failure
  std::vector<std::string> sbatch_args;  // extra sbatch arguments (e.g. --partition=farm)
  double poll_seconds = 1.0;             // squeue period
  std::filesystem::path self;            // axregress (on the shared file system)
  std::filesystem::path suite_file;      // the suite, as the nodes read it
  std::filesystem::path build_dir;       // the build tree the nodes use where it is
};

struct LaunchResult {
  std::vector<JobResult> results;  // in job order
  // SIGINT/SIGTERM: the running commands killed (local) or the Slurm jobs cancelled; the jobs that
  // had not finished are ERROR "interrupted: ..." and the reports are written for --resume.
  bool interrupted = false;
};

// Set by the SIGINT/SIGTERM handler both launchers install while they run (tests may set it too).
std::atomic<bool>& interrupt_requested();

// While it lives, SIGINT and SIGTERM set interrupt_requested() (cleared when it is made) instead of
// ending the process; the earlier handlers come back when it goes.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

LaunchResult launch_local(const std::vector<Job>& jobs, const RunOptions& opt, const std::vector<JobResult>& previous);
LaunchResult launch_slurm(const std::vector<Job>& jobs, const RunOptions& opt, const std::vector<JobResult>& previous,
                          const SlurmOptions& slurm);

// The node side (axregress --run-job-list): runs job number $SLURM_ARRAY_TASK_ID of `manifest`
// after checking that it sees the controller's out folder (shared file system check: the token
// file), and writes the result into the job folder for the controller. Returns the exit code.
int run_listed_job(const Suite& suite, const std::filesystem::path& manifest, const RunOptions& opt,
                   const std::string& token);

// Slurm's time limits are whole minutes: a job's timeout in seconds, rounded up, at least 1.
unsigned slurm_minutes(double timeout_s);
// "0-3,5,7-9" for sbatch --array from sorted indices.
std::string array_ranges(const std::vector<std::size_t>& sorted);

}  // namespace axcore::regress
