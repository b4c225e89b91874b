// The example models and a set of operators compiled here and run on the TLM through `axrun
// --backend tlm` (one SystemC elaboration per process), compared bit for bit with the ref backend
// run in this process over the same bundle.
#include <axcore/compiler/frontend/model.hpp>
#include <axcore/ref/npy.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness.hpp"
#include "tile_programs.hpp"

namespace {

using namespace axtest;
namespace fs = std::filesystem;

// Runs the compiled module on tlm and checks the outputs; returns the timeline JSON when asked.
std::string expect_tlm_matches_reference(const std::string& name, const axcore::compiler::CompileResult& r,
                                         uint32_t seed, double lo, double hi, bool timeline = false) {
  const fs::path dir = fs::temp_directory_path() / ("axcore_ops_tlm_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "out");
  rt::save_bundle(dir / "m.axb", r.bundle);
  const auto in = random_inputs(r.bundle, seed, lo, hi);
  std::string cmd =
      std::string(AXRUN) + " " + (dir / "m.axb").string() + " --backend tlm -q --output-dir " + (dir / "out").string();
  for (const auto& [k, v] : in) {
    const auto file = dir / (k + ".npy");
    axcore::ref::save_npy(file.string(), v);
    cmd += " --input " + k + "=" + file.string();
  }
  if (timeline) cmd += " --timeline " + (dir / "timeline.json").string();
  cmd += " > " + (dir / "axrun.log").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd << "\n(see " << (dir / "axrun.log").string() << ")";
  if (rc != 0) return {};
  const auto want = rt::make_backend("ref")->run(r.bundle, in, {});
  for (const auto& [k, v] : want.outputs) {
    const auto got = axcore::ref::load_npy((dir / "out" / (k + ".npy")).string());
    EXPECT_EQ(rt::array_bytes(got), rt::array_bytes(v))
        << name << ": output " << k << " differs from the reference on tlm";
  }
  std::string tl;
  if (timeline) {
    std::ifstream f(dir / "timeline.json");
    std::stringstream ss;
    ss << f.rdbuf();
    tl = ss.str();
  }
  fs::remove_all(dir);
  return tl;
}
void expect_tlm_matches_reference(const std::string& name, const A::Module& m, uint32_t seed, double lo, double hi) {
  (void)expect_tlm_matches_reference(name, axcore::compiler::compile(m.ir().main()), seed, lo, hi);
}

A::BufferHandle in(A::Func& f, const std::string& n, std::vector<int64_t> s, const std::string& dt) {
  s.back() /= 64;
  return f.input(n, s, dt, A::DDR);
}
A::BufferHandle cst(const std::string& n, std::vector<int64_t> s, const std::string& dt, double v) {
  std::size_t c = 1;
  for (auto d : s) c *= static_cast<std::size_t>(d);
  std::vector<double> vals(c);
  for (std::size_t i = 0; i < c; ++i)
    vals[i] = dt == "int8x64" ? static_cast<double>(static_cast<int>(i * 7 % 9) - 4) : v * static_cast<double>(i % 13);
  s.back() /= 64;
  return A::alloc_constant(vals, dt, A::DDR, s, n);
}

class ModelOnTlm : public ::testing::TestWithParam<std::string> {};
TEST_P(ModelOnTlm, MatchesReference) {
  const auto m = axcore::compiler::frontend::load_model(fs::path(AXCORE_EXAMPLE_MODELS) / (GetParam() + ".yaml"));
  expect_tlm_matches_reference(GetParam(), m.module, 42, -128, 127);
}
INSTANTIATE_TEST_SUITE_P(Examples, ModelOnTlm,
                         ::testing::Values("mlp", "cnn", "attention", "self_attention", "vit_patch_embed"));

// The same models compiled for 256 KiB of L1 (firmware/fpga/small.yaml's), run on this device.
class ModelOnTlmSmallL1 : public ::testing::TestWithParam<std::string> {};
TEST_P(ModelOnTlmSmallL1, MatchesReference) {
  const axcore::compiler::ops::Target target{256 * 1024};
  const auto m =
      axcore::compiler::frontend::load_model(fs::path(AXCORE_EXAMPLE_MODELS) / (GetParam() + ".yaml"), target);
  axcore::compiler::TilingOptions t;
  t.l1_bytes = target.l1_bytes;
  (void)expect_tlm_matches_reference(GetParam() + "_l1_256k", axcore::compiler::compile(m.module.ir().main(), {}, t),
                                     42, -128, 127);
}
INSTANTIATE_TEST_SUITE_P(Examples, ModelOnTlmSmallL1, ::testing::Values("mlp", "cnn", "vit_patch_embed"));

// The MLP's matmuls against weights resident in one residency: tile-ops per cycle of each MVMEXE
// task, from the command processor's task spans on the TLM timeline (simulated cycles, 1 GHz).
// The layers run in column chunks (docs/compiler.md "Column chunks of constant weights"): 256
// tile-ops a task, so a task's fixed ~20 cycles (IFD's first element, the MVM latency, the ODR's
// last store) and the L1 banks it shares with the next chunk's LoadIMC weigh more per task; the
// MVM stays busy over all tasks together.
TEST(OpsTlm, MlpMatmulsKeepTheMvmBusy) {
  const auto m = axcore::compiler::frontend::load_model(fs::path(AXCORE_EXAMPLE_MODELS) / "mlp.yaml");
  const auto r = axcore::compiler::compile(m.module.ir().main());
  const auto tl = nlohmann::json::parse(expect_tlm_matches_reference("mlp_util", r, 42, -128, 127, true));
  int checked = 0, tasks = 0;
  double all_ops = 0, all_cycles = 0;
  for (const auto& s : r.program.steps) {
    const auto* t = std::get_if<axcore::compiler::Task>(&s);
    if (!t || t->queue != axcore::spec::Queue::MVMEXE) continue;
    ++tasks;
    // The command processor's span of this task: named as the compiler named it, at its CMD_MEM word.
    for (const auto& e : tl["traceEvents"]) {
      if (e.value("ph", "") != "X" || e.value("cat", "") != "task" || e.value("name", "") != t->name) continue;
      if (!e.contains("args") || e["args"].value("word", -1) != static_cast<int64_t>(t->cmd_word)) continue;
      const double cycles = e["dur"].get<double>() * axcore::spec::param::clock_mhz;
      const double util = static_cast<double>(t->mvm_tile_ops) / cycles;
      std::printf("mlp %-28s %6llu tile-ops in %7.0f cycles: MVM utilization %.1f%%\n", t->name.c_str(),
                  static_cast<unsigned long long>(t->mvm_tile_ops), cycles, 100 * util);
      EXPECT_GE(util, 0.85) << t->name;
      all_ops += static_cast<double>(t->mvm_tile_ops);
      all_cycles += cycles;
      ++checked;
    }
  }
  EXPECT_GE(tasks, 2);
  EXPECT_EQ(checked, tasks);
  EXPECT_GE(all_ops / all_cycles, 0.9);
}

TEST(OpsTlm, ElementwiseAndMovement) {
  expect_tlm_matches_reference(
      "elementwise", module_of([](A::Func& f) {
        auto x = in(f, "x", {4, 128}, "float32x64");
        auto a = ops::invoke("add", {x, cst("c", {128}, "float32x64", 0.25)});
        auto q = ops::invoke("quantize", {a, 0.5, 1.0});
        auto t = ops::invoke("transpose",
                             {ops::invoke("reshape", {q, std::vector<int64_t>{2, 2, 128}}), int64_t{0}, int64_t{1}});
        A::output(
            ops::invoke("concat", {std::vector<ops::Tensor>{ops::invoke("copy", {t}),
                                                            ops::invoke("slice_tensor", {t}, {{"end", int64_t{1}}})}}));
      }),
      1, -60, 60);
}

// Moves of the packed axis through the DWPU ODR's lane transpose (A.vtrsp): an NCHW -> NHWC
// permute of int8 and a float32 transpose of the last two axes (the K^T of attention).
TEST(OpsTlm, PermuteAndTransposeOfThePackedAxis) {
  expect_tlm_matches_reference(
      "lane_transpose", module_of([](A::Func& f) {
        A::output(ops::invoke("permute", {in(f, "x", {1, 64, 3, 128}, "int8x64"), std::vector<int64_t>{0, 2, 3, 1}}));
      }),
      3, -128, 127);
  expect_tlm_matches_reference(
      "lane_transpose_f32", module_of([](A::Func& f) {
        A::output(ops::invoke("transpose", {in(f, "k", {128, 192}, "float32x64"), int64_t{-1}, int64_t{-2}}));
      }),
      4, -100, 100);
}

TEST(OpsTlm, DepthwiseAndPools) {
  expect_tlm_matches_reference(
      "depthwise", module_of([](A::Func& f) {
        auto x = in(f, "x", {9, 9, 128}, "int8x64");
        A::output(ops::invoke("dw_convolution_2d", {x, cst("w", {3, 3, 128}, "int8x64", 0)},
                              {{"stride", std::vector<int64_t>{2}}}));
        A::output(ops::invoke("dwpu_pool", {x, std::string("AVERAGE"), std::vector<int64_t>{3, 3}},
                              {{"stride", std::vector<int64_t>{2}}, {"ceil_mode", true}}));
      }),
      2, -128, 127);
}

TEST(OpsTlm, LinearSplitAcrossResidencies) {
  expect_tlm_matches_reference(
      "linear_split", module_of([](A::Func& f) {
        A::output(ops::invoke("core.linear", {in(f, "x", {3, 4096}, "int8x64"), cst("w", {4096, 192}, "int8x64", 0)},
                              {{"bias", cst("b", {192}, "float32x64", 0.5)}, {"activation", std::string("relu")}}));
      }),
      3, -128, 127);
}

TEST(OpsTlm, LinearSplitAlongK) {
  expect_tlm_matches_reference(
      "linear_split_k", module_of([](A::Func& f) {
        A::output(ops::invoke("core.linear",
                              {in(f, "x", {2, 64 * 130}, "int8x64"), cst("w", {64 * 130, 64}, "int8x64", 0)},
                              {{"bias", cst("b", {64}, "float32x64", 0.5)}}));
      }),
      4, -128, 127);
}

// The guide's call keywords that change the lowering (docs/axscript.md, "Operator call forms"):
// id= leaves an operator's launches in flight until A.waits (§12: a matmul and an elementwise op
// tagged and waited after both run side by side; untagged, under the default sync, one after the
// other), core= runs each call on its own core (a 2-core program); all equal the reference on
// the TLM.
TEST(OpsCallFormsOnTlm, IdAndCoreKeywords) {
  auto program = [](bool tagged) {
    return module_of([&](A::Func& f) {
      auto tag = [&](const char* id) {
        return tagged ? std::map<std::string, ops::ArgValue>{{"id", std::string(id)}}
                      : std::map<std::string, ops::ArgValue>{};
      };
      auto mm =
          ops::invoke("core.linear", {in(f, "x", {256, 512}, "int8x64"), cst("w", {512, 64}, "int8x64", 0)}, tag("mm"));
      auto ew = ops::invoke("atomic.mul", {in(f, "y", {16, 128}, "float32x64"), 0.5}, tag("ew"));
      if (tagged) {
        A::waits("mm");
        A::waits("ew");
      }
      A::output(mm);
      A::output(ew);
    });
  };
  axcore::compiler::CompileOptions serial;
  serial.overlap = false;  // the guide's default sync: a wait after every untagged launch
  // [untagged, tagged][matmul, elementwise]: (first start, last end) in cycles over the operator's
  // tasks (a linear whose weight streams from DDR runs as several column-chunk MVMEXE tasks).
  std::pair<double, double> spans[2][2];
  for (auto& row : spans)
    for (auto& span : row) span = {std::numeric_limits<double>::infinity(), 0.0};
  for (int tagged = 0; tagged < 2; ++tagged) {
    const A::Module m = program(tagged == 1);
    const auto r = axcore::compiler::compile(m.ir().main(), serial);
    const auto tl = nlohmann::json::parse(
        expect_tlm_matches_reference(tagged ? "call_forms_id" : "call_forms_no_id", r, 8, -100, 100, true));
    for (const auto& s : r.program.steps) {
      const auto* t = std::get_if<axcore::compiler::Task>(&s);
      const bool matmul =
          t && t->queue == axcore::spec::Queue::MVMEXE && t->name.find("(core.linear)") != std::string::npos;
      const bool elementwise = t && t->name.find("(atomic.mul)") != std::string::npos;
      if (!matmul && !elementwise) continue;
      for (const auto& e : tl["traceEvents"])
        if (e.value("ph", "") == "X" && e.value("cat", "") == "task" && e.value("name", "") == t->name) {
          const double t0 = e["ts"].get<double>() * axcore::spec::param::clock_mhz;
          auto& span = spans[tagged][t->queue == axcore::spec::Queue::MVMEXE ? 0 : 1];
          span = {std::min(span.first, t0),
                  std::max(span.second, t0 + e["dur"].get<double>() * axcore::spec::param::clock_mhz)};
        }
    }
    const auto [mm, ew] = std::pair(spans[tagged][0], spans[tagged][1]);
    std::printf("%s: matmul cycles %.0f..%.0f, elementwise %.0f..%.0f\n",
                tagged ? "id= and waits after both" : "default sync", mm.first, mm.second, ew.first, ew.second);
    ASSERT_GT(mm.second, 0) << "no matmul task span on the timeline";
    ASSERT_GT(ew.second, 0) << "no elementwise task span on the timeline";
    const bool overlap = ew.first < mm.second && mm.first < ew.second;
    EXPECT_EQ(overlap, tagged == 1);
  }
  const A::Module cores = module_of([](A::Func& f) {
    A::output(ops::invoke("atomic.mul", {in(f, "x", {4, 64}, "float32x64"), 2.0}, {{"core", int64_t{1}}}));
    A::output(ops::invoke("atomic.add", {in(f, "y", {4, 64}, "float32x64"), 1.0}, {{"core", int64_t{0}}}));
  });
  axcore::compiler::CompileOptions two;
  two.cores = 2;
  (void)expect_tlm_matches_reference("call_forms_core", axcore::compiler::compile(cores.ir().main(), two), 9, -100,
                                     100);
}

// §11.2 and §12 written with tile handles (tile_programs.hpp), on the TLM: the K split as the guide
// writes it equals the reference; so does the pipeline, whose compute of a tile runs while another
// tile's load or store does (their task spans overlap on the timeline) with drain=2 and never with
// drain=0 under the guide's default sync. The device cycles of both are printed (docs/compiler.md).
TEST(TilesOnTlm, KSplitAndPipeline) {
  namespace tp = axtest::tile_programs;
  expect_tlm_matches_reference("tiles_ksplit", module_of([](A::Func& f) { tp::k_split(f, 3, 4, 2, 1, 2); }), 5, -20,
                               20);
  for (const bool overlap : {false, true}) {
    for (const int64_t drain : {2, 0}) {
      const A::Module m = module_of([&](A::Func& f) { tp::pipeline(f, 4, 64, 4, 2, tp::weight(256, 2, 3), drain); });
      axcore::compiler::CompileOptions o;
      o.overlap = overlap;
      const auto r = axcore::compiler::compile(m.ir().main(), o);
      const std::string name = "tiles_pipeline_d" + std::to_string(drain) + (overlap ? "_overlap" : "");
      const auto tl = nlohmann::json::parse(expect_tlm_matches_reference(name, r, 7, -30, 30, true));
      std::map<std::string, std::string> id_of;  // task name -> its stage id
      for (const auto& s : r.program.steps)
        if (const auto* t = std::get_if<axcore::compiler::Task>(&s)) id_of[t->name] = t->id;
      std::vector<std::pair<double, double>> compute, movement;
      double end = 0;
      for (const auto& e : tl["traceEvents"]) {
        if (e.value("ph", "") != "X") continue;
        const double t0 = e["ts"].get<double>() * axcore::spec::param::clock_mhz;
        const double t1 = t0 + e["dur"].get<double>() * axcore::spec::param::clock_mhz;
        end = std::max(end, t1);
        if (e.value("cat", "") != "task") continue;
        const auto it = id_of.find(e.value("name", ""));
        if (it == id_of.end()) continue;
        if (it->second == "compute") compute.emplace_back(t0, t1);
        if (it->second == "load" || it->second == "store") movement.emplace_back(t0, t1);
      }
      ASSERT_EQ(compute.size(), 4u);
      ASSERT_EQ(movement.size(), 8u);
      bool overlapped = false;
      for (const auto& c : compute)
        for (const auto& mv : movement) overlapped = overlapped || (c.first < mv.second && mv.first < c.second);
      std::printf(
          "§12 pipeline, 4 tiles of 64 rows (K 256, N 128), %s: drain=%lld: %.0f TLM cycles, compute beside "
          "load/store: %s\n",
          overlap ? "overlap scheduler" : "default sync", static_cast<long long>(drain), end,
          overlapped ? "yes" : "no");
      if (!overlap) { EXPECT_EQ(overlapped, drain == 2); }
    }
  }
}

}  // namespace
