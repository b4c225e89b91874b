// axc: compile a kernel or a YAML model to an `.axb` bundle.
//   axc compile MODEL.yaml|.onnx|EXAMPLE -o OUT.axb [--dump-ir] [--dump-txn] [--explain] [--cores N] [--l1-bytes B]
//   [--l2-bytes B]
//               [--Werror=hazard]       a §14 hazard (printed as a warning on stderr) is an error
//   axc compile PROGRAM.py -o OUT.axb [--module NAME] [--cores N]   an AxScript program (the Python package)
//   axc ops                 the operator library, with every operator's arguments
//   axc import MODEL.onnx   the ONNX node -> operator mapping and the layout decisions
//   axc explain BUNDLE.axb  what the bundle holds and what its TXN stream does
//   axc examples            the builder kernels EXAMPLE can name
// Exit codes: 0 ok, 1 compile error (message with the source location), 2 usage.
#include <CLI/CLI.hpp>
#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/dispatch.hpp>
#include <axcore/compiler/frontend/model.hpp>
#include <axcore/compiler/printer.hpp>
#include <axcore/txn/compare.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "catalog.hpp"
#ifdef AXCORE_HAVE_ONNX
#include <axcore/compiler/onnx/import.hpp>
#endif

namespace ax = axcore::compiler;

namespace {
// `axc compile PROGRAM.py ...` is the Python package's (python/, docs/python.md): this process
// becomes `python3 -m axcore.axc compile ...`, with the package of this build (<build>/python, next
// to <build>/compiler) or of the installed tree (AXCORE_PYTHON_DIR overrides) on PYTHONPATH. Returns only when it is
// not such a call, or when the interpreter cannot be started (exit code 2).
int compile_python(int argc, char** argv) {
  if (argc < 3 || std::string_view(argv[1]) != "compile") return -1;
  bool py = false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view a = argv[i];
    py = py || (a.size() > 3 && a.substr(a.size() - 3) == ".py");
  }
  if (!py) return -1;
  namespace fs = std::filesystem;
  std::error_code ec;
  // The package of a build tree (<build>/python), else of an installed tree (<prefix>/bin/axc,
  // <prefix>/lib/python3/dist-packages, docs/install.md).
  const fs::path up = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path();
  fs::path dir = std::getenv("AXCORE_PYTHON_DIR") ? fs::path(std::getenv("AXCORE_PYTHON_DIR")) : up / "python";
  if (!std::getenv("AXCORE_PYTHON_DIR") && !fs::exists(dir / "axcore" / "__init__.py"))
    dir = up / "lib" / "python3" / "dist-packages";
  if (!fs::exists(dir / "axcore" / "__init__.py")) {
    std::cerr << "axc: the axcore Python package is not at " << dir.string()
              << " (build the target axcore_python, or set AXCORE_PYTHON_DIR)\n";
    return 2;
  }
  const std::string python = fs::exists(dir / "bin" / "python3") ? (dir / "bin" / "python3").string() : "python3";
  const char* old = std::getenv("PYTHONPATH");
  const std::string path = dir.string() + (old && *old ? ":" + std::string(old) : std::string());
  ::setenv("PYTHONPATH", path.c_str(), 1);
  std::vector<char*> args{const_cast<char*>(python.c_str()), const_cast<char*>("-m"), const_cast<char*>("axcore.axc")};
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  std::cerr << "axc: cannot start " << python << ": " << std::strerror(errno) << "\n";
  return 2;
}

bool is_model(const std::string& s) {
  const auto dot = s.rfind('.');
  return dot != std::string::npos && (s.substr(dot) == ".yaml" || s.substr(dot) == ".yml");
}
bool is_onnx(const std::string& s) { return s.size() > 5 && s.substr(s.size() - 5) == ".onnx"; }

