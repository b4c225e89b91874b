// The Slurm launcher's controller: every job an array task (sbatch --array, one array per time
// limit and per 1000 jobs), the job's timeout as --time, state from squeue (sacct for jobs the
// controller has forgotten), the result read from the task's file in the shared out folder, jobs
// lost to a node failure resubmitted (--retries), scancel on SIGINT/SIGTERM.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "axcore/regress/launcher.hpp"
#include "axcore/regress/process.hpp"
#include "launcher_files.hpp"

namespace axcore::regress {
namespace fs = std::filesystem;

namespace {

struct Captured {
  int exit_code = -1;
  std::string out;  // stdout and stderr
};

// Runs a Slurm client command and captures what it prints (they print little).
Captured capture(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    ::execvp(cargv[0], cargv.data());
    dprintf(STDERR_FILENO, "cannot run %s: %s\n", cargv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(fds[1]);
  Captured c;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    c.out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return c;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t p = 0;
  for (std::size_t q; (q = s.find('\n', p)) != std::string::npos; p = q + 1) out.push_back(s.substr(p, q - p));
  if (p < s.size()) out.push_back(s.substr(p));
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t p = 0;
  for (std::size_t q; (q = s.find(sep, p)) != std::string::npos; p = q + 1) out.push_back(s.substr(p, q - p));
  out.push_back(s.substr(p));
  return out;
}

std::string tail(const fs::path& file, std::size_t n) {
  const auto all = lines(detail::read_text(file));
  std::string out;
  for (std::size_t i = all.size() > n ? all.size() - n : 0; i < all.size(); ++i)
    out += (out.empty() ? "" : " | ") + all[i];
  return out;
}

// What the controller knows of one job across its attempts.
struct Attempt {
  std::string slurm_job;  // "A_K"
  std::string node, state;
};
struct Track {
  std::size_t job = 0;
  std::vector<Attempt> attempts;
  bool done = false;
  int unseen = 0;     // polls in a row the current attempt was in neither squeue nor sacct
  int no_result = 0;  // polls in a row it was COMPLETED without a readable result
};

bool active_state(const std::string& s) {
  static const std::set<std::string> k{"PENDING",   "CONFIGURING", "RUNNING",      "COMPLETING",  "SUSPENDED",
                                       "REQUEUED",  "RESIZING",    "REQUEUE_HOLD", "REQUEUE_FED", "SIGNALING",
                                       "STAGE_OUT", "STOPPED",     "RESV_DEL_HOLD"};
  return k.count(s) > 0;
}
bool lost_state(const std::string& s) { return s == "NODE_FAIL" || s == "BOOT_FAIL" || s == "PREEMPTED"; }

class Controller {
 public:
  Controller(const std::vector<Job>& jobs, const RunOptions& opt, const SlurmOptions& so)
      : jobs_(jobs), opt_(opt), so_(so), dir_(opt.out_dir / "slurm") {}

  LaunchResult run(const std::vector<JobResult>& previous) {
    LaunchResult lr;
    const auto todo = take_resumed(jobs_, previous, opt_.resume, lr.results);
    fs::create_directories(dir_ / "logs");
    write_token();
    for (std::size_t i : todo) tracks_.push_back(Track{i, {}, false, 0, 0});
    std::vector<std::size_t> all(tracks_.size());
    for (std::size_t t = 0; t < tracks_.size(); ++t) all[t] = t;
    submit(all);
    const InterruptGuard guard;
    std::size_t left = tracks_.size();
    while (left > 0) {
      if (interrupt_requested().load()) {
        cancel_all();
        for (auto& t : tracks_) {
          if (t.done) continue;
          lr.results[t.job] =
              failed(t, Status::ERROR, "interrupted: the runner was stopped and its Slurm job cancelled");
        }
        lr.interrupted = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(so_.poll_seconds));
      const auto states = poll();
      std::vector<std::size_t> resubmit;
      for (std::size_t ti = 0; ti < tracks_.size(); ++ti) {
        auto& t = tracks_[ti];
        if (t.done) continue;
        auto& a = t.attempts.back();
        if (const auto it = states.find(a.slurm_job); it != states.end()) {
          a.state = it->second.first;
          if (!it->second.second.empty()) a.node = it->second.second;
          t.unseen = 0;
        } else {
          ++t.unseen;
        }
        std::optional<JobResult> r;
        if (auto got = detail::read_job_result(detail::result_file(opt_.out_dir, jobs_[t.job].id), a.slurm_job)) {
          r = std::move(got);
        } else if (a.state == "TIMEOUT" || a.state == "DEADLINE") {
          r = failed(t, Status::TIMEOUT,
                     fmt::format("Slurm time limit of {} min exceeded (job {} on {})",
                                 slurm_minutes(jobs_[t.job].test->timeout_s), a.slurm_job, a.node));
        } else if (lost_state(a.state) || t.unseen > 20) {
          const auto why = lost_state(a.state) ? a.state : std::string("vanished from squeue and sacct");
          if (t.attempts.size() <= so_.retries) {
            std::printf("retry  %-28s Slurm job %s on %s: %s (attempt %zu of %u)\n", jobs_[t.job].id.c_str(),
                        a.slurm_job.c_str(), a.node.c_str(), why.c_str(), t.attempts.size() + 1, so_.retries + 1);
            std::fflush(stdout);
            resubmit.push_back(ti);
            continue;
          }
          r = failed(
              t, Status::ERROR,
              fmt::format("lost {} times (last: Slurm job {} on {}: {})", t.attempts.size(), a.slurm_job, a.node, why));
        } else if (a.state == "COMPLETED" && ++t.no_result > 10) {
          r = failed(t, Status::ERROR,
                     fmt::format("Slurm job {} completed but left no result: {}", a.slurm_job, tail(log_of(a), 3)));
        } else if (!a.state.empty() && !active_state(a.state) && a.state != "COMPLETED") {
          r = failed(t, Status::ERROR,
                     fmt::format("Slurm job {} on {} ended {}: {}", a.slurm_job, a.node, a.state, tail(log_of(a), 3)));
        }
        if (!r) continue;
        t.done = true;
        --left;
        r->message = r->message.empty() && t.attempts.size() > 1
                         ? fmt::format("ran {} times (node failures)", t.attempts.size())
                         : r->message;
        std::printf("%-6s %-28s %6.1f s  %s\n", to_string(r->status), r->id.c_str(), r->seconds, r->message.c_str());
        std::fflush(stdout);
        lr.results[t.job] = std::move(*r);
      }
      if (!resubmit.empty()) submit(resubmit);
    }
    write_launch_json(lr.results);
    return lr;
  }

 private:
  const std::vector<Job>& jobs_;
  const RunOptions& opt_;
  const SlurmOptions& so_;
  fs::path dir_;
  std::string token_;
  std::vector<Track> tracks_;
  std::set<std::string> arrays_;  // every array job id submitted
  unsigned submissions_ = 0;

  void write_token() {
    std::random_device rd;
    token_ = fmt::format("{:08x}{:08x}-{}", rd(), rd(), ::getpid());
    std::ofstream(detail::token_file(opt_.out_dir)) << token_;
  }

  fs::path log_of(const Attempt& a) const { return dir_ / "logs" / (a.slurm_job + ".out"); }

  JobResult failed(const Track& t, Status st, const std::string& why) const {
    JobResult r = new_result(jobs_[t.job]);
    r.status = st;
    r.message = "slurm: " + why;
    StepResult s;
    s.name = "slurm";
    s.status = st;
    s.message = why;
    if (!t.attempts.empty()) s.log = fs::relative(log_of(t.attempts.back()), opt_.out_dir).string();
    r.steps.push_back(std::move(s));
    return r;
  }

  // One array per time limit (and per 1000 tasks, under Slurm's default MaxArraySize).
  void submit(const std::vector<std::size_t>& which) {
    std::map<unsigned, std::vector<std::size_t>> by_limit;
    for (std::size_t ti : which) by_limit[slurm_minutes(jobs_[tracks_[ti].job].test->timeout_s)].push_back(ti);
    for (const auto& [minutes, all] : by_limit) {
      for (std::size_t from = 0; from < all.size(); from += 1000) {
        const std::vector<std::size_t> part(
            all.begin() + static_cast<std::ptrdiff_t>(from),
            all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), from + 1000)));
        submit_array(minutes, part);
      }
    }
  }

