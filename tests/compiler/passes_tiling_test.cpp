// The tiling pass (A.tiles bounds, automatic tiling of kernels larger than L1, drain= pipelining
// with per-slot buffers and the sync between them) and the lowering of A.SysDMA / A.CoreDMA
// blocks: outputs on the functional device equal the references, the emitted program is free of
// L1 hazards between launches in flight together, and errors name the line and what to write.
#include <axcore/compiler/parser.hpp>
#include <axcore/compiler/printer.hpp>
#include <axcore/runtime/backend.hpp>
#include <cmath>

#include "passes_kernels.hpp"

namespace ax = axcore;
namespace cc = axcore::compiler;
namespace A = axcore::compiler::A;
using ax::passes_test::check_hazards;
using ax::passes_test::pseudo;
using ax::ref::NDArray;

namespace {

ax::runtime::RunResult run_fsim(const cc::CompileResult& r, const ax::runtime::Arrays& in) {
  auto be = ax::runtime::make_backend("fsim");
  return be->run(r.bundle, in, {});
}

std::size_t count_sysdma_blocks(const cc::Program& p) {
  std::size_t n = 0;
  for (const auto& s : p.steps)
    if (const auto* t = std::get_if<cc::Transfer>(&s)) n += t->name.rfind("sysdma ", 0) == 0;
  return n;
}

template <class T>
void expect_equal(const NDArray<T>& got, const NDArray<T>& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got.data()[i], want.data()[i]) << what << " element " << i;
}

cc::CompileError error_of(const std::function<void(A::Func&)>& body, uint64_t l1 = ax::spec::param::l1_bytes,
                          uint32_t cores = 1) {
  A::Module mod("E");
  A::Func f = mod.prim_func("main");
  try {
    {
      A::Script s(f);
      body(f);
    }
    (void)cc::compile(mod.ir().main(), {cores, "", ""},
                      cc::TilingOptions{.l1_bytes = l1, .imc_tiles = ax::spec::param::imc_tiles, .cores = 1});
  } catch (const cc::CompileError& e) { return e; }
  ADD_FAILURE() << "no CompileError";
  return cc::CompileError({}, "");
}

}  // namespace

TEST(CompilerPasses, ChooseTileHonoursTheBoundsAndTheBudget) {
  auto bytes = [](int64_t t) { return static_cast<uint64_t>(t) * 100; };
  EXPECT_EQ(cc::choose_tile(10, {}, bytes, 1000, {}).tile, 10);
  EXPECT_EQ(cc::choose_tile(10, {}, bytes, 450, {}).tile, 4);
  const auto c = cc::choose_tile(10, {.tile_min = 0, .tile_max = 3, .num_tiles = 0, .drain = 0}, bytes, 1000, {});
  EXPECT_EQ(c.tile, 3);
  EXPECT_EQ(c.num_tiles, 4);  // 3 + 3 + 3 + 1: the last tile is the remainder
  EXPECT_EQ(c.bytes, 300u);
  EXPECT_EQ(cc::choose_tile(10, {.tile_min = 0, .tile_max = 0, .num_tiles = 3, .drain = 0}, bytes, 1000, {}).tile, 4);
  EXPECT_THROW((void)cc::choose_tile(10, {.tile_min = 5, .tile_max = 0, .num_tiles = 0, .drain = 0}, bytes, 450, {}),
               cc::CompileError);
  EXPECT_THROW((void)cc::choose_tile(10, {.tile_min = 4, .tile_max = 5, .num_tiles = 1, .drain = 0}, bytes, 1000, {}),
               cc::CompileError);  // num_tiles=1 is a tile of 10, above tile_max
}

