// Runs one command as its own process group with a deadline, output to a log file. A command that
// outlives its deadline is sent SIGTERM, then SIGKILL a second later, with the whole group.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace axcore::regress {

struct ProcessResult {
  int exit_code = -1;      // exit status when it exited; -1 otherwise
  int signal = 0;          // signal that ended it, 0 when it exited
  bool timed_out = false;  // the deadline passed and the runner killed it
  double seconds = 0;      // wall-clock
  bool ok() const { return !timed_out && signal == 0 && exit_code == 0; }
  std::string describe() const;  // "exit 0", "exit 3", "killed by signal 11", "timed out after 5.0 s"
};

// argv[0] is looked up in PATH when it has no '/'. stdout and stderr go to `log` (appended), after a
// header line with the command. `cwd` empty = the runner's. Throws std::runtime_error when the
// process cannot be started (fork fails, log not writable); a missing program is exit code 127.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& log,
                          std::chrono::duration<double> timeout, const std::filesystem::path& cwd = {});

// Shell-style quoting for logs and "re-run with" hints.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace axcore::regress
