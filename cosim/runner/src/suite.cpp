#include "axcore/regress/suite.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace axcore::regress {
namespace {

const std::set<std::string> kBackends{"ref", "tlm", "rtl", "fpga", "regfile"};

struct Ctx {
  std::filesystem::path file;
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const {
    const auto m = n.Mark();
    throw SuiteError(fmt::format("{}:{}:{}: {}", file.string(), m.line + 1, m.column + 1, msg));
  }
  template <class T>
  T as(const YAML::Node& n, const char* what) const {
    try {
      return n.as<T>();
    } catch (const YAML::Exception&) { fail(n, fmt::format("{} has the wrong type", what)); }
  }
  std::vector<std::string> strings(const YAML::Node& n, const char* what) const {
    if (n.IsScalar()) return {as<std::string>(n, what)};
    if (!n.IsSequence()) fail(n, fmt::format("{} must be a list", what));
    std::vector<std::string> out;
    for (const auto& e : n) out.push_back(as<std::string>(e, what));
    return out;
  }
};

void check_keys(const Ctx& c, const YAML::Node& map, std::initializer_list<const char*> known, const char* where) {
  for (const auto& kv : map) {
    const auto key = kv.first.as<std::string>();
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) {
      std::string list;
      for (const char* k : known) list += std::string(list.empty() ? "" : ", ") + k;
      c.fail(kv.first, fmt::format("unknown key '{}' in {} (known: {})", key, where, list));
    }
  }
}

Mode parse_mode(const Ctx& c, const YAML::Node& n) {
  const auto s = c.as<std::string>(n, "mode");
  if (s == "bit-exact") return Mode::BIT_EXACT;
  if (s == "tolerance") return Mode::TOLERANCE;
  if (s == "trace-equivalent") return Mode::TRACE_EQUIVALENT;
  c.fail(n, fmt::format("mode '{}' is not one of bit-exact, tolerance, trace-equivalent", s));
}

// Fields a test may set and a suite's `defaults` may preset.
void apply_common(const Ctx& c, const YAML::Node& m, TestSpec& t) {
  if (auto n = m["backends"]) {
    t.backends = c.strings(n, "backends");
    if (t.backends.empty()) c.fail(n, "backends is empty");
    for (const auto& b : t.backends) {
      if (!kBackends.count(b)) c.fail(n, fmt::format("unknown backend '{}' (known: ref, tlm, rtl, fpga, regfile)", b));
    }
  }
  if (auto n = m["cores"]) {
    t.cores.clear();
    std::vector<YAML::Node> items;
    if (n.IsSequence()) {
      for (const auto& e : n) items.push_back(e);
    } else {
      items.push_back(n);
    }
    for (const auto& e : items) {
      const auto v = c.as<long>(e, "cores");
      if (v < 1 || v > 4) c.fail(e, fmt::format("cores {} is outside 1..4", v));
      t.cores.push_back(static_cast<unsigned>(v));
    }
    if (t.cores.empty()) c.fail(n, "cores is empty");
  }
  if (auto n = m["mode"]) t.mode = parse_mode(c, n);
  if (auto n = m["tolerance"]) {
    if (!n.IsMap()) c.fail(n, "tolerance must be a map {abs: .., rel: ..}");
    check_keys(c, n, {"abs", "rel"}, "tolerance");
    if (n["abs"]) t.atol = c.as<double>(n["abs"], "tolerance.abs");
    if (n["rel"]) t.rtol = c.as<double>(n["rel"], "tolerance.rel");
    if (t.atol < 0 || t.rtol < 0) c.fail(n, "tolerance must not be negative");
  }
  if (auto n = m["timeout"]) {
    t.timeout_s = c.as<double>(n, "timeout");
    if (!(t.timeout_s > 0)) c.fail(n, "timeout must be positive (seconds)");
  }
  if (auto n = m["tags"]) t.tags = c.strings(n, "tags");
  if (auto n = m["seed"]) t.seed = c.as<uint64_t>(n, "seed");
}

void parse_launcher_config(const Ctx& c, const YAML::Node& n, LauncherConfig& l) {
  const YAML::Node kind = n.IsMap() ? n["kind"] : n;
  if (n.IsMap()) {
    check_keys(c, n, {"kind", "retries", "sbatch"}, "launcher");
    if (n["retries"]) {
      const auto v = c.as<long>(n["retries"], "launcher.retries");
      if (v < 0 || v > 100) c.fail(n["retries"], "launcher.retries must be in 0..100");
      l.retries = static_cast<unsigned>(v);
    }
    if (n["sbatch"]) l.sbatch_args = c.strings(n["sbatch"], "launcher.sbatch");
  }
  if (kind) {
    l.kind = c.as<std::string>(kind, "launcher");
    if (l.kind != "local" && l.kind != "slurm")
      c.fail(kind, fmt::format("launcher '{}' is not one of local, slurm", l.kind));
  }
}

}  // namespace