TEST(CompilerPasses, TilesDirectiveSplitsPipelinesAndMatchesTheReference) {
  const int64_t rows = 10, cols = 2;
  auto x = pseudo<float>({10, 128}, 3, -50, 50);
  const auto want = ax::passes_test::scale_rows_ref(x, cols);
  for (int64_t drain : {0, 1, 2}) {
    const std::string what = "drain=" + std::to_string(drain);
    auto m = ax::passes_test::scale_rows(rows, cols,
                                         cc::TileBounds{.tile_min = 0, .tile_max = 4, .num_tiles = 0, .drain = drain});
    const auto r = cc::compile(m.ir().main());
    // 3 tiles (4, 4, 2): one copy in and one copy out each.
    EXPECT_EQ(count_sysdma_blocks(r.program), 6u) << what;
    const auto h = check_hazards(r.program, r.bundle);
    if (drain == 0) {
      EXPECT_FALSE(h.load_overlapped_compute) << what;
    } else {
      EXPECT_TRUE(h.load_overlapped_compute) << what << ": the next tile's load runs under this tile's compute";
    }
    if (drain == 2) { EXPECT_GE(h.max_in_flight, 3u) << what; }
    const auto res = run_fsim(r, {{"inp", x}});
    expect_equal(std::get<NDArray<float>>(res.outputs.at("out")), want, what);
    // The tiled, sunk IR is still the text form.
    EXPECT_EQ(cc::dump(*cc::parse_prim_func(r.ir_lowered())), r.ir_lowered()) << what;
    EXPECT_NE(r.ir_lowered().find("with A.SysDMA("), std::string::npos);
  }
}

TEST(CompilerPasses, AKernelLargerThanL1IsTiledWithoutBeingAsked) {
  // 2500 x 256 B of input and as much output: 1.28 MB against 1 MiB of L1.
  const int64_t rows = 2500;
  auto x = pseudo<float>({2500, 64}, 5, -8, 8);
  auto m = ax::passes_test::scale_rows(rows, 1, std::nullopt);
  const auto r = cc::compile(m.ir().main());
  ASSERT_GE(count_sysdma_blocks(r.program), 4u);  // at least two tiles
  EXPECT_LE(r.program.l1_rows_used.at(0) * 64ull, ax::spec::param::l1_bytes);
  check_hazards(r.program, r.bundle);
  const auto res = run_fsim(r, {{"inp", x}});
  expect_equal(std::get<NDArray<float>>(res.outputs.at("out")), ax::passes_test::scale_rows_ref(x, 1), "auto");
  // The same kernel under the untiled size is left alone.
  const auto small = cc::compile(ax::passes_test::scale_rows(8, 1, std::nullopt).ir().main());
  EXPECT_EQ(count_sysdma_blocks(small.program), 0u);
}

TEST(CompilerPasses, TiledMatmulWithBiasMatchesRefLinear) {
  const int64_t mrows = 48, kb = 2, nb = 2;
  auto mod = ax::examples::matmul(mrows, kb, nb, true, 7);
  auto x = pseudo<int8_t>({48, 128}, 13, -128, 127);
  const auto [w, b] = ax::passes_test::matmul_operands(mod.ir().main(), kb * 64, nb * 64);
  ax::ref::Epilogue e;
  e.bias = b;
  const auto want = ax::ref::linear<float>(x, w, e);
  // ~47 KB of operands against a 32 KiB budget: the row loop is tiled, the weights stay whole.
  const auto r = cc::compile(mod.ir().main(), {}, cc::TilingOptions{32 * 1024});
  EXPECT_GE(count_sysdma_blocks(r.program), 4u);
  check_hazards(r.program, r.bundle);
  const auto res = run_fsim(r, {{"inp", x}});
  expect_equal(std::get<NDArray<float>>(res.outputs.at("out")), want, "tiled matmul");
}

