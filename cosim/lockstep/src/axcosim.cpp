// axcosim: lockstep co-simulation. Runs one bundle on two backends at once (default tlm and rtl, two
// processes: SystemC elaborates once per process), reads both canonical traces as the processes
// commit them (named pipes), compares them per (tile, unit) in strict order, and at the first
// divergence prints both records with the K matching ones before it and the cycle on each side,
// then stops both runs.
//   axcosim BUNDLE --input NAME=FILE.npy ... [--cores N] [-a tlm] [-b rtl] [-k 5] [--out DIR]
//           [--inject-b N]   (test hook: corrupt a compared field of side B's N-th record, 0-based)
// Exit: 0 equivalent, 1 divergence, 2 usage or a run that failed.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "axcore/regress/runner.hpp"
#include "axcore/runtime/trace_tools.hpp"
#include "axcore/trace/record.hpp"

namespace fs = std::filesystem;
using axcore::trace::Record;

namespace {

struct Side {
  std::string backend;
  pid_t pid = -1;
  int fd = -1;
  std::string partial;
  uint64_t records = 0;
  bool eof = false;
  int status = 0;
};

pid_t spawn(const std::vector<std::string>& argv, const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) ::dup2(fd, 1), ::dup2(fd, 2);
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    ::execvp(a[0], a.data());
    ::_exit(127);
  }
  if (pid > 0) ::setpgid(pid, pid);
  return pid;
}

// Streams keyed as axtrace compare keys them (tile, unit, and for tokens the issuing channel), so
// tokens of different channels may finish in either order while each channel's stay ordered.
using Key = axcore::runtime::StreamKey;
Key key_of(const Record& r) { return axcore::runtime::stream_key(r); }

