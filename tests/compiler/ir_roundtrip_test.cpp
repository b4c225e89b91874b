// The textual IR round-trips: dump -> parse -> dump is the identity for every guide kernel (as
// built and after the passes), for random kernels from the builder, and the parsed IR compiles
// to the same bundle as the original. Malformed text is refused at its line and column.
#include <gtest/gtest.h>

#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/parser.hpp>
#include <axcore/compiler/printer.hpp>
#include <axcore/compiler/script.hpp>
#include <axcore/runtime/bundle.hpp>
#include <functional>
#include <limits>

#include "guide_kernels.hpp"

namespace ax = axcore::compiler;
namespace A = axcore::compiler::A;
using cc_tiles = axcore::compiler::TileBounds;

namespace {

struct Named {
  const char* name;
  std::function<A::Module()> make;
};

std::vector<Named> guide_kernels() {
  using namespace axcore::examples;
  return {{"scale", [] { return scale(); }},
          {"matmul", [] { return matmul(4, 2, 3, false); }},
          {"matmul_bias", [] { return matmul(4, 2, 2, true, 3); }},
          {"matmul_large", [] { return matmul(64, 8, 4, false); }},
          {"dpu_affine", [] { return dpu_affine(5, 0.5f, 3.25f); }},
          {"row_sum", [] { return row_sum(3, 4); }},
          {"scale_op", [] { return scale_op(); }},
          {"conv3x3", [] { return conv3x3(2, 3, 1, 2); }},
          {"depthwise3x3", [] { return depthwise3x3(4, 4, 1); }},
          {"tiled_matmul",
           [] { return tiled_matmul(32, 2, 2, cc_tiles{.tile_min = 0, .tile_max = 8, .num_tiles = 0, .drain = 0}); }},
          {"pipelined_matmul",
           [] { return tiled_matmul(32, 2, 2, cc_tiles{.tile_min = 0, .tile_max = 0, .num_tiles = 4, .drain = 2}); }},
          {"vit_patch_embed", [] { return vit_patch_embed(); }},
          {"stream_pins_bypass", [] { return stream_pins_bypass(); }},
          {"sync_signals", [] { return sync_signals(); }},
          {"dpu_ops", [] { return dpu_ops(); }},
          {"scalar_values", [] { return scalar_values(); }}};
}

std::vector<uint8_t> bundle_bytes(const ax::PrimFunc& f) {
  return axcore::runtime::encode_bundle(ax::compile(f).bundle);
}

void expect_round_trip(const ax::Module& m, const std::string& what) {
  const std::string text = ax::dump(m);
  std::shared_ptr<ax::Module> back;
  try {
    back = ax::parse_module(text, what + ".ir");
  } catch (const ax::CompileError& e) { FAIL() << what << ": " << e.what() << "\n" << text; }
  EXPECT_EQ(ax::dump(*back), text) << what;
}

}  // namespace

TEST(CompilerIr, GuideKernelsRoundTripAndCompileToTheSameBundle) {
  for (const auto& k : guide_kernels()) {
    const A::Module m = k.make();
    expect_round_trip(m.ir(), k.name);
    const auto back = ax::parse_module(ax::dump(m.ir()), std::string(k.name) + ".ir");
    EXPECT_EQ(bundle_bytes(back->main()), bundle_bytes(m.ir().main())) << k.name;
  }
}

TEST(CompilerIr, LoweredIrRoundTrips) {
  for (const auto& k : guide_kernels()) {
    const auto r = ax::compile(k.make().ir().main());
    const auto f = ax::parse_prim_func(r.ir_lowered(), std::string(k.name) + ".lowered.ir");
    EXPECT_EQ(ax::dump(*f), r.ir_lowered()) << k.name;
    // The lowered text compiles again to the same program (the passes are idempotent on it).
    EXPECT_EQ(axcore::runtime::encode_bundle(ax::compile(*f).bundle), axcore::runtime::encode_bundle(r.bundle))
        << k.name;
  }
}

