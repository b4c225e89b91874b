// axtap: taplib at the shell. Evaluates a pattern expression in the seed's Python spelling and
// prints the result (or its access order/count, its gathered stream, its picture, its BDs).
// Errors print `Kind: message` on stderr and exit 2.
#include <CLI/CLI.hpp>

#include <iostream>

#include "axcore/tap/bd.hpp"
#include "axcore/tap/svg.hpp"
#include "eval.hpp"

namespace tap = axcore::tap;
namespace cli = axcore::tap::cli;

namespace {

struct Options {
  std::string expr;
  bool order = false, count = false, gather = false;
  int64_t pad_value = 0;
  std::string svg;
  bool with_count = false, arrows = false, no_arrows = false;
  std::optional<int> animate;
  std::optional<std::string> title;
  std::string bds;
  unsigned bits = 32;
  uint64_t base = 0;
  bool s2mm = false, single_bd = false, no_repeat = false;
  std::vector<std::string> params;
};

tap::Bindings parse_params(const std::vector<std::string>& items) {
  tap::Bindings out;
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) cli::raise("ValueError", "--param wants NAME=VALUE, got '" + item + "'");
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    try {
      std::size_t used = 0;
      int64_t v = std::stoll(value, &used, 0);
      if (used != value.size()) throw std::invalid_argument(value);
      out[name] = v;
    } catch (const std::exception&) {
      cli::raise("ValueError", "--param " + name + ": '" + value + "' is not an integer");
    }
  }
  return out;
}

tap::Engine engine_named(const std::string& name) {
  if (name == "sysdma") return tap::Engine::kSysDma;
  if (name == "memdma") return tap::Engine::kMemDma;
  if (name == "coredma") return tap::Engine::kCoreDma;
  cli::raise("ValueError", "--bds: unknown engine '" + name + "' (sysdma, memdma or coredma)");
}

int run(const Options& o) {
  cli::Value v = cli::evaluate(o.expr, parse_params(o.params));
  bool needs_pattern = o.order || o.count || o.gather || !o.svg.empty() || !o.bds.empty();
  if (!needs_pattern) {
    const auto* none = std::get_if<cli::None>(&v.v);
    if (!none || !none->silent) std::cout << cli::repr(v) << "\n";
    return 0;
  }
  const tap::TensorAccessPattern& p = cli::as_pattern(v, "this option");
  if (o.order) std::cout << p.access_order().to_list() << "\n";
  if (o.count) std::cout << p.access_count().to_list() << "\n";
  if (o.gather) {
    int64_t numel = 1;
    for (const auto& d : p.tensor_dims()) numel = tap::checked_mul(numel, d.value("a tensor dimension"));
    std::vector<int64_t> x(static_cast<std::size_t>(numel));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int64_t>(i);
    std::cout << tap::to_list(p.gather(x, o.pad_value)) << "\n";
  }
  if (!o.svg.empty()) {
    if (o.animate) {
      tap::AnimateOptions a;
      a.frame_dims = *o.animate;
      a.title = o.title;
      a.animate_access_count = o.with_count;
      tap::animate(p, o.svg, a);
    } else {
      tap::VisualizeOptions vo;
      vo.title = o.title;
      vo.plot_access_count = o.with_count;
      if (o.arrows) vo.show_arrows = true;
      if (o.no_arrows) vo.show_arrows = false;
      tap::visualize(p, o.svg, vo);
    }
  }
  if (!o.bds.empty()) {
    tap::LowerOptions lo;
    lo.base_address = o.base;
    lo.direction = o.s2mm ? tap::Direction::kS2mm : tap::Direction::kMm2s;
    lo.single_bd = o.single_bd;
    lo.use_repeat = !o.no_repeat;
    tap::BdTask task = tap::lower_to_bds(p, o.bits, engine_named(o.bds), lo);
    std::cout << tap::engine_limits(task.engine).name << " task: start=" << task.start_bd << " repeat=" << task.repeat
              << " bds=" << task.bds.size() << "\n";
    for (std::size_t i = 0; i < task.bds.size(); ++i)
      std::cout << tap::describe(task.bds[i], task.start_bd + static_cast<uint32_t>(i)) << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "axtap: evaluate a taplib TensorAccessPattern expression (Python spelling), e.g.\n"
      "  axtap 'full((16, 16)).tile((4, 4))[1, 2]'"};
  Options o;
  app.add_option("expr", o.expr, "the expression, e.g. 'full((16, 16)).tile((4, 4))[1, 2].sizes'")->required();
  auto* order = app.add_flag("--order", o.order, "print access_order() as a nested list");
  auto* count = app.add_flag("--count", o.count, "print access_count() as a nested list");
  auto* gather = app.add_flag("--gather", o.gather, "print gather(arange(numel(tensor_dims)))");
  app.add_option("--pad-value", o.pad_value, "value of padded positions for --gather")->needs(gather);
  auto* svg = app.add_option("--svg", o.svg, "write visualize() (or animate()) to this SVG file");
  app.add_flag("--with-count", o.with_count, "--svg: add the access count panel")->needs(svg);
  auto* arrows = app.add_flag("--arrows", o.arrows, "--svg: draw arrows between accesses")->needs(svg);
  app.add_flag("--no-arrows", o.no_arrows, "--svg: no arrows")->needs(svg)->excludes(arrows);
  app.add_option("--animate", o.animate, "--svg: an animated SVG, one frame per index of this many outer dims")
      ->needs(svg);
  app.add_option("--title", o.title, "--svg: the picture's title (default: the pattern)")->needs(svg);
  auto* bds = app.add_option("--bds", o.bds, "lower to DMA BDs for sysdma, memdma or coredma and print them");
  app.add_option("--bits", o.bits, "--bds: element width in bits (8, 16 or 32)")->needs(bds);
  app.add_option("--base", o.base, "--bds: byte address of the tensor's element 0")->needs(bds);
  app.add_flag("--s2mm", o.s2mm, "--bds: a receiving (S2MM) channel")->needs(bds);
  app.add_flag("--single-bd", o.single_bd, "--bds: the transfer must fit one BD")->needs(bds);
  app.add_flag("--no-repeat", o.no_repeat, "--bds: do not use the queue repeat")->needs(bds);
  app.add_option("-p,--param", o.params, "bind a dispatch-time parameter, NAME=VALUE (repeatable)");
  order->excludes(count, gather, svg, bds);
  count->excludes(gather, svg, bds);
  gather->excludes(svg, bds);
  svg->excludes(bds);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) { return app.exit(e); } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  try {
    return run(o);
  } catch (const cli::PyError& e) {
    std::cerr << e.kind << ": " << e.message << "\n";
  } catch (const tap::TypeError& e) {
    std::cerr << "TypeError: " << e.what() << "\n";
  } catch (const tap::NotImplementedError& e) {
    std::cerr << "NotImplementedError: " << e.what() << "\n";
  } catch (const tap::ValueError& e) {
    std::cerr << "ValueError: " << e.what() << "\n";
  } catch (const std::exception& e) { std::cerr << "Error: " << e.what() << "\n"; }
  return 2;
}
