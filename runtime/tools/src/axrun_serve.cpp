// axrun --serve --backend B [--cores N]: builds the backend once (for the TLM: SystemC elaborated,
// every thread at its first wait), prints "ready", then runs one job per request line read on
// stdin, each in a child process forked from that built state, so every job starts from the same
// device as a fresh `axrun` would and no job sees another's (docs/regress.md "TLM server").
//   request: CWD \t LOG \t ARG \t ARG ...   (the arguments of `axrun`, no tab or newline in any)
//   replies: "pid P" when the child started (its own process group: kill -P ends the job), then
//            "exit CODE SIGNAL" when it ended (CODE -1 when a signal ended it), or "error MESSAGE"
//            for a request it could not start.
// The child appends its output to LOG and runs in CWD. The server ends at end of input.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "axrun_parts.hpp"

namespace axcore::axrun {
namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (std::size_t tab; (tab = line.find('\t', from)) != std::string::npos; from = tab + 1)
    out.push_back(line.substr(from, tab - from));
  out.push_back(line.substr(from));
  return out;
}

void reply(const std::string& s) {
  std::cout << s << "\n";
  std::cout.flush();
}

// In the child: output to the log, stdin from /dev/null, in its own process group that dies with
// the server, in `cwd`; then the run, its buffers flushed, and _exit (the built backend's
// destructors belong to the server).
[[noreturn]] void child(const MadeBackend& made, const std::string& cwd, const std::string& log,
                        std::vector<std::string> args) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) ::_exit(126);
  ::dup2(fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);
  const int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
  if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
    dprintf(STDERR_FILENO, "axrun: cannot enter %s: %s\n", cwd.c_str(), std::strerror(errno));
    ::_exit(126);
  }
  args.insert(args.begin(), "axrun");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int rc = 1;
  try {
    rc = run_main(static_cast<int>(args.size()), argv.data(), &made);
  } catch (const std::exception& e) { std::cerr << "axrun: " << e.what() << "\n"; }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(rc);
}

}  // namespace

int serve(int argc, char** argv) {
  CLI::App app{"axrun --serve: build a backend once, run one job per request line on stdin"};
  bool serve_flag = false;
  std::string backend = "tlm";
  unsigned cores = 1;
  app.add_flag("--serve", serve_flag, "serve jobs");
  app.add_option("--backend", backend, "the backend every job runs on");
  app.add_option("--cores", cores, "its cores");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  std::unique_ptr<runtime::Backend> be;
  try {
    runtime::BackendConfig cfg;
    cfg.cores = cores;
    be = runtime::make_backend(backend, cfg);
  } catch (const runtime::UnavailableError& e) {
    reply(std::string("error ") + e.what());
    return 3;
  } catch (const std::exception& e) {
    reply(std::string("error ") + e.what());
    return 2;
  }
  const MadeBackend made{be.get(), backend, cores};
  reply("ready");
  std::string line;
  while (std::getline(std::cin, line)) {
    const auto f = split_tabs(line);
    if (f.size() < 3) {
      reply("error a request is CWD<TAB>LOG<TAB>ARG...");
      continue;
    }
    std::cout.flush();  // nothing of the server's buffers may reach the child's log
    std::cerr.flush();
    const pid_t pid = ::fork();
    if (pid < 0) {
      reply(std::string("error fork: ") + std::strerror(errno));
      continue;
    }
    if (pid == 0) child(made, f[0], f[1], std::vector<std::string>(f.begin() + 2, f.end()));
    reply("pid " + std::to_string(pid));
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    reply("exit " + std::to_string(code) + " " + std::to_string(sig));
  }
  return 0;
}

}  // namespace axcore::axrun
