// axrand: constrained-random DMA programs for co-simulation regressions.
//   axrand --seed S [--cores N] [--kind K] --out DIR
//                                                  generate: DIR/program.{json,axb}, inputs/, expected/;
//                                                  K = dma (default), matmul or dpu (datapath programs
//                                                  compiled with the compiler's builder), model (a
//                                                  random YAML model of 2-8 operators: DIR/model.yaml,
//                                                  compiled by the runner with axc) or dwpu (one DWPU
//                                                  operator: windows, strides, dilations, pools)
//   axrand --program FILE.json --out DIR           rebuild a saved (e.g. reduced) program
//   axrand --reduce FILE.json --check 'CMD' [--save FILE.json]
//                                                  shrink a failing program; CMD runs with {dir} set to
//                                                  a folder holding a candidate and fails (exit != 0)
//                                                  while the failure is still there
//   axrand --compare EXPECTED_DIR OUTPUT_DIR       bit-exact .npy comparison (exit 1 on a difference)
//   axrand --inputs-for BUNDLE.axb [--seed S] --out DIR
//                                                  seeded random DIR/NAME.npy for every input buffer
//                                                  (int8/int32 over their range, floats in [-4, 4))
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <type_traits>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "axcore/regress/compare.hpp"
#include "axcore/regress/process.hpp"
#include "build.hpp"
#include "datapath.hpp"
#include "model.hpp"
#include "reduce.hpp"

namespace fs = std::filesystem;
using namespace axcore;

namespace {

nlohmann::json load_json(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file);
  return nlohmann::json::parse(in);
}

