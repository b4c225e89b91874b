// Where a coverage build's Verilated model writes its counts (shared by RtlDevice and the
// rtl_core testbenches).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace axcore::rtl {

// A coverage build (-DAXCORE_RTL_COVERAGE=ON) writes each model's line and toggle counts when it
// finishes: to $AXCORE_RTL_COVERAGE_FILE, else coverage.dat in the working directory (axregress
// runs the rtl step and commands in the job's folder); a name already taken gets -1, -2, ... before .dat, so
// several devices in one process (or one job) keep every count for verilator_coverage to merge.
inline std::string coverage_file() {
  const char* env = std::getenv("AXCORE_RTL_COVERAGE_FILE");
  const std::filesystem::path base = env && *env ? env : "coverage.dat";
  std::filesystem::path p = base;
  for (unsigned n = 1; std::filesystem::exists(p); ++n)
    p = base.parent_path() / (base.stem().string() + "-" + std::to_string(n) + base.extension().string());
  return p.string();
}

}  // namespace axcore::rtl