  void submit_array(unsigned minutes, const std::vector<std::size_t>& part) {
    const unsigned n = submissions_++;
    const auto manifest = dir_ / fmt::format("array-{}.jobs", n);
    const auto script = dir_ / fmt::format("array-{}.sh", n);
    {
      std::ofstream m(manifest);
      for (std::size_t ti : part) {
        const auto& id = jobs_[tracks_[ti].job].id;
        m << id << "\n";
        std::error_code ec;
        fs::remove(detail::result_file(opt_.out_dir, id), ec);
      }
    }
    {
      std::ofstream s(script);
      s << "#!/bin/sh\n# axregress array task: runs job number $SLURM_ARRAY_TASK_ID of " << manifest.filename().string()
        << "\nexec "
        << shell_join({so_.self.string(), so_.suite_file.string(), "--run-job-list", manifest.string(), "--out",
                       opt_.out_dir.string(), "--build", so_.build_dir.string(), "--shared-token", token_})
        << "\n";
    }
    fs::permissions(script, fs::perms::owner_all, fs::perm_options::add);
    std::vector<std::string> argv{"sbatch",
                                  "--parsable",
                                  "--job-name=axregress",
                                  fmt::format("--array=0-{}%{}", part.size() - 1, std::max(1u, opt_.jobs)),
                                  fmt::format("--time={}", minutes),
                                  "--no-requeue",
                                  "--ntasks=1",
                                  "--cpus-per-task=1",
                                  fmt::format("--output={}/%A_%a.out", (dir_ / "logs").string()),
                                  fmt::format("--chdir={}", opt_.out_dir.string())};
    argv.insert(argv.end(), so_.sbatch_args.begin(), so_.sbatch_args.end());
    argv.push_back(script.string());
    const auto c = capture(argv);
    const auto first = lines(c.out).empty() ? std::string() : lines(c.out).back();
    const auto id = split(first, ';').front();
    if (c.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
      throw std::runtime_error(fmt::format("sbatch failed (exit {}): {}", c.exit_code, c.out));
    }
    arrays_.insert(id);
    for (std::size_t k = 0; k < part.size(); ++k)
      tracks_[part[k]].attempts.push_back({fmt::format("{}_{}", id, k), "", ""});
  }

