#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "axcore/regress/report.hpp"

using namespace axcore::regress;

namespace {

std::vector<JobResult> sample() {
  JobResult a;
  a.id = "mlp@c1";
  a.test = "mlp";
  a.kind = Kind::MODEL;
  a.status = Status::PASS;
  a.seconds = 3.5;
  a.tags = {"smoke"};
  a.tlm_rtl_ratio = 0.98;
  StepResult s;
  s.name = "tlm";
  s.status = Status::PASS;
  s.cycles = 1234;
  s.log = "jobs/mlp@c1/tlm.log";
  s.trace = "jobs/mlp@c1/tlm.trace";
  a.steps.push_back(s);
  JobResult b = a;
  b.id = "conv@c4";
  b.test = "conv";
  b.cores = 4;
  b.status = Status::FAIL;
  b.message = "rtl: outputs differ <y.npy[0]>";
  b.tlm_rtl_ratio.reset();
  b.steps[0].name = "rtl";
  b.steps[0].status = Status::FAIL;
  return {a, b};
}

}  // namespace

TEST(RegressReport, JsonRoundTrips) {
  const auto r = sample();
  ReportInfo info{"smoke", "2026-12-03T08:00:00Z", 2, summarize(r, 4.0), {}};
  const auto back = parse_results_json(results_json(r, info));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].id, "mlp@c1");
  EXPECT_EQ(back[0].kind, Kind::MODEL);
  EXPECT_EQ(back[0].steps.at(0).cycles, 1234u);
  EXPECT_DOUBLE_EQ(*back[0].tlm_rtl_ratio, 0.98);
  EXPECT_EQ(back[1].status, Status::FAIL);
  EXPECT_EQ(back[1].cores, 4u);
  EXPECT_FALSE(back[1].tlm_rtl_ratio.has_value());
  EXPECT_THROW(parse_results_json("{\"jobs\": [{\"id\": 1}]}"), std::runtime_error);
  EXPECT_THROW(parse_results_json("not json"), std::runtime_error);
}

TEST(RegressReport, JunitCountsAndEscapes) {
  const auto r = sample();
  ReportInfo info{"smoke", "t", 2, summarize(r, 4.0), {}};
  const auto x = junit_xml(r, info);
  EXPECT_NE(x.find("<testsuites name=\"smoke\" tests=\"2\" failures=\"1\" skipped=\"0\""), std::string::npos) << x;
  EXPECT_NE(x.find("<testcase classname=\"smoke.mlp\" name=\"mlp@c1\" time=\"3.500\"></testcase>"), std::string::npos);
  EXPECT_NE(x.find("message=\"rtl: outputs differ &lt;y.npy[0]&gt;\""), std::string::npos);
  EXPECT_EQ(x.find("<y.npy"), std::string::npos);
}

TEST(RegressReport, HtmlHasOneRowPerJobAndLinks) {
  const auto r = sample();
  ReportInfo info{"smoke", "t", 2, summarize(r, 4.0), {}};
  const auto h = html_report(r, info);
  EXPECT_NE(h.find("<b>1 passed, 1 failed</b>"), std::string::npos);
  EXPECT_NE(h.find("<th>tlm</th><th>rtl</th>"), std::string::npos);
  EXPECT_NE(h.find("<a href=\"jobs/mlp@c1/tlm.trace\">trace</a>"), std::string::npos);
  EXPECT_NE(h.find("1234 cyc"), std::string::npos);
  EXPECT_NE(h.find("0.980"), std::string::npos);
  std::size_t rows = 0;
  for (std::size_t p = h.find("<tr><td>"); p != std::string::npos; p = h.find("<tr><td>", p + 1)) ++rows;
  EXPECT_EQ(rows, 2u);
  EXPECT_EQ(xml_escape("a<&>\"'\x01"), "a&lt;&amp;&gt;&quot;&apos;?");
}

