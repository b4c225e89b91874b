#include "axcore/regress/report.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace axcore::regress {
namespace fs = std::filesystem;
using nlohmann::json;

std::string xml_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters; logs may carry them.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r')
          o += '?';
        else
          o += c;
    }
  }
  return o;
}

std::string results_json(const std::vector<JobResult>& results, const ReportInfo& info) {
  json j;
  j["suite"] = info.suite;
  j["started"] = info.started;
  j["workers"] = info.jobs;
  j["summary"] = {{"passed", info.summary.passed},
                  {"failed", info.summary.failed},
                  {"skipped", info.summary.skipped},
                  {"seconds", info.summary.seconds}};
  j["jobs"] = json::array();
  for (const auto& r : results) {
    json jr{{"id", r.id},           {"test", r.test},    {"kind", to_string(r.kind)},     {"cores", r.cores},
            {"seed", r.seed},       {"tags", r.tags},    {"status", to_string(r.status)}, {"message", r.message},
            {"seconds", r.seconds}, {"reused", r.reused}};
    if (r.tlm_rtl_ratio) jr["tlm_rtl_ratio"] = *r.tlm_rtl_ratio;
    if (!r.coverage.empty()) jr["coverage"] = r.coverage;
    if (!r.coverage_space.empty()) jr["coverage_space"] = r.coverage_space;
    jr["steps"] = json::array();
    for (const auto& s : r.steps) {
      json js{{"name", s.name},       {"status", to_string(s.status)}, {"cycles", s.cycles},
              {"seconds", s.seconds}, {"message", s.message},          {"log", s.log},
              {"trace", s.trace},     {"timeline", s.timeline}};
      if (s.mvm_utilization) js["mvm_utilization"] = *s.mvm_utilization;
      if (s.of_roofline) js["of_roofline"] = *s.of_roofline;
      if (!s.sticky.empty()) js["sticky"] = s.sticky;
      jr["steps"].push_back(std::move(js));
    }
    j["jobs"].push_back(std::move(jr));
  }
  return j.dump(2) + "\n";
}

std::vector<JobResult> parse_results_json(const std::string& text) {
  std::vector<JobResult> out;
  try {
    const auto j = json::parse(text);
    for (const auto& jr : j.at("jobs")) {
      JobResult r;
      r.id = jr.at("id").get<std::string>();
      r.test = jr.at("test").get<std::string>();
      r.cores = jr.at("cores").get<unsigned>();
      r.seed = jr.at("seed").get<uint64_t>();
      r.tags = jr.at("tags").get<std::vector<std::string>>();
      const auto st = parse_status(jr.at("status").get<std::string>());
      if (!st) throw std::runtime_error("unknown status " + jr.at("status").dump());
      r.status = *st;
      r.message = jr.at("message").get<std::string>();
      r.seconds = jr.at("seconds").get<double>();
      const auto kind = jr.at("kind").get<std::string>();
      for (Kind k : {Kind::MODEL, Kind::BUNDLE, Kind::RANDOM, Kind::COMMAND}) {
        if (kind == to_string(k)) r.kind = k;
      }
      if (jr.contains("tlm_rtl_ratio")) r.tlm_rtl_ratio = jr["tlm_rtl_ratio"].get<double>();
      if (jr.contains("coverage")) r.coverage = jr["coverage"].get<std::vector<std::string>>();
      if (jr.contains("coverage_space")) r.coverage_space = jr["coverage_space"].get<std::vector<std::string>>();
      for (const auto& js : jr.at("steps")) {
        StepResult s;
        s.name = js.at("name").get<std::string>();
        s.status = parse_status(js.at("status").get<std::string>()).value_or(Status::ERROR);
        s.cycles = js.at("cycles").get<uint64_t>();
        s.seconds = js.at("seconds").get<double>();
        s.message = js.at("message").get<std::string>();
        s.log = js.at("log").get<std::string>();
        s.trace = js.at("trace").get<std::string>();
        s.timeline = js.at("timeline").get<std::string>();
        if (js.contains("mvm_utilization")) s.mvm_utilization = js["mvm_utilization"].get<double>();
        if (js.contains("of_roofline")) s.of_roofline = js["of_roofline"].get<double>();
        if (js.contains("sticky")) s.sticky = js["sticky"].get<std::map<std::string, uint64_t>>();
        r.steps.push_back(std::move(s));
      }
      out.push_back(std::move(r));
    }
  } catch (const json::exception& e) { throw std::runtime_error(std::string("results.json: ") + e.what()); }
  return out;
}