  // "A_K" -> (state, node) for the arrays with unfinished tasks.
  std::map<std::string, std::pair<std::string, std::string>> poll() {
    std::set<std::string> want;
    for (const auto& t : tracks_) {
      if (!t.done) want.insert(split(t.attempts.back().slurm_job, '_').front());
    }
    std::map<std::string, std::pair<std::string, std::string>> out;
    if (want.empty()) return out;
    std::string ids;
    for (const auto& w : want) ids += (ids.empty() ? "" : ",") + w;
    const auto c = capture({"squeue", "-h", "-r", "-t", "all", "-j", ids, "-o", "%F|%K|%T|%N"});
    if (c.exit_code == 0) {
      for (const auto& l : lines(c.out)) {
        const auto f = split(l, '|');
        if (f.size() == 4) out[f[0] + "_" + f[1]] = {f[2], f[3]};
      }
    }
    // Tasks the controller no longer lists: ask the accounting (absent on small clusters).
    bool missing = false;
    for (const auto& t : tracks_) missing |= !t.done && !out.count(t.attempts.back().slurm_job);
    if (missing) {
      const auto a = capture({"sacct", "-n", "-P", "-X", "-j", ids, "-o", "JobID,State,NodeList"});
      if (a.exit_code == 0) {
        for (const auto& l : lines(a.out)) {
          const auto f = split(l, '|');
          if (f.size() == 3 && !out.count(f[0])) out[f[0]] = {split(f[1], ' ').front(), f[2]};
        }
      }
    }
    return out;
  }

  void cancel_all() {
    std::printf("axregress: interrupted; cancelling Slurm jobs");
    for (const auto& a : arrays_) std::printf(" %s", a.c_str());
    std::printf("\n");
    std::fflush(stdout);
    std::vector<std::string> argv{"scancel"};
    argv.insert(argv.end(), arrays_.begin(), arrays_.end());
    const auto c = capture(argv);
    if (c.exit_code != 0) std::printf("axregress: scancel: %s\n", c.out.c_str());
    // Wait (up to 30 s) until none of them is queued or running any more.
    for (int i = 0; i < 60; ++i) {
      std::string ids;
      for (const auto& a : arrays_) ids += (ids.empty() ? "" : ",") + a;
      const auto q = capture({"squeue", "-h", "-r", "-j", ids, "-o", "%T"});
      if (q.exit_code != 0 || lines(q.out).empty()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    std::printf("axregress: some Slurm jobs are still listed 30 s after scancel\n");
  }

  void write_launch_json(const std::vector<JobResult>& results) const {
    nlohmann::json j{{"launcher", "slurm"}, {"arrays", arrays_}, {"jobs", nlohmann::json::array()}};
    for (const auto& t : tracks_) {
      nlohmann::json at = nlohmann::json::array();
      for (const auto& a : t.attempts) at.push_back({{"slurm_job", a.slurm_job}, {"node", a.node}, {"state", a.state}});
      j["jobs"].push_back(
          {{"id", jobs_[t.job].id}, {"status", to_string(results[t.job].status)}, {"attempts", std::move(at)}});
    }
    std::ofstream(dir_ / "launch.json") << j.dump(1) << "\n";
  }
};

}  // namespace

LaunchResult launch_slurm(const std::vector<Job>& jobs, const RunOptions& opt, const std::vector<JobResult>& previous,
                          const SlurmOptions& slurm) {
  if (capture({"squeue", "-h", "-o", "%i", "-j", "0"}).exit_code == 127) {
    throw std::runtime_error("--launcher slurm: squeue not found (install slurm-client; scripts/setup-deps slurm)");
  }
  return Controller(jobs, opt, slurm).run(previous);
}

}  // namespace axcore::regress
