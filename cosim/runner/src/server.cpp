#include "axcore/regress/server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <thread>

#include <fmt/format.h>

namespace axcore::regress {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::runtime_error sys_error(const std::string& what) { return std::runtime_error(what + ": " + std::strerror(errno)); }

Clock::time_point after(std::chrono::duration<double> d) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(d);
}

}  // namespace

AxrunServer::AxrunServer(const fs::path& axrun, const std::string& backend, unsigned cores, const fs::path& log,
                         std::chrono::duration<double> timeout) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw sys_error("pipe");
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    throw sys_error("pipe");
  }
  const int err = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  const std::string cores_s = std::to_string(cores);
  const std::vector<std::string> args{axrun.string(), "--serve", "--backend", backend, "--cores", cores_s};
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The server's environment plus LD_BIND_NOW=1: the loader binds every symbol at start-up, once,
  // instead of at each one's first call in every job (a forked child's lazy bindings are its own:
  // they cost each job again, 0.2-0.4 ms of a 6-7 ms one). Built before the fork (no malloc after).
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e)
    if (std::string_view(*e).substr(0, 12) != "LD_BIND_NOW=") env_s.emplace_back(*e);
  env_s.emplace_back("LD_BIND_NOW=1");
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  const auto t0 = Clock::now();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Dies with the worker thread that started it (PR_SET_PDEATHSIG); its jobs die with it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(125);
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    if (err >= 0) ::dup2(err, STDERR_FILENO);
    ::execvpe(argv[0], argv.data(), envp.data());
    dprintf(STDOUT_FILENO, "error cannot run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  if (err >= 0) ::close(err);
  if (pid < 0) {
    ::close(in[1]);
    ::close(out[0]);
    throw sys_error("fork");
  }
  pid_ = pid;
  to_ = in[1];
  from_ = out[0];
  bool expired = false;
  const std::string first = read_line(after(timeout), nullptr, expired);
  if (first != "ready") {
    shut();
    throw std::runtime_error(expired         ? fmt::format("axrun --serve did not start in {:.0f} s", timeout.count())
                             : first.empty() ? std::string("axrun --serve ended before it was ready")
                             : first.rfind("error ", 0) == 0 ? "axrun --serve: " + first.substr(6)
                                                             : "axrun --serve said '" + first + "'");
  }
  startup_s_ = std::chrono::duration<double>(Clock::now() - t0).count();
}

AxrunServer::~AxrunServer() { shut(); }

void AxrunServer::shut() {
  if (to_ >= 0) ::close(to_);  // end of input: the server returns
  to_ = -1;
  if (pid_ > 0) {
    int status = 0;
    for (int i = 0; i < 100 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
  }
  pid_ = -1;
  if (from_ >= 0) ::close(from_);
  from_ = -1;
}

// The next line from the server ("" at its end); `expired` when the deadline or `stop` came first.
std::string AxrunServer::read_line(Clock::time_point deadline, const std::atomic<bool>* stop, bool& expired) {
  expired = false;
  for (;;) {
    if (const auto nl = buf_.find('\n'); nl != std::string::npos) {
      std::string line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      return line;
    }
    if ((stop && stop->load()) || Clock::now() >= deadline) {
      expired = true;
      return {};
    }
    pollfd p{from_, POLLIN, 0};
    const int r = ::poll(&p, 1, 20);
    if (r < 0 && errno != EINTR) throw sys_error("poll");
    if (r <= 0) continue;
    char chunk[512];
    const ssize_t n = ::read(from_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return {};  // the server ended
    buf_.append(chunk, static_cast<std::size_t>(n));
  }
}

ProcessResult AxrunServer::run(const std::vector<std::string>& args, const fs::path& log,
                               std::chrono::duration<double> timeout, const fs::path& cwd,
                               const std::atomic<bool>* stop) {
  if (pid_ <= 0) throw std::runtime_error("axrun --serve is not running");
  std::string req = cwd.string() + "\t" + log.string();
  for (const auto& a : args) {
    if (a.find_first_of("\t\n") != std::string::npos)
      throw std::runtime_error("axrun --serve: an argument holds a tab or a newline: " + a);
    req += "\t" + a;
  }
  {
    std::ofstream head(log, std::ios::app);
    if (!head) throw std::runtime_error("cannot write log " + log.string());
    std::vector<std::string> shown{"axrun"};
    shown.insert(shown.end(), args.begin(), args.end());
    head << "$ " << shell_join(shown) << "    # in the axrun server " << pid_
         << (cwd.empty() ? "" : ", in " + cwd.string()) << "\n";
  }
  const auto t0 = Clock::now();
  auto gone = [&](const std::string& what) {
    shut();
    return std::runtime_error("axrun --serve " + what);
  };
  req += "\n";
  for (std::size_t done = 0; done < req.size();) {
    const ssize_t n = ::write(to_, req.data() + done, req.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw gone("ended (its input is closed)");
    done += static_cast<std::size_t>(n);
  }
  ProcessResult r;
  bool expired = false;
  const auto deadline = after(timeout);
  std::string line = read_line(deadline, stop, expired);
  pid_t job = -1;
  for (;;) {
    if (expired) {  // the deadline or the stop: the job's group is killed, the server reports its end
      (stop && stop->load() ? r.interrupted : r.timed_out) = true;
      if (job > 0) {
        ::kill(-job, SIGTERM);
        line = read_line(after(std::chrono::seconds(1)), nullptr, expired);
        if (expired) {
          ::kill(-job, SIGKILL);
          line = read_line(after(std::chrono::seconds(10)), nullptr, expired);
        }
      }
      if (expired || line.rfind("exit ", 0) != 0) throw gone("did not report the killed job's end");
      break;
    }
    if (line.empty()) throw gone("ended during a job");
    if (line.rfind("error ", 0) == 0) throw std::runtime_error("axrun --serve: " + line.substr(6));
    if (line.rfind("pid ", 0) == 0) {
      job = static_cast<pid_t>(std::stol(line.substr(4)));
    } else if (line.rfind("exit ", 0) == 0) {
      break;
    } else {
      throw gone("said '" + line + "'");
    }
    line = read_line(deadline, stop, expired);
  }
  int code = -1, sig = 0;
  std::sscanf(line.c_str(), "exit %d %d", &code, &sig);
  r.exit_code = code;
  if (!r.timed_out && !r.interrupted) r.signal = sig;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::ofstream(log, std::ios::app) << "# " << r.describe() << fmt::format(" ({:.3f} s)\n", r.seconds);
  return r;
}

AxrunServer& ServerPool::get(const std::string& backend, unsigned cores, std::chrono::duration<double> timeout,
                             bool& started) {
  auto& s = servers[{backend, cores}];
  started = !s || !s->alive();
  if (started) {
    static std::atomic<unsigned> count{0};
    fs::create_directories(log_dir);
    s.reset();
    s = std::make_unique<AxrunServer>(
        axrun, backend, cores, log_dir / fmt::format("{}-c{}-{}.log", backend, cores, count.fetch_add(1)), timeout);
  }
  return *s;
}

}  // namespace axcore::regress