// Coverage lists every point some program could hit; a point no program hit is a row with 0 (a
// hole), and a point's share counts only the programs of its kind.
TEST(RegressReport, CoverageListsUnhitPointsAsZero) {
  JobResult dma, mm;
  dma.id = "dma@c1";
  dma.coverage = {"engine.sys", "hops.2"};
  dma.coverage_space = {"engine.core", "engine.sys", "hops.2"};
  mm.id = "matmul@c1";
  mm.coverage = {"matmul.k_blocks.1"};
  mm.coverage_space = {"matmul.k_blocks.1", "matmul.k_blocks.2"};
  const auto html = html_report({dma, dma, mm}, ReportInfo{});
  EXPECT_NE(html.find("<tr class=\"fail\"><td>engine.core</td><td class=\"num\">0</td><td class=\"num\">0%</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>matmul.k_blocks.2</td><td class=\"num\">0</td>"), std::string::npos);
  // matmul.k_blocks.1: 1 of the 1 matmul program (not 1 of 3 programs of every kind).
  EXPECT_NE(html.find("<td>matmul.k_blocks.1</td><td class=\"num\">1</td><td class=\"num\">100%</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>engine.sys</td><td class=\"num\">2</td><td class=\"num\">100%</td>"), std::string::npos);
  EXPECT_NE(html.find("5 points over 3 random programs, 2 not hit"), std::string::npos);
  // And the space survives results.json (--resume).
  const auto back = parse_results_json(results_json({dma}, ReportInfo{}));
  EXPECT_EQ(back.at(0).coverage_space, dma.coverage_space);
}

// "MVM util" and "of roofline" per job, from the RTL step's axrun --stats-json (else the TLM's).
TEST(RegressReport, RooflineColumnsPerJob) {
  auto r = sample();
  r[0].steps[0].mvm_utilization = 0.25;
  r[0].steps[0].of_roofline = 0.5;
  StepResult rtl = r[0].steps[0];
  rtl.name = "rtl";
  rtl.mvm_utilization = 0.125;
  rtl.of_roofline = 0.75;
  r[0].steps.push_back(rtl);
  const auto html = html_report(r, ReportInfo{});
  EXPECT_NE(html.find("<th>MVM util</th><th>of roofline</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">12.5%</td><td class=\"num\">75.0%</td>"), std::string::npos) << html;
  const auto table = text_table(r);
  EXPECT_NE(table.find("MVM util of roofline"), std::string::npos) << table;
  EXPECT_NE(table.find("12.5%       75.0%"), std::string::npos) << table;
  const auto back = parse_results_json(results_json(r, ReportInfo{}));
  EXPECT_EQ(back.at(0).steps.at(1).of_roofline, 0.75);
  // read_stats takes axrun's file.
  const auto f = std::filesystem::temp_directory_path() / "regress_report_stats.json";
  std::ofstream(f) << "{\"cycles\": 100, \"mvm_utilization\": 0.5, \"of_roofline\": 0.25}\n";
  StepResult s;
  read_stats(f, s);
  EXPECT_EQ(s.mvm_utilization, 0.5);
  EXPECT_EQ(s.of_roofline, 0.25);
  std::filesystem::remove(f);
}

// "sticky status" per job: the sticky status registers a step read as not zero (axrun's
// --stats-json "sticky"), kept by results.json.
TEST(RegressReport, StickyStatusColumnPerJob) {
  auto r = sample();
  r[0].steps[0].sticky = {{"core0.IMC_STALE_READS", 0}, {"shim.TOKEN_DROPPED", 0}};
  StepResult rtl = r[0].steps[0];
  rtl.name = "rtl";
  rtl.sticky = {{"core0.IMC_STALE_READS", 8}, {"shim.TOKEN_DROPPED", 0}};
  r[0].steps.push_back(rtl);
  auto html = html_report(r, ReportInfo{});
  EXPECT_NE(html.find("<th>sticky status</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"FAIL\">rtl: core0.IMC_STALE_READS 8</td>"), std::string::npos) << html;
  r[0].steps[1].sticky["core0.IMC_STALE_READS"] = 0;
  html = html_report(r, ReportInfo{});
  EXPECT_NE(html.find("<td>0</td>"), std::string::npos) << html;
  const auto back = parse_results_json(results_json(r, ReportInfo{}));
  EXPECT_EQ(back.at(0).steps.at(1).sticky, r[0].steps[1].sticky);
  const auto f = std::filesystem::temp_directory_path() / "regress_report_sticky.json";
  std::ofstream(f) << "{\"cycles\": 100, \"mvm_utilization\": 0.5, \"of_roofline\": 0.25, "
                      "\"sticky\": {\"core0.IMC_STALE_READS\": 8, \"shim.TOKEN_DROPPED\": 0}}\n";
  StepResult s;
  read_stats(f, s);
  EXPECT_EQ(s.sticky.at("core0.IMC_STALE_READS"), 8u);
  std::filesystem::remove(f);
}
