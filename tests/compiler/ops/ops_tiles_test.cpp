// The guide's tile handles and hand-written pipelines (docs/axscript.md §7, §8; guide §10, §11.2,
// §12): A::tiles with a body (the loop of tile steps the builder unrolls), the handle's base /
// lanes / stages, buf.tile(handle, dim=N) and buf[slot] views, where= and A::when decided per step,
// and the §11.2 K split and the §12 pipeline run on fsim bit for bit against the ref backend and
// an independent computation.
#include <axcore/num/float18.hpp>

#include "harness.hpp"
#include "tile_programs.hpp"

namespace {

using namespace axtest;
namespace cc = axcore::compiler;
namespace tp = axtest::tile_programs;

double rf18(double v) { return axcore::num::to_double(axcore::num::f18_from_double(v)); }
const NDArray<float>& f32(const rt::RunResult& r, const std::string& name) {
  return std::get<NDArray<float>>(r.outputs.at(name));
}
const NDArray<int8_t>& i8(const rt::Arrays& in, const std::string& name) {
  return std::get<NDArray<int8_t>>(in.at(name));
}

// §11.2: base = index * size, lanes = min(size, extent - base); the factor is the largest the
// bounds allow (num_tiles= fixes it), one element per tile when none is given.
TEST(Tiles, HandleBaseLanesAndTheFactorTheBoundsAllow) {
  auto handles = [](int64_t extent, cc::TileBounds b) {
    std::vector<std::pair<int64_t, int64_t>> r;
    (void)module_of([&](A::Func&) {
      A::tiles(extent, b, [&](const A::Tile& t) {
        EXPECT_EQ(t.step, t.index);
        r.emplace_back(t.base, t.lanes);
      });
    });
    return r;
  };
  using P = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(handles(5, {.tile_max = 2}), (P{{0, 2}, {2, 2}, {4, 1}}));  // the last tile short
  EXPECT_EQ(handles(3, {}), (P{{0, 1}, {1, 1}, {2, 1}}));
  EXPECT_EQ(handles(10, {.num_tiles = 4}), (P{{0, 3}, {3, 3}, {6, 3}, {9, 1}}));
  EXPECT_EQ(handles(4, {.tile_min = 2}), (P{{0, 2}, {2, 2}}));
  EXPECT_EQ(handles(0, {}), P{});
}

// §12: drain=N runs num_tiles + N steps; stage k works on tile step - min(k, drain), and the
// predicates are known per step at build time.
TEST(Tiles, PipelineStepsStagesAndPredicates) {
  std::string seen;
  (void)module_of([&](A::Func&) {
    A::tiles(3, {.drain = 2}, [&](const A::Tile& t) {
      seen += std::to_string(t.step) + ":" + (t.is_load() ? "L" : "-") + (t.is_compute() ? "C" : "-") +
              (t.is_store() ? "S" : "-") + std::to_string(t.stage(1).index) + std::to_string(t.stage(2).slot()) + " ";
    });
  });
  // An idle stage reports the nearest real tile (its gated-off call's operands stay well-formed).
  EXPECT_EQ(seen, "0:L--00 1:LC-00 2:LCS10 3:-CS21 4:--S20 ");
  std::string flat;
  (void)module_of([&](A::Func&) {
    A::tiles(2, {}, [&](const A::Tile& t) {
      flat += std::to_string(t.stage(2).index) + (t.is_load() && t.is_compute() && t.is_store() ? "LCS " : "? ");
    });
  });
  EXPECT_EQ(flat, "0LCS 1LCS ");  // drain=0: every stage on the step's own tile
}

// §11.2 as the guide writes it (K = 256 in IMC tiles of k_min..k_max = 2 blocks, N in single
// blocks, M one row per tile), the weight an input: equal to the ref backend, and to the
// float18 sums of the two K tiles' exact products.
void expect_k_split(int64_t m, int64_t m_tile_max) {
  const int64_t kb = 4, nb = 2, kt = 128;
  const A::Module mod = module_of([&](A::Func& f) { tp::k_split(f, m, kb, nb, 1, 2, m_tile_max); });
  const auto b = cc::compile(mod.ir().main()).bundle;
  const auto in = random_inputs(b, 5, -20, 20);
  const auto r = expect_matches_reference(mod, in);
  const auto& a = i8(in, "a");
  const auto& w = i8(in, "b");
  const auto& c = f32(r.device, "c");
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < nb * 64; ++j) {
      double sum = 0;
      for (int64_t t = 0; t < kb * 64 / kt; ++t) {
        int64_t p = 0;
        for (int64_t q = t * kt; q < (t + 1) * kt; ++q)
          p += int64_t{a.data()[i * kb * 64 + q]} * w.data()[q * nb * 64 + j];
        sum = rf18(rf18(sum) + rf18(static_cast<double>(p)));
      }
      ASSERT_EQ(c.data()[i * nb * 64 + j], static_cast<float>(sum)) << i << ", " << j;
    }
}
TEST(Tiles, GuideSection11_2KSplitRunsAsWritten) { expect_k_split(3, 0); }
TEST(Tiles, GuideSection11_2KSplitWithAShortLastMTile) { expect_k_split(5, 2); }