// The test hook's corruption: a field the record's kind defines, so the comparison must see it.
void corrupt(Record& r) {
  const uint8_t f = axcore::trace::defined_fields(r.kind);
  if (f & axcore::trace::kFieldHash)
    r.data_hash ^= 0xBAD;
  else if (f & axcore::trace::kFieldToken)
    r.token ^= 1;
  else if (f & axcore::trace::kFieldBytes)
    r.bytes ^= 4;
  else
    r.addr ^= 4;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"axcosim: run a bundle on two backends in lockstep and stop at the first divergence"};
  std::string bundle, a_backend = "tlm", b_backend = "rtl", out = "cosim-out", axrun;
  std::vector<std::string> inputs;
  unsigned cores = 0, k = 5;
  int64_t inject_b = -1;
  app.add_option("BUNDLE", bundle, ".axb bundle")->required()->check(CLI::ExistingFile);
  app.add_option("--input", inputs, "NAME=FILE.npy");
  app.add_option("--cores", cores, "device cores");
  app.add_option("-a", a_backend, "first backend (default tlm)");
  app.add_option("-b", b_backend, "second backend (default rtl)");
  app.add_option("-k,--context", k, "matching records shown before the divergence");
  app.add_option("--out", out, "folder for logs and outputs");
  app.add_option("--axrun", axrun, "axrun to use (default: next to axcosim in the build tree)");
  app.add_option("--inject-b", inject_b, "test hook: corrupt side B's record N (0-based)");
  CLI11_PARSE(app, argc, argv);

  if (axrun.empty()) {
    // <build>/cosim/lockstep/axcosim -> <build>, searched as axregress searches it.
    const auto self = fs::canonical("/proc/self/exe");
    axrun = axcore::regress::find_tools(self.parent_path().parent_path().parent_path()).axrun.string();
  }
  fs::create_directories(out);
  const auto t0 = std::chrono::steady_clock::now();
  Side side[2];
  side[0].backend = a_backend;
  side[1].backend = b_backend;
  for (int s = 0; s < 2; ++s) {
    const auto fifo = fs::path(out) / fmt::format("{}.{}.pipe", s == 0 ? "a" : "b", side[s].backend);
    fs::remove(fifo);
    if (::mkfifo(fifo.c_str(), 0600) != 0) {
      std::cerr << "axcosim: mkfifo " << fifo << ": " << std::strerror(errno) << "\n";
      return 2;
    }
    std::vector<std::string> cmd{axrun,
                                 bundle,
                                 "--backend",
                                 side[s].backend,
                                 "--trace",
                                 fifo.string(),
                                 "-q",
                                 "--output-dir",
                                 (fs::path(out) / side[s].backend).string()};
    if (cores) cmd.insert(cmd.end(), {"--cores", std::to_string(cores)});
    for (const auto& i : inputs) cmd.insert(cmd.end(), {"--input", i});
    side[s].pid = spawn(cmd, fs::path(out) / (side[s].backend + ".log"));
    side[s].fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  }
  std::map<Key, std::deque<Record>> pending[2];
  std::map<Key, std::deque<Record>> matched;  // the last k matching records per key
  uint64_t compared = 0;
  std::optional<std::string> divergence;

  auto describe = [&](const Key& key, const Record* ra, const Record* rb, const std::string& what) {
    std::string m = fmt::format("DIVERGENCE at tile ({}, {}) unit {} after {} matching records: {}\n", std::get<0>(key),
                                std::get<1>(key), axcore::trace::to_string(std::get<2>(key)), compared, what);
    for (const auto& r : matched[key]) m += "  = " + axcore::runtime::describe_record(r) + "\n";
    if (ra) m += fmt::format("  {}: {}\n", side[0].backend, axcore::runtime::describe_record(*ra));
    if (rb) m += fmt::format("  {}: {}\n", side[1].backend, axcore::runtime::describe_record(*rb));
    if (ra && rb) m += "  differs in " + axcore::runtime::record_difference(*ra, *rb) + "\n";
    return m;
  };
  auto take = [&](int s, Record r) {
    if (s == 1 && inject_b >= 0 && side[1].records == static_cast<uint64_t>(inject_b)) corrupt(r);
    ++side[s].records;
    const Key key = key_of(r);
    auto& other = pending[1 - s][key];
    if (other.empty()) {
      pending[s][key].push_back(r);
      return;
    }
    const Record o = other.front();
    other.pop_front();
    const Record& ra = s == 0 ? r : o;
    const Record& rb = s == 0 ? o : r;
    if (!ra.same_transaction(rb)) {
      divergence = describe(key, &ra, &rb, "records differ");
      return;
    }
    ++compared;
    auto& m = matched[key];
    m.push_back(ra);
    if (m.size() > k) m.pop_front();
  };

  while (!divergence && (!side[0].eof || !side[1].eof)) {
    pollfd p[2];
    int n = 0;
    int which[2];
    for (int s = 0; s < 2; ++s) {
      if (!side[s].eof) p[n] = {side[s].fd, POLLIN, 0}, which[n++] = s;
    }
    if (::poll(p, n, 200) < 0 && errno != EINTR) break;
    for (int i = 0; i < n && !divergence; ++i) {
      Side& sd = side[which[i]];
      if (!(p[i].revents & (POLLIN | POLLHUP))) {
        // A writer that died before opening the pipe never hangs us up: notice the exit.
        int st;
        if (::waitpid(sd.pid, &st, WNOHANG) == sd.pid) sd.status = st, sd.pid = -1, sd.eof = true;
        continue;
      }
      char buf[65536];
      const ssize_t got = ::read(sd.fd, buf, sizeof buf);
      if (got == 0 && (p[i].revents & POLLHUP)) {
        sd.eof = true;
        continue;
      }
      if (got <= 0) continue;
      sd.partial.append(buf, static_cast<std::size_t>(got));
      for (std::size_t nl; !divergence && (nl = sd.partial.find('\n')) != std::string::npos;) {
        const std::string line = sd.partial.substr(0, nl);
        sd.partial.erase(0, nl + 1);
        if (line.empty() || line[0] == '#') continue;
        take(which[i], axcore::trace::parse(line));
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (divergence) {
    for (auto& s : side) {
      if (s.pid > 0) ::kill(-s.pid, SIGKILL);
    }
  }
  bool run_failed = false;
  for (auto& s : side) {
    if (s.pid > 0) ::waitpid(s.pid, &s.status, 0);
    if (!divergence && !(WIFEXITED(s.status) && WEXITSTATUS(s.status) == 0)) {
      std::cerr << fmt::format("axcosim: the {} run failed (see {}/{}.log)\n", s.backend, out, s.backend);
      run_failed = true;
    }
  }
  if (!divergence && !run_failed) {
    // The tail: records one side committed and the other never did.
    for (int s = 0; s < 2 && !divergence; ++s) {
      for (auto& [key, q] : pending[s]) {
        if (!q.empty()) {
          divergence = describe(key, s == 0 ? &q.front() : nullptr, s == 1 ? &q.front() : nullptr,
                                fmt::format("{} committed {} more record(s)", side[s].backend, q.size()));
          break;
        }
      }
    }
  }
  for (int s = 0; s < 2; ++s)  // the named pipes are plumbing, not results: --out keeps the logs and outputs
    fs::remove(fs::path(out) / fmt::format("{}.{}.pipe", s == 0 ? "a" : "b", side[s].backend));
  std::cout << fmt::format("axcosim: {} vs {}: {} + {} records read, {} compared, {:.2f} s\n", side[0].backend,
                           side[1].backend, side[0].records, side[1].records, compared, secs);
  if (divergence) {
    std::cout << *divergence << "both runs stopped\n";
    return 1;
  }
  if (run_failed) return 2;
  std::cout << "equivalent\n";
  return 0;
}
