// axtrace — canonical transaction traces (docs/architecture.md §5).
//   axtrace compare A B [-k N]        per (tile, unit), strict order, cycles ignored (ratio shown);
//                                     exit 0 equivalent, 1 divergent, 2 bad input
//   axtrace show FILE [--row R] [--unit U] [--limit N] [--summary]
//   axtrace timeline FILE -o OUT.json [--bundle B.axb]  Chrome/Perfetto trace-event JSON (spans named
//                                     as the compiler named its launches when the bundle is given)
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "axcore/runtime/bundle.hpp"
#include "axcore/runtime/trace_tools.hpp"

int main(int argc, char** argv) {
  using namespace axcore;
  CLI::App app{"axtrace: compare, list and export canonical transaction traces"};
  app.require_subcommand(1);
  std::string a, b, file, out;
  size_t k = 3;
  runtime::ShowOptions show;
  auto* cmp = app.add_subcommand("compare", "compare two traces per (tile, unit) in strict order");
  cmp->add_option("A", a, "first trace")->required();
  cmp->add_option("B", b, "second trace")->required();
  cmp->add_option("-k,--context", k, "matching records shown before the divergence");
  auto* sh = app.add_subcommand("show", "list records (or count them with --summary)");
  sh->add_option("FILE", file, "trace")->required();
  sh->add_option("--row", show.row, "only this tile row");
  sh->add_option("--unit", show.unit, "only this unit (e.g. mvm.odr, dma.s2mm0)");
  sh->add_option("--limit", show.limit, "at most this many records");
  sh->add_flag("--summary", show.summary, "counts per (tile, unit, kind)");
  auto* tl = app.add_subcommand("timeline", "write a Chrome/Perfetto trace-event JSON timeline");
  tl->add_option("FILE", file, "trace")->required();
  tl->add_option("-o,--output", out, "JSON file")->required();
  std::string names_from;
  tl->add_option("--bundle", names_from, "the run's .axb: spans named as the compiler named its launches");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  auto load = [](const std::string& f) {
    try {
      return trace::read_trace_file(f);
    } catch (const std::exception& e) { throw std::runtime_error(f + ": " + e.what()); }
  };
  try {
    if (cmp->parsed()) {
      runtime::CompareOptions opt;
      opt.context = k;
      opt.names[0] = a;
      opt.names[1] = b;
      const auto res = runtime::compare_traces(load(a), load(b), opt);
      std::cout << res.report;
      return res.equivalent ? 0 : 1;
    }
    if (sh->parsed()) {
      runtime::show_trace(std::cout, load(file), show);
      return 0;
    }
    std::ofstream o(out);
    if (!o) throw std::runtime_error("cannot write " + out);
    runtime::TimelineOptions topt;
    if (!names_from.empty()) {
      const auto named = runtime::load_bundle(names_from);
      if (named.metadata.count("steps")) topt = runtime::timeline_options(named.metadata.at("steps"));
      topt.task_units = [cmd_mem = runtime::command_memory(named)](unsigned row, uint64_t word) {
        return runtime::task_units(cmd_mem, row - spec::param::first_core_row, static_cast<uint32_t>(word));
      };
    }
    runtime::write_timeline(o, load(file), topt);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "axtrace: " << e.what() << "\n";
    return 2;
  }
}