// An .onnx model: the importer's module (axc compile), or its mapping (axc import).
axcore::compiler::A::Module onnx_module(const std::string& path, std::string* report) {
#ifdef AXCORE_HAVE_ONNX
  auto m = axcore::compiler::onnx::import_model(path, axcore::compiler::ops::target());
  if (report) *report = axcore::compiler::onnx::describe(m);
  return m.module;
#else
  (void)report;
  throw std::runtime_error("this axc was built without ONNX import (" + path +
                           "): install libonnx-dev libprotobuf-dev (scripts/setup-deps) and reconfigure");
#endif
}
}  // namespace

// A YAML model with dispatch-time scalars (`dispatch_time:`): one bundle for every admissible value,
// staged and proven by stage_dispatch (docs/compiler.md "Dispatch-time shapes"). -1 for a static
// model (compiled as usual by the caller).
int compile_dispatch_model(const std::string& path, const std::string& out, ax::CompileOptions opt, uint64_t l1_bytes,
                           bool dump_txn) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const auto scalars = ax::frontend::model_dispatch_scalars(text.str(), path);
  if (scalars.empty()) return -1;
  ax::TilingOptions tiling;
  tiling.l1_bytes = l1_bytes;
  ax::StageReport rep;
  axcore::runtime::Bundle bundle;
  try {
    bundle = ax::stage_dispatch(
        scalars,
        [&] {
          auto m = ax::frontend::load_model(path, ax::ops::target());
          opt.name = m.name;
          return ax::compile(m.module.ir().main(), opt, tiling).bundle;
        },
        {}, &rep);
  } catch (const ax::CompileError& e) {  // staging's own errors are about the model file
    if (e.loc().known()) throw;
    throw ax::CompileError({path, 1, 1}, e.message(), e.hint());
  }
  if (dump_txn) std::cout << axcore::runtime::explain_txn(bundle);
  axcore::runtime::save_bundle(out, bundle);
  std::string names;
  for (const auto& s : scalars)
    names +=
        (names.empty() ? "" : ", ") + s.name + " in [" + std::to_string(s.min) + ", " + std::to_string(s.max) + "]";
  std::cout << "axc: " << opt.name << " -> " << out << " (" << axcore::runtime::encode_bundle(bundle).size()
            << " bytes; dispatch-time " << names << ": " << rep.points << " static builds, " << rep.admissible
            << " admissible, " << rep.refused << " refused by a guard, " << bundle.dispatch.staged.size()
            << " staged values, " << bundle.dispatch.guards.size() << " guard(s); built and proven in " << rep.ms
            << " ms)\n";
  return 0;
}

