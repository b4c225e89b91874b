#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "axcore/ref/npy.hpp"
#include "axcore/regress/compare.hpp"
#include "axcore/regress/runner.hpp"

using namespace axcore::regress;
namespace fs = std::filesystem;
namespace ref = axcore::ref;

namespace {

fs::path fresh_dir(const std::string& name) {
  const auto d = fs::temp_directory_path() / ("axregress-runner-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

Suite commands_suite() {
  return parse_suite(R"(suite: t
defaults: {timeout: 20}
tests:
  - {name: ok, command: [sh, -c, "echo {cores} {seed} > {out}/x"], cores: [1, 2], seed: 7}
  - {name: bad, command: [sh, -c, "exit 4"]}
  - {name: slow, command: [sleep, "30"], timeout: 0.3}
)",
                     "/tmp/t.yaml");
}

}  // namespace

TEST(RegressRunner, CommandJobsPassFailAndTimeOut) {
  const auto suite = commands_suite();
  const auto jobs = expand(suite, {});
  ASSERT_EQ(jobs.size(), 4u);
  RunOptions opt;
  opt.out_dir = fresh_dir("cmd");
  opt.jobs = 2;
  const auto results = run_suite(jobs, opt);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].id, "ok@c1");
  EXPECT_EQ(results[0].status, Status::PASS);
  EXPECT_EQ(results[1].status, Status::PASS);
  std::ifstream x(opt.out_dir / "jobs" / "ok@c2" / "x");
  std::string line;
  std::getline(x, line);
  EXPECT_EQ(line, "2 7");
  EXPECT_EQ(results[2].status, Status::FAIL);
  EXPECT_EQ(results[2].message, "cmd: exit 4");
  EXPECT_EQ(results[3].status, Status::TIMEOUT);
  EXPECT_LT(results[3].seconds, 5.0);
  const auto sum = summarize(results, 1.0);
  EXPECT_EQ(sum.closing_line(), "2 passed, 2 failed");
}

TEST(RegressRunner, ResumeKeepsPassedJobsAndRerunsTheRest) {
  const auto suite = commands_suite();
  const auto jobs = expand(suite, {});
  RunOptions opt;
  opt.out_dir = fresh_dir("resume");
  opt.resume = true;
  std::vector<JobResult> previous(2);
  previous[0].id = "ok@c1";
  previous[0].status = Status::PASS;
  previous[0].message = "from before";
  previous[1].id = "bad@c1";
  previous[1].status = Status::FAIL;
  const auto results = run_suite(jobs, opt, previous);
  EXPECT_TRUE(results[0].reused);
  EXPECT_EQ(results[0].message, "from before");
  EXPECT_FALSE(fs::exists(opt.out_dir / "jobs" / "ok@c1"));  // not run again
  EXPECT_FALSE(results[2].reused);                           // failed before: runs again
  EXPECT_EQ(results[2].status, Status::FAIL);
}

TEST(RegressCompare, BitExactToleranceAndStructure) {
  const auto a = fresh_dir("cmp-a"), b = fresh_dir("cmp-b");
  ref::save_npy((a / "y.npy").string(), ref::NDArray<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  ref::save_npy((b / "y.npy").string(), ref::NDArray<float>({2, 3}, {1, 2, 3, 4, 5.25f, 6}));
  auto c = compare_outputs(a, b, Mode::BIT_EXACT, 0, 0);
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.message, "y.npy[1,1]: 5.25 vs reference 5");
  EXPECT_TRUE(compare_outputs(a, b, Mode::TOLERANCE, 0.25, 0).equal);
  EXPECT_TRUE(compare_outputs(a, b, Mode::TOLERANCE, 0, 0.05).equal);
  EXPECT_FALSE(compare_outputs(a, b, Mode::TOLERANCE, 0.2, 0).equal);
  EXPECT_DOUBLE_EQ(compare_outputs(a, b, Mode::TOLERANCE, 1, 0).max_abs_error, 0.25);

  ref::save_npy((b / "y.npy").string(), ref::NDArray<float>({3, 2}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(compare_outputs(a, b, Mode::BIT_EXACT, 0, 0).message, "y.npy: shape (3, 2) vs reference (2, 3)");
  ref::save_npy((b / "y.npy").string(), ref::NDArray<int8_t>({2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(compare_outputs(a, b, Mode::BIT_EXACT, 0, 0).message, "y.npy: dtype differs from the reference's");
  fs::remove(b / "y.npy");
  EXPECT_NE(compare_outputs(a, b, Mode::BIT_EXACT, 0, 0).message.find("y.npy is missing from"), std::string::npos);
  ref::save_npy((b / "y.npy").string(), ref::NDArray<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  ref::save_npy((b / "z.npy").string(), ref::NDArray<float>({1}, {1}));
  EXPECT_EQ(compare_outputs(a, b, Mode::BIT_EXACT, 0, 0).message, "z.npy is not an output of the reference");
  fs::remove(b / "z.npy");
  c = compare_outputs(a, b, Mode::BIT_EXACT, 0, 0);
  EXPECT_TRUE(c.equal);
  EXPECT_EQ(c.elements, 6u);
}

// A backend configuration the build lacks (axrun exit 3): the job is skipped with axrun's reason,
// which already names its backend — "rtl: this build has ...", not "rtl: rtl: this build has ...".
TEST(RegressRunner, ASkipNamesItsBackendOnce) {
  const auto dir = fresh_dir("skip");
  std::ofstream(dir / "p.axb") << "not read: axrun is a stub";
  std::ofstream(dir / "x.npy") << "";
  const auto axrun = dir / "axrun";
  std::ofstream(axrun) << "#!/bin/sh\necho 'axrun: rtl: this build has no Verilated model with 4 cores' >&2\nexit 3\n";
  fs::permissions(axrun, fs::perms::owner_all);
  const auto suite =
      parse_suite("suite: s\ntests:\n  - {name: b, bundle: p.axb, inputs: {x: x.npy}, backends: [rtl]}\n",
                  (dir / "s.yaml").string());
  RunOptions opt;
  opt.out_dir = dir / "out";
  opt.tools.axrun = axrun;
  const auto results = run_suite(expand(suite, {}), opt);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::SKIP);
  EXPECT_EQ(results[0].message, "rtl: this build has no Verilated model with 4 cores");
}
