// The reports of a regression run, all written into the output directory:
//   results.json  every job with its steps (read back by --resume),
//   junit.xml     one testcase per job and step, for CI systems,
//   report.html   a static page: tests x steps with status, cycles, TLM/RTL ratio, wall-clock and
//                 links to each step's log, trace and timeline.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "axcore/regress/runner.hpp"

namespace axcore::regress {

struct ReportInfo {
  std::string suite;
  std::string started;  // ISO 8601
  unsigned jobs = 1;    // parallel workers
  Summary summary;
  std::vector<std::string> sections;  // extra HTML fragments (verification plan, RTL coverage)
};

std::string results_json(const std::vector<JobResult>& results, const ReportInfo& info);
std::vector<JobResult> parse_results_json(const std::string& text);  // throws std::runtime_error
std::string junit_xml(const std::vector<JobResult>& results, const ReportInfo& info);
std::string html_report(const std::vector<JobResult>& results, const ReportInfo& info);
// A plain-text table for terminals: one row per job, one column per step ("pass 1234 cy"), the
// TLM/RTL cycle ratio.
std::string text_table(const std::vector<JobResult>& results);

// Writes the three files; returns the path of report.html.
std::filesystem::path write_reports(const std::filesystem::path& out_dir, const std::vector<JobResult>& results,
                                    const ReportInfo& info);
std::vector<JobResult> read_previous_results(const std::filesystem::path& out_dir);  // empty when absent

std::string xml_escape(const std::string& s);

}  // namespace axcore::regress
