// Runs one command as its own process group with a deadline, output to a log file. A command that
// outlives its deadline, or runs when the runner is stopped, is sent SIGTERM, then SIGKILL a second
// later, with the whole group.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace axcore::regress {

struct ProcessResult {
  int exit_code = -1;        // exit status when it exited; -1 otherwise
  int signal = 0;            // signal that ended it, 0 when it exited
  bool timed_out = false;    // the deadline passed and the runner killed it
  bool interrupted = false;  // `stop` was set while it ran and the runner killed it
  double seconds = 0;        // wall-clock
  bool ok() const { return !timed_out && !interrupted && signal == 0 && exit_code == 0; }
  // "exit 0", "exit 3", "killed by signal 11", "timed out after 5.0 s", "interrupted after 2.0 s"
  std::string describe() const;
};

// argv[0] is looked up in PATH when it has no '/'. stdout and stderr go to `log` (appended), after a
// header line with the command. `cwd` empty = the runner's. Throws std::runtime_error when the
// process cannot be started (fork fails, log not writable); a missing program is exit code 127.
// `stop` (may be null): when it becomes true (the runner got SIGINT/SIGTERM) the command's group is
// killed as on a timeout and the result is marked interrupted.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& log,
                          std::chrono::duration<double> timeout, const std::filesystem::path& cwd = {},
                          const std::atomic<bool>* stop = nullptr);

// Shell-style quoting for logs and "re-run with" hints.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace axcore::regress
