// RTL coverage figures from a verilator_coverage data file: instances of a module merged (a point
// is hit when one instance hit it), line (line + branch points) and toggle counted per module and
// per folder; a malformed line is an error naming it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "axcore/regress/sections.hpp"

using namespace axcore::regress;
namespace fs = std::filesystem;

namespace {

std::string point(const std::string& page, const std::string& file, int line, const std::string& hier, int count) {
  return "C '\001t\002\001page\002" + page + "\001f\002" + file + "\001l\002" + std::to_string(line) +
         "\001n\0021\001o\002block\001h\002" + hier + "' " + std::to_string(count) + "\n";
}

fs::path write(const std::string& name, const std::string& text) {
  const auto p = fs::temp_directory_path() / ("sections_test_" + std::to_string(::getpid()) + name);
  std::ofstream(p) << text;
  return p;
}

}  // namespace

TEST(RegressCoverage, InstancesMergePerModuleAndFolder) {
  const std::string a = "/src/rtl/core/ax_a.sv", b = "/src/rtl/dma/ax_b.sv";
  const auto dat = write(
      "a.dat", "# SystemC::Coverage-3\n" + point("v_line/ax_a", a, 10, "TOP.u0", 0) +
                   point("v_line/ax_a", a, 10, "TOP.u1", 3) +    // hit in one instance
                   point("v_branch/ax_a", a, 12, "TOP.u0", 0) +  // never hit
                   point("v_branch/ax_a", a, 12, "TOP.u1", 0) + point("v_toggle/ax_a", a, 4, "TOP.u0", 1) +
                   point("v_line/ax_b", b, 7, "TOP.d", 9) +
                   // two specializations of one parameterized module: one point, hit
                   point("v_line/ax_b__pi1", b, 8, "TOP.e0", 0) + point("v_line/ax_b__B10_D3", b, 8, "TOP.e1", 2));
  const auto c = coverage_figures(dat);
  EXPECT_EQ(c.by_file.at(a).at("line").total, 2u);
  EXPECT_EQ(c.by_file.at(a).at("line").hit, 1u);
  EXPECT_EQ(c.by_file.at(a).at("toggle").total, 1u);
  EXPECT_EQ(c.by_file.at(a).at("toggle").hit, 1u);
  EXPECT_EQ(c.by_dir.at("/src/rtl/dma").at("line").hit, 2u);
  EXPECT_EQ(c.by_dir.at("/src/rtl/dma").at("line").total, 2u);
  EXPECT_EQ(c.total.at("line").total, 4u);
  EXPECT_EQ(c.total.at("line").hit, 3u);
  EXPECT_DOUBLE_EQ(c.by_file.at(a).at("line").percent(), 50.0);
  fs::remove(dat);
}

TEST(RegressCoverage, MalformedLineIsNamed) {
  const auto dat = write("bad.dat", "# SystemC::Coverage-3\nnot a point\n");
  try {
    coverage_figures(dat);
    ADD_FAILURE() << "accepted a malformed coverage file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(":2: "), std::string::npos) << e.what();
  }
  fs::remove(dat);
  EXPECT_THROW(coverage_figures("/nonexistent/coverage.dat"), std::runtime_error);
}

TEST(RegressCoverage, NoCoverageFilesIsAClearError) {
  const auto out = fs::temp_directory_path() / ("sections_test_out_" + std::to_string(::getpid()));
  fs::create_directories(out / "jobs" / "j1");
  const auto s = coverage_section(out, "/");
  EXPECT_FALSE(s.ok);
  ASSERT_FALSE(s.lines.empty());
  EXPECT_NE(s.lines[0].find("AXCORE_RTL_COVERAGE=ON"), std::string::npos) << s.lines[0];
  fs::remove_all(out);
}