const char* to_string(Kind k) {
  switch (k) {
    case Kind::MODEL: return "model";
    case Kind::BUNDLE: return "bundle";
    case Kind::RANDOM: return "random";
    case Kind::COMMAND: return "command";
  }
  return "?";
}

const char* to_string(Mode m) {
  switch (m) {
    case Mode::BIT_EXACT: return "bit-exact";
    case Mode::TOLERANCE: return "tolerance";
    case Mode::TRACE_EQUIVALENT: return "trace-equivalent";
  }
  return "?";
}

namespace {
Suite parse_suite_in(const std::string& yaml, const std::filesystem::path& file,
                     std::vector<std::filesystem::path>& including);

Suite load_suite_in(const std::filesystem::path& file, std::vector<std::filesystem::path>& including) {
  std::ifstream in(file);
  if (!in) throw SuiteError(file.string() + ": cannot read the suite");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_suite_in(ss.str(), file, including);
}

// `include: [other.yaml, ...]`: the other suites' tests (with their own defaults, {suite_dir} their
// own folder) come first, in order; a name declared twice across them is an error, as is a cycle.
void include_suites(const Ctx& c, const YAML::Node& inc, const std::filesystem::path& dir,
                    std::vector<std::filesystem::path>& including, std::set<std::string>& names, Suite& s) {
  for (const auto& f : c.strings(inc, "include")) {
    const auto path = std::filesystem::weakly_canonical(dir / f);
    if (!std::filesystem::exists(path)) c.fail(inc, fmt::format("included suite {} not found", path.string()));
    if (std::find(including.begin(), including.end(), path) != including.end())
      c.fail(inc, fmt::format("{} includes itself (through {})", path.string(), c.file.string()));
    including.push_back(path);
    auto sub = load_suite_in(path, including);
    including.pop_back();
    for (auto& t : sub.tests) {
      if (!names.insert(t.name).second)
        c.fail(inc, fmt::format("test '{}' of {} is declared twice", t.name, path.string()));
      for (auto& a : t.command) {
        for (std::size_t p; (p = a.find("{suite_dir}")) != std::string::npos;)
          a.replace(p, 11, path.parent_path().string());
      }
      s.tests.push_back(std::move(t));
    }
  }
}

Suite parse_suite_in(const std::string& yaml, const std::filesystem::path& file,
                     std::vector<std::filesystem::path>& including) {
  const Ctx c{file};
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::ParserException& e) {
    throw SuiteError(fmt::format("{}:{}:{}: {}", file.string(), e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root.IsMap()) throw SuiteError(file.string() + ":1:1: a suite is a map with 'suite' and 'tests'");
  check_keys(c, root, {"suite", "doc", "defaults", "tests", "launcher", "include"}, "the suite");
  Suite s;
  s.file = std::filesystem::absolute(file);
  const auto dir = s.file.parent_path();
  if (!root["suite"]) c.fail(root, "missing 'suite' (the suite's name)");
  s.name = c.as<std::string>(root["suite"], "suite");

  if (auto l = root["launcher"]) parse_launcher_config(c, l, s.launcher);

  TestSpec defaults;
  defaults.backends = {"ref", "tlm", "rtl"};
  defaults.cores = {1};
  if (auto d = root["defaults"]) {
    if (!d.IsMap()) c.fail(d, "defaults must be a map");
    check_keys(c, d, {"backends", "cores", "mode", "tolerance", "timeout", "tags", "seed"}, "defaults");
    apply_common(c, d, defaults);
  }
  std::set<std::string> names;
  if (auto inc = root["include"]) include_suites(c, inc, dir, including, names, s);
  const YAML::Node tests = root["tests"] ? root["tests"] : YAML::Node(YAML::NodeType::Sequence);
  if (!tests.IsSequence() || (tests.size() == 0 && s.tests.empty()))
    c.fail(root["tests"] ? tests : root, "'tests' must be a non-empty list");

  for (const auto& n : tests) {
    if (!n.IsMap()) c.fail(n, "a test is a map");
    check_keys(c, n,
               {"name", "doc", "model", "bundle", "random", "command", "inputs", "backends", "cores", "mode",
                "tolerance", "timeout", "tags", "seed", "count"},
               "a test");
    TestSpec t = defaults;
    t.line = n.Mark().line + 1;
    if (!n["name"]) c.fail(n, "a test needs a 'name'");
    t.name = c.as<std::string>(n["name"], "name");
    if (t.name.empty() || t.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-.") != std::string::npos) {
      c.fail(n["name"], fmt::format("test name '{}' must be lower-case letters, digits, '_', '-', '.'", t.name));
    }
    if (!names.insert(t.name).second) c.fail(n["name"], fmt::format("test '{}' is declared twice", t.name));
    int kinds = 0;
    if (auto m = n["model"]) {
      t.kind = Kind::MODEL;
      t.source = dir / c.as<std::string>(m, "model");
      ++kinds;
    }
    if (auto b = n["bundle"]) {
      t.kind = Kind::BUNDLE;
      t.source = dir / c.as<std::string>(b, "bundle");
      ++kinds;
    }
    if (auto r = n["random"]) {
      t.kind = Kind::RANDOM;
      if (!r.IsMap()) c.fail(r, "random must be a map {seed: .., count: ..}");
      check_keys(c, r, {"seed", "count", "program", "kind"}, "random");
      if (r["kind"]) {
        t.random_kind = c.as<std::string>(r["kind"], "random.kind");
        if (t.random_kind != "dma" && t.random_kind != "matmul" && t.random_kind != "dpu" && t.random_kind != "model" &&
            t.random_kind != "dwpu")
          c.fail(r["kind"],
                 fmt::format("random.kind must be dma, matmul, dpu, dwpu or model (got '{}')", t.random_kind));
      }
      if (r["program"]) {
        t.source = dir / c.as<std::string>(r["program"], "random.program");
        if (!std::filesystem::exists(t.source)) c.fail(r["program"], fmt::format("{} not found", t.source.string()));
      }
      if (r["seed"]) t.seed = c.as<uint64_t>(r["seed"], "random.seed");
      if (r["count"]) {
        const auto v = c.as<long>(r["count"], "random.count");
        if (v < 1 || v > 1000000) c.fail(r["count"], "random.count must be in 1..1000000");
        t.count = static_cast<unsigned>(v);
      }
      ++kinds;
    }
    if (auto cmd = n["command"]) {
      t.kind = Kind::COMMAND;
      t.command = c.strings(cmd, "command");
      if (t.command.empty()) c.fail(cmd, "command is empty");
      ++kinds;
    }
    if (kinds != 1) c.fail(n, fmt::format("test '{}' needs exactly one of model, bundle, random, command", t.name));
    apply_common(c, n, t);
    if (auto in = n["inputs"]) {
      if (!in.IsMap()) c.fail(in, "inputs must be a map name: file.npy");
      for (const auto& kv : in) t.inputs[kv.first.as<std::string>()] = dir / c.as<std::string>(kv.second, "input");
    }
    if (t.kind == Kind::MODEL || t.kind == Kind::BUNDLE) {
      if (!std::filesystem::exists(t.source)) c.fail(n, fmt::format("{} not found", t.source.string()));
    }
    s.tests.push_back(std::move(t));
  }
  return s;
}

}  // namespace

Suite parse_suite(const std::string& yaml, const std::filesystem::path& file) {
  std::vector<std::filesystem::path> including{std::filesystem::weakly_canonical(std::filesystem::absolute(file))};
  return parse_suite_in(yaml, file, including);
}

Suite load_suite(const std::filesystem::path& file) {
  std::vector<std::filesystem::path> including{std::filesystem::weakly_canonical(std::filesystem::absolute(file))};
  return load_suite_in(file, including);
}

std::vector<Job> expand(const Suite& suite, const std::vector<std::string>& tags) {
  std::vector<Job> jobs;
  for (const auto& t : suite.tests) {
    if (!tags.empty() && std::none_of(tags.begin(), tags.end(), [&](const std::string& g) {
          return std::find(t.tags.begin(), t.tags.end(), g) != t.tags.end();
        })) {
      continue;
    }
    for (unsigned c : t.cores) {
      const unsigned n = t.kind == Kind::RANDOM ? t.count : 1;
      for (unsigned i = 0; i < n; ++i) {
        Job j;
        j.test = &t;
        j.cores = c;
        j.seed = t.seed + i;
        j.id = t.kind == Kind::RANDOM ? fmt::format("{}#{}@c{}", t.name, j.seed, c) : fmt::format("{}@c{}", t.name, c);
        jobs.push_back(j);
      }
    }
  }
  return jobs;
}

}  // namespace axcore::regress
