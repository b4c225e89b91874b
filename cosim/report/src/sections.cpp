#include "axcore/regress/sections.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "axcore/regress/process.hpp"
#include "axcore/regress/report.hpp"

namespace axcore::regress {
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The lines of `log` that start with `prefix`.
std::vector<std::string> lines_with(const fs::path& log, const std::string& prefix) {
  std::ifstream in(log);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  return out;
}

// The fields of one coverage point's key: \001key\002value pairs.
std::map<std::string, std::string> point_fields(const std::string& key) {
  std::map<std::string, std::string> f;
  for (std::size_t at = key.find('\001'); at != std::string::npos;) {
    const auto sep = key.find('\002', at);
    const auto next = key.find('\001', at + 1);
    if (sep == std::string::npos || (next != std::string::npos && sep > next)) break;
    f[key.substr(at + 1, sep - at - 1)] = key.substr(sep + 1, next == std::string::npos ? next : next - sep - 1);
    at = next;
  }
  return f;
}

std::string point_kind(const std::map<std::string, std::string>& f) {
  const auto page = f.count("page") ? f.at("page") : std::string();
  if (page.rfind("v_toggle", 0) == 0) return "toggle";
  if (page.rfind("v_line", 0) == 0 || page.rfind("v_branch", 0) == 0) return "line";
  return f.count("t") && !f.at("t").empty() ? f.at("t") : "other";
}

}  // namespace

CoverageFigures coverage_figures(const fs::path& dat) {
  std::ifstream in(dat);
  if (!in) throw std::runtime_error("cannot read " + dat.string());
  // A point is its key without the hierarchy: the instances of a module share it.
  struct Point {
    std::string file, kind;
    bool hit = false;
  };
  std::map<std::string, Point> points;
  unsigned lineno = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    const auto q1 = line.find('\'');
    const auto q2 = line.rfind('\'');
    if (line.rfind("C '", 0) != 0 || q2 <= q1) {
      throw std::runtime_error(fmt::format("{}:{}: not a coverage point line", dat.string(), lineno));
    }
    auto f = point_fields(line.substr(q1 + 1, q2 - q1 - 1));
    const uint64_t count = std::stoull(line.substr(q2 + 1));
    f.erase("h");
    // A parameterized module's specializations (ax_dma__pi1, ax_dma__B10_D3...) are one module.
    if (auto pg = f.find("page"); pg != f.end()) {
      const auto slash = pg->second.find('/');
      const auto dunder = pg->second.find("__", slash == std::string::npos ? 0 : slash);
      if (dunder != std::string::npos) pg->second.erase(dunder);
    }
    std::string id;
    for (const auto& [k, v] : f) id += k + "=" + v + ";";
    auto& pt = points[id];
    pt.file = f.count("f") ? f.at("f") : "?";
    pt.kind = point_kind(f);
    pt.hit = pt.hit || count > 0;
  }
  CoverageFigures c;
  for (const auto& [id, pt] : points) {
    for (auto* cnt : {&c.by_file[pt.file][pt.kind], &c.by_dir[fs::path(pt.file).parent_path().string()][pt.kind],
                      &c.total[pt.kind]}) {
      ++cnt->total;
      cnt->hit += pt.hit;
    }
  }
  return c;
}

Section testplan_section(const fs::path& plan, const fs::path& out_dir) {
  Section s;
  // cosim/testplan/testplan.py: beside the plan, or in its testplan/ folder.
  const auto here = fs::absolute(plan).parent_path();
  const auto script = fs::exists(here / "testplan.py") ? here / "testplan.py" : here / "testplan" / "testplan.py";
  const auto log = out_dir / "testplan.txt";
  const auto html = out_dir / "testplan.html";
  std::error_code ec;
  fs::remove(log, ec);
  fs::remove(html, ec);
  const auto p = run_process({"python3", script.string(), "report", "plan", "-", fs::absolute(plan).string(),
                              (out_dir / "results.json").string(), "--html", html.string(), "--fragment"},
                             log, std::chrono::seconds(120));
  if (!p.ok()) {
    s.ok = false;
    s.lines.push_back("testplan: " + script.string() + " failed (" + p.describe() + "), see " + log.string());
    return s;
  }
  s.lines = lines_with(log, "testplan: ");
  s.html = slurp(html);
  return s;
}

