#include <gtest/gtest.h>

#include <fstream>

#include "axcore/regress/suite.hpp"

using namespace axcore::regress;

namespace {

std::string error_of(const std::string& yaml) {
  try {
    parse_suite(yaml, "s.yaml");
  } catch (const SuiteError& e) { return e.what(); }
  return "";
}

}  // namespace

TEST(RegressSuite, ParsesDefaultsAndKinds) {
  const auto s = parse_suite(R"(suite: demo
defaults: {backends: [tlm, rtl], cores: [1, 4], timeout: 60, mode: tolerance, tolerance: {abs: 0.5}}
tests:
  - {name: a, command: [echo, hi], tags: [smoke]}
  - {name: r, random: {seed: 10, count: 3}, cores: 2, mode: bit-exact}
)",
                             "/tmp/s.yaml");
  EXPECT_EQ(s.name, "demo");
  ASSERT_EQ(s.tests.size(), 2u);
  EXPECT_EQ(s.tests[0].kind, Kind::COMMAND);
  EXPECT_EQ(s.tests[0].backends, (std::vector<std::string>{"tlm", "rtl"}));
  EXPECT_EQ(s.tests[0].cores, (std::vector<unsigned>{1, 4}));
  EXPECT_EQ(s.tests[0].mode, Mode::TOLERANCE);
  EXPECT_DOUBLE_EQ(s.tests[0].atol, 0.5);
  EXPECT_DOUBLE_EQ(s.tests[0].timeout_s, 60);
  EXPECT_EQ(s.tests[1].kind, Kind::RANDOM);
  EXPECT_EQ(s.tests[1].seed, 10u);
  EXPECT_EQ(s.tests[1].count, 3u);
  EXPECT_EQ(s.tests[1].cores, (std::vector<unsigned>{2}));
  EXPECT_EQ(s.tests[1].mode, Mode::BIT_EXACT);
}

TEST(RegressSuite, ExpandsConfigsSeedsAndTags) {
  const auto s = parse_suite(R"(suite: demo
tests:
  - {name: a, command: ["true"], cores: [1, 4], tags: [smoke]}
  - {name: r, random: {seed: 10, count: 3}, tags: [nightly]}
)",
                             "/tmp/s.yaml");
  auto all = expand(s, {});
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].id, "a@c1");
  EXPECT_EQ(all[1].id, "a@c4");
  EXPECT_EQ(all[2].id, "r#10@c1");
  EXPECT_EQ(all[4].id, "r#12@c1");
  EXPECT_EQ(all[4].seed, 12u);
  EXPECT_EQ(expand(s, {"smoke"}).size(), 2u);
  EXPECT_EQ(expand(s, {"nightly"}).size(), 3u);
  EXPECT_TRUE(expand(s, {"weekly"}).empty());
}