std::string junit_xml(const std::vector<JobResult>& results, const ReportInfo& info) {
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o << fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
                   xml_escape(info.suite), results.size(), info.summary.failed, info.summary.skipped,
                   info.summary.seconds);
  o << fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3f}\" timestamp=\"{}\">\n",
      xml_escape(info.suite), results.size(), info.summary.failed, info.summary.skipped, info.summary.seconds,
      xml_escape(info.started));
  for (const auto& r : results) {
    o << fmt::format("    <testcase classname=\"{}.{}\" name=\"{}\" time=\"{:.3f}\">", xml_escape(info.suite),
                     xml_escape(r.test), xml_escape(r.id), r.seconds);
    if (r.status == Status::SKIP) {
      o << "<skipped/>";
    } else if (r.status != Status::PASS) {
      o << fmt::format("<failure type=\"{}\" message=\"{}\">", to_string(r.status), xml_escape(r.message));
      for (const auto& s : r.steps) {
        o << xml_escape(fmt::format("{}: {} {} (log {})\n", s.name, to_string(s.status), s.message, s.log));
      }
      o << "</failure>";
    }
    o << "</testcase>\n";
  }
  o << "  </testsuite>\n</testsuites>\n";
  return o.str();
}

namespace {

// A job's "MVM util" and "of roofline" cells: the figures of its RTL step, else its TLM step, else
// the first step that has them ("" when none ran a timed backend).
std::pair<std::string, std::string> roofline_cells(const JobResult& r) {
  const StepResult* best = nullptr;
  for (const char* name : {"rtl", "tlm"})
    if (const auto* s = r.step(name); !best && s && s->mvm_utilization) best = s;
  for (const auto& s : r.steps)
    if (!best && s.mvm_utilization) best = &s;
  if (!best) return {"", ""};
  return {fmt::format("{:.1f}%", 100 * *best->mvm_utilization),
          fmt::format("{:.1f}%", 100 * best->of_roofline.value_or(0))};
}

// A job's "sticky status" cell: every sticky status register a step read as not zero
// ("rtl: core0.IMC_STALE_READS 8"), "0" when its timed steps read them all zero, "" when none did.
std::string sticky_cell(const JobResult& r) {
  std::string set;
  bool read = false;
  for (const auto& s : r.steps)
    for (const auto& [name, v] : s.sticky) {
      read = true;
      if (v) set += (set.empty() ? "" : ", ") + s.name + ": " + name + " " + std::to_string(v);
    }
  return !set.empty() ? set : read ? "0" : "";
}

// Functional coverage: every point some program could hit (coverage_space), with how many programs
// hit it — 0 is a hole. A point's share is of the programs that could hit it (its kind's).
void coverage_table(std::ostringstream& o, const std::vector<JobResult>& results) {
  std::map<std::string, std::pair<unsigned, unsigned>> cov;  // point -> (programs hitting it, programs that could)
  unsigned with_cov = 0;
  for (const auto& r : results) {
    with_cov += !r.coverage.empty() || !r.coverage_space.empty();
    for (const auto& c : r.coverage_space) ++cov[c].second;
    for (const auto& c : r.coverage) {
      ++cov[c].first;
      if (r.coverage_space.empty()) ++cov[c].second;  // an older result without its space
    }
  }
  if (cov.empty()) return;
  unsigned holes = 0;
  for (const auto& [point, n] : cov) holes += n.first == 0;
  o << fmt::format("<h2>Functional coverage</h2>\n<p>{} points over {} random programs, {} not hit</p>\n", cov.size(),
                   with_cov, holes);
  o << "<table id=\"coverage\"><thead><tr><th>point</th><th>programs</th><th>share</th></tr></thead><tbody>\n";
  for (const auto& [point, n] : cov) {
    o << fmt::format("<tr{}><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.0f}%</td></tr>\n",
                     n.first ? "" : " class=\"fail\"", xml_escape(point), n.first,
                     n.second ? 100.0 * n.first / n.second : 0.0);
  }
  o << "</tbody></table>\n";
}

// A wall-clock figure: milliseconds shown below 10 s (a TLM step in the axrun server takes a few).
std::string seconds_text(double s) { return s < 10 ? fmt::format("{:.3f} s", s) : fmt::format("{:.1f} s", s); }

std::string link(const std::string& path, const char* label) {
  return path.empty() ? std::string() : fmt::format(" <a href=\"{}\">{}</a>", xml_escape(path), label);
}

}  // namespace