TEST(CompilerIr, EveryConstructPrintsAndParses) {
  A::Module mod("Everything");
  A::Func f = mod.prim_func("main");
  auto in = f.input("inp", {4, 2}, "float32x64", A::DDR);
  auto q = f.input("q", {6, 6, 1}, "int8x64", A::L2_WEAK);
  {
    A::Script s(f);
    auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
    auto qo = A::alloc_buffer({4, 4, 1}, "float32x64", A::L1, "qo");
    std::vector<double> c(128, 0.1);
    c[3] = -2.5e-7;
    c[100] = -std::numeric_limits<double>::infinity();
    auto k = A::alloc_constant(c, "float32x64", A::DDR, {2}, "k");
    auto flat = in.reshape({8, 1});
    auto w = A::alloc_imc({2, 1}, "int8x4096", 0, "w_imc");
    (void)w;
    A::op_marker("atomic.mul");
    for (auto [i, j] : A::grid(4, 2)) {
      A::Datapath(std::string("ew"), [&] {
        auto a = A::decl_stream("float32x64", "IFD_0_STREAM", "a");
        auto b = A::decl_stream("float32x64", "", "b");
        auto o = A::decl_stream("float32x64", "", "o");
        A::IFD(0, [&] {
          a.push(A::if_then_else(A::all({i >= 1, i < 3}), in(i, j), A::Broadcast(A::float32(-1.5), 64)));
        });
        A::IFD(1, [&] { b.push(k(j)); });
        A::DPU([&] {
          auto r = A::array("float18x64", 2, "r");
          auto x = A::var("float18x64", "x");
          x = A::cast(a.pop(), "float18x64");
          r[0] = A::dpu::fma(x, x, x);
          r[1] = A::Max(r[0], A::cast(b.pop(), "float18x64"));
          o.push(A::cast(A::dpu::max_reduce(r[1]), "float32x64"));
        });
        A::ODR([&] {
          A::If(
              i < 2, [&] { out(i, j) = o.pop(); }, [&] { A::drop(o.pop()); });
        });
      });
    }
    A::waits("ew");
    A::sync({"ew"}, {"done"});
    A::barrier({0, 1});
    for (auto u : A::unroll(1, 3)) {
      A::Datapath([&] {
        auto a = A::decl_stream("int8x64", "", "qa");
        auto d = A::decl_stream("int32x64", "", "qd");
        auto e = A::decl_stream("float32x64", "", "qe");
        for (auto [oh, ow] : A::grid(4, 4)) {
          A::IFD(0, [&] {
            for (auto t : A::serial(9)) a.push(q(oh + t / 3, ow + t % 3 - u + 1, 0));
          });
        }
        A::detail::Depthwise(axcore::spec::DwpuOp::MAX, 9, A::BufferHandle(), 0, [&] {
          for (auto [oh, ow] : A::grid(4, 4)) d.push(A::detail::dwpu_window(a.pop(), A::Value(0)));
        });
        A::DPU([&] { e.push(A::cast(d.pop(), "float32x64")); });
        A::ODR([&] {
          for (auto [oh, ow] : A::grid(4, 4)) qo(oh, ow, 0) = e.pop();
        });
      });
    }
    A::SysDMA(
        [&] {
          for (auto r : A::serial(8)) flat(r, 0) = in(r / 2, r % 2);
        },
        "copy");
    A::CoreDMA(
        [&] {
          for (auto r : A::serial(2)) out(0, r) = in(1, r);
        },
        0, "cd");
    A::AICore(0, [&] { A::op_marker("inside"); });
    A::output(out);
    A::output(qo);
  }
  // A chained LUT carries its table count in ival (printed as tables=N).
  {
    A::Script s(f);
    A::Datapath([&] {
      auto a = A::decl_stream("float32x64", "", "la");
      auto o = A::decl_stream("float32x64", "", "lo");
      A::IFD(0, [&] { a.push(in(0, 0)); });
      A::DPU([&] {
        auto t = A::array("float18x64", 2, "tab");
        const A::Value v = A::dpu::lut(A::cast(a.pop(), "float18x64"), t[0]);
        std::const_pointer_cast<ax::ExprNode>(v.expr())->ival = 2;
        o.push(A::cast(v, "float32x64"));
      });
      A::ODR([&] { in(0, 1) = o.pop(); });
    });
  }
  f.ir().graph.push_back({"aten.mul", {"inp", "k"}, {"out"}, {{"alpha", {1.0}}, {"dims", {0, 2, 1}}}, {{"mode", "x"}}});
  expect_round_trip(mod.ir(), "everything");
  const std::string text = ax::dump(mod.ir());
  // Spot checks of the forms the guide writes.
  for (const char* form : {"with A.Datapath(id=\"ew\"):",
                           "with A.IFD(num=1):",
                           "A.if_then_else(((i",
                           "A.float32(-1.5)",
                           "[0.1] * 96",
                           "-inf",
                           "with A.Then():",
                           "with A.Else():",
                           "A.drop(o.pop())",
                           "A.sync(waits=[\"ew\"], signals=[\"done\"])",
                           "A.barrier(0, 1)",
                           "# op atomic.mul",
                           "with A.SysDMA(id=\"copy\"):",
                           "with A.CoreDMA(core=0, id=\"cd\"):",
                           "with A.Depthwise(op=\"MAX\", taps=9, weights=None, divisor=0):",
                           "A.dpu.ops.fma(x, x, x)",
                           "= inp.reshape((8, 1))",
                           "decl_stream(\"float32x64\", scope=\"IFD_0_STREAM\")",
                           "A.graph(\"aten.mul\"",
                           "A.dpu.ops.lut(A.cast(la.pop(), \"float18x64\"), tab[0], tables=2)"})
    EXPECT_NE(text.find(form), std::string::npos) << form << "\n" << text;
}