Section coverage_section(const fs::path& out_dir, const fs::path& source_root) {
  Section s;
  std::vector<std::string> dats;
  if (fs::exists(out_dir / "jobs")) {
    for (const auto& job : fs::directory_iterator(out_dir / "jobs")) {
      if (!job.is_directory()) continue;
      for (const auto& e : fs::directory_iterator(job.path())) {
        const auto n = e.path().filename().string();
        if (n.rfind("coverage", 0) == 0 && e.path().extension() == ".dat") dats.push_back(e.path().string());
      }
    }
  }
  std::sort(dats.begin(), dats.end());
  if (dats.empty()) {
    s.ok = false;
    s.lines.push_back(
        "coverage: no job wrote a coverage.dat (an RTL step of a build configured with "
        "-DAXCORE_RTL_COVERAGE=ON writes one)");
    return s;
  }
  const auto dir = out_dir / "coverage";
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  const auto log = dir / "coverage.log";
  auto run = [&](std::vector<std::string> argv) {
    const auto p = run_process(argv, log, std::chrono::minutes(30));
    if (!p.ok()) {
      s.ok = false;
      s.lines.push_back(fmt::format("coverage: {} failed ({}), see {}", argv[0], p.describe(), log.string()));
    }
    return p.ok();
  };
  // Merge in batches (a nightly run has a thousand files: keep the command lines short).
  const auto merged = dir / "merged.dat";
  for (std::size_t i = 0; i < dats.size(); i += 200) {
    std::vector<std::string> argv{"verilator_coverage", "--write", merged.string()};
    if (i > 0) {
      fs::copy_file(merged, dir / "partial.dat", fs::copy_options::overwrite_existing);
      argv.push_back((dir / "partial.dat").string());
    }
    argv.insert(argv.end(), dats.begin() + static_cast<std::ptrdiff_t>(i),
                dats.begin() + static_cast<std::ptrdiff_t>(std::min(dats.size(), i + 200)));
    if (!run(argv)) return s;
  }
  fs::remove(dir / "partial.dat", ec);
  CoverageFigures c;
  try {
    c = coverage_figures(merged);
  } catch (const std::exception& e) {
    s.ok = false;
    s.lines.push_back(std::string("coverage: ") + e.what());
    return s;
  }
  const auto root = fs::weakly_canonical(source_root).string() + "/";
  auto rel = [&](const std::string& p) { return p.rfind(root, 0) == 0 ? p.substr(root.size()) : p; };
  // lcov's tracefile and genhtml's per-folder, per-file pages.
  bool html = false;
  if (run({"verilator_coverage", "--write-info", (dir / "coverage.info").string(), merged.string()})) {
    const auto p = run_process({"genhtml", "--quiet", "--prefix", root, "--output-directory", (dir / "html").string(),
                                (dir / "coverage.info").string()},
                               log, std::chrono::minutes(30));
    html = p.ok();
    if (!html) s.lines.push_back("coverage: genhtml failed or is missing (" + p.describe() + "), see " + log.string());
  }
  nlohmann::json j;
  j["files"] = dats.size();
  auto cell = [](const CoverageFigures::Count& n) {
    return n.total ? fmt::format("{:.1f}% <small>({}/{})</small>", n.percent(), n.hit, n.total) : std::string("-");
  };
  std::ostringstream o;
  o << fmt::format(
      "<h2>RTL code coverage</h2>\n<p id=\"rtl-coverage\">{} coverage files merged: line {:.1f}%, toggle "
      "{:.1f}%{}</p>\n",
      dats.size(), c.total["line"].percent(), c.total["toggle"].percent(),
      html ? " &middot; <a href=\"coverage/html/index.html\">per-module report</a>" : "");
  o << "<table id=\"rtl-coverage-table\"><thead><tr><th>folder / module</th><th>line</th><th>toggle</th></tr>"
       "</thead><tbody>\n";
  for (const auto& [d, kinds] : c.by_dir) {
    auto line = kinds.count("line") ? kinds.at("line") : CoverageFigures::Count{};
    auto tog = kinds.count("toggle") ? kinds.at("toggle") : CoverageFigures::Count{};
    o << fmt::format("<tr><td><b>{}/</b></td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                     xml_escape(rel(d)), cell(line), cell(tog));
    j["folders"][rel(d)] = {{"line", {line.hit, line.total}}, {"toggle", {tog.hit, tog.total}}};
    s.lines.push_back(fmt::format("coverage: {:<12} line {:5.1f}% ({}/{}), toggle {:5.1f}% ({}/{})", rel(d) + "/",
                                  line.percent(), line.hit, line.total, tog.percent(), tog.hit, tog.total));
    for (const auto& [f, fk] : c.by_file) {
      if (fs::path(f).parent_path().string() != d) continue;
      auto fl = fk.count("line") ? fk.at("line") : CoverageFigures::Count{};
      auto ft = fk.count("toggle") ? fk.at("toggle") : CoverageFigures::Count{};
      o << fmt::format("<tr><td>&nbsp;&nbsp;{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                       xml_escape(fs::path(f).filename().string()), cell(fl), cell(ft));
      j["modules"][rel(f)] = {{"line", {fl.hit, fl.total}}, {"toggle", {ft.hit, ft.total}}};
    }
  }
  o << "</tbody></table>\n";
  s.lines.push_back(fmt::format("coverage: all          line {:5.1f}%, toggle {:5.1f}% ({} files merged into {})",
                                c.total["line"].percent(), c.total["toggle"].percent(), dats.size(), merged.string()));
  std::ofstream(dir / "summary.json") << j.dump(1) << "\n";
  s.html = o.str();
  return s;
}

}  // namespace axcore::regress
