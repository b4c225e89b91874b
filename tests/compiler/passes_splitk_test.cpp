// K-splitting: matmuls whose resident matrix exceeds one IMC residency run as K chunks, each
// with its own residency loaded right before its datapaths, the partial sums accumulated in the
// DPU through the float32 output (float18 arithmetic, §7). Checked on fsim against a reference
// built from common/ref (the int32 product of each chunk) and common/num (the float18 adds).
#include <axcore/num/float18.hpp>
#include <axcore/runtime/backend.hpp>

#include "passes_kernels.hpp"

namespace ax = axcore;
namespace cc = axcore::compiler;
using ax::passes_test::pseudo;
using ax::ref::NDArray;

namespace axcore::passes_test {

// y = f18(acc_0 [+ bias]); y = f18(f18(acc_c) + y) for every later chunk of kc K blocks.
NDArray<float> split_k_ref(const NDArray<int8_t>& x, const NDArray<int8_t>& w,
                           const std::optional<NDArray<float>>& bias, std::size_t kc_blocks) {
  const std::size_t m = x.shape()[0], k = x.shape()[1], n = w.shape()[1];
  NDArray<num::Float18> y({m, n});
  for (std::size_t k0 = 0, c = 0; k0 < k; k0 += kc_blocks * 64, ++c) {
    const std::size_t kn = std::min(kc_blocks * 64, k - k0);
    NDArray<int8_t> xs({m, kn}), ws({kn, n});
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < kn; ++j) xs({i, j}) = x({i, k0 + j});
    for (std::size_t j = 0; j < kn; ++j)
      for (std::size_t o = 0; o < n; ++o) ws({j, o}) = w({k0 + j, o});
    ref::Epilogue e;
    if (c == 0 && bias) e.bias = *bias;
    const auto part = ref::apply_epilogue(ref::matmul_int32(xs, ws), e);
    for (std::size_t i = 0; i < y.size(); ++i)
      y.data()[i] = c == 0 ? part.data()[i] : num::add(part.data()[i], y.data()[i]);
  }
  return ref::from_f18<float>(y);
}

}  // namespace axcore::passes_test

namespace {

NDArray<float> run_fsim(const cc::CompileResult& r, const NDArray<int8_t>& x) {
  auto be = ax::runtime::make_backend("fsim");
  return std::get<NDArray<float>>(be->run(r.bundle, {{"inp", x}}, {}).outputs.at("out"));
}

void expect_equal(const NDArray<float>& got, const NDArray<float>& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got.data()[i], want.data()[i]) << what << " element " << i;
}

// (matrix_id of each LoadIMC, of each MVM datapath) in program order.
std::vector<std::pair<char, uint32_t>> residencies(const cc::CompileResult& r) {
  std::vector<std::pair<char, uint32_t>> v;
  const auto words = axcore::runtime::command_memory(r.bundle).at(0).words;
  for (const auto& s : r.program.steps)
    if (const auto* t = std::get_if<cc::Task>(&s)) {
      const std::span<const uint32_t> d(words.data() + t->cmd_word, t->words.size());
      if (t->queue == ax::spec::Queue::LOADIMC)
        v.emplace_back('L', ax::spec::LoadimcDesc::decode(d).matrix_id);
      else if (t->queue == ax::spec::Queue::MVMEXE)
        v.emplace_back('M', ax::spec::MvmDesc::decode(d.subspan(ax::spec::layout::datapath_desc::mvm)).matrix_id);
    }
  return v;
}

}  // namespace

TEST(CompilerPassesSplitK, ChunksAccumulateAcrossResidencies) {
  struct Case {
    int64_t kb, nb;
    bool bias;
    uint32_t imc;
  };
  for (const Case& c : {Case{4, 2, true, 4}, Case{5, 2, false, 4}, Case{6, 1, true, 2}}) {
    const std::string what =
        "kb=" + std::to_string(c.kb) + " nb=" + std::to_string(c.nb) + " bias=" + std::to_string(c.bias);
    auto mod = ax::examples::matmul(8, c.kb, c.nb, c.bias, 21);
    auto x = pseudo<int8_t>({8, static_cast<std::size_t>(c.kb * 64)}, 17, -128, 127);
    const auto [w, b] = ax::passes_test::matmul_operands(mod.ir().main(), c.kb * 64, c.nb * 64);
    const auto r =
        cc::compile(mod.ir().main(), {}, cc::TilingOptions{.l1_bytes = ax::spec::param::l1_bytes, .imc_tiles = c.imc});
    const std::size_t kc = c.imc / static_cast<std::size_t>(c.nb);
    const std::size_t chunks = (static_cast<std::size_t>(c.kb) + kc - 1) / kc;
    // Each chunk is a residency of its own, loaded right before the datapath that reads it.
    const auto res = residencies(r);
    ASSERT_EQ(res.size(), 2 * chunks) << what;
    for (std::size_t k = 0; k < chunks; ++k) {
      EXPECT_EQ(res[2 * k].first, 'L') << what;
      EXPECT_EQ(res[2 * k + 1].first, 'M') << what;
      EXPECT_EQ(res[2 * k].second, res[2 * k + 1].second) << what;
      if (k) { EXPECT_NE(res[2 * k].second, res[2 * k - 1].second) << what; }
    }
    ax::passes_test::check_hazards(r.program, r.bundle);
    std::optional<NDArray<float>> bias;
    if (c.bias) bias = b;
    expect_equal(run_fsim(r, x), ax::passes_test::split_k_ref(x, w, bias, kc), what);
  }
}

TEST(CompilerPassesSplitK, AReductionLongerThanOneResidencyAtTheRealImcSize) {
  // K = 130 blocks (8320 rows) x 1 N block: 130 tiles against 128 per residency.
  auto mod = ax::examples::matmul(4, 130, 1, false, 5);
  auto x = pseudo<int8_t>({4, 130 * 64}, 23, -128, 127);
  const auto [w, b] = ax::passes_test::matmul_operands(mod.ir().main(), 130 * 64, 64);
  (void)b;
  const auto r = cc::compile(mod.ir().main());
  EXPECT_EQ(residencies(r).size(), 4u);  // two chunks: 128 + 2 blocks
  expect_equal(run_fsim(r, x), ax::passes_test::split_k_ref(x, w, std::nullopt, 128), "K=8320");
}

TEST(CompilerPassesSplitK, WhatCannotBeSplitIsRefusedAtTheAllocation) {
  auto mod = ax::examples::matmul(2, 1, 6, false, 1);
  try {
    (void)cc::compile(mod.ir().main(), {}, cc::TilingOptions{.l1_bytes = ax::spec::param::l1_bytes, .imc_tiles = 4});
    FAIL() << "compiled";
  } catch (const cc::CompileError& e) {
    EXPECT_NE(e.message().find("IMC tile budget exceeded"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("N_BLOCKS alone exceeds a residency"), std::string::npos) << e.what();
    EXPECT_NE(e.loc().file.find("guide_kernels.cpp"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("partial="), std::string::npos);
  }
}