// Random small kernels from the builder: loops, A.tiles loops (tiled and pipelined by the pass),
// pads, guards, register programs, side inputs, store-or-drop, constants. Each round-trips, before
// and after the passes; the valid ones compile identically from the parsed text.
TEST(CompilerIr, RandomBuilderKernelsRoundTrip) {
  uint32_t seed = 12345;
  auto rnd = [&](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
  };
  int compiled = 0;
  for (int trial = 0; trial < 200; ++trial) {
    A::Module mod("R" + std::to_string(trial));
    A::Func f = mod.prim_func("main");
    const int64_t rows = 1 + rnd(6), cols = 1 + rnd(3);
    auto in = f.input("x", {rows, cols}, "float32x64", A::DDR);
    {
      A::Script s(f);
      auto out = A::alloc_buffer({rows, cols}, "float32x64", rnd(2) ? A::DDR : A::DDR_WEAK, "y");
      std::vector<double> cv(static_cast<std::size_t>(cols * 64));
      for (auto& v : cv) v = rnd(3) == 0 ? 1.0 : static_cast<double>(static_cast<int>(rnd(2001)) - 1000) / 64.0;
      auto c = A::alloc_constant(cv, "float32x64", A::DDR, {cols}, "c");
      const bool pad = rnd(3) == 0, side = rnd(2), guard = rnd(3) == 0;
      const uint32_t form = rnd(3);  // 0: a loop around the datapath, 1: the sunk form, 2: A.tiles
      const int ops = 1 + static_cast<int>(rnd(3));
      auto body = [&](const A::Value& i, const A::Value& j) {
        auto a = A::decl_stream("float32x64");
        auto b = A::decl_stream("float32x64");
        auto o = A::decl_stream("float32x64");
        A::IFD(0, [&] {
          if (pad)
            a.push(A::if_then_else(A::all({i - 1 >= 0, i - 1 < rows - 1}), in(i, j), A::Broadcast(A::float32(0), 64)));
          else
            a.push(in(i, j));
        });
        if (side) A::IFD(1, [&] { b.push(c(j)); });
        A::DPU([&] {
          auto r = A::array("float18x64", 3);
          r[0] = A::cast(a.pop(), "float18x64");
          if (side)
            r[1] = A::cast(b.pop(), "float18x64");
          else
            r[1] = r[0];
          for (int k = 0; k < ops; ++k) {
            switch (rnd(5)) {
              case 0: r[2] = r[0] + r[1]; break;
              case 1: r[2] = r[0] * r[1]; break;
              case 2: r[2] = A::Min(r[0], r[1]); break;
              case 3: r[2] = A::dpu::add_reduce(r[0]); break;
              default: r[2] = r[1] - r[0]; break;
            }
            r[0] = r[2];
          }
          o.push(A::cast(r[0], "float32x64"));
        });
        A::ODR([&] {
          if (guard)
            A::If(
                j < cols, [&] { out(i, j) = o.pop(); }, [&] { A::drop(o.pop()); });
          else
            out(i, j) = o.pop();
        });
      };
      if (form == 2) {
        const cc_tiles t{.tile_min = 0,
                         .tile_max = static_cast<int64_t>(1 + rnd(static_cast<uint32_t>(rows))),
                         .num_tiles = 0,
                         .drain = static_cast<int64_t>(rnd(3))};
        for (auto i : A::tiles(rows, t))
          for (auto j : A::serial(cols)) A::Datapath([&] { body(i, j); });
      } else if (form == 1) {
        // Written in the sunk form: each unit loops itself.
        A::Datapath([&] {
          auto a = A::decl_stream("float32x64");
          auto o = A::decl_stream("float32x64");
          A::IFD(0, [&] {
            for (auto [i, j] : A::grid(rows, cols)) a.push(in(i, j));
          });
          A::DPU([&] {
            for (auto [i, j] : A::grid(rows, cols)) {
              (void)i;
              (void)j;
              o.push(A::cast(A::cast(a.pop(), "float18x64") * A::cast(c(0), "float18x64"), "float32x64"));
            }
          });
          A::ODR([&] {
            for (auto [i, j] : A::grid(rows, cols)) out(i, j) = o.pop();
          });
        });
      } else {
        for (auto [i, j] : A::grid(rows, cols)) A::Datapath([&] { body(i, j); });
      }
      if (rnd(2)) A::op_marker("tail");
      A::output(out);
    }
    expect_round_trip(mod.ir(), mod.ir().name);
    const auto back = ax::parse_module(ax::dump(mod.ir()));
    try {
      const auto lowered = ax::compile(mod.ir().main()).ir_lowered();
      EXPECT_EQ(ax::dump(*ax::parse_prim_func(lowered)), lowered) << mod.ir().name;
    } catch (const ax::CompileError&) {}
    std::vector<uint8_t> want;
    try {
      want = bundle_bytes(mod.ir().main());
    } catch (const ax::CompileError&) {
      // An invalid random kernel: the parsed copy must be refused too.
      EXPECT_THROW((void)bundle_bytes(back->main()), ax::CompileError) << mod.ir().name;
      continue;
    }
    EXPECT_EQ(bundle_bytes(back->main()), want) << mod.ir().name << "\n" << ax::dump(mod.ir());
    // Without the overlap scheduler (as a multi-core program) the lowering's own waits must be
    // race free too: compile() runs the verifier (passes/verify_sync.cpp), which throws on a race.
    ax::CompileOptions serial;
    serial.overlap = false;
    EXPECT_NO_THROW((void)ax::compile(mod.ir().main(), serial)) << mod.ir().name << "\n" << ax::dump(mod.ir());
    ++compiled;
  }
  EXPECT_GT(compiled, 100);
}

