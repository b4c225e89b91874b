// axregress SUITE.yaml [-j N] [--tags a,b] [--resume] [--out DIR] [--build DIR] [--list]
//                      [--launcher local|slurm] [--retries N] [--sbatch-arg ARG]...
//                      [--testplan PLAN.yaml] [--coverage]
// Runs a regression suite across backends and configurations, on this machine or as Slurm jobs;
// writes results.json, junit.xml and report.html into --out; the closing line is "N passed, N
// failed" (", N skipped"). Exit code 0 when nothing failed, 1 when a job failed, 2 on a bad suite or
// command line, 130 when interrupted (Slurm: its jobs cancelled first). --testplan adds the
// verification plan's table (per feature: planned, passing, failing, uncovered) to report.html;
// --coverage merges the jobs' RTL coverage.dat (a -DAXCORE_RTL_COVERAGE=ON build) and adds the
// line / toggle figures per folder and module, with lcov's HTML report in OUT/coverage/html.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "axcore/regress/launcher.hpp"
#include "axcore/regress/report.hpp"
#include "axcore/regress/runner.hpp"
#include "axcore/regress/sections.hpp"
#include "axcore/regress/suite.hpp"

namespace fs = std::filesystem;
using namespace axcore::regress;

int main(int argc, char** argv) {
  CLI::App app{"axregress: run a regression suite on the ref, TLM and RTL backends and report"};
  std::string suite_file, out_dir, build_dir, tags_arg;
  unsigned jobs = 2;
  bool resume = false, list = false, no_tty = false, table = false;
  app.add_option("suite", suite_file, "suite YAML")->required()->check(CLI::ExistingFile);
  app.add_option("-j,--jobs", jobs, "jobs in parallel")->check(CLI::Range(1u, 256u));
  app.add_option("--tags", tags_arg, "only tests with one of these tags (comma separated)");
  app.add_flag("--resume", resume, "keep the jobs that passed in an earlier run into --out");
  app.add_option("--out", out_dir, "output directory (default: regress-<suite>)");
  app.add_option("--build", build_dir,
                 "build tree holding axc, axrun, axtrace, axrand (default: the one axregress is in)");
  app.add_flag("--list", list, "print the jobs and exit");
  app.add_flag("--no-progress-line", no_tty, "one line per finished job even on a terminal");
  app.add_flag("--table", table, "print a table of jobs x steps (status, cycles, TLM/RTL ratio) at the end");
  bool no_tlm_server = false;
  app.add_flag("--no-tlm-server", no_tlm_server,
               "run every TLM step as its own axrun process (default: one axrun --serve per worker, SystemC "
               "elaborated once, each job in a child forked from it; docs/regress.md \"TLM server\")");
  std::string testplan;
  app.add_option("--testplan", testplan,
                 "verification plan (cosim/testplan/testplan.yaml): its table per feature in report.html")
      ->check(CLI::ExistingFile);
  bool coverage = false, report_only = false;
  app.add_flag("--report-only", report_only,
               "run nothing: rewrite the reports of the run in --out from its results.json (with --testplan / "
               "--coverage: over every job folder in --out, e.g. several suites run into one --out)");
  app.add_flag("--coverage", coverage,
               "merge the jobs' RTL coverage.dat (a -DAXCORE_RTL_COVERAGE=ON build) into OUT/coverage and the report");
  std::string launcher_arg, run_job_list, shared_token;
  unsigned retries = 0;
  std::vector<std::string> sbatch_args;
  double poll = 1.0;
  app.add_option("--launcher", launcher_arg, "where jobs run: local (default) or slurm (the suite's launcher: key)")
      ->check(CLI::IsMember({"local", "slurm"}));
  auto* retries_opt =
      app.add_option("--retries", retries, "slurm: resubmit a job lost to a node failure up to N times (default 2)");
  app.add_option("--sbatch-arg", sbatch_args, "slurm: extra sbatch argument (repeatable), e.g. --partition=farm")
      ->allow_extra_args(false);
  app.add_option("--poll", poll, "slurm: seconds between squeue polls")->check(CLI::Range(0.05, 60.0));
  app.add_option("--run-job-list", run_job_list, "internal: run one job of this manifest (a Slurm array task)");
  app.add_option("--shared-token", shared_token, "internal: the controller's shared file system token");
  CLI11_PARSE(app, argc, argv);

  try {
    const auto suite = load_suite(suite_file);
    std::vector<std::string> tags;
    for (std::size_t p = 0; !tags_arg.empty();) {
      const auto q = tags_arg.find(',', p);
      tags.push_back(tags_arg.substr(p, q - p));
      if (q == std::string::npos) break;
      p = q + 1;
    }
    const fs::path self = fs::canonical("/proc/self/exe");
    // <build>/cosim/launch/axregress -> <build>
    const fs::path build_root =
        fs::absolute(build_dir.empty() ? self.parent_path().parent_path().parent_path() : fs::path(build_dir));
    if (!run_job_list.empty()) {  // a Slurm array task: Slurm's --time is the deadline, ours a backstop
      auto s = suite;
      for (auto& t : s.tests) t.timeout_s = 60.0 * slurm_minutes(t.timeout_s) + 120;
      RunOptions o;
      o.out_dir = fs::absolute(out_dir);
      o.suite_dir = s.file.parent_path();
      o.tools = find_tools(build_root);
      return run_listed_job(s, run_job_list, o, shared_token);
    }
    const auto job_list = expand(suite, tags);
    if (list) {
      for (const auto& j : job_list) std::cout << j.id << "\n";
      return 0;
    }
    if (job_list.empty()) {
      std::cerr << "axregress: no test of " << suite_file << " carries the tags " << tags_arg << "\n";
      return 2;
    }
    RunOptions opt;
    opt.out_dir = fs::absolute(out_dir.empty() ? "regress-" + suite.name : out_dir);
    opt.suite_dir = suite.file.parent_path();
    opt.jobs = jobs;
    opt.resume = resume;
    opt.progress_tty = !no_tty && ::isatty(STDOUT_FILENO);
    opt.tools = find_tools(build_root);
    opt.tlm_server = !no_tlm_server;
    const auto launcher = parse_launcher(launcher_arg.empty() ? suite.launcher.kind : launcher_arg);
    fs::create_directories(opt.out_dir);
    const auto previous = resume ? read_previous_results(opt.out_dir) : std::vector<JobResult>{};

    char started[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::cout << fmt::format("axregress: suite {} — {} jobs on {} {} → {}\n", suite.name, job_list.size(), jobs,
                             launcher == LauncherKind::SLURM ? "Slurm tasks at once" : "workers", opt.out_dir.string());
    const auto t0 = std::chrono::steady_clock::now();
    LaunchResult launched;
    if (report_only) {
      launched.results = previous.empty() ? read_previous_results(opt.out_dir) : previous;
      if (launched.results.empty())
        throw std::runtime_error("--report-only: no results.json in " + opt.out_dir.string());
    } else if (launcher == LauncherKind::SLURM) {
      SlurmOptions so;
      so.retries = *retries_opt ? retries : suite.launcher.retries;
      so.sbatch_args = suite.launcher.sbatch_args;
      so.sbatch_args.insert(so.sbatch_args.end(), sbatch_args.begin(), sbatch_args.end());
      so.poll_seconds = poll;
      so.self = self;
      so.suite_file = suite.file;
      so.build_dir = build_root;
      launched = launch_slurm(job_list, opt, previous, so);
    } else {
      launched = launch_local(job_list, opt, previous);
    }
    const auto& results = launched.results;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ReportInfo info{suite.name, started, jobs, summarize(results, secs), {}};
    auto html = write_reports(opt.out_dir, results, info);
    bool sections_ok = true;
    if (!testplan.empty()) {  // over the results.json just written, then into report.html
      const auto sec = testplan_section(testplan, opt.out_dir);
      for (const auto& line : sec.lines) std::cout << line << "\n";
      sections_ok = sections_ok && sec.ok;
      info.sections.push_back(sec.html);
      html = write_reports(opt.out_dir, results, info);
    }
    if (coverage) {
      // The repository root: the folder above the suite that holds spec/axcore.yaml (paths in the
      // report are relative to it).
      fs::path root = suite.file.parent_path();
      while (root.has_relative_path() && !fs::exists(root / "spec" / "axcore.yaml")) root = root.parent_path();
      const auto sec = coverage_section(opt.out_dir, root);
      for (const auto& line : sec.lines) std::cout << line << "\n";
      sections_ok = sections_ok && sec.ok;
      info.sections.push_back(sec.html);
      html = write_reports(opt.out_dir, results, info);
    }
    if (table) std::cout << "\n" << text_table(results) << "\n";
    for (const auto& r : results) {
      if (r.status != Status::PASS && r.status != Status::SKIP) {
        std::cout << fmt::format("FAILED {}: {}\n", r.id, r.message);
      }
    }
    std::cout << fmt::format("report: {}\n", html.string());
    std::cout << fmt::format("throughput: {:.1f} jobs/min ({:.1f} s)\n",
                             secs > 0 ? 60.0 * static_cast<double>(results.size()) / secs : 0.0, secs);
    std::cout << info.summary.closing_line() << "\n";
    if (launched.interrupted) return 130;
    if (!sections_ok) return 2;
    return info.summary.failed ? 1 : 0;
  } catch (const SuiteError& e) {
    std::cerr << "axregress: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "axregress: " << e.what() << "\n";
    return 2;
  }
}