TEST(CompilerPasses, HandWrittenSysDmaAndCoreDmaBlocks) {
  const int64_t rows = 6;
  A::Module mod("Dma");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {rows, 1}, "float32x64", A::DDR);
  {
    A::Script s(f);
    auto a = A::alloc_buffer({rows, 1}, "float32x64", A::L1, "a");
    auto b = A::alloc_buffer({rows, 1}, "float32x64", A::L1, "b");
    auto c = A::alloc_buffer({rows, 1}, "float32x64", A::L1, "c");
    auto out = A::alloc_buffer({rows, 1}, "float32x64", A::DDR, "out");
    // A transposing copy on the way in: a(h * 3 + r, 0) = inp(r * 2 + h, 0), non-contiguous on both sides.
    A::SysDMA(
        [&] {
          for (auto [r, h] : A::grid(3, 2)) a(h * 3 + r, 0) = inp(r * 2 + h, 0);
        },
        "in");
    A::waits("in");
    for (auto [i] : A::grid(rows)) {
      A::Datapath([&] {
        auto st = A::decl_stream("float32x64");
        A::IFD(0, [&] { st.push(a(i, 0)); });
        A::ODR([&] { b(i, 0) = st.pop(); });
      });
    }
    A::CoreDMA(
        [&] {
          for (auto r : A::serial(rows)) c(r, 0) = b(r, 0);
        },
        0);
    A::SysDMA([&] {
      for (auto r : A::serial(rows)) out(r, 0) = c(r, 0);
    });
    A::output(out);
  }
  const auto r = cc::compile(mod.ir().main());
  check_hazards(r.program, r.bundle);
  auto x = pseudo<float>({6, 64}, 9, -3, 3);
  const auto res = run_fsim(r, {{"inp", x}});
  const auto& got = std::get<NDArray<float>>(res.outputs.at("out"));
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t l = 0; l < 64; ++l) ASSERT_EQ(got({i, l}), x({(i % 3) * 2 + i / 3, l})) << i << "," << l;
}

