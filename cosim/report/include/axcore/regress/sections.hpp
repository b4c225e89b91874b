// Sections of report.html made by tools run over a finished run's output folder: the verification
// plan (--testplan) and the RTL code coverage (--coverage).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace axcore::regress {

struct Section {
  std::string html;                // the fragment for report.html ("" when the tool failed)
  std::vector<std::string> lines;  // summary lines for the terminal
  bool ok = true;                  // false: the tool failed (lines say why)
};

// --testplan PLAN: cosim/testplan/testplan.py (beside PLAN) reports every feature of the
// plan's spec over OUT/results.json — planned, passing, failing, uncovered; writes
// OUT/testplan.html (the table) and OUT/testplan.txt (one line per feature).
Section testplan_section(const std::filesystem::path& plan, const std::filesystem::path& out_dir);

// RTL code coverage of one run: the counts of every coverage point, instances of a module merged
// (a point is hit when one instance hit it). Kinds: "line" (Verilator's line and branch points),
// "toggle".
struct CoverageFigures {
  struct Count {
    uint64_t hit = 0, total = 0;
    double percent() const { return total ? 100.0 * static_cast<double>(hit) / static_cast<double>(total) : 0.0; }
  };
  std::map<std::string, std::map<std::string, Count>> by_file;  // file -> kind -> count
  std::map<std::string, std::map<std::string, Count>> by_dir;   // folder of the file -> kind -> count
  std::map<std::string, Count> total;                           // kind -> count
};
// Parses a verilator_coverage data file (coverage.dat); throws std::runtime_error naming a bad line.
CoverageFigures coverage_figures(const std::filesystem::path& dat);

// --coverage: merges every OUT/jobs/*/coverage*.dat with verilator_coverage into
// OUT/coverage/merged.dat, writes OUT/coverage/coverage.info (--write-info) and its genhtml report
// (OUT/coverage/html/, per folder and per module), OUT/coverage/summary.json and the figures table.
// Paths in the data are made relative to `source_root`.
Section coverage_section(const std::filesystem::path& out_dir, const std::filesystem::path& source_root);

}  // namespace axcore::regress
