// axrun --stats-json's figures (runtime/tools run_stats): the work a bundle asks for, counted from
// its TXN and preloaded command streams, against hand-computed figures for a small matmul, the
// roofline and utilization formulas, and (on the TLM) the device's own counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "axcore/ref/npy.hpp"
#include "axcore/runtime/backend.hpp"
#include "axcore/runtime/run_stats.hpp"
#include "datapath.hpp"

namespace axcore::runtime {
namespace {

// y (3, 64) int32 = x (3, 128) int8 @ W (128, 64) int8: 2 K blocks, 1 N block.
Bundle small_matmul(const std::filesystem::path& dir) {
  rand::DatapathProgram p;
  p.seed = 7;
  p.kind = rand::DpKind::MATMUL;
  p.m = 3;
  p.k_blocks = 2;
  p.n_blocks = 1;
  rand::write_datapath_program(p, dir);
  return load_bundle(dir / "program.axb");
}

TEST(RunStats, SmallMatmulByHand) {
  const auto dir = std::filesystem::temp_directory_path() / "tools_run_stats_matmul";
  const Work w = count_work(small_matmul(dir));
  EXPECT_EQ(w.cores, 1u);
  EXPECT_EQ(w.tile_ops, 3u * 2 * 1);          // M rows x K blocks x N blocks
  EXPECT_EQ(w.macs, 3u * 128 * 64);           // = tile-ops x 4096
  EXPECT_EQ(w.dpu_instructions, 0u);          // the ODR casts, no DPU
  EXPECT_EQ(w.ddr_bytes, 384u + 8192 + 768);  // x 3x128 int8, W 128x64 int8, y 3x64 int32
  EXPECT_TRUE(w.exact);

  RunResult res;
  res.cycles = 10000;
  const RunStats s = run_stats(w, res);
  const double ddr = 9344.0 / spec::param::axi_data_bytes;  // the bound: 6 MVM cycles, 0 DPU
  EXPECT_DOUBLE_EQ(s.roofline_cycles, std::max(6.0, ddr));
  EXPECT_DOUBLE_EQ(s.mvm_utilization, 6.0 / 10000);  // 24 576 MACs / (4096 x 1 core x 10 000 cycles)
  EXPECT_DOUBLE_EQ(s.of_roofline, std::max(6.0, ddr) / 10000);
  EXPECT_FALSE(s.checked);  // no device counters in this RunResult
  const std::string j = stats_json(s);
  for (const char* key : {"\"cycles\": 10000", "\"macs\": 24576", "\"ddr_bytes\": 9344", "\"dpu_instructions\": 0",
                          "\"roofline_cycles\"", "\"mvm_utilization\": 0.000600"})
    EXPECT_NE(j.find(key), std::string::npos) << key << " in " << j;
  std::filesystem::remove_all(dir);
}

TEST(RunStats, TheBoundIsTheLargestOfTheThree) {
  Work w;
  w.cores = 2;
  w.macs = 4096 * 2 * 100;  // 100 MVM cycles on 2 cores
  w.ddr_bytes = 0;
  w.dpu_instructions = 2 * 300;  // 300 DPU cycles on 2 cores
  RunResult res;
  res.cycles = 1200;
  const RunStats s = run_stats(w, res);
  EXPECT_DOUBLE_EQ(s.roofline_cycles, 300);
  EXPECT_DOUBLE_EQ(s.mvm_utilization, 100.0 / 1200);
  EXPECT_DOUBLE_EQ(s.of_roofline, 0.25);
}

// The counts agree with what the TLM's counters say it did (MVM busy = tile-ops, DMA bytes per channel).
TEST(RunStats, CountsMatchTheTlmCounters) {
  const auto names = backend_names();
  if (std::find(names.begin(), names.end(), "tlm") == names.end()) GTEST_SKIP() << "no tlm backend in this build";
  const auto dir = std::filesystem::temp_directory_path() / "tools_run_stats_tlm";
  const Bundle b = small_matmul(dir);
  Arrays in;
  for (const auto& e : std::filesystem::directory_iterator(dir / "inputs"))
    in.emplace(e.path().stem().string(), ref::load_npy(e.path().string()));
  BackendConfig cfg;
  auto be = make_backend("tlm", cfg);
  const RunResult res = be->run(b, in, {});
  const RunStats s = run_stats(count_work(b), res);
  EXPECT_TRUE(s.checked);
  EXPECT_TRUE(s.mismatches.empty()) << s.mismatches.front();
  EXPECT_GT(s.mvm_utilization, 0);
  EXPECT_LT(s.mvm_utilization, 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace axcore::runtime
