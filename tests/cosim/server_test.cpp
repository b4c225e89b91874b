// AxrunServer (cosim/runner server.hpp) against stub `axrun --serve` scripts that speak its
// protocol: a job's exit code and output, a job past its deadline killed with its process group
// (the server lives on for the next job), a server that cannot start, and the runner's fallback to
// a process of its own. The real server (TLM jobs identical first or after others) is
// tlm_server_test.sh.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "axcore/regress/runner.hpp"
#include "axcore/regress/server.hpp"

using namespace axcore::regress;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  const auto d = fs::temp_directory_path() / ("axregress-server-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A server that runs each request's arguments as `sh -c "$3"` in its own session (setsid: a
// process group kill -PID reaches), output to the request's log.
fs::path stub_server(const fs::path& dir) {
  const auto p = dir / "axrun";
  std::ofstream(p) << R"SH(#!/bin/bash
[ "$1" = --serve ] || exit 9
echo ready
while IFS=$'\t' read -r cwd log a b c; do
  (cd "$cwd" && exec setsid sh -c "$c" >>"$log" 2>&1) & pid=$!
  echo "pid $pid"
  wait $pid; rc=$?
  if [ $rc -gt 128 ]; then echo "exit -1 $((rc - 128))"; else echo "exit $rc 0"; fi
done
)SH";
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(AxrunServer, RunsJobsAndKillsOnePastItsDeadline) {
  const auto dir = fresh_dir("jobs");
  AxrunServer s(stub_server(dir), "tlm", 1, dir / "server.log", std::chrono::seconds(10));
  EXPECT_TRUE(s.alive());
  EXPECT_GT(s.startup_seconds(), 0.0);
  auto r = s.run({"x", "y", "echo hello; exit 3"}, dir / "a.log", std::chrono::seconds(10), dir, nullptr);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.timed_out);
  const auto log = read_all(dir / "a.log");
  EXPECT_NE(log.find("$ axrun x y "), std::string::npos) << log;
  EXPECT_NE(log.find("hello\n"), std::string::npos) << log;
  EXPECT_NE(log.find("# exit 3"), std::string::npos) << log;
  // A job past its deadline: its group gets SIGTERM, the result is a timeout, the server goes on.
  r = s.run({"x", "y", "sleep 30"}, dir / "b.log", std::chrono::milliseconds(300), dir, nullptr);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_TRUE(s.alive());
  r = s.run({"x", "y", "true"}, dir / "c.log", std::chrono::seconds(10), dir, nullptr);
  EXPECT_TRUE(r.ok()) << r.describe();
}

TEST(AxrunServer, AServerThatCannotStartSaysWhy) {
  const auto dir = fresh_dir("nostart");
  const auto p = dir / "axrun";
  std::ofstream(p) << "#!/bin/sh\necho 'error tlm: this build has no TLM'\nexit 3\n";
  fs::permissions(p, fs::perms::owner_all);
  try {
    AxrunServer s(p, "tlm", 1, dir / "server.log", std::chrono::seconds(10));
    FAIL() << "started";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "axrun --serve: tlm: this build has no TLM");
  }
}

// The runner: a TLM step goes to the worker's server (a "tlm-server" step in the first job that
// started it), the next job's to the same server; a server that cannot start leaves the step to
// its own axrun process, said in the step's message.
TEST(AxrunServer, TheRunnerSendsTlmStepsToItsWorkersServer) {
  const auto dir = fresh_dir("runner");
  std::ofstream(dir / "p.axb") << "not read: axrun is a stub";
  std::ofstream(dir / "x.npy") << "";
  const auto axrun = dir / "axrun";
  // --serve: the stub server (each job's last argument as a command: "-q" etc. are not, so it
  // writes its arguments to the log); a plain run: exit 0 with a word.
  std::ofstream(axrun) << R"SH(#!/bin/bash
if [ "$1" = --serve ]; then
  echo ready
  while IFS=$'\t' read -r cwd log rest; do
    (echo "served: $rest" >>"$log") & pid=$!
    echo "pid $pid"; wait $pid; echo "exit 0 0"
  done
  exit 0
fi
echo "own process: $*"
)SH";
  fs::permissions(axrun, fs::perms::owner_all);
  const auto suite = parse_suite(
      "suite: s\ntests:\n  - {name: a, bundle: p.axb, inputs: {x: x.npy}, backends: [tlm]}\n"
      "  - {name: b, bundle: p.axb, inputs: {x: x.npy}, backends: [tlm]}\n",
      (dir / "s.yaml").string());
  RunOptions opt;
  opt.out_dir = dir / "out";
  opt.tools.axrun = axrun;
  opt.jobs = 1;
  opt.tlm_server = true;
  auto results = run_suite(expand(suite, {}), opt);
  ASSERT_EQ(results.size(), 2u);
  ASSERT_NE(results[0].step("tlm-server"), nullptr);
  EXPECT_EQ(results[1].step("tlm-server"), nullptr);  // the worker's server, started once
  for (const auto& r : results) {
    ASSERT_NE(r.step("tlm"), nullptr);
    EXPECT_EQ(r.step("tlm")->status, Status::PASS) << r.step("tlm")->message;
    const auto log = read_all(opt.out_dir / r.step("tlm")->log);
    EXPECT_NE(log.find("served: "), std::string::npos) << log;
  }
  // Without a server that starts: its own process.
  std::ofstream(axrun) << "#!/bin/bash\n[ \"$1\" = --serve ] && exit 1\necho \"own process: $*\"\n";
  results = run_suite(expand(suite, {}), opt);
  for (const auto& r : results) {
    ASSERT_NE(r.step("tlm"), nullptr);
    EXPECT_EQ(r.step("tlm")->status, Status::PASS);
    EXPECT_NE(r.step("tlm")->message.find("ran as its own axrun process"), std::string::npos) << r.step("tlm")->message;
    EXPECT_NE(read_all(opt.out_dir / r.step("tlm")->log).find("own process: "), std::string::npos);
  }
}