std::string html_report(const std::vector<JobResult>& results, const ReportInfo& info) {
  // Columns: every step name that occurs, in first-seen order.
  std::vector<std::string> cols;
  std::set<std::string> seen;
  for (const auto& r : results) {
    for (const auto& s : r.steps) {
      if (seen.insert(s.name).second) cols.push_back(s.name);
    }
  }
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  o << "<title>axregress: " << xml_escape(info.suite) << "</title>\n";
  o << "<style>body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}"
       "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}th{background:#eee}"
       ".pass{background:#d7f5d7}.fail,.error{background:#f8d0d0}.timeout{background:#f8e3c0}"
       ".skip{background:#eee;color:#777}.num{text-align:right;font-variant-numeric:tabular-nums}"
       "small{color:#555}</style></head><body>\n";
  o << fmt::format("<h1>{}</h1>\n<p id=\"summary\"><b>{}</b> &middot; {:.1f} s on {} workers &middot; started {}</p>\n",
                   xml_escape(info.suite), xml_escape(info.summary.closing_line()), info.summary.seconds, info.jobs,
                   xml_escape(info.started));
  o << "<table id=\"results\"><thead><tr><th>test</th><th>status</th>";
  for (const auto& c : cols) o << "<th>" << xml_escape(c) << "</th>";
  o << "<th>TLM/RTL cycles</th><th>MVM util</th><th>of roofline</th><th>sticky status</th><th>wall-clock</th></tr>"
       "</thead><tbody>\n";
  for (const auto& r : results) {
    o << fmt::format("<tr><td>{}{}</td><td class=\"{}\">{}</td>", xml_escape(r.id),
                     r.reused ? " <small>(resumed)</small>" : "", to_string(r.status), to_string(r.status));
    for (const auto& c : cols) {
      const auto* s = r.step(c);
      if (!s) {
        o << "<td></td>";
        continue;
      }
      o << fmt::format("<td class=\"{}\">{}", to_string(s->status), to_string(s->status));
      if (s->cycles) o << fmt::format("<br><span class=\"num\">{} cyc</span>", s->cycles);
      o << fmt::format("<br><small>{}</small>", seconds_text(s->seconds));
      if (!s->message.empty()) o << "<br><small>" << xml_escape(s->message) << "</small>";
      o << "<br>" << link(s->log, "log") << link(s->trace, "trace") << link(s->timeline, "timeline") << "</td>";
    }
    o << "<td class=\"num\">" << (r.tlm_rtl_ratio ? fmt::format("{:.3f}", *r.tlm_rtl_ratio) : std::string()) << "</td>";
    const auto [util, roof] = roofline_cells(r);
    o << "<td class=\"num\">" << util << "</td><td class=\"num\">" << roof << "</td>";
    const std::string sticky = sticky_cell(r);
    o << (sticky.empty() || sticky == "0" ? "<td>" : "<td class=\"FAIL\">") << xml_escape(sticky) << "</td>";
    o << fmt::format("<td class=\"num\">{}</td></tr>\n", seconds_text(r.seconds));
  }
  o << "</tbody></table>\n";
  coverage_table(o, results);
  for (const auto& sec : info.sections) o << sec;
  o << "<p><small>Timelines are Chrome/Perfetto trace-event JSON: open them in ui.perfetto.dev or "
       "chrome://tracing.</small></p>\n</body></html>\n";
  return o.str();
}

fs::path write_reports(const fs::path& out_dir, const std::vector<JobResult>& results, const ReportInfo& info) {
  fs::create_directories(out_dir);
  auto put = [&](const char* name, const std::string& text) {
    const auto tmp = out_dir / (std::string(name) + ".tmp");
    {
      std::ofstream f(tmp);
      if (!f) throw std::runtime_error("cannot write " + tmp.string());
      f << text;
    }
    fs::rename(tmp, out_dir / name);
  };
  put("results.json", results_json(results, info));
  put("junit.xml", junit_xml(results, info));
  put("report.html", html_report(results, info));
  return out_dir / "report.html";
}

std::vector<JobResult> read_previous_results(const fs::path& out_dir) {
  const auto p = out_dir / "results.json";
  if (!fs::exists(p)) return {};
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_results_json(ss.str());
}

std::string text_table(const std::vector<JobResult>& results) {
  std::vector<std::string> cols;  // step names in first-seen order
  for (const auto& r : results)
    for (const auto& st : r.steps)
      if (std::find(cols.begin(), cols.end(), st.name) == cols.end()) cols.push_back(st.name);
  std::size_t idw = 4;
  for (const auto& r : results) idw = std::max(idw, r.id.size());
  std::string o = fmt::format("{:<{}}", "job", idw);
  for (const auto& c : cols) o += fmt::format(" {:>16}", c);
  o += fmt::format(" {:>9} {:>9} {:>11}\n", "tlm/rtl", "MVM util", "of roofline");
  for (const auto& r : results) {
    o += fmt::format("{:<{}}", r.id, idw);
    for (const auto& c : cols) {
      const auto* st = r.step(c);
      std::string cell = st ? to_string(st->status) : "-";
      if (st && st->cycles) cell += fmt::format(" {} cy", st->cycles);
      o += fmt::format(" {:>16}", cell);
    }
    o += r.tlm_rtl_ratio ? fmt::format(" {:>9.4f}", *r.tlm_rtl_ratio) : fmt::format(" {:>9}", "-");
    const auto [util, roof] = roofline_cells(r);
    o += fmt::format(" {:>9} {:>11}\n", util.empty() ? "-" : util, roof.empty() ? "-" : roof);
  }
  return o;
}

}  // namespace axcore::regress
