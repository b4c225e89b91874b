#include "axcore/regress/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

namespace axcore::regress {

std::string ProcessResult::describe() const {
  if (timed_out) return fmt::format("timed out after {:.1f} s", seconds);
  if (interrupted) return fmt::format("interrupted after {:.1f} s", seconds);
  if (signal != 0) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit {}", exit_code);
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-./=:,+@%") == std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& log,
                          std::chrono::duration<double> timeout, const std::filesystem::path& cwd,
                          const std::atomic<bool>* stop) {
  if (argv.empty()) throw std::invalid_argument("run_process: empty command");
  {
    std::ofstream head(log, std::ios::app);
    if (!head) throw std::runtime_error("cannot write log " + log.string());
    head << "$ " << shell_join(argv) << (cwd.empty() ? "" : "    # in " + cwd.string()) << "\n";
  }
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open log " + log.string() + ": " + std::strerror(errno));

  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  const auto start = std::chrono::steady_clock::now();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fd);
    throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    // The command dies with the runner: its own process group escapes a kill of the runner's
    // (Ctrl-C, a Slurm scancel or time limit under proctrack/pgid), the parent-death signal does not.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(125);  // the runner is already gone
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      dprintf(STDERR_FILENO, "cannot enter %s: %s\n", cwd.c_str(), std::strerror(errno));
      ::_exit(126);
    }
    ::execvp(cargv[0], cargv.data());
    dprintf(STDERR_FILENO, "cannot run %s: %s\n", cargv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so the kill below never races the child's setpgid
  ::close(fd);

  ProcessResult r;
  int status = 0;
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start); };
  // Wait on a pidfd (Linux 5.3): poll returns the moment the command exits, so the job's seconds
  // are its own, not rounded up to the next sleep of a polling loop (2, 4, ... 64 ms steps made
  // every short RTL job read 126.6 ms in the report). Without pidfds: the polling loop.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  auto sleep_step = std::chrono::milliseconds(2);
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    const bool stopped = stop && stop->load();
    if (stopped || elapsed() > timeout) {
      (stopped ? r.interrupted : r.timed_out) = true;
      ::kill(-pid, SIGTERM);
      for (int i = 0; i < 100 && ::waitpid(pid, &status, WNOHANG) == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    if (pidfd >= 0) {
      pollfd pfd{pidfd, POLLIN, 0};
      ::poll(&pfd, 1, 50);  // the stop flag and the timeout are looked at every 50 ms
      continue;
    }
    std::this_thread::sleep_for(sleep_step);
    if (sleep_step < std::chrono::milliseconds(50)) sleep_step *= 2;
  }
  if (pidfd >= 0) ::close(pidfd);
  ::kill(-pid, SIGKILL);  // children the command left behind
  r.seconds = elapsed().count();
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !r.timed_out && !r.interrupted) r.signal = WTERMSIG(status);
  std::ofstream(log, std::ios::app) << "# " << r.describe() << fmt::format(" ({:.2f} s)\n", r.seconds);
  return r;
}

}  // namespace axcore::regress
