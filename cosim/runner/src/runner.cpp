#include "axcore/regress/runner.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "axcore/regress/compare.hpp"
#include "axcore/regress/process.hpp"
#include "axcore/regress/server.hpp"
#include "axcore/trace/record.hpp"

namespace axcore::regress {
namespace fs = std::filesystem;
using nlohmann::json;

const char* to_string(Status s) {
  switch (s) {
    case Status::PASS: return "pass";
    case Status::FAIL: return "fail";
    case Status::ERROR: return "error";
    case Status::TIMEOUT: return "timeout";
    case Status::SKIP: return "skip";
  }
  return "?";
}

std::optional<Status> parse_status(const std::string& s) {
  for (Status x : {Status::PASS, Status::FAIL, Status::ERROR, Status::TIMEOUT, Status::SKIP}) {
    if (s == to_string(x)) return x;
  }
  return std::nullopt;
}

const StepResult* JobResult::step(const std::string& n) const {
  for (const auto& s : steps) {
    if (s.name == n) return &s;
  }
  return nullptr;
}

std::string Summary::closing_line() const {
  return skipped ? fmt::format("{} passed, {} failed, {} skipped", passed, failed, skipped)
                 : fmt::format("{} passed, {} failed", passed, failed);
}

void read_stats(const fs::path& file, StepResult& s) {
  std::ifstream in(file);
  if (!in) return;
  try {
    const auto j = json::parse(in);
    s.mvm_utilization = j.at("mvm_utilization").get<double>();
    s.of_roofline = j.at("of_roofline").get<double>();
    if (j.contains("sticky")) s.sticky = j["sticky"].get<std::map<std::string, uint64_t>>();
  } catch (const json::exception&) {}  // a run that died before writing it: no figures
}

Summary summarize(const std::vector<JobResult>& results, double seconds) {
  Summary s;
  s.seconds = seconds;
  for (const auto& r : results) {
    if (r.status == Status::PASS)
      ++s.passed;
    else if (r.status == Status::SKIP)
      ++s.skipped;
    else
      ++s.failed;
  }
  return s;
}

namespace {

fs::path find_one(const fs::path& build, const std::string& name, std::initializer_list<const char*> subdirs) {
  for (const char* d : subdirs) {
    const auto p = build / d / name;
    if (fs::exists(p) && ::access(p.c_str(), X_OK) == 0) return p;
  }
  return name;  // looked up in PATH when run
}

// The job's deadline, shared by its steps, and the runner's stop flag (may be null).
struct Clock {
  std::chrono::steady_clock::time_point end;
  const std::atomic<bool>* stop = nullptr;
  bool stopped() const { return stop && stop->load(); }
  std::chrono::duration<double> left() const {
    return std::max(std::chrono::duration<double>(0.05),
                    std::chrono::duration<double>(end - std::chrono::steady_clock::now()));
  }
};

std::string substitute(std::string s, const Job& job, const fs::path& dir, const RunOptions& opt) {
  auto rep = [&](const std::string& key, const std::string& value) {
    for (std::size_t p; (p = s.find(key)) != std::string::npos;) s.replace(p, key.size(), value);
  };
  rep("{out}", dir.string());
  rep("{cores}", std::to_string(job.cores));
  rep("{seed}", std::to_string(job.seed));
  rep("{suite_dir}", opt.suite_dir.string());
  rep("{build}", opt.tools.build.string());
  return s;
}

uint64_t last_cycle(const fs::path& trace) {
  if (!fs::exists(trace)) return 0;
  uint64_t c = 0;
  for (const auto& r : trace::read_trace_file(trace.string())) c = std::max(c, r.cycle);
  return c;
}

constexpr int kAxrunUnavailable = 3;  // axrun's exit code: backend / configuration not in this build
constexpr int kCommandSkipped = 77;

// The last line of a log that contains `needle`, from the needle on ("" when none).
std::string last_line_with(const fs::path& log, const std::string& needle) {
  std::ifstream in(log);
  std::string line, found;
  while (std::getline(in, line)) {
    if (const auto at = line.find(needle); at != std::string::npos) found = line.substr(at + needle.size());
  }
  return found;
}

// The command's last line of output in its log (not run_process's "$ ..." header or "# exit" footer).
std::string last_output_line(const fs::path& log) {
  std::ifstream in(log);
  std::string line, found;
  while (std::getline(in, line)) {
    if (!line.empty() && line.rfind("$ ", 0) != 0 && line.rfind("# ", 0) != 0) found = line;
  }
  return found;
}

// One step: `run` (given the step's log) runs its process; its result becomes the step's.
template <class Run>
StepResult run_step(const std::string& name, const fs::path& out_dir, const fs::path& dir, const Clock& clock,
                    Run&& run) {
  StepResult s;
  s.name = name;
  if (clock.stopped()) {  // the runner was interrupted before this step began
    s.status = Status::ERROR;
    s.message = std::string(kInterrupted) + ": not run";
    return s;
  }
  const auto log = dir / (name + ".log");
  s.log = fs::relative(log, out_dir).string();
  try {
    const ProcessResult p = run(log);
    s.seconds = p.seconds;
    s.status = p.timed_out ? Status::TIMEOUT : p.interrupted ? Status::ERROR : p.ok() ? Status::PASS : Status::FAIL;
    s.exit_code = p.exit_code;
    if (!p.ok()) s.message = p.describe();
  } catch (const std::exception& e) {
    s.status = Status::ERROR;
    s.message = e.what();
  }
  return s;
}

StepResult step_process(const std::string& name, const std::vector<std::string>& argv, const fs::path& out_dir,
                        const fs::path& dir, const Clock& clock, const fs::path& cwd = {}) {
  return run_step(name, out_dir, dir, clock,
                  [&](const fs::path& log) { return run_process(argv, log, clock.left(), cwd, clock.stop); });
}

// A random model that failed — axc refused it ("compile"), or a backend's outputs differ from the
// ref backend's — is reduced to the smallest model that still fails the same way (axrand --reduce;
// a candidate is compiled, given seeded inputs and run on ref and on the failing backend), saved
// as reduced.json beside it (add it to a suite as `random: {program: FILE}`).
void reduce_model_failure(const Job& job, const RunOptions& opt, const fs::path& dir, const Clock& clock, JobResult& r,
                          const std::string& bad) {
  const auto q = [](const std::vector<std::string>& argv) { return shell_join(argv); };
  const std::string compile = q({opt.tools.axc.string(), "compile", "{dir}/model.yaml", "-o", "{dir}/p.axb", "--cores",
                                 std::to_string(job.cores)});
  std::string check;
  if (bad == "compile") {
    check = compile;  // fails while axc refuses the model
  } else {
    auto run = [&](const std::string& backend) {
      return q({opt.tools.axrun.string(), "{dir}/p.axb", "--backend", backend, "--output-dir", "{dir}/" + backend,
                "--cores", std::to_string(job.cores), "-q"}) +
             " $inputs";
    };
    // A candidate axc refuses, or whose ref run fails, does not show the bug: exit 0.
    check = compile + " >/dev/null 2>&1 || exit 0; " +
            q({opt.tools.axrand.string(), "--inputs-for", "{dir}/p.axb", "--seed", std::to_string(job.seed), "--out",
               "{dir}/in", "-q"}) +
            " || exit 0; inputs=; for f in {dir}/in/*.npy; do n=${f##*/}; inputs=\"$inputs --input ${n%.npy}=$f\"; "
            "done; " +
            run("ref") + " || exit 0; " + run(bad) + " && " +
            q({opt.tools.axrand.string(), "--compare", "{dir}/ref", "{dir}/" + bad});
  }
  auto s = step_process("reduce",
                        {opt.tools.axrand.string(), "--reduce", (dir / "model.json").string(), "--check", check,
                         "--save", (dir / "reduced.json").string()},
                        opt.out_dir, dir, clock);
  s.message = s.status == Status::PASS ? "reduced model: " + fs::relative(dir / "reduced.json", opt.out_dir).string()
                                       : "reduction failed: " + s.message;
  if (s.status != Status::TIMEOUT) s.status = Status::SKIP;  // informative; the job failed already
  r.steps.push_back(std::move(s));
}

// A TLM step in the worker's axrun server (started here at its first job: a "tlm-server" step
// with its start-up time); a server that cannot start leaves the step to its own process.
StepResult step_served(ServerPool& pool, const std::string& name, const std::vector<std::string>& argv, unsigned cores,
                       const fs::path& out_dir, const fs::path& dir, const Clock& clock, JobResult& r,
                       std::string& fallback) {
  AxrunServer* server = nullptr;
  try {
    bool started = false;
    server = &pool.get(name, cores, clock.left(), started);
    if (started) {
      StepResult s;
      s.name = name + "-server";
      s.status = Status::PASS;
      s.seconds = server->startup_seconds();
      s.message = fmt::format("axrun --serve --backend {} --cores {} started (SystemC elaborated once for this worker)",
                              name, cores);
      r.steps.push_back(std::move(s));
    }
  } catch (const std::exception& e) {
    fallback = std::string(e.what()) + "; ran as its own axrun process";
    return step_process(name, argv, out_dir, dir, clock, dir);
  }
  return run_step(name, out_dir, dir, clock, [&](const fs::path& log) {
    return server->run(std::vector<std::string>(argv.begin() + 1, argv.end()), log, clock.left(), dir, clock.stop);
  });
}

void run_program(const Job& job, const RunOptions& opt, const fs::path& dir, const Clock& clock, JobResult& r,
                 ServerPool* servers) {
  const TestSpec& t = *job.test;
  fs::path bundle = t.source;
  std::map<std::string, fs::path> inputs = t.inputs;
  std::string golden;  // folder of the expected outputs, relative to the job folder
  // axc, then seeded random inputs for every input buffer the model names (axrand --inputs-for).
  auto compile = [&](const fs::path& model) {
    bundle = dir / "program.axb";
    r.steps.push_back(step_process("compile",
                                   {opt.tools.axc.string(), "compile", model.string(), "-o", bundle.string(), "--cores",
                                    std::to_string(job.cores)},
                                   opt.out_dir, dir, clock));
    return r.steps.back().status == Status::PASS;
  };
  auto seed_inputs = [&] {
    r.steps.push_back(step_process("inputs",
                                   {opt.tools.axrand.string(), "--inputs-for", bundle.string(), "--seed",
                                    std::to_string(job.seed), "--out", (dir / "inputs").string(), "-q"},
                                   opt.out_dir, dir, clock));
    if (r.steps.back().status != Status::PASS) return false;
    for (const auto& e : fs::directory_iterator(dir / "inputs")) inputs[e.path().stem().string()] = e.path();
    return true;
  };
  if (t.kind == Kind::MODEL && !compile(t.source)) return;
  if ((t.kind == Kind::MODEL || t.kind == Kind::BUNDLE) && inputs.empty() && !seed_inputs()) return;
  // A random model (axrand --kind model / dwpu) is a YAML model: compiled, run on every backend
  // with the ref backend as the golden.
  bool random_model = false;
  if (t.kind == Kind::RANDOM) {
    // The generator writes the program, its inputs and the expected outputs (common/ref's DMA model).
    std::vector<std::string> argv{opt.tools.axrand.string(), "--out", dir.string()};
    if (t.source.empty()) {
      argv.insert(argv.end(),
                  {"--seed", std::to_string(job.seed), "--cores", std::to_string(job.cores), "--kind", t.random_kind});
    } else {
      argv.insert(argv.end(), {"--program", t.source.string()});
    }
    r.steps.push_back(step_process("generate", argv, opt.out_dir, dir, clock));
    if (r.steps.back().status != Status::PASS) return;
    if (std::ifstream cov(dir / "coverage.json"); cov) {
      try {
        r.coverage = nlohmann::json::parse(cov).get<std::vector<std::string>>();
      } catch (const nlohmann::json::exception&) { r.steps.back().message = "coverage.json unreadable"; }
    }
    if (std::ifstream space(dir / "coverage_space.json"); space) {  // every point the program could hit
      try {
        r.coverage_space = nlohmann::json::parse(space).get<std::vector<std::string>>();
      } catch (const nlohmann::json::exception&) { r.steps.back().message = "coverage_space.json unreadable"; }
    }
    random_model = fs::exists(dir / "model.yaml");
    if (random_model) {
      if (!compile(dir / "model.yaml") || !seed_inputs()) {
        if (t.source.empty()) reduce_model_failure(job, opt, dir, clock, r, "compile");
        return;
      }
    } else {
      bundle = dir / "program.axb";
      for (const auto& e : fs::directory_iterator(dir / "inputs")) inputs[e.path().stem().string()] = e.path();
      golden = "expected";
    }
  }
  for (const auto& b : t.backends) {
    // The generator's expected outputs are a random program's golden (a random model's is ref).
    if (b == "ref" && t.kind == Kind::RANDOM && !random_model) continue;
    std::vector<std::string> argv{opt.tools.axrun.string(),
                                  bundle.string(),
                                  "--backend",
                                  b,
                                  "--output-dir",
                                  (dir / b).string(),
                                  "--cores",
                                  std::to_string(job.cores),
                                  "-q"};
    for (const auto& [name, file] : inputs) argv.insert(argv.end(), {"--input", name + "=" + file.string()});
    const bool timed = b != "ref";
    if (timed) {
      argv.insert(argv.end(),
                  {"--trace", (dir / (b + ".trace")).string(), "--timeline", (dir / (b + ".timeline.json")).string(),
                   "--stats-json", (dir / (b + ".stats.json")).string()});
    }
    argv.insert(argv.end(), opt.extra_axrun_args.begin(), opt.extra_axrun_args.end());
    // In the job's folder: a coverage build's RTL model writes its coverage.dat there.
    std::string fallback;
    auto s = servers && opt.tlm_server && b == "tlm"
                 ? step_served(*servers, b, argv, job.cores, opt.out_dir, dir, clock, r, fallback)
                 : step_process(b, argv, opt.out_dir, dir, clock, dir);
    if (!fallback.empty() && s.message.empty()) s.message = fallback;
    if (s.exit_code == kAxrunUnavailable) {  // this build lacks the backend or its configuration
      s.status = Status::SKIP;
      s.message = last_line_with(dir / (b + ".log"), "axrun: ");
      r.steps.push_back(std::move(s));
      continue;
    }
    if (timed) {
      if (fs::exists(dir / (b + ".trace"))) s.trace = fs::relative(dir / (b + ".trace"), opt.out_dir).string();
      if (fs::exists(dir / (b + ".timeline.json"))) {
        s.timeline = fs::relative(dir / (b + ".timeline.json"), opt.out_dir).string();
      }
      read_stats(dir / (b + ".stats.json"), s);
      try {
        s.cycles = last_cycle(dir / (b + ".trace"));
      } catch (const std::exception& e) {
        if (s.status == Status::PASS) {
          s.status = Status::FAIL;
          s.message = std::string("unreadable trace: ") + e.what();
        }
      }
    }
    r.steps.push_back(std::move(s));
  }
  // Outputs against the golden: the generator's expected outputs, the ref backend, or the first backend.
  if (golden.empty()) {
    golden = std::find(t.backends.begin(), t.backends.end(), "ref") != t.backends.end() ? std::string("ref")
                                                                                        : t.backends.front();
    const auto* g = r.step(golden);
    if (!g || g->status != Status::PASS) golden.clear();
  }
  if (t.mode != Mode::TRACE_EQUIVALENT && !golden.empty()) {
    for (auto& s : r.steps) {
      if (s.name == golden || s.status != Status::PASS || s.name == "compile" || s.name == "generate" ||
          s.name == "inputs" || s.name.ends_with("-server"))
        continue;
      const auto c = compare_outputs(dir / golden, dir / s.name, t.mode, t.atol, t.rtol);
      if (!c.equal) {
        s.status = Status::FAIL;
        s.message = "outputs differ from " + golden + ": " + c.message;
      } else if (s.message.empty()) {
        s.message = c.message;
      }
    }
  }
  // A generated program that fails is reduced right away, and the small program saved beside it
  // (add it to a suite as `random: {program: FILE}`).
  if (random_model && t.source.empty()) {
    for (const auto& s : r.steps) {
      if (s.status == Status::FAIL && s.name != "generate") {
        reduce_model_failure(job, opt, dir, clock, r, s.name);
        break;
      }
    }
  } else if (t.kind == Kind::RANDOM && t.source.empty()) {
    const StepResult* bad = nullptr;
    for (const auto& s : r.steps) {
      if (s.status == Status::FAIL && s.name != "generate") {
        bad = &s;
        break;
      }
    }
    if (bad) {
      std::vector<std::string> run{opt.tools.axrun.string(),
                                   "{dir}/program.axb",
                                   "--backend",
                                   bad->name,
                                   "--output-dir",
                                   "{dir}/out",
                                   "--cores",
                                   std::to_string(job.cores),
                                   "-q"};
      for (const auto& [name, file] : inputs)
        run.insert(run.end(), {"--input", name + "={dir}/inputs/" + file.filename().string()});
      const std::string check = shell_join(run) + " && " +
                                shell_join({opt.tools.axrand.string(), "--compare", "{dir}/expected", "{dir}/out"});
      auto s = step_process("reduce",
                            {opt.tools.axrand.string(), "--reduce", (dir / "program.json").string(), "--check", check,
                             "--save", (dir / "reduced.json").string()},
                            opt.out_dir, dir, clock);
      s.message = s.status == Status::PASS
                      ? "reduced program: " + fs::relative(dir / "reduced.json", opt.out_dir).string()
                      : "reduction failed: " + s.message;
      if (s.status != Status::TIMEOUT) s.status = Status::SKIP;  // informative; the job failed already
      r.steps.push_back(std::move(s));
    }
  }
  const auto* tl = r.step("tlm");
  const auto* rt = r.step("rtl");
  if (tl && rt && tl->status != Status::TIMEOUT && rt->status != Status::TIMEOUT && !tl->trace.empty() &&
      !rt->trace.empty()) {
    auto s = step_process(
        "tlm~rtl",
        {opt.tools.axtrace.string(), "compare", (opt.out_dir / tl->trace).string(), (opt.out_dir / rt->trace).string()},
        opt.out_dir, dir, clock);
    if (s.status == Status::FAIL) s.message = "traces diverge (see " + s.log + ")";
    r.steps.push_back(std::move(s));
    if (rt->cycles > 0) r.tlm_rtl_ratio = static_cast<double>(tl->cycles) / static_cast<double>(rt->cycles);
  }
}

}  // namespace

Tools find_tools(const fs::path& build) {
  Tools t;
  t.axc = find_one(build, "axc", {"compiler", "bin"});
  t.axrun = find_one(build, "axrun", {"runtime/tools", "runtime", "bin"});
  t.axtrace = find_one(build, "axtrace", {"runtime/tools", "runtime", "bin"});
  t.axrand = find_one(build, "axrand", {"cosim/rand", "compiler", "bin"});
  t.build = build;
  return t;
}

JobResult new_result(const Job& job) {
  JobResult r;
  r.id = job.id;
  r.test = job.test->name;
  r.kind = job.test->kind;
  r.cores = job.cores;
  r.seed = job.seed;
  r.tags = job.test->tags;
  return r;
}

JobResult run_job(const Job& job, const RunOptions& opt, ServerPool* servers) {
  JobResult r = new_result(job);
  const auto dir = opt.out_dir / "jobs" / job.id;
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  const auto t0 = std::chrono::steady_clock::now();
  const Clock clock{t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(job.test->timeout_s)),
                    opt.stop};
  if (job.test->kind == Kind::COMMAND) {
    std::vector<std::string> argv;
    for (const auto& a : job.test->command) argv.push_back(substitute(a, job, dir, opt));
    r.steps.push_back(step_process("cmd", argv, opt.out_dir, dir, clock, dir));  // in the job's folder
    if (r.steps.back().exit_code == kCommandSkipped) {                           // CTest's and automake's "skipped"
      r.steps.back().status = Status::SKIP;
      r.steps.back().message = last_output_line(dir / "cmd.log");
    }
  } else {
    run_program(job, opt, dir, clock, r, servers);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // The first step that failed names the job's status; a job whose only non-passing steps were
  // skipped (a backend configuration this build lacks) is skipped.
  r.status = Status::PASS;
  for (const bool skips : {false, true}) {
    for (const auto& s : r.steps) {
      if (s.status == Status::PASS || (s.status == Status::SKIP) != skips || r.status != Status::PASS) continue;
      r.status = s.status;
      // "rtl: this build has no ..." already names its step: no "rtl: rtl: ..."
      r.message = s.message.rfind(s.name + ":", 0) == 0 ? s.message : s.name + ": " + s.message;
    }
  }
  if (r.steps.empty()) {
    r.status = Status::ERROR;
    r.message = "nothing ran";
  }
  // A step the runner's stop killed or never started: the job is interrupted, not failed.
  for (const auto& s : r.steps) {
    if (s.status == Status::ERROR && s.message.rfind(kInterrupted, 0) == 0) {
      r.status = Status::ERROR;
      r.message = fmt::format("{}: the runner was stopped during step {} ({})", kInterrupted, s.name, s.message);
      break;
    }
  }
  return r;
}

std::vector<std::size_t> take_resumed(const std::vector<Job>& jobs, const std::vector<JobResult>& previous, bool resume,
                                      std::vector<JobResult>& results) {
  results.resize(jobs.size());
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (resume) {
      auto it = std::find_if(previous.begin(), previous.end(),
                             [&](const JobResult& p) { return p.id == jobs[i].id && p.status == Status::PASS; });
      if (it != previous.end()) {
        results[i] = *it;
        results[i].reused = true;
        continue;
      }
    }
    todo.push_back(i);
  }
  return todo;
}

