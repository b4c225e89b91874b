// axrand: constrained-random DMA programs for co-simulation regressions.
//   axrand --seed S [--cores N] --out DIR          generate: DIR/program.{json,axb}, inputs/, expected/
//   axrand --program FILE.json --out DIR           rebuild a saved (e.g. reduced) program
//   axrand --reduce FILE.json --check 'CMD' [--save FILE.json]
//                                                  shrink a failing program; CMD runs with {dir} set to
//                                                  a folder holding a candidate and fails (exit != 0)
//                                                  while the failure is still there
//   axrand --compare EXPECTED_DIR OUTPUT_DIR       bit-exact .npy comparison (exit 1 on a difference)
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "axcore/regress/compare.hpp"
#include "axcore/regress/process.hpp"
#include "build.hpp"
#include "reduce.hpp"

namespace fs = std::filesystem;
using namespace axcore;

namespace {

rand::Program load_program(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file);
  return rand::program_from_json(nlohmann::json::parse(in));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"axrand: constrained-random DMA programs (generate, rebuild, reduce, compare)"};
  uint64_t seed = 0;
  uint32_t cores = 1;
  std::string out, program, reduce_file, check, save;
  std::vector<std::string> compare;
  bool quiet = false;
  auto* seed_opt = app.add_option("--seed", seed, "program seed");
  app.add_option("--cores", cores, "cores of the device")->check(CLI::Range(1u, 4u));
  app.add_option("--out", out, "output folder");
  app.add_option("--program", program, "program JSON to rebuild")->check(CLI::ExistingFile);
  app.add_option("--reduce", reduce_file, "program JSON to reduce")->check(CLI::ExistingFile);
  app.add_option("--check", check, "with --reduce: shell command that fails while the bug is there ({dir})");
  app.add_option("--save", save, "with --reduce: where the reduced program goes (default: FILE.reduced.json)");
  app.add_option("--compare", compare, "EXPECTED_DIR OUTPUT_DIR")->expected(2);
  app.add_flag("-q,--quiet", quiet, "no summary");
  CLI11_PARSE(app, argc, argv);
  try {
    if (!compare.empty()) {
      const auto c = regress::compare_outputs(compare[0], compare[1], regress::Mode::BIT_EXACT, 0, 0);
      std::cout << (c.equal ? "equal: " : "DIFFERENT: ") << c.message << "\n";
      return c.equal ? 0 : 1;
    }
    if (!reduce_file.empty()) {
      if (check.empty()) throw std::runtime_error("--reduce needs --check 'CMD'");
      auto p = load_program(reduce_file);
      const fs::path work = fs::temp_directory_path() / fmt::format("axrand-reduce-{}", ::getpid());
      unsigned n = 0;
      auto fails = [&](const rand::Program& q) {
        const auto dir = work / std::to_string(n++);
        rand::write_program(q, dir);
        std::string cmd = check;
        for (std::size_t at; (at = cmd.find("{dir}")) != std::string::npos;) cmd.replace(at, 5, dir.string());
        const auto r = regress::run_process({"sh", "-c", cmd}, dir / "check.log", std::chrono::minutes(10));
        fs::remove_all(dir);
        return !r.ok();
      };
      if (!fails(p)) {
        std::cerr << "axrand: the check passes on " << reduce_file << " already: nothing to reduce\n";
        return 2;
      }
      rand::ReduceStats st;
      const auto small = rand::reduce(p, fails, &st, [&](const std::string& m) {
        if (!quiet) std::cout << "  " << m << "\n";
      });
      fs::remove_all(work);
      const fs::path dest = save.empty() ? fs::path(reduce_file).replace_extension(".reduced.json") : fs::path(save);
      std::ofstream(dest) << rand::to_json(small).dump(1) << "\n";
      std::cout << fmt::format("reduced {} BDs to {} ({} candidates tried, {} kept) -> {}\n", st.bds_before,
                               st.bds_after, st.tried, st.kept, dest.string());
      std::cout << rand::summary(small);
      return 0;
    }
    if (out.empty()) throw std::runtime_error("give --out DIR");
    rand::Program p;
    if (!program.empty()) {
      p = load_program(program);
    } else if (*seed_opt) {
      p = rand::generate(seed, cores);
    } else {
      throw std::runtime_error("give --seed S or --program FILE.json");
    }
    rand::write_program(p, out);
    if (!quiet) std::cout << rand::summary(p);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "axrand: " << e.what() << "\n";
    return 2;
  }
}
