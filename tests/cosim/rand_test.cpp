#include <gtest/gtest.h>

#include "axcore/ref/dma.hpp"
#include "build.hpp"
#include "datapath.hpp"
#include "reduce.hpp"

using namespace axcore;
using namespace axcore::rand;

namespace {

Place ddr(uint32_t arg) { return {spec::MemSel::DDR, 0, arg, 0}; }
Place l2() { return {spec::MemSel::L2, 0, 0, 0}; }

Walk linear(uint32_t n, int32_t stride = 1) {
  Walk w;
  w.sizes = {n};
  w.strides = {stride};
  return w;
}

}  // namespace

TEST(RegressRand, GeneratedProgramsAreLegalDeterministicAndVaried) {
  unsigned padded = 0, repeated = 0, chained = 0, by_engine[3] = {0, 0, 0}, far_core = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const uint32_t cores = seed % 3 == 0 ? 4 : 1;
    const auto p = generate(seed, cores);
    Program q = p;
    std::string why;
    ASSERT_TRUE(normalize(q, &why)) << "seed " << seed << ": " << why;
    ASSERT_EQ(to_json(q), to_json(p)) << "normalize must be idempotent, seed " << seed;
    ASSERT_EQ(to_json(generate(seed, cores)), to_json(p));
    ASSERT_EQ(to_json(program_from_json(to_json(p))), to_json(p));
    for (const auto& h : p.hops) {
      ++by_engine[static_cast<int>(h.engine)];
      repeated += h.repeat > 0;
      chained += h.reads.size() > 1;
      for (const auto& r : h.reads) padded += !r.pad.empty();
      far_core += h.dst.mem == spec::MemSel::L1 && h.dst.core == 3;
    }
    // Every BD is in range of its fields and legal for its engine; the golden run works; the bundle validates.
    const auto b = build(p);
    EXPECT_EQ(b.y.size(), p.y_words);
    EXPECT_NO_THROW(runtime::encode_bundle(b.bundle)) << "seed " << seed;
  }
  EXPECT_GT(padded, 20u);
  EXPECT_GT(repeated, 20u);
  EXPECT_GT(chained, 20u);
  EXPECT_GT(by_engine[1], 20u);
  EXPECT_GT(by_engine[2], 20u);
  EXPECT_GT(far_core, 0u);
}

TEST(RegressRand, GoldenOfAHandBuiltProgram) {
  // x (8 words) -> L2 linear; L2 -> y reading every other word, padded by one word before each run.
  Program p;
  p.seed = 5;
  p.x_words = 8;
  Hop a;
  a.engine = Engine::SYS;
  a.src = ddr(0);
  a.dst = l2();
  a.reads = {linear(8)};
  a.write = linear(8);
  Hop b;
  b.engine = Engine::MEM;
  b.src = l2();
  b.dst = {spec::MemSel::L1, 0, 0, 0};
  b.reads = {linear(4, 2)};
  b.reads[0].pad = {{1, 0}};
  b.pad_value = 0x77;
  b.write = linear(5);
  Hop c;
  c.engine = Engine::SYS;
  c.dst = ddr(1);
  c.reads = {linear(5)};
  c.write = linear(5);
  p.hops = {a, b, c};
  ASSERT_TRUE(normalize(p));
  EXPECT_EQ(p.y_words, 5u);
  const auto built = build(p);
  const auto& x = built.x.data();
  EXPECT_EQ(built.y.data(), (std::vector<int32_t>{0x77, x[0], x[2], x[4], x[6]}));
  EXPECT_EQ(p.descriptors(), 6u);
}

TEST(RegressRand, NormalizeRefusesWhatNoEngineCanDo) {
  Program p = generate(11, 1);
  p.hops.front().src = l2();
  std::string why;
  EXPECT_FALSE(normalize(p, &why));
  EXPECT_EQ(why, "the first hop must read x");
  p = generate(11, 1);
  p.hops.front().engine = Engine::CORE;
  EXPECT_FALSE(normalize(p, &why));
  EXPECT_NE(why.find("core cannot move ddr:x"), std::string::npos) << why;
  EXPECT_THROW(program_from_json(nlohmann::json::parse(R"({"seed": 1})")), std::runtime_error);
}

TEST(RegressRand, ReducerShrinksAnInjectedFailureToAHandfulOfBds) {
  // The "bug": any read walk with a negative stride in a dimension above d0 fails.
  auto buggy = [](const Program& q) {
    for (const auto& h : q.hops)
      for (const auto& r : h.reads)
        for (std::size_t k = 1; k < r.strides.size(); ++k)
          if (r.strides[k] < 0 && r.sizes[k] > 1) return true;
    return false;
  };
  unsigned reduced = 0;
  for (uint64_t seed = 1; seed <= 200 && reduced < 5; ++seed) {
    const auto p = generate(seed, 4);
    if (!buggy(p) || p.descriptors() < 8) continue;
    ReduceStats st;
    const auto small = reduce(p, buggy, &st);
    EXPECT_TRUE(buggy(small));
    // A handful: at most three hops of one BD each (the failing walk may need a middle hop to
    // keep a source large enough for itself).
    EXPECT_LE(small.descriptors(), 6u) << "seed " << seed << "\n" << summary(small);
    EXPECT_LE(small.hops.size(), 3u);
    std::printf("seed %llu: %zu BDs reduced to %zu (%u tried)\n", static_cast<unsigned long long>(seed), st.bds_before,
                st.bds_after, st.tried);
    EXPECT_LT(st.bds_after, st.bds_before);
    ++reduced;
  }
  EXPECT_EQ(reduced, 5u);
}

// The report lists every point of coverage_space as a row (0 when no program hit it): every
// point a program hits must be in its space, or the report would show it as a point of no kind.
TEST(RandCoverage, EveryHitPointIsInTheSpace) {
  for (unsigned cores : {1u, 4u})
    for (uint64_t seed = 1; seed <= 300; ++seed) {
      const auto space = axcore::rand::coverage_space(cores);
      for (const auto& c : axcore::rand::coverage_points(axcore::rand::generate(seed, cores)))
        EXPECT_TRUE(std::binary_search(space.begin(), space.end(), c)) << "seed " << seed << ": " << c;
    }
  for (auto kind : {axcore::rand::DpKind::MATMUL, axcore::rand::DpKind::DPU})
    for (uint64_t seed = 1; seed <= 100; ++seed) {
      const auto space = axcore::rand::coverage_space(kind);
      for (const auto& c : axcore::rand::coverage_points(axcore::rand::generate_datapath(seed, 1, kind)))
        EXPECT_TRUE(std::binary_search(space.begin(), space.end(), c)) << "seed " << seed << ": " << c;
    }
}