std::vector<JobResult> run_suite(const std::vector<Job>& jobs, const RunOptions& opt,
                                 const std::vector<JobResult>& previous) {
  std::vector<JobResult> results(jobs.size());
  const auto todo = take_resumed(jobs, previous, opt.resume, results);
  std::atomic<std::size_t> next{0};
  std::atomic<unsigned> finished{static_cast<unsigned>(jobs.size() - todo.size())};
  std::mutex mu;
  std::vector<std::string> running;
  unsigned passed = finished, failed = 0, skipped = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  auto line = [&] {
    const auto s = elapsed();
    std::string cur = running.empty() ? std::string() : "  running: " + running.front();
    if (running.size() > 1) cur += fmt::format(" +{}", running.size() - 1);
    const std::string skips = skipped ? fmt::format(", {} skipped", skipped) : "";
    return fmt::format("[{}/{}] {} passed, {} failed{}  {:02}:{:02}{}", finished.load(), jobs.size(), passed, failed,
                       skips, static_cast<int>(s) / 60, static_cast<int>(s) % 60, cur);
  };
  auto stopped = [&] { return opt.stop && opt.stop->load(); };
  auto worker = [&] {
    ServerPool servers;  // this worker's axrun servers (opt.tlm_server), ended with it
    servers.axrun = opt.tools.axrun;
    servers.log_dir = opt.out_dir / "servers";
    for (;;) {
      if (stopped()) return;
      const std::size_t k = next.fetch_add(1);
      if (k >= todo.size()) return;
      const std::size_t i = todo[k];
      {
        std::lock_guard<std::mutex> lock(mu);
        running.push_back(jobs[i].id);
      }
      auto r = run_job(jobs[i], opt, &servers);
      std::lock_guard<std::mutex> lock(mu);
      running.erase(std::find(running.begin(), running.end(), jobs[i].id));
      (r.status == Status::PASS ? passed : r.status == Status::SKIP ? skipped : failed) += 1;
      ++finished;
      if (!opt.progress_tty) {
        std::printf("%-6s %-28s %6.1f s  %s\n", to_string(r.status), r.id.c_str(), r.seconds, r.message.c_str());
        std::fflush(stdout);
      }
      results[i] = std::move(r);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < std::max(1u, opt.jobs); ++w) pool.emplace_back(worker);
  if (opt.progress_tty) {
    while (finished.load() < jobs.size() && !stopped()) {
      {
        std::lock_guard<std::mutex> lock(mu);
        std::printf("\r\033[K%s", line().c_str());
        std::fflush(stdout);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }
  for (auto& t : pool) t.join();
  if (opt.progress_tty) std::printf("\r\033[K%s\n", line().c_str());
  for (std::size_t i : todo) {  // after a stop: the jobs no worker took
    if (!results[i].id.empty()) continue;
    results[i] = new_result(jobs[i]);
    results[i].status = Status::ERROR;
    results[i].message = std::string(kInterrupted) + ": not started";
  }
  return results;
}

}  // namespace axcore::regress
