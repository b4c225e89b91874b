// axspecgen: spec/axcore.yaml -> spec.hpp, axfw/spec.h, axcore_pkg.sv, docs tables. Exit 1 with file:line:col on
// bad YAML.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "model.hpp"

int main(int argc, char** argv) {
  CLI::App app{"axspecgen: generate C++, SystemVerilog and docs from the axcore spec"};
  std::string spec_path, overlay_path, cpp_out, c_out, sv_out, docs_dir;
  bool check_only = false;
  app.add_option("spec", spec_path, "spec YAML")->required();
  app.add_option("--overlay", overlay_path,
                 "parameter overlay YAML (params: {name: value}), e.g. firmware/fpga/small.yaml");
  app.add_option("--cpp", cpp_out, "C++ header to write");
  app.add_option("--c", c_out, "the firmware's C header (axfw/spec.h) to write");
  app.add_option("--sv", sv_out, "SystemVerilog package to write");
  app.add_option("--docs", docs_dir, "directory for the Markdown tables");
  app.add_flag("--check", check_only, "only validate");
  CLI11_PARSE(app, argc, argv);
  try {
    const auto spec = axcore::specgen::load_spec(spec_path, overlay_path);
    if (check_only) {
      std::cout << spec_path << ": ok, hash " << std::hex << spec.hash << "\n";
      return 0;
    }
    if (!cpp_out.empty()) {
      std::filesystem::create_directories(std::filesystem::path(cpp_out).parent_path());
      axcore::specgen::emit_cpp(spec, cpp_out);
    }
    if (!c_out.empty()) {
      std::filesystem::create_directories(std::filesystem::path(c_out).parent_path());
      axcore::specgen::emit_c(spec, c_out);
    }
    if (!sv_out.empty()) {
      std::filesystem::create_directories(std::filesystem::path(sv_out).parent_path());
      axcore::specgen::emit_sv(spec, sv_out);
    }
    if (!docs_dir.empty()) {
      std::filesystem::create_directories(docs_dir);
      axcore::specgen::emit_docs(spec, docs_dir);
    }
  } catch (const axcore::specgen::SpecError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "axspecgen: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