// The datapath reducer: greedy, smallest edit first, until no candidate still fails.
rand::DatapathProgram reduce_datapath(rand::DatapathProgram p,
                                      const std::function<bool(const rand::DatapathProgram&)>& fails, unsigned& tried,
                                      bool quiet) {
  for (bool progress = true; progress;) {
    progress = false;
    for (const auto& q : rand::shrink_candidates(p)) {
      ++tried;
      if (!fails(q)) continue;
      p = q;
      progress = true;
      if (!quiet) std::cout << "  kept: " << rand::summary(p);
      break;
    }
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"axrand: constrained-random DMA programs (generate, rebuild, reduce, compare)"};
  uint64_t seed = 0;
  uint32_t cores = 1;
  std::string out, program, reduce_file, check, save;
  std::vector<std::string> compare;
  std::string inputs_for;
  bool quiet = false;
  std::string kind = "dma";
  auto* seed_opt = app.add_option("--seed", seed, "program seed");
  app.add_option("--cores", cores, "cores of the device")->check(CLI::Range(1u, 4u));
  app.add_option("--out", out, "output folder");
  app.add_option("--kind", kind, "program kind: dma, matmul, dpu, dwpu or model")
      ->check(CLI::IsMember({"dma", "matmul", "dpu", "dwpu", "model"}));
  app.add_option("--program", program, "program JSON to rebuild")->check(CLI::ExistingFile);
  app.add_option("--reduce", reduce_file, "program JSON to reduce")->check(CLI::ExistingFile);
  app.add_option("--check", check, "with --reduce: shell command that fails while the bug is there ({dir})");
  app.add_option("--save", save, "with --reduce: where the reduced program goes (default: FILE.reduced.json)");
  app.add_option("--compare", compare, "EXPECTED_DIR OUTPUT_DIR")->expected(2);
  app.add_option("--inputs-for", inputs_for, "bundle whose input buffers get seeded random .npy files in --out")
      ->check(CLI::ExistingFile);
  app.add_flag("-q,--quiet", quiet, "no summary");
  CLI11_PARSE(app, argc, argv);
  try {
    if (!compare.empty()) {
      const auto c = regress::compare_outputs(compare[0], compare[1], regress::Mode::BIT_EXACT, 0, 0);
      std::cout << (c.equal ? "equal: " : "DIFFERENT: ") << c.message << "\n";
      return c.equal ? 0 : 1;
    }
    if (!inputs_for.empty()) {
      if (out.empty()) throw std::runtime_error("give --out DIR");
      const auto files = rand::write_inputs(runtime::load_bundle(inputs_for), *seed_opt ? seed : 1, out);
      if (!quiet)
        for (const auto& f : files) std::cout << f.string() << "\n";
      return 0;
    }
    if (!reduce_file.empty()) {
      if (check.empty()) throw std::runtime_error("--reduce needs --check 'CMD'");
      const auto j = load_json(reduce_file);
      const fs::path work = fs::temp_directory_path() / fmt::format("axrand-reduce-{}", ::getpid());
      unsigned n = 0;
      auto fails = [&](const auto& q) {
        const auto dir = work / std::to_string(n++);
        if constexpr (std::is_same_v<std::decay_t<decltype(q)>, rand::Program>)
          rand::write_program(q, dir);
        else if constexpr (std::is_same_v<std::decay_t<decltype(q)>, rand::ModelProgram>)
          rand::write_model_program(q, dir);
        else
          rand::write_datapath_program(q, dir);
        std::string cmd = check;
        for (std::size_t at; (at = cmd.find("{dir}")) != std::string::npos;) cmd.replace(at, 5, dir.string());
        const auto r = regress::run_process({"sh", "-c", cmd}, dir / "check.log", std::chrono::minutes(10));
        fs::remove_all(dir);
        return !r.ok();
      };
      auto nothing_to_reduce = [&] {
        std::cerr << "axrand: the check passes on " << reduce_file << " already: nothing to reduce\n";
        return 2;
      };
      const fs::path dest = save.empty() ? fs::path(reduce_file).replace_extension(".reduced.json") : fs::path(save);
      if (rand::is_model_json(j)) {
        const auto p = rand::model_from_json(j);
        if (!fails(p)) return nothing_to_reduce();
        unsigned tried = 0;
        const auto small = rand::reduce_model(p, fails, &tried);
        fs::remove_all(work);
        std::ofstream(dest) << rand::to_json(small).dump(1) << "\n";
        std::cout << fmt::format(
            "reduced the {} from {} to {} operators, input {} to {} elements ({} candidates "
            "tried) -> {}\n",
            p.kind, p.ops.size(), small.ops.size(), rand::model_size(p).second, rand::model_size(small).second, tried,
            dest.string());
        std::cout << rand::summary(small);
        return 0;
      }
      if (rand::is_datapath_json(j)) {
        const auto p = rand::datapath_from_json(j);
        if (!fails(p)) return nothing_to_reduce();
        unsigned tried = 0;
        const auto small = reduce_datapath(p, fails, tried, quiet);
        fs::remove_all(work);
        std::ofstream(dest) << rand::to_json(small).dump(1) << "\n";
        std::cout << fmt::format("reduced the {} program ({} candidates tried) -> {}\n", rand::to_string(p.kind), tried,
                                 dest.string());
        std::cout << rand::summary(small);
        return 0;
      }
      const auto p = rand::program_from_json(j);
      if (!fails(p)) return nothing_to_reduce();
      rand::ReduceStats st;
      const auto small = rand::reduce(p, fails, &st, [&](const std::string& m) {
        if (!quiet) std::cout << "  " << m << "\n";
      });
      fs::remove_all(work);
      std::ofstream(dest) << rand::to_json(small).dump(1) << "\n";
      std::cout << fmt::format("reduced {} BDs to {} ({} candidates tried, {} kept) -> {}\n", st.bds_before,
                               st.bds_after, st.tried, st.kept, dest.string());
      std::cout << rand::summary(small);
      return 0;
    }
    if (out.empty()) throw std::runtime_error("give --out DIR");
    if (program.empty() && !*seed_opt) throw std::runtime_error("give --seed S or --program FILE.json");
    const auto j = program.empty() ? nlohmann::json() : load_json(program);
    if (program.empty() ? kind == "model" || kind == "dwpu" : rand::is_model_json(j)) {
      const auto p = program.empty() ? rand::generate_model(seed, cores, kind) : rand::model_from_json(j);
      rand::write_model_program(p, out);
      if (!quiet) std::cout << rand::summary(p);
      return 0;
    }
    if (program.empty() ? kind != "dma" : rand::is_datapath_json(j)) {
      const auto p = program.empty() ? rand::generate_datapath(seed, cores, rand::dp_kind_from_string(kind))
                                     : rand::datapath_from_json(j);
      rand::write_datapath_program(p, out);
      if (!quiet) std::cout << rand::summary(p);
      return 0;
    }
    const auto p = program.empty() ? rand::generate(seed, cores) : rand::program_from_json(j);
    rand::write_program(p, out);
    if (!quiet) std::cout << rand::summary(p);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "axrand: " << e.what() << "\n";
    return 2;
  }
}
