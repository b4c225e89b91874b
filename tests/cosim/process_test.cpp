#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "axcore/regress/process.hpp"

using namespace axcore::regress;
namespace fs = std::filesystem;

namespace {

fs::path temp_log(const char* name) {
  const auto dir = fs::temp_directory_path() / ("axregress-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto p = dir / name;
  fs::remove(p);
  return p;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(RegressProcess, CapturesOutputAndExitCode) {
  const auto log = temp_log("a.log");
  const auto r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"}, log, std::chrono::seconds(10));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.describe(), "exit 3");
  const auto text = slurp(log);
  EXPECT_NE(text.find("$ sh -c 'echo out; echo err >&2; exit 3'"), std::string::npos) << text;
  EXPECT_NE(text.find("out\n"), std::string::npos);
  EXPECT_NE(text.find("err\n"), std::string::npos);
  EXPECT_NE(text.find("# exit 3"), std::string::npos);
}

TEST(RegressProcess, KillsTheWholeGroupAtTheDeadline) {
  const auto log = temp_log("b.log");
  const auto marker = temp_log("child-survived");
  // A child in the background that would write the marker after 2 s; the group kill must stop it.
  const auto r = run_process({"sh", "-c", "(sleep 2; touch " + marker.string() + ") & sleep 30"}, log,
                             std::chrono::milliseconds(300));
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(r.describe().rfind("timed out after", 0), 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_FALSE(fs::exists(marker));
}

TEST(RegressProcess, MissingProgramIs127AndSignalsAreReported) {
  const auto log = temp_log("c.log");
  EXPECT_EQ(run_process({"/nonexistent/tool"}, log, std::chrono::seconds(5)).exit_code, 127);
  EXPECT_NE(slurp(log).find("cannot run /nonexistent/tool"), std::string::npos);
  const auto r = run_process({"sh", "-c", "kill -SEGV $$"}, log, std::chrono::seconds(5));
  EXPECT_EQ(r.signal, 11);
  EXPECT_EQ(r.describe().rfind("killed by signal 11", 0), 0u);
  EXPECT_THROW(run_process({}, log, std::chrono::seconds(1)), std::invalid_argument);
}

TEST(RegressProcess, ShellJoinQuotes) { EXPECT_EQ(shell_join({"a", "b c", "it's", "x=1"}), "a 'b c' 'it'\\''s' x=1"); }
