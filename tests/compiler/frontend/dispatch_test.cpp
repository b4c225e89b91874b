// Dispatch-time shapes (issue 24): one bundle with a dispatch-time M, staged by stage_dispatch,
// bound at several M equals the static build of that M (bundle and TXN), runs on fsim equal to the
// reference, and refuses a failing guard with its message; the builder's A::DispatchTime / A::require;
// stage_dispatch's refusals (structure that changes, a word that is not affine, a domain too large,
// no admissible point, a build that fails).
#include <gmock/gmock.h>

#include <axcore/compiler/dispatch.hpp>
#include <axcore/compiler/frontend/model.hpp>
#include <axcore/txn/compare.hpp>
#include <axcore/txn/writer.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "../ops/harness.hpp"

namespace {

using namespace axtest;
namespace fe = axcore::compiler::frontend;
namespace cc = axcore::compiler;
using ::testing::HasSubstr;

const std::filesystem::path kModels = AXCORE_EXAMPLE_MODELS;

std::string model_text() {
  std::ifstream in(kModels / "dispatch_linear.yaml");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The model compiled as the YAML text reads (a build at the current dispatch point, or static).
rt::Bundle build(const std::string& text) {
  const fe::Model m = fe::parse_model(text, "dispatch_linear.yaml", kModels);
  return cc::compile(m.module.ir().main(), {1, m.name, "dispatch_linear.yaml"}).bundle;
}

// The same model written for one M: no dispatch_time, the extent a literal.
std::string static_text(int64_t m) {
  std::string t = std::regex_replace(model_text(), std::regex("dispatch_time:\n  - \\{[^\n]*\\}\n"), "");
  return std::regex_replace(t, std::regex("\\[M, 128\\]"), "[" + std::to_string(m) + ", 128]");
}

// The staged bundle (every build, like a static one, names its generated buffers from its own
// function's counter: y_epi0, ...).
rt::Bundle staged(cc::StageReport* rep = nullptr) {
  const std::string text = model_text();
  const auto scalars = fe::model_dispatch_scalars(text, "dispatch_linear.yaml");
  return cc::stage_dispatch(
      scalars, [&] { return build(text); }, {}, rep);
}

rt::Bundle static_build(int64_t m) { return build(static_text(m)); }

TEST(Dispatch, OneBundleEqualsTheStaticBuildAtEveryM) {
  cc::StageReport rep;
  const rt::Bundle b = staged(&rep);
  EXPECT_EQ(rep.points, 64u);
  EXPECT_EQ(rep.admissible, 8u);
  EXPECT_EQ(rep.refused, 56u);
  ASSERT_EQ(b.dispatch.scalars.size(), 1u);
  EXPECT_EQ(b.dispatch.guards.size(), 1u);
  EXPECT_FALSE(b.dispatch.staged.empty());
  std::printf("dispatch_linear: %zu staged values (%zu TXN words of %zu), staged and proven in %.1f ms\n",
              b.dispatch.staged.size(),
              static_cast<size_t>(std::count_if(b.dispatch.staged.begin(), b.dispatch.staged.end(),
                                                [](const auto& s) { return s.kind == rt::StagedKind::TXN_WORD; })),
              b.txn.size(), rep.ms);
  // The bundle a file holds round-trips, and a file's bytes bind as the bundle does.
  const rt::Bundle back = rt::decode_bundle(rt::encode_bundle(b));
  ASSERT_EQ(back, b);
  for (int64_t m : {8, 24, 64}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    const rt::Bundle bound = rt::bind_dispatch(back, {{"M", m}});
    const rt::Bundle ref = static_build(m);  // written for this M, compiled alone
    EXPECT_EQ(ref.buffers[0].shape, (std::vector<uint64_t>{static_cast<uint64_t>(m), 128}));  // x, logical
    EXPECT_EQ(bound.txn, ref.txn);
    EXPECT_TRUE(axcore::txn::compare(bound.txn, ref.txn).empty());
    EXPECT_EQ(bound, ref);
  }
  // Different M, different programs: the staging changes words.
  EXPECT_NE(rt::bind_dispatch(b, {{"M", 8}}).txn, rt::bind_dispatch(b, {{"M", 16}}).txn);
}

TEST(Dispatch, FailingGuardIsRefusedWithItsMessage) {
  const rt::Bundle b = staged();
  for (int64_t m : {1, 12, 63}) {
    try {
      (void)rt::bind_dispatch(b, {{"M", m}});
      ADD_FAILURE() << "M = " << m << " was accepted";
    } catch (const rt::DispatchError& e) {
      EXPECT_STREQ(e.what(), "M must be a multiple of 8");
      EXPECT_EQ(e.guard(), 0);
    }
  }
  EXPECT_THROW((void)rt::bind_dispatch(b, {{"M", 72}}), rt::DispatchError);  // past max
}

TEST(Dispatch, EachMRunsOnFsimEqualToTheReference) {
  const rt::Bundle b = staged();
  for (int64_t m : {8, 40, 64}) {
    SCOPED_TRACE("M = " + std::to_string(m));
    rt::RunOptions opt;
    opt.params["M"] = std::to_string(m);
    const rt::Bundle bound = rt::bind_dispatch(b, {{"M", m}});
    const rt::Arrays in = random_inputs(bound, static_cast<uint32_t>(m), -128, 127);
    const auto dev = rt::make_backend("fsim")->run(b, in, opt);  // the staged bundle, bound by the run
    const auto ref = rt::make_backend("ref")->run(b, in, opt);
    ASSERT_EQ(dev.outputs.size(), 1u);
    EXPECT_EQ(rt::shape_of(dev.outputs.at("y")), (std::vector<std::size_t>{static_cast<std::size_t>(m), 64}));
    EXPECT_EQ(rt::array_bytes(dev.outputs.at("y")), rt::array_bytes(ref.outputs.at("y")));
  }
}

// The builder: an DispatchTime keeps its dependence on the scalars through + - * and exact division; a
// require on a build-time value is checked at build time; dispatch_time outside a staging build is
// an error naming the way out.
TEST(Dispatch, BuilderExprAndRequire) {
  const A::DispatchTime k = 5;
  EXPECT_FALSE(k.staged());
  EXPECT_EQ(int64_t{k * 3 + 1}, 16);
  EXPECT_EQ(compile_error([&] { A::require(k % 2 == 0, "k must be even"); }).message(), "k must be even");
  A::require(k >= 5, "k must be at least 5");  // holds: nothing
  EXPECT_THAT(compile_error([] { (void)A::dispatch_time("M"); }).message(),
              HasSubstr("'M' is a dispatch-time scalar, and no dispatch-time build is being made"));
  std::vector<A::DispatchTime> seen;
  const auto b = cc::stage_dispatch({{"M", 2, 3, ""}}, [&] {
    const A::DispatchTime m = A::dispatch_time("M");
    const A::DispatchTime e = (m * 4 + 6 - m).exact_div(1);
    seen.push_back(e);
    rt::Bundle x;
    x.buffers.push_back(
        {"x", rt::BufferRole::INPUT, axcore::spec::Dtype::INT8, {static_cast<uint64_t>(int64_t{e})}, {}, 0, {}});
    return x;
  });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(int64_t{seen[1]}, 15);
  EXPECT_EQ(rt::affine_text(seen[1].sym(), b.dispatch.scalars), "3 * M + 6");
  ASSERT_EQ(b.dispatch.staged.size(), 1u);
  EXPECT_EQ(rt::affine_text(b.dispatch.staged[0].value, b.dispatch.scalars), "3 * M + 6");
  EXPECT_THAT(compile_error([] {
                (void)cc::stage_dispatch({{"M", 1, 2, ""}}, [] {
                  (void)(A::dispatch_time("M") * 3).exact_div(2);
                  return rt::Bundle{};
                });
              }).message(),
              HasSubstr("at M = 1: this dispatch-time value is not a multiple of 2"));
}

// The C++ builder: a kernel function taking its row count as an A::DispatchTime is built at a size
// (an integer) or under stage_dispatch (A::dispatch_time); the guard is the seed's require().
A::Module linear_rows(const A::DispatchTime& m) {
  A::require(m % 4 == 0, "M must be a multiple of 4");
  return module_of([&](A::Func& f) {
    std::vector<double> w(128 * 64);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>(static_cast<int>(i * 7 % 9) - 4);
    const auto x = f.input("x", {m, 2}, "int8x64", A::DDR);  // (M, 128) int8, packed
    const auto wt = A::alloc_constant(std::move(w), "int8x64", A::DDR, {128, 1}, "w");
    A::output(ops::invoke("core.linear", {x, wt}, {}, "y"));
  });
}

TEST(Dispatch, CppBuilderKernelWithADispatchTimeM) {
  cc::StageReport rep;
  const rt::Bundle b = cc::stage_dispatch(
      {{"M", 1, 16, "rows"}}, [] { return cc::compile(linear_rows(A::dispatch_time("M")).ir().main()).bundle; }, {},
      &rep);
  EXPECT_EQ(rep.admissible, 4u);
  for (int64_t m : {4, 12, 16}) {
    const rt::Bundle ref = cc::compile(linear_rows(m).ir().main()).bundle;  // built at that size
    EXPECT_EQ(rt::bind_dispatch(b, {{"M", m}}), ref) << "M = " << m;
  }
  EXPECT_THROW((void)rt::bind_dispatch(b, {{"M", 6}}), rt::DispatchError);
  EXPECT_EQ(compile_error([] { (void)linear_rows(6); }).message(), "M must be a multiple of 4");  // static: fails
}

// A TXN with one write32 whose value is `v`, and `extra` more noops: hand-made static builds.
std::vector<uint32_t> txn_with(uint32_t v, int extra = 0) {
  axcore::txn::Writer w(axcore::txn::Device::axcore(1));
  w.write32(axcore::spec::tile_addr(0, 0, axcore::spec::shim::SCRATCH.offset), v);
  for (int i = 0; i < extra; ++i) w.noop();
  return w.words();
}

TEST(Dispatch, StagingRefusesWhatIsNotOneProgram) {
  auto stage = [](int64_t lo, int64_t hi, std::function<rt::Bundle(int64_t)> f) {
    return compile_error([&] {
             (void)cc::stage_dispatch({{"M", lo, hi, ""}}, [&] { return f(A::dispatch_time("M")); });
           })
        .message();
  };
  auto with_txn = [](std::vector<uint32_t> t) {
    rt::Bundle b;
    b.txn = std::move(t);
    return b;
  };
  EXPECT_THAT(stage(1, 4, [&](int64_t m) { return with_txn(txn_with(0, m > 2)); }),
              HasSubstr("the program's structure changes with its dispatch-time scalars: at M = 3 its TXN has"));
  EXPECT_THAT(stage(1, 4, [&](int64_t m) { return with_txn(txn_with(static_cast<uint32_t>(m * m))); }),
              HasSubstr("dispatch-time staging is not exact at M = 3"));
  EXPECT_THAT(stage(1, 5000, [&](int64_t) { return rt::Bundle{}; }),
              HasSubstr("the dispatch-time domain has more than 4096 points"));
  EXPECT_THAT(stage(1, 4,
                    [&](int64_t m) {
                      A::require(A::dispatch_time("M") > 9, "M must exceed 9");
                      return with_txn(txn_with(static_cast<uint32_t>(m)));
                    }),
              HasSubstr("no value of the dispatch-time scalars passes the program's guards (first refusal: \"M must "
                        "exceed 9\")"));
  EXPECT_THAT(stage(1, 4,
                    [&](int64_t m) {
                      if (m == 3) cc::fail({}, "no room");
                      return rt::Bundle{};
                    }),
              HasSubstr("at M = 3: no room"));
  // A guard on a build-time copy of the value cannot be staged: the proof catches it.
  EXPECT_THAT(stage(1, 4,
                    [&](int64_t m) {
                      if (m == 2) throw cc::GuardRefusal({}, "not 2");
                      return with_txn(txn_with(static_cast<uint32_t>(m)));
                    }),
              HasSubstr("at M = 2: its build is refused with \"not 2\", the bundle accepts it"));
}

}  // namespace
