// axtxn — read, compare and count TXN streams (insts.bin / .txn, little-endian 32-bit words).
//   axtxn explain FILE [--raw]   one line per event (or per decoded op)
//   axtxn compare A B            "equivalent" and exit 0, else the differences and exit 1
//   axtxn stats FILE             op and event counts, bytes moved per channel
// Exit codes: 0 success / equivalent, 1 streams differ, 2 bad input or usage.
#include <CLI/CLI.hpp>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "axcore/txn/compare.hpp"
#include "axcore/txn/file.hpp"
#include "axcore/txn/stats.hpp"
#include "axcore/txn/trace.hpp"

namespace {

// Loads a stream; a decode or trace error found later is reported with the file's name.
struct Stream {
  std::string file;
  std::vector<uint32_t> words;
};
Stream load(const std::string& file) { return {file, axcore::txn::load(file)}; }

template <class F>
auto about(const Stream& s, F&& f) {
  try {
    return f(s.words);
  } catch (const axcore::txn::Error& e) { throw std::runtime_error(s.file + ": " + e.what()); }
}

int explain(const std::string& file, bool raw) {
  const Stream s = load(file);
  std::cout << about(s, [&](const auto& w) { return axcore::txn::explain(w, raw); }) << "\n";
  return 0;
}

int compare(const std::string& a, const std::string& b) {
  const Stream sa = load(a), sb = load(b);
  // Decode (and, on one device, trace) each alone first so that an error names its file.
  const auto ha = about(sa, [](const auto& w) { return axcore::txn::decode(w).header; });
  const auto hb = about(sb, [](const auto& w) { return axcore::txn::decode(w).header; });
  if (ha.device.same_device(hb.device))
    for (const Stream* s : {&sa, &sb}) about(*s, [](const auto& w) { return axcore::txn::trace(w).events.size(); });
  const auto diffs = axcore::txn::compare(sa.words, sb.words, {a, b});
  if (diffs.empty()) {
    std::cout << "equivalent\n";
    return 0;
  }
  for (const auto& d : diffs) std::cout << d << "\n";
  return 1;
}

int stats(const std::string& file) {
  const Stream s = load(file);
  std::cout << to_string(about(s, [](const auto& w) { return axcore::txn::stats(w); })) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"axtxn: explain, compare and count TXN instruction streams"};
  app.require_subcommand(1);
  std::string file, a, b;
  bool raw = false;
  auto* ex = app.add_subcommand("explain", "print one line per event (--raw: per decoded op)");
  ex->add_option("FILE", file, "TXN stream")->required();
  ex->add_flag("--raw", raw, "list the decoded ops instead of events");
  auto* cmp = app.add_subcommand("compare", "compare two streams' devices and events");
  cmp->add_option("A", a, "first stream")->required();
  cmp->add_option("B", b, "second stream")->required();
  auto* st = app.add_subcommand("stats", "op and event counts, bytes moved per channel");
  st->add_option("FILE", file, "TXN stream")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (ex->parsed()) return explain(file, raw);
    if (cmp->parsed()) return compare(a, b);
    return stats(file);
  } catch (const std::exception& e) {
    std::cerr << "axtxn: " << e.what() << "\n";
    return 2;
  }
}
