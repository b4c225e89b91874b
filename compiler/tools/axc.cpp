// axc: compile a kernel to an `.axb` bundle.
//   axc compile EXAMPLE -o OUT.axb [--dump-ir] [--explain]   (EXAMPLE: a builder kernel, `axc examples`)
//   axc examples
// Exit codes: 0 ok, 1 compile error (message with the source location), 2 usage.
#include <CLI/CLI.hpp>
#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/printer.hpp>
#include <iostream>

#include "guide_kernels.hpp"

namespace ax = axcore::compiler;

namespace {
struct Example {
  const char* name;
  const char* doc;
  ax::A::Module (*make)();
};
const Example kExamples[] = {
    {"scale", "Part II §1: scale by 2.0, one datapath per element (sunk)", [] { return axcore::examples::scale(); }},
    {"matmul", "§6.2: 64 x 512 @ 512 x 256 int8, float32 out", [] { return axcore::examples::matmul(64, 8, 4, false); }},
    {"matmul_bias", "§6.2 epilogue: matmul + per-column bias", [] { return axcore::examples::matmul(64, 8, 4, true); }},
    {"dpu_affine", "§8.5: per-channel affine with an A.init preamble", [] { return axcore::examples::dpu_affine(16, 0.5f, 1.0f); }},
    {"row_sum", "§8.5: row sum with a register file and add_reduce", [] { return axcore::examples::row_sum(8, 4); }},
};
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"axc — the axcore compiler"};
  app.require_subcommand(1);
  auto* c = app.add_subcommand("compile", "compile an example kernel to a bundle");
  std::string name, out;
  bool dump_ir = false, show = false;
  c->add_option("example", name, "kernel name (axc examples)")->required();
  c->add_option("-o,--out", out, "output .axb")->required();
  c->add_flag("--dump-ir", dump_ir, "print the IR before and after the passes");
  c->add_flag("--explain", show, "print what runs where");
  auto* ls = app.add_subcommand("examples", "list the example kernels");
  CLI11_PARSE(app, argc, argv);
  if (ls->parsed()) {
    for (const auto& e : kExamples) std::cout << e.name << "  " << e.doc << "\n";
    return 0;
  }
  for (const auto& e : kExamples) {
    if (name != e.name) continue;
    try {
      const auto mod = e.make();
      if (dump_ir) std::cout << ax::dump(mod.ir());
      const auto r = ax::compile(mod.ir().main(), {1, e.name, "examples/kernels"});
      if (dump_ir) std::cout << "# after passes\n" << r.ir_lowered;
      if (show) std::cout << ax::explain(r.program);
      axcore::runtime::save_bundle(out, r.bundle);
      std::cout << "axc: " << e.name << " -> " << out << " (" << axcore::runtime::encode_bundle(r.bundle).size()
                << " bytes, compiled in " << r.total_ms << " ms)\n";
      return 0;
    } catch (const ax::CompileError& err) {
      std::cerr << err.what() << "\n";
      return 1;
    } catch (const std::exception& err) {
      std::cerr << "axc: " << err.what() << "\n";
      return 1;
    }
  }
  std::cerr << "axc: no example '" << name << "' (axc examples lists them)\n";
  return 2;
}
