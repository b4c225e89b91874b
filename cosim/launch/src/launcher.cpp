// The launcher choice, the local launcher and the node side of the Slurm launcher.
#include "axcore/regress/launcher.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "axcore/regress/report.hpp"
#include "launcher_files.hpp"

namespace axcore::regress {
namespace fs = std::filesystem;

LauncherKind parse_launcher(const std::string& s) {
  if (s == "local") return LauncherKind::LOCAL;
  if (s == "slurm") return LauncherKind::SLURM;
  throw std::invalid_argument(fmt::format("launcher '{}' is not one of local, slurm", s));
}

const char* to_string(LauncherKind k) { return k == LauncherKind::SLURM ? "slurm" : "local"; }

std::atomic<bool>& interrupt_requested() {
  static std::atomic<bool> flag{false};
  return flag;
}

namespace {
void on_signal(int) { interrupt_requested().store(true); }
}  // namespace

InterruptGuard::InterruptGuard() {
  interrupt_requested().store(false);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &old_int_);
  ::sigaction(SIGTERM, &sa, &old_term_);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
}

// Worker threads on this machine. On SIGINT/SIGTERM the running commands' process groups are killed,
// nothing more starts, and the results come back for the reports (axregress exits 130).
LaunchResult launch_local(const std::vector<Job>& jobs, const RunOptions& opt, const std::vector<JobResult>& previous) {
  LaunchResult lr;
  {
    InterruptGuard guard;
    RunOptions o = opt;
    o.stop = &interrupt_requested();
    lr.results = run_suite(jobs, o, previous);
    lr.interrupted = interrupt_requested().load();
  }
  if (lr.interrupted) {
    unsigned stopped = 0, not_started = 0;
    for (const auto& r : lr.results) {
      if (r.status != Status::ERROR || r.message.rfind(kInterrupted, 0) != 0) continue;
      (r.steps.empty() ? not_started : stopped) += 1;
    }
    std::printf("axregress: interrupted; %zu jobs finished, %u stopped, %u not started (--resume reruns them)\n",
                lr.results.size() - stopped - not_started, stopped, not_started);
    std::fflush(stdout);
  }
  return lr;
}

unsigned slurm_minutes(double timeout_s) { return static_cast<unsigned>(std::max(1.0, std::ceil(timeout_s / 60.0))); }

std::string array_ranges(const std::vector<std::size_t>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? std::to_string(v[i]) : fmt::format("{}-{}", v[i], v[j]);
    i = j + 1;
  }
  return out;
}

namespace detail {

fs::path token_file(const fs::path& out_dir) { return out_dir / "slurm" / "token"; }
fs::path result_file(const fs::path& out_dir, const std::string& job_id) {
  return out_dir / "jobs" / job_id / "slurm-result.json";
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<JobResult> read_job_result(const fs::path& file, const std::string& slurm_job) {
  if (!fs::exists(file)) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(read_text(file));
    if (j.at("slurm_job").get<std::string>() != slurm_job) return std::nullopt;  // an earlier attempt's
    auto rs = parse_results_json(j.at("results").dump());
    if (rs.size() != 1) return std::nullopt;
    return rs.front();
  } catch (const std::exception&) { return std::nullopt; }  // half-written: the controller polls again
}

}  // namespace detail

int run_listed_job(const Suite& suite, const fs::path& manifest, const RunOptions& opt, const std::string& token) {
  const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
  const char* array = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* node = std::getenv("SLURMD_NODENAME");
  const std::string where = node ? node : "?";
  if (!task || !array) {
    std::cerr << "axregress: --run-job-list runs inside a Slurm array task (SLURM_ARRAY_TASK_ID unset)\n";
    return 2;
  }
  // Shared file system check: the node must see the controller's out folder (and this binary and
  // the build tree, or it would not have started).
  const auto tf = detail::token_file(opt.out_dir);
  if (detail::read_text(tf) != token) {
    std::cerr << fmt::format(
        "axregress: shared file system check failed on node {}: {} is missing or not the controller's "
        "(the out folder and the build tree must be on a file system every node mounts at the same path)\n",
        where, tf.string());
    return 3;
  }
  std::vector<std::string> ids;
  {
    std::ifstream in(manifest);
    for (std::string line; std::getline(in, line);) ids.push_back(line);
  }
  const auto index = std::strtoul(task, nullptr, 10);
  if (index >= ids.size()) {
    std::cerr << fmt::format("axregress: array task {} is past the {} jobs of {}\n", index, ids.size(),
                             manifest.string());
    return 2;
  }
  const auto jobs = expand(suite, {});
  const auto it = std::find_if(jobs.begin(), jobs.end(), [&](const Job& j) { return j.id == ids[index]; });
  if (it == jobs.end()) {
    std::cerr << fmt::format("axregress: no job '{}' in {}\n", ids[index], suite.file.string());
    return 2;
  }
  const std::string slurm_job = fmt::format("{}_{}", array, task);
  std::cout << fmt::format("axregress: job {} as Slurm job {} on node {}\n", it->id, slurm_job, where) << std::flush;
  const auto r = run_job(*it, opt);
  ReportInfo info{suite.name, "", 1, summarize({r}, r.seconds), {}};
  const nlohmann::json out{
      {"slurm_job", slurm_job}, {"node", where}, {"results", nlohmann::json::parse(results_json({r}, info))}};
  const auto file = detail::result_file(opt.out_dir, it->id);
  const auto tmp = file.string() + ".tmp";
  std::ofstream(tmp) << out.dump(1) << "\n";
  fs::rename(tmp, file);  // the controller sees the whole file or none
  std::cout << fmt::format("axregress: {} {}\n", to_string(r.status), r.message);
  return 0;
}

}  // namespace axcore::regress
