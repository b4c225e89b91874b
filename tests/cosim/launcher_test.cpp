#include <gtest/gtest.h>

#include "axcore/regress/launcher.hpp"
#include "axcore/regress/suite.hpp"

using namespace axcore::regress;

TEST(RegressLauncher, ArrayRangesCompressRuns) {
  EXPECT_EQ(array_ranges({}), "");
  EXPECT_EQ(array_ranges({4}), "4");
  EXPECT_EQ(array_ranges({0, 1, 2, 3, 5, 7, 8, 9}), "0-3,5,7-9");
}

TEST(RegressLauncher, SlurmTimeLimitsAreWholeMinutesRoundedUp) {
  EXPECT_EQ(slurm_minutes(0.3), 1u);
  EXPECT_EQ(slurm_minutes(60), 1u);
  EXPECT_EQ(slurm_minutes(61), 2u);
  EXPECT_EQ(slurm_minutes(900), 15u);
}

TEST(RegressLauncher, ParseLauncherNamesTheChoices) {
  EXPECT_EQ(parse_launcher("local"), LauncherKind::LOCAL);
  EXPECT_EQ(parse_launcher("slurm"), LauncherKind::SLURM);
  try {
    parse_launcher("lsf");
    FAIL() << "lsf accepted";
  } catch (const std::invalid_argument& e) { EXPECT_NE(std::string(e.what()).find("local, slurm"), std::string::npos); }
}

TEST(RegressLauncher, SuiteLauncherKey) {
  const auto plain = parse_suite("suite: s\ntests: [{name: a, command: [\"true\"]}]\n", "/tmp/s.yaml");
  EXPECT_EQ(plain.launcher.kind, "local");
  EXPECT_EQ(plain.launcher.retries, 2u);
  const auto short_form =
      parse_suite("suite: s\nlauncher: slurm\ntests: [{name: a, command: [\"true\"]}]\n", "/tmp/s.yaml");
  EXPECT_EQ(short_form.launcher.kind, "slurm");
  const auto full = parse_suite(
      "suite: s\nlauncher: {kind: slurm, retries: 5, sbatch: [--partition=farm, --qos=low]}\n"
      "tests: [{name: a, command: [\"true\"]}]\n",
      "/tmp/s.yaml");
  EXPECT_EQ(full.launcher.retries, 5u);
  EXPECT_EQ(full.launcher.sbatch_args, (std::vector<std::string>{"--partition=farm", "--qos=low"}));
  try {
    parse_suite("suite: s\nlauncher: {kind: lsf}\ntests: [{name: a, command: [\"true\"]}]\n", "/tmp/s.yaml");
    FAIL() << "lsf accepted";
  } catch (const SuiteError& e) {
    EXPECT_NE(std::string(e.what()).find("/tmp/s.yaml:2:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_suite("suite: s\nlauncher: {kind: slurm, nodes: 3}\ntests: [{name: a, command: [\"true\"]}]\n",
                           "/tmp/s.yaml"),
               SuiteError);
}

TEST(RegressLauncher, ResumeKeepsOnlyPassedJobs) {
  const auto suite =
      parse_suite("suite: s\ntests: [{name: a, command: [\"true\"], cores: [1, 2, 3]}]\n", "/tmp/s.yaml");
  const auto jobs = expand(suite, {});
  std::vector<JobResult> previous(2);
  previous[0].id = "a@c1";
  previous[0].status = Status::PASS;
  previous[1].id = "a@c2";
  previous[1].status = Status::FAIL;
  std::vector<JobResult> results;
  EXPECT_EQ(take_resumed(jobs, previous, true, results), (std::vector<std::size_t>{1, 2}));
  EXPECT_TRUE(results[0].reused);
  EXPECT_EQ(take_resumed(jobs, previous, false, results), (std::vector<std::size_t>{0, 1, 2}));
}