TEST(RegressSuite, ErrorsNameFileLineAndColumn) {
  EXPECT_EQ(error_of("suite: x\ntests:\n  - {name: a, command: [x], colour: red}\n"),
            "s.yaml:3:29: unknown key 'colour' in a test (known: name, doc, model, bundle, random, command, inputs, "
            "backends, cores, mode, tolerance, timeout, tags, seed, count)");
  EXPECT_EQ(error_of("suite: x\ntests:\n  - {name: a, command: [x], backends: [gpu]}\n"),
            "s.yaml:3:39: unknown backend 'gpu' (known: ref, tlm, rtl, fpga, regfile)");
  EXPECT_EQ(error_of("suite: x\ntests:\n  - {name: a, command: [x], cores: 9}\n"),
            "s.yaml:3:36: cores 9 is outside 1..4");
  EXPECT_EQ(error_of("suite: x\ntests:\n  - {name: a}\n"),
            "s.yaml:3:5: test 'a' needs exactly one of model, bundle, random, command");
  EXPECT_EQ(error_of("suite: x\ntests:\n  - {name: a, command: [x]}\n  - {name: a, command: [y]}\n"),
            "s.yaml:4:12: test 'a' is declared twice");
  EXPECT_EQ(error_of("suite: x\ntests:\n  - {name: a, command: [x], mode: close}\n"),
            "s.yaml:3:35: mode 'close' is not one of bit-exact, tolerance, trace-equivalent");
  const auto missing = error_of("suite: x\ntests:\n  - {name: a, model: nowhere.yaml}\n");
  EXPECT_EQ(missing.rfind("s.yaml:3:5: /", 0), 0u) << missing;
  EXPECT_NE(missing.find("/nowhere.yaml not found"), std::string::npos) << missing;
  EXPECT_EQ(error_of("suite: x\ntests: []\n"), "s.yaml:2:8: 'tests' must be a non-empty list");
  EXPECT_EQ(error_of("tests:\n  - {name: a, command: [x]}\n"), "s.yaml:1:1: missing 'suite' (the suite's name)");
  EXPECT_EQ(error_of("suite: x\ntests:\n  - {name: A b, command: [x]}\n"),
            "s.yaml:3:12: test name 'A b' must be lower-case letters, digits, '_', '-', '.'");
  EXPECT_NE(error_of("suite: [x\n").find("s.yaml:"), std::string::npos);
}

// `include:` puts another suite's tests first, with that suite's defaults and {suite_dir}.
TEST(RegressSuite, IncludesOtherSuites) {
  const auto dir = std::filesystem::temp_directory_path() / "axregress_suite_include";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "sub" / "plan.yaml") << "suite: plan\ndefaults: {timeout: 7, tags: [plan]}\n"
                                              "tests:\n  - {name: p, command: [sh, \"{suite_dir}/x.sh\", \"{out}\"]}\n";
  std::ofstream(dir / "main.yaml") << "suite: main\ninclude: [sub/plan.yaml]\ndefaults: {timeout: 9}\n"
                                      "tests:\n  - {name: m, random: {seed: 3, count: 2}}\n";
  const auto s = load_suite(dir / "main.yaml");
  ASSERT_EQ(s.tests.size(), 2u);
  EXPECT_EQ(s.tests[0].name, "p");
  EXPECT_DOUBLE_EQ(s.tests[0].timeout_s, 7);
  EXPECT_EQ(s.tests[0].tags, (std::vector<std::string>{"plan"}));
  EXPECT_EQ(s.tests[0].command[1], (dir / "sub" / "x.sh").string());
  EXPECT_EQ(s.tests[0].command[2], "{out}");
  EXPECT_EQ(s.tests[1].name, "m");
  EXPECT_DOUBLE_EQ(s.tests[1].timeout_s, 9);
  EXPECT_EQ(expand(s, {}).size(), 3u);
  EXPECT_EQ(expand(s, {"plan"}).size(), 1u);

  std::ofstream(dir / "only.yaml") << "suite: only\ninclude: sub/plan.yaml\n";  // no tests of its own
  EXPECT_EQ(load_suite(dir / "only.yaml").tests.size(), 1u);

  auto error = [&](const std::string& name, const std::string& yaml) {
    std::ofstream(dir / name) << yaml;
    try {
      load_suite(dir / name);
    } catch (const SuiteError& e) { return std::string(e.what()); }
    return std::string();
  };
  EXPECT_EQ(error("twice.yaml", "suite: t\ninclude: [sub/plan.yaml]\ntests:\n  - {name: p, command: [x]}\n"),
            (dir / "twice.yaml").string() + ":4:12: test 'p' is declared twice");
  EXPECT_EQ(error("gone.yaml", "suite: g\ninclude: [nowhere.yaml]\n"),
            (dir / "gone.yaml").string() + ":2:10: included suite " + (dir / "nowhere.yaml").string() + " not found");
  const auto loop = error("loop.yaml", "suite: l\ninclude: [loop.yaml]\n");
  EXPECT_NE(loop.find("includes itself"), std::string::npos) << loop;
  std::filesystem::remove_all(dir);
}