TEST(CompilerIr, MalformedTextIsRefusedAtItsLineAndColumn) {
  struct Case {
    const char* text;
    uint32_t line, column;
    const char* message;
  };
  const Case cases[] = {
      {"@A.prim_func\ndef main(x: A.Buffer((4,), \"float32x64\", scope=A.DDR)):\n  y = A.alloc_buffer((4,), "
       "\"float32x64\", scope=A.L1)\n  for i in A.grid(4):\n    y[i] = z[i]\n",
       5, 12, "unknown buffer 'z'"},
      {"@A.prim_func\ndef main():\n  for i in A.grid(4):\n  pass\n", 4, 3, "expected an indented block"},
      {"@A.prim_func\ndef main():\n  s = A.decl_stream(\"float32x7\")\n", 3, 21, "the lane count is 64"},
      {"@A.prim_func\ndef main():\n  with A.Datapath(kind=A.DP_FAST):\n    pass\n", 3, 24,
       "kind= is A.DP_MVMEXE or A.DP_DWPU"},
      {"@A.prim_func\ndef main():\n  A.sync(waits=[\"a\"] signals=[])\n", 3, 22, "expected ')'"},
      {"@A.prim_func\ndef main():\n  k = A.alloc_constant([1, 2] * 3, \"float32x64\", shape=(1,), scope=A.DDR)\n", 3, 3,
       "6 values for constant 'k' of 1 x 64 lanes"},
  };
  for (const auto& c : cases) {
    try {
      (void)ax::parse_prim_func(c.text, "bad.ir");
      ADD_FAILURE() << "accepted:\n" << c.text;
    } catch (const ax::CompileError& e) {
      EXPECT_NE(e.message().find(c.message), std::string::npos) << e.what();
      EXPECT_EQ(e.loc().file, "bad.ir");
      EXPECT_EQ(e.loc().line, c.line) << e.what();
      EXPECT_EQ(e.loc().column, c.column) << e.what();
    }
  }
}

// Contract errors found while compiling parsed IR point into the IR text.
TEST(CompilerIr, ContractErrorsInParsedIrPointIntoTheText) {
  const char* text =
      "@A.prim_func\n"
      "def main(x: A.Buffer((8, 1), \"float32x64\", scope=A.DDR)):\n"
      "  y = A.alloc_buffer((8, 1), \"float32x64\", scope=A.DDR)\n"
      "  s = A.decl_stream(\"float32x64\")\n"
      "  with A.Datapath():\n"
      "    with A.IFD(num=0):\n"
      "      for i in A.serial(8):\n"
      "        s.push(x[((i * 5) % 8), 0])\n"
      "    with A.ODR():\n"
      "      for i in A.serial(8):\n"
      "        y[i, 0] = s.pop()\n"
      "  A.output(y)\n";
  try {
    (void)ax::compile(*ax::parse_prim_func(text, "k.ir"));
    FAIL() << "compiled";
  } catch (const ax::CompileError& e) {
    EXPECT_NE(e.message().find("Expected linear index"), std::string::npos) << e.what();
    EXPECT_EQ(e.loc().str().substr(0, 7), "k.ir:8:") << e.what();
  }
}