// §12: the pipeline (drain=2) and the same program with drain=0 both equal the reference and
// x @ W; the stages are gated per step (four launches per stage id), and only the drain=0 form,
// whose stages work on one tile in one step, is told it waits after dependent launches.
TEST(Tiles, GuideSection12PipelineRunsAndEqualsTheUnpipelinedForm) {
  const int64_t n_tiles = 4, rows = 8, kb = 2, nb = 1;
  for (int64_t drain : {2, 0}) {
    SCOPED_TRACE("drain=" + std::to_string(drain));
    const A::Module mod =
        module_of([&](A::Func& f) { tp::pipeline(f, n_tiles, rows, kb, nb, tp::weight(kb * 64, nb, 3), drain); });
    cc::CompileOptions o;
    o.overlap = false;  // the guide's default sync: the author's waits are what orders the stages
    const auto c = cc::compile(mod.ir().main(), o);
    std::map<std::string, int> launches;
    for (const auto& s : c.program.steps)
      if (const auto* t = std::get_if<cc::Task>(&s)) ++launches[t->id];
    EXPECT_EQ(launches["load"], n_tiles);
    EXPECT_EQ(launches["compute"], n_tiles);
    EXPECT_EQ(launches["store"], n_tiles);
    EXPECT_EQ(c.program.warnings.empty(), drain == 2)
        << (c.program.warnings.empty() ? "" : c.program.warnings[0].message);
    const auto in = random_inputs(c.bundle, 7, -30, 30);
    const auto r = expect_matches_reference(mod, in);
    const auto& x = i8(in, "x");
    std::vector<double> wv;
    for (const auto& bnode : mod.ir().main().buffers)
      if (bnode->name == "w") wv = bnode->data;
    ASSERT_EQ(wv.size(), static_cast<std::size_t>(kb * 64 * nb * 64));
    const auto& y = f32(r.device, "y");
    for (int64_t i = 0; i < n_tiles * rows; ++i)
      for (int64_t j = 0; j < nb * 64; ++j) {
        int64_t p = 0;
        for (int64_t q = 0; q < kb * 64; ++q)
          p += int64_t{x.data()[i * kb * 64 + q]} * static_cast<int64_t>(wv[q * nb * 64 + j]);
        ASSERT_EQ(y.data()[i * nb * 64 + j], static_cast<float>(rf18(static_cast<double>(p)))) << i << ", " << j;
      }
  }
}

// §10: where= / A::when on a build-time predicate build the call or not; a device-time predicate at
// the top level is refused at the user's line, never ignored.
TEST(Tiles, WhenDecidedAtBuildTimeAndADeviceTimePredicateRefused) {
  const A::Module mod = module_of([](A::Func& f) {
    auto x = f.input("x", {2, 1}, "float32x64", A::DDR);
    auto acc = A::alloc_buffer({2, 1}, "float32x64", A::L1, "acc");
    ops::invoke("atomic.full", {std::vector<int64_t>{2, 1}, 0.0}, {{"output", acc}});
    A::tiles(3, {}, [&](const A::Tile& t) {
      A::when(t.index != 1, [&] { ops::invoke("atomic.add", {acc, x}, {{"output", acc}}); });
    });
    A::output(acc);
  });
  int adds = 0;
  for (const auto& n : mod.ir().main().graph) adds += n.op == "add";
  EXPECT_EQ(adds, 2);
  expect_matches_reference(mod, random_inputs(cc::compile(mod.ir().main()).bundle, 2, -8, 8));
  expect_refused(
      [](A::Func& f, uint32_t& line) {
        auto x = f.input("x", {4, 1}, "float32x64", A::DDR);
        for (auto i : A::serial(4)) {
          line = __LINE__ + 1;
          A::when(i == 0, [&] { ops::invoke("atomic.mul", {x, 2.0}); });
        }
      },
      {"decides such a predicate at build time", "known only at device time", "t.is_load"}, "ops_tiles_test.cpp");
}

// Tile views refuse what they cannot be, at the user's line.
TEST(Tiles, ViewsRefusedAtTheUsersLine) {
  expect_refused(
      [](A::Func& f, uint32_t& line) {
        auto x = f.input("x", {4, 2}, "float32x64", A::DDR);
        line = __LINE__ + 1;
        (void)x.tile(A::Ramp(3, 1, 2), 0);
      },
      {"covers elements 3 .. 4 of dimension 0, which has 4"}, "ops_tiles_test.cpp");
  expect_refused(
      [](A::Func& f, uint32_t& line) {
        auto x = f.input("x", {4}, "float32x64", A::DDR);
        line = __LINE__ + 1;
        (void)x[1];
      },
      {"one-dimensional buffer is one element"}, "ops_tiles_test.cpp");
  expect_refused(
      [](A::Func&, uint32_t& line) {
        auto b = A::alloc_buffer({4, 2}, "float32x64", A::L1, "b");
        auto t = b[1];
        line = __LINE__ + 1;
        A::output(t);
      },
      {"is a tile view", "an output is a whole buffer"}, "ops_tiles_test.cpp");
  expect_refused(
      [](A::Func&, uint32_t& line) {
        auto b = A::alloc_buffer({4, 2}, "float32x64", A::L1, "b");
        auto t = b.tile(A::Ramp(0, 1, 2), 0);
        line = __LINE__ + 1;
        (void)t.reshape({4});
      },
      {"is a tile view", "cannot be viewed with another shape"}, "ops_tiles_test.cpp");
  expect_refused(
      [](A::Func& f, uint32_t& line) {
        auto x = f.input("x", {4, 2}, "float32x64", A::DDR);
        for (auto i : A::serial(2)) {
          line = __LINE__ + 1;
          (void)x.tile(A::Ramp(i, 1, 2), 0);
        }
      },
      {"the A.Ramp's base must be a build-time integer"}, "ops_tiles_test.cpp");
}

}  // namespace