// A DDR scratch buffer a SysDMA writes and a unit then reads is copied into L1 first; one a unit
// writes and a SysDMA then reads is copied back to DDR first (before, the unit read L1 nothing had
// written, and the SysDMA read DDR nothing had written: zeros on fsim).
TEST(CompilerPasses, DdrScratchBetweenASysDmaAndAUnitIsCopiedAcross) {
  auto x = pseudo<float>({6, 64}, 4, -20, 20);
  for (auto& v : x.data()) v = std::round(v);  // exact in float18, so 2 * x is too
  for (bool dma_first : {true, false}) {
    const auto r = cc::compile(ax::passes_test::ddr_scratch(6, dma_first).ir().main());
    check_hazards(r.program, r.bundle);
    std::size_t loads = 0, stores = 0;
    for (const auto& s : r.program.steps)
      if (const auto* t = std::get_if<cc::Transfer>(&s)) {
        loads += t->name == "load mid";
        stores += t->name == "store mid";
      }
    EXPECT_EQ(loads, dma_first ? 1u : 0u) << cc::explain(r.program);
    EXPECT_EQ(stores, dma_first ? 0u : 1u) << cc::explain(r.program);
    const auto res = run_fsim(r, {{"inp", x}});
    const auto& got = std::get<NDArray<float>>(res.outputs.at("out"));
    for (std::size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(got.data()[i], 2 * x.data()[i]) << "dma_first=" << dma_first << " element " << i << "\n"
                                                << cc::explain(r.program) << r.ir_lowered();
  }
}

// Line-sensitive: each refusal stays on the line its __LINE__ names, so the formatter leaves these alone.
// clang-format off
TEST(CompilerPasses, DmaAndTilingErrorsNameTheLine) {
  int line = 0;
  auto e = error_of([&](A::Func& f) {
    auto in = f.input("x", {4, 1}, "float32x64", A::DDR);
    auto a = A::alloc_buffer({4, 1}, "int8x64", A::L1, "a");
    line = __LINE__ + 1;
    A::SysDMA([&] { for (auto r : A::serial(4)) a(r, 0) = A::cast(in(r, 0), "int8x64"); });
  });
  EXPECT_NE(e.message().find("copies memory: the value stored is a buffer element, not a cast"), std::string::npos) << e.what();
  EXPECT_EQ(e.loc().line, static_cast<uint32_t>(line)) << e.what();

  e = error_of([&](A::Func& f) {
    auto in = f.input("x", {4, 1}, "float32x64", A::DDR);
    auto a = A::alloc_buffer({4, 1}, "float32x64", A::L1, "a");
    line = __LINE__ + 1;
    A::SysDMA([&] { for (auto r : A::serial(4)) a(r, 0) = in(3 - r, 0); });
  });
  EXPECT_NE(e.message().find("the DMA cannot walk x this way"), std::string::npos) << e.what();
  EXPECT_EQ(e.loc().line, static_cast<uint32_t>(line)) << e.what();

  e = error_of([&](A::Func& f) {
    auto in = f.input("x", {4, 1}, "float32x64", A::DDR);
    auto a = A::alloc_buffer({4, 1}, "float32x64", A::L1, "a");
    line = __LINE__ + 1;
    A::CoreDMA([&] { for (auto r : A::serial(4)) a(r, 0) = in(r, 0); }, 0);
  });
  EXPECT_NE(e.message().find("A.CoreDMA moves data inside the core's memories; x lives in DDR"), std::string::npos) << e.what();
  EXPECT_NE(e.hint().find("A.SysDMA"), std::string::npos);
  EXPECT_EQ(e.loc().line, static_cast<uint32_t>(line)) << e.what();

  e = error_of([&](A::Func& f) {
    auto in = f.input("x", {8, 1}, "float32x64", A::DDR);
    auto a = A::alloc_buffer({8, 1}, "float32x64", A::L1, "a");
    line = __LINE__ + 1;
    A::SysDMA([&] { for (auto r : A::serial(8)) a(r, 0) = in((r * 3) % 8, 0); });
  });
  EXPECT_NE(e.message().find("Expected linear index"), std::string::npos) << e.what();
  EXPECT_EQ(e.loc().line, static_cast<uint32_t>(line)) << e.what();

  e = error_of([&](A::Func& f) {
    auto in = f.input("x", {8, 1}, "float32x64", A::DDR);
    auto out = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "out");
    line = __LINE__ + 1;
    for (auto i : A::tiles(8, {.tile_min = 0, .tile_max = 2, .num_tiles = 0, .drain = 0})) {
      for (int k = 0; k < 2; ++k)
        A::Datapath([&] {
          auto s = A::decl_stream("float32x64");
          A::IFD(0, [&] { s.push(in(i, 0)); });
          A::ODR([&] { out(i, 0) = s.pop(); });
        });
    }
    A::output(out);
  });
  EXPECT_NE(e.message().find("A.tiles splits a loop around one datapath"), std::string::npos) << e.what();
  EXPECT_EQ(e.loc().line, static_cast<uint32_t>(line)) << e.what();

  // 2 x 16 rows of float32x64 in and out do not fit a 4 KiB budget even at tile_min=16.
  e = error_of(
      [&](A::Func& f) {
        auto in = f.input("x", {64, 1}, "float32x64", A::DDR);
        auto out = A::alloc_buffer({64, 1}, "float32x64", A::DDR, "out");
        line = __LINE__ + 1;
        for (auto i : A::tiles(64, {.tile_min = 16, .tile_max = 0, .num_tiles = 0, .drain = 0})) {
          A::Datapath([&] {
            auto s = A::decl_stream("float32x64");
            A::IFD(0, [&] { s.push(in(i, 0)); });
            A::ODR([&] { out(i, 0) = s.pop(); });
          });
        }
        A::output(out);
      },
      4096);
  EXPECT_NE(e.message().find("no tile of this loop fits L1: a tile of 16 needs 8192 bytes; 4096 bytes of L1 are left"),
            std::string::npos)
      << e.what();
  EXPECT_EQ(e.loc().line, static_cast<uint32_t>(line)) << e.what();
}

