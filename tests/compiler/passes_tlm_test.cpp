// Tiled and pipelined bundles on the SystemC TLM model, through `axrun --backend tlm` in a process
// of its own (SystemC elaborates once per process): outputs equal the references, as on fsim.
#include <unistd.h>
#include <axcore/num/float18.hpp>
#include <axcore/ref/npy.hpp>
#include <axcore/runtime/bundle.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "passes_kernels.hpp"

namespace ax = axcore;
namespace cc = axcore::compiler;
using ax::passes_test::pseudo;
using ax::ref::NDArray;

namespace {

std::filesystem::path scratch(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("axc_passes_tlm_" + std::to_string(::getpid())) / name;
  std::filesystem::create_directories(d);
  return d;
}

// Runs the bundle on the TLM with one input; returns the output `out`.
template <class In>
NDArray<float> run_tlm(const cc::CompileResult& r, const std::string& name, const NDArray<In>& x) {
  EXPECT_TRUE(std::filesystem::exists(AXRUN_PATH)) << AXRUN_PATH << " is not built (target axrun)";
  const auto dir = scratch(name);
  ax::runtime::save_bundle((dir / "k.axb").string(), r.bundle);
  ax::ref::save_npy((dir / "inp.npy").string(), x);
  const std::string cmd = std::string(AXRUN_PATH) + " " + (dir / "k.axb").string() +
                          " --backend tlm --input inp=" + (dir / "inp.npy").string() + " --output-dir " +
                          (dir / "out").string() + " -q > " + (dir / "log.txt").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd << "\n" << std::ifstream(dir / "log.txt").rdbuf();
  auto out = ax::ref::load_npy_as<float>((dir / "out" / "out.npy").string());
  if (rc == 0) std::filesystem::remove_all(dir);
  return out;
}

template <class T>
void expect_equal(const NDArray<T>& got, const NDArray<T>& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got.data()[i], want.data()[i]) << what << " element " << i;
}

}  // namespace

TEST(CompilerPassesTlm, PipelinedTilesMatchTheReference) {
  auto x = pseudo<float>({10, 128}, 3, -50, 50);
  const auto want = ax::passes_test::scale_rows_ref(x, 2);
  for (int64_t drain : {0, 2}) {
    auto m = ax::passes_test::scale_rows(10, 2,
                                         cc::TileBounds{.tile_min = 0, .tile_max = 4, .num_tiles = 0, .drain = drain});
    const auto r = cc::compile(m.ir().main());
    expect_equal(run_tlm(r, "scale" + std::to_string(drain), x), want, "tlm drain=" + std::to_string(drain));
  }
}

TEST(CompilerPassesTlm, TiledMatmulMatchesRefLinear) {
  auto mod = ax::examples::matmul(48, 2, 2, true, 7);
  auto x = pseudo<int8_t>({48, 128}, 13, -128, 127);
  const auto [w, b] = ax::passes_test::matmul_operands(mod.ir().main(), 128, 128);
  ax::ref::Epilogue e;
  e.bias = b;
  const auto r = cc::compile(mod.ir().main(), {}, cc::TilingOptions{32 * 1024});
  expect_equal(run_tlm(r, "matmul", x), ax::ref::linear<float>(x, w, e), "tlm tiled matmul");
}

TEST(CompilerPassesTlm, SplitKMatmulEqualsTheFunctionalDevice) {
  // Two K chunks, two residencies; the TLM's IMC ends a residency when the next one loads, so a
  // chunk read after the next load would show here.
  auto mod = ax::examples::matmul(8, 4, 2, true, 21);
  auto x = pseudo<int8_t>({8, 256}, 17, -128, 127);
  const auto r =
      cc::compile(mod.ir().main(), {}, cc::TilingOptions{.l1_bytes = ax::spec::param::l1_bytes, .imc_tiles = 4});
  const auto [w, b] = ax::passes_test::matmul_operands(mod.ir().main(), 256, 128);
  // The reference of passes_splitk_test.cpp, inline: chunk 0 with the bias, chunk 1 added in float18.
  NDArray<ax::num::Float18> y({8, 128});
  for (std::size_t c = 0; c < 2; ++c) {
    NDArray<int8_t> xs({8, 128}), ws({128, 128});
    for (std::size_t i = 0; i < 8; ++i)
      for (std::size_t j = 0; j < 128; ++j) xs({i, j}) = x({i, c * 128 + j});
    for (std::size_t j = 0; j < 128; ++j)
      for (std::size_t o = 0; o < 128; ++o) ws({j, o}) = w({c * 128 + j, o});
    ax::ref::Epilogue e;
    if (c == 0) e.bias = b;
    const auto part = ax::ref::apply_epilogue(ax::ref::matmul_int32(xs, ws), e);
    for (std::size_t i = 0; i < y.size(); ++i)
      y.data()[i] = c == 0 ? part.data()[i] : ax::num::add(part.data()[i], y.data()[i]);
  }
  expect_equal(run_tlm(r, "splitk", x), ax::ref::from_f18<float>(y), "tlm split-K");
}

TEST(CompilerPassesTlm, DdrScratchBetweenASysDmaAndAUnitIsCopiedAcross) {
  auto x = pseudo<float>({6, 64}, 4, -20, 20);
  for (auto& v : x.data()) v = std::round(v);  // exact in float18, so 2 * x is too
  NDArray<float> want(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) want.data()[i] = 2 * x.data()[i];
  for (bool dma_first : {true, false}) {
    const auto r = cc::compile(ax::passes_test::ddr_scratch(6, dma_first).ir().main());
    expect_equal(run_tlm(r, dma_first ? "dma_first" : "unit_first", x), want,
                 dma_first ? "SysDMA then unit" : "unit then SysDMA");
  }
}

// Two cores meet at a barrier on the TLM (its rendezvous counts arrivals per barrier and releases
// by generation, so the first core to arrive is released even when the last has already left).
TEST(CompilerPassesTlm, LoopPartitionedOverTwoCoresWithABarrier) {
  auto x = pseudo<float>({10, 128}, 3, -50, 50);
  auto m = ax::passes_test::scale_rows(10, 2, std::nullopt);
  const auto r = cc::compile(m.ir().main(), {2, "", ""});
  expect_equal(run_tlm(r, "cores2", x), ax::passes_test::scale_rows_ref(x, 2), "tlm 2 cores");
}
