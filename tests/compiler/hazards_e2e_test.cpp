// The IMC reuse hazard of the language guide's §14 (tests/compiler/hazard_programs.hpp) compiled
// with its warning and run through `axrun` on the TLM and the RTL (one process per run): the
// device counts the stale tile-ops, axrun's summary prints IMC_STALE_READS with a warning, the
// stats JSON carries it, the count and the stale outputs equal fsim's — and the program that
// reloads the matrix first reads nothing stale.
#include <gtest/gtest.h>

#include <axcore/ref/npy.hpp>
#include <axcore/runtime/backend.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hazard_programs.hpp"

namespace {

namespace ax = axcore;
namespace rt = axcore::runtime;
namespace fs = std::filesystem;
namespace hp = axcore::hazard_programs;

struct AxrunRun {
  std::string log, stats;
  rt::Arrays outputs;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class HazardsE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("axcore_hazards_e2e_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Compiles `b`, writes the bundle and the input, and returns fsim's run of it.
  rt::RunResult prepare(const hp::Built& b) {
    const auto r = ax::compiler::compile(b.mod.ir().main(), {}, hp::imc_tiles_budget());
    rt::save_bundle((dir_ / "k.axb").string(), r.bundle);
    ax::ref::NDArray<int8_t> x({4, 128});
    for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<int8_t>(static_cast<int>(i * 5 % 15) - 7);
    in_ = {{"x", x}};
    ax::ref::save_npy((dir_ / "x.npy").string(), x);
    return rt::make_backend("fsim")->run(r.bundle, in_, {});
  }

  AxrunRun axrun(const std::string& backend) {
    const fs::path log = dir_ / (backend + ".log"), stats = dir_ / (backend + ".stats.json");
    const std::string cmd = std::string(AXRUN) + " " + (dir_ / "k.axb").string() + " --backend " + backend +
                            " -q --input x=" + (dir_ / "x.npy").string() + " --output-dir " +
                            (dir_ / backend).string() + " --stats-json " + stats.string() + " > " + log.string() +
                            " 2>&1";
    AxrunRun r;
    const int rc = std::system(cmd.c_str());
    r.log = slurp(log);
    EXPECT_EQ(rc, 0) << cmd << "\n" << r.log;
    r.stats = slurp(stats);
    for (const auto& e : fs::directory_iterator(dir_ / backend))
      if (e.path().extension() == ".npy") r.outputs[e.path().stem().string()] = ax::ref::load_npy(e.path().string());
    return r;
  }

  fs::path dir_;
  rt::Arrays in_;
};

void expect_in_log(const AxrunRun& r, const std::string& be, const std::string& text) {
  EXPECT_NE(r.log.find(text), std::string::npos) << be << ": no '" << text << "' in:\n" << r.log;
}

TEST_F(HazardsE2e, StaleImcReadsAreCountedAndPrintedOnTlmAndRtl) {
  const auto fsim = prepare(hp::imc_reuse(false));
  ASSERT_EQ(fsim.imc_stale_reads(), 8u);
  for (const std::string be : {"tlm", "rtl"}) {
    const AxrunRun r = axrun(be);
    expect_in_log(r, be, "sticky status: IMC_STALE_READS 8 (core0 8), TOKEN_DROPPED 0, ERROR_STATUS 0, WDOG_STATUS 0");
    expect_in_log(r, be, "warning: 8 MVM tile-ops read IMC tiles outside their residency (IMC_STALE_READS)");
    EXPECT_NE(r.stats.find("\"core0.IMC_STALE_READS\": 8"), std::string::npos) << be << ": " << r.stats;
    for (const char* o : {"o1", "o2", "o3"}) {
      ASSERT_TRUE(r.outputs.count(o)) << be << " " << o;
      EXPECT_EQ(std::get<ax::ref::NDArray<int32_t>>(r.outputs.at(o)).data(),
                std::get<ax::ref::NDArray<int32_t>>(fsim.outputs.at(o)).data())
          << be << " " << o << " differs from fsim";
    }
  }
}

TEST_F(HazardsE2e, ReloadedMatrixReadsNothingStaleOnTlmAndRtl) {
  const auto fsim = prepare(hp::imc_reuse(true));
  ASSERT_EQ(fsim.imc_stale_reads(), 0u);
  for (const std::string be : {"tlm", "rtl"}) {
    const AxrunRun r = axrun(be);
    expect_in_log(r, be, "sticky status: IMC_STALE_READS 0, TOKEN_DROPPED 0, ERROR_STATUS 0, WDOG_STATUS 0");
    EXPECT_EQ(r.log.find("warning:"), std::string::npos) << be << ":\n" << r.log;
    EXPECT_EQ(std::get<ax::ref::NDArray<int32_t>>(r.outputs.at("o3")).data(),
              std::get<ax::ref::NDArray<int32_t>>(fsim.outputs.at("o1")).data())
        << be;
  }
}

}  // namespace