// clang-format on
TEST(CompilerPasses, TilesDirectiveRoundTripsInTheIrText) {
  auto m = ax::passes_test::scale_rows(10, 2, cc::TileBounds{.tile_min = 2, .tile_max = 4, .num_tiles = 0, .drain = 2});
  const std::string text = cc::dump(m.ir());
  EXPECT_NE(text.find("in A.tiles(10, tile_min=2, tile_max=4, drain=2):"), std::string::npos) << text;
  const auto back = cc::parse_module(text);
  EXPECT_EQ(cc::dump(*back), text);
  EXPECT_EQ(ax::runtime::encode_bundle(cc::compile(back->main()).bundle),
            ax::runtime::encode_bundle(cc::compile(m.ir().main()).bundle));
}

TEST(CompilerPasses, LoopsArePartitionedOverTheCoresWithABarrier) {
  // 10 rows x 2 blocks on 2 and 3 cores: each core copies its rows (and its own copy of the
  // constant) into its L1, computes them, copies them out; a barrier over the cores closes it.
  auto x = pseudo<float>({10, 128}, 3, -50, 50);
  const auto want = ax::passes_test::scale_rows_ref(x, 2);
  for (uint32_t cores : {2u, 3u}) {
    auto m = ax::passes_test::scale_rows(10, 2, std::nullopt);
    const auto r = cc::compile(m.ir().main(), {cores, "", ""});
    const auto h = check_hazards(r.program, r.bundle);
    EXPECT_EQ(h.cores_used, cores);
    EXPECT_EQ(axcore::runtime::command_memory(r.bundle).size(), cores);
    EXPECT_TRUE(r.bundle.commands.empty());
    std::size_t barriers = 0, per_core_tasks[4] = {};
    for (const auto& s : r.program.steps) {
      barriers += std::holds_alternative<cc::Barrier>(s);
      if (const auto* t = std::get_if<cc::Task>(&s)) per_core_tasks[t->core] += t->queue == ax::spec::Queue::DWPU;
    }
    EXPECT_EQ(barriers, 1u);
    for (uint32_t c = 0; c < cores; ++c) EXPECT_EQ(per_core_tasks[c], 1u) << "core " << c;
    EXPECT_NE(r.ir_lowered().find("with A.AICore(core=1):"), std::string::npos);
    EXPECT_EQ(cc::dump(*cc::parse_prim_func(r.ir_lowered())), r.ir_lowered());
    ax::runtime::BackendConfig bc;
    bc.cores = cores;
    auto be = ax::runtime::make_backend("fsim", bc);
    const auto res = be->run(r.bundle, {{"inp", x}}, {});
    expect_equal(std::get<NDArray<float>>(res.outputs.at("out")), want, std::to_string(cores) + " cores");
  }
}

// Line-sensitive: each refusal stays on the line its __LINE__ names, so the formatter leaves these alone.
// clang-format off
TEST(CompilerPasses, ABufferUsedOnTwoCoresIsRefused) {
  int line = 0;
  auto kernel = [&](A::Func& f) {
    auto in = f.input("x", {2, 1}, "float32x64", A::DDR);
    auto out = A::alloc_buffer({2, 1}, "float32x64", A::DDR, "out");
    for (int c = 0; c < 2; ++c) {
      if (c == 1) line = __LINE__ + 1;
      A::AICore(c, [&] {
        A::Datapath([&] {
          auto s = A::decl_stream("float32x64");
          A::IFD(0, [&] { s.push(in(c, 0)); });
          A::ODR([&] { out(c, 0) = s.pop(); });
        });
      });
    }
    A::output(out);
  };
  auto e = error_of(kernel, ax::spec::param::l1_bytes, 1);
  EXPECT_NE(e.message().find("A.AICore(core=1) on a 1-core target"), std::string::npos) << e.what();
  EXPECT_EQ(e.loc().line, static_cast<uint32_t>(line)) << e.what();
  e = error_of(kernel, ax::spec::param::l1_bytes, 2);
  EXPECT_NE(e.message().find("x is used on core 0 and on core 1: a buffer lives in one core's L1"), std::string::npos) << e.what();
  EXPECT_EQ(e.loc().line, static_cast<uint32_t>(line + 1)) << e.what();
  // clang-format on
}
