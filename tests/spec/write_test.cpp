// The generator rewrites a generated file only when its text changes (spec/gen/write.cpp), so an
// unchanged spec leaves every dependent target alone under Ninja's restat.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "model.hpp"

namespace fs = std::filesystem;
using axcore::specgen::write_if_changed;

namespace {

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("axcore_spec_write_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// An mtime an hour ago: a rewrite in this test cannot land on the same timestamp.
fs::file_time_type backdate(const fs::path& p) {
  const auto t = fs::last_write_time(p) - std::chrono::hours(1);
  fs::last_write_time(p, t);
  return t;
}

TEST(SpecWrite, SameTextKeepsTheFileAndItsTime) {
  const fs::path p = fresh_dir("same") / "a.txt";
  write_if_changed(p.string(), "one\n");
  ASSERT_EQ(read(p), "one\n");
  const auto t = backdate(p);
  write_if_changed(p.string(), "one\n");
  EXPECT_EQ(fs::last_write_time(p), t);
  EXPECT_EQ(read(p), "one\n");
}

TEST(SpecWrite, NewTextReplacesTheFileAndLeavesNoTemporary) {
  const fs::path d = fresh_dir("new");
  const fs::path p = d / "a.txt";
  write_if_changed(p.string(), "one\n");
  const auto t = backdate(p);
  write_if_changed(p.string(), "two\n");
  EXPECT_EQ(read(p), "two\n");
  EXPECT_NE(fs::last_write_time(p), t);
  EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 1);
}

TEST(SpecWrite, UnwritablePathThrows) {
  EXPECT_THROW(write_if_changed("/nonexistent-dir/axcore/a.txt", "x"), std::runtime_error);
}

// The generator itself: a second run over the same YAML touches none of its outputs.
TEST(SpecWrite, RegeneratingTheSameSpecTouchesNothing) {
  const fs::path d = fresh_dir("gen");
  const std::string cmd = std::string(AXSPECGEN_PATH) + " " + AXCORE_SPEC_YAML_PATH + " --cpp " +
                          (d / "spec.hpp").string() + " --sv " + (d / "pkg.sv").string() + " --docs " +
                          (d / "docs").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::vector<std::pair<fs::path, fs::file_time_type>> before;
  for (const auto& e : fs::recursive_directory_iterator(d))
    if (e.is_regular_file()) before.emplace_back(e.path(), backdate(e.path()));
  ASSERT_GE(before.size(), 5u);  // spec.hpp, pkg.sv, three docs tables
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  for (const auto& [p, t] : before) EXPECT_EQ(fs::last_write_time(p), t) << p;
}

}  // namespace