int main(int argc, char** argv) {
  if (const int rc = compile_python(argc, argv); rc >= 0) return rc;
  CLI::App app{"axc — the axcore compiler"};
  app.require_subcommand(1);
  auto* c = app.add_subcommand("compile", "compile a YAML model or an example kernel to a bundle");
  std::string name, out, bundle_path, werror;
  bool dump_ir = false, dump_txn = false, show = false, no_overlap = false, verify_each = false, no_fuse = false;
  uint32_t cores = 1;
  uint64_t l1_bytes = axcore::spec::param::l1_bytes, l2_bytes = axcore::spec::param::l2_bytes;
  c->add_option("model", name, "MODEL.yaml, or an example kernel name (axc examples)")->required();
  c->add_option("-o,--out", out, "output .axb")->required();
  c->add_flag("--dump-ir", dump_ir, "print the IR before and after the passes");
  c->add_flag("--dump-txn", dump_txn, "print the emitted TXN stream");
  c->add_flag("--verify-each", verify_each, "run the IR verifier before the first pass and after every pass");
  c->add_flag("--explain", show, "print what runs where");
  c->add_flag("--no-overlap", no_overlap,
              "no overlap scheduling: each launch waits for what it touches as it is pushed (docs/compiler.md)");
  c->add_flag("--no-fuse", no_fuse,
              "no automatic fusion (§12): only the datapaths inside A.fuse(...) are fused (docs/compiler.md)");
  c->add_option("--cores", cores, "cores of the target device")->check(CLI::Range(1u, 4u));
  c->add_option("--Werror", werror,
                "hazard: the language guide's §14 hazards the compiler finds (IMC reuse after another matrix, a "
                "wait placed after dependent launches, K tiles overwriting each other) are errors, not warnings")
      ->check(CLI::IsMember({"hazard"}));
  c->add_option("--l1-bytes", l1_bytes,
                "L1 bytes per core to compile for (default the spec's; e.g. 262144 for firmware/fpga/small.yaml)")
      ->check(CLI::Range(uint64_t{axcore::spec::param::l1_row_bytes}, uint64_t{axcore::spec::param::l1_bytes}));
  c->add_option("--l2-bytes", l2_bytes,
                "L2 bytes the scratch buffers may take (default the spec's; 0: a weak buffer moved out of L1 goes "
                "to DDR, docs/compiler.md \"Memory scopes\")")
      ->check(CLI::Range(uint64_t{0}, uint64_t{axcore::spec::param::l2_bytes}));
  auto* ls = app.add_subcommand("examples", "list the example kernels");
  auto* ops = app.add_subcommand("ops", "list the operators and their arguments");
  auto* ex = app.add_subcommand("explain", "describe a bundle: buffers, graph, TXN stream");
  auto* im = app.add_subcommand("import", "print an ONNX model's node -> operator mapping and layouts");
  std::string onnx_path;
  im->add_option("model", onnx_path, "MODEL.onnx")->required();
  ex->add_option("bundle", bundle_path, ".axb")->required();
  CLI11_PARSE(app, argc, argv);
  if (ls->parsed()) {
    for (const auto& e : axcore::examples::catalog()) std::cout << e.name << "  " << e.doc << "\n";
    return 0;
  }
  if (ops->parsed()) {
    std::cout << ax::ops::describe_ops();
    return 0;
  }
  if (ex->parsed()) {
    try {
      const auto b = axcore::runtime::load_bundle(bundle_path);
      std::cout << axcore::runtime::describe(b) << axcore::runtime::explain_txn(b);
      return 0;
    } catch (const std::exception& err) {
      std::cerr << "axc: " << err.what() << "\n";
      return 2;
    }
  }
  if (im->parsed()) {
    try {
      std::string report;
      (void)onnx_module(onnx_path, &report);
      std::cout << report;
      return 0;
    } catch (const std::exception& err) {
      std::cerr << err.what() << "\n";
      return 1;
    }
  }
  try {
    const ax::ops::TargetScope target(ax::ops::Target{l1_bytes});
    ax::A::Module mod("none");
    std::string label = name, source = "examples/kernels";
    if (is_model(name)) {
      if (const int rc = compile_dispatch_model(name, out, {cores, "", name, !no_overlap, false, verify_each, !no_fuse},
                                                l1_bytes, dump_txn);
          rc >= 0)
        return rc;
      auto m = ax::frontend::load_model(name, ax::ops::target());
      mod = m.module;
      label = m.name;
      source = name;
    } else if (is_onnx(name)) {
      mod = onnx_module(name, nullptr);
      label = std::filesystem::path(name).stem().string();
      source = name;
    } else {
      const auto* e = axcore::examples::find_example(name);
      if (!e) {
        std::cerr << "axc: '" << name
                  << "' is neither a .yaml / .onnx model nor an example kernel (axc examples lists them)\n";
        return 2;
      }
      mod = e->make();
    }
    if (dump_ir) std::cout << ax::dump(mod.ir());
    ax::TilingOptions tiling;
    tiling.l1_bytes = l1_bytes;
    tiling.l2_bytes = l2_bytes;
    const auto r = ax::compile(mod.ir().main(),
                               {cores, label, source, !no_overlap, werror == "hazard", verify_each, !no_fuse}, tiling);
    for (const auto& w : r.warnings) std::cerr << w.str() << "\n";
    if (dump_ir) std::cout << "# after passes\n" << r.ir_lowered();
    if (show) std::cout << ax::explain(r.program);
    if (dump_txn) std::cout << axcore::runtime::explain_txn(r.bundle);
    axcore::runtime::save_bundle(out, r.bundle);
    std::cout << "axc: " << label << " -> " << out << " (" << axcore::runtime::encode_bundle(r.bundle).size()
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
