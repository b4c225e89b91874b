// §12 fusion (compiler/passes/fuse.cpp) with the guide's A.fuse / A.prevent_fuse written around
// operator calls: what fuses runs as fewer datapath tasks and never places the intermediate in
// L1, and stays bit for bit equal to the reference on fsim (TLM and RTL: the example models in
// docs/compiler.md "Fusion", tests/python/test_fusion.py).
#include "harness.hpp"

namespace {

using namespace axtest;
using ops::invoke;
namespace ax = axcore::compiler;

std::vector<double> ints(std::size_t n, int seed, int lo, int hi) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = lo + static_cast<int>((i * 7 + static_cast<std::size_t>(seed) * 13) % static_cast<std::size_t>(hi - lo + 1));
  return v;
}

// x (8, 128) int8 -> core.linear (+ bias, relu) -> h float32 -> atomic.quantize -> q int8, around
// which `wrap` puts its region; returns the compiled program and checks it against the reference.
struct Built {
  ax::CompileResult r;
  uint32_t wrap_line = 0;
};
Built linear_quantize(const std::function<void(const A::Body&, uint32_t&)>& wrap, bool automatic) {
  Built b;
  const A::Module m = module_of([&](A::Func& f) {
    auto x = f.input("x", {8, 2}, "int8x64", A::DDR);
    auto w = A::alloc_constant(ints(128 * 128, 1, -3, 3), "int8x64", A::DDR, {128, 2}, "w");
    auto bias = A::alloc_constant(ints(128, 2, -40, 40), "float32x64", A::DDR, {2}, "bias");
    wrap(
        [&] {
          auto h = invoke("core.linear", {x, w}, {{"bias", bias}, {"activation", std::string("relu")}});
          A::output(invoke("atomic.quantize", {h}, {{"scale", 8.0}}));
        },
        b.wrap_line);
  });
  ax::CompileOptions o;
  o.fuse = automatic;
  b.r = ax::compile(m.ir().main(), o);
  const auto in = random_inputs(b.r.bundle, 3, -128, 127);
  const auto dev = rt::make_backend("fsim")->run(b.r.bundle, in, {});
  const auto ref = rt::make_backend("ref")->run(b.r.bundle, in, {});
  for (const auto& [name, want] : ref.outputs)
    EXPECT_EQ(rt::array_bytes(dev.outputs.at(name)), rt::array_bytes(want)) << name;
  return b;
}

int tasks(const ax::Program& p, axcore::spec::Queue q) {
  int n = 0;
  for (const auto& s : p.steps)
    if (const auto* t = std::get_if<ax::Task>(&s)) n += t->queue == q;
  return n;
}
bool noted(const ax::CompileResult& r, const std::string& text) {
  for (const auto& n : r.program.fusion_notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

TEST(Fusion, AFuseAppendsTheQuantizeToTheMatmulEpilogueBitExact) {
  // Automatic fusion off: only the A.fuse group fuses.
  const Built fused = linear_quantize(
      [](const A::Body& body, uint32_t& line) {
        line = __LINE__ + 1;
        A::fuse(body);
      },
      false);
  const Built apart = linear_quantize([](const A::Body& body, uint32_t&) { body(); }, false);
  // The quantize's DWPU datapath is gone; the matmul's DPU stores int8 directly.
  EXPECT_EQ(tasks(apart.r.program, axcore::spec::Queue::DWPU), 1);
  EXPECT_EQ(tasks(fused.r.program, axcore::spec::Queue::DWPU), 0);
  EXPECT_EQ(tasks(fused.r.program, axcore::spec::Queue::MVMEXE), tasks(apart.r.program, axcore::spec::Queue::MVMEXE));
  // The float32 intermediate (the linear's result) is never placed, written or read.
  EXPECT_LT(fused.r.program.l1.size(), apart.r.program.l1.size());
  EXPECT_TRUE(noted(fused.r, "fused: atomic.quantize"));
  EXPECT_NE(ax::explain(fused.r.program).find("fusion (§12):\n  fused: atomic.quantize"), std::string::npos);
}

TEST(Fusion, AutomaticFusionAndPreventFuse) {
  const Built automatic = linear_quantize([](const A::Body& body, uint32_t&) { body(); }, true);
  EXPECT_EQ(tasks(automatic.r.program, axcore::spec::Queue::DWPU), 0);
  const Built prevented = linear_quantize([](const A::Body& body, uint32_t&) { A::prevent_fuse(body); }, true);
  EXPECT_EQ(tasks(prevented.r.program, axcore::spec::Queue::DWPU), 1);
  EXPECT_TRUE(noted(prevented.r, "inside A.prevent_fuse()"));
  EXPECT_EQ(rt::array_bytes(rt::make_backend("fsim")
                                ->run(prevented.r.bundle, random_inputs(prevented.r.bundle, 3, -128, 127), {})
                                .outputs.begin()
                                ->second),
            rt::array_bytes(rt::make_backend("fsim")
                                ->run(automatic.r.bundle, random_inputs(automatic.r.bundle, 3, -128, 127), {})
                                .outputs.begin()
                                ->second));
}

// strict=True: a group that cannot reduce to one datapath (a matmul consuming a matmul) is
// refused at the A.fuse line with the reason; strict=False compiles it apart.
TEST(Fusion, StrictGroupThatStaysApartIsRefusedAtTheFuseLine) {
  auto build = [](bool strict, uint32_t& line) {
    return module_of([&](A::Func& f) {
      auto x = f.input("x", {4, 2}, "int8x64", A::DDR);
      auto w1 = A::alloc_constant(ints(128 * 128, 1, -3, 3), "int8x64", A::DDR, {128, 2}, "w1");
      auto w2 = A::alloc_constant(ints(128 * 64, 4, -3, 3), "int8x64", A::DDR, {128, 1}, "w2");
      A::FuseArgs a;
      a.strict = strict;
      line = __LINE__ + 1;
      A::fuse(a, [&] {
        auto h = invoke("core.linear", {x, w1});
        auto q = invoke("atomic.quantize", {h}, {{"scale", 4.0}});
        A::output(invoke("core.linear", {q, w2}));
      });
    });
  };
  uint32_t line = 0;
  const A::Module strict = build(true, line);
  const auto e = compile_error([&] { (void)ax::compile(strict.ir().main()); });
  EXPECT_EQ(e.loc().line, line) << e.what();
  EXPECT_NE(std::string(e.what()).find("A.fuse(strict=True)"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("runs a MatMul"), std::string::npos) << e.what();
  const A::Module loose = build(false, line);
  const auto r = ax::compile(loose.ir().main());
  EXPECT_TRUE(noted(r, "fused: atomic.quantize"));
  EXPECT_TRUE(noted(r, "not fused"));
}

// The guide's DPU affine transform (§8.5) written twice by hand, the second reading what the first
// wrote: inside A.fuse the two DPU programs become one (consecutive DPU programs, §12), equal on
// fsim to the same program under A.prevent_fuse, which keeps both datapaths.
A::Module affine_twice(const std::function<void(const A::Body&)>& region) {
  A::Module mod("AffineTwice");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {16, 1}, "float32x64", A::DDR);
  A::Script script(f);
  auto mid = A::alloc_buffer({16, 1}, "float32x64", A::L1_WEAK, "mid");
  auto out = A::alloc_buffer({16, 1}, "int8x64", A::DDR, "out");
  auto affine = [&](A::BufferHandle& src, A::BufferHandle& dst, double scale_v, double bias_v, const char* dt) {
    std::vector<double> c(128);
    for (std::size_t l = 0; l < 64; ++l) c[l] = scale_v, c[64 + l] = bias_v + 0.25 * static_cast<double>(l % 5);
    auto consts = A::alloc_constant(c, "float32x64", A::DDR, {2});
    A::Datapath([&] {
      auto ifd0 = A::decl_stream("float32x64");
      auto ifd1 = A::decl_stream("float32x64");
      auto dpu = A::decl_stream(dt);
      A::IFD(0, [&] {
        for (auto i : A::serial(16)) ifd0.push(src(i, 0));
      });
      A::IFD(1, [&] {
        for (auto j : A::serial(2)) ifd1.push(consts(j));
      });
      A::DPU([&] {
        auto k = A::array("float18x64", 2, "k");
        auto acc = A::array("float18x64", 1, "acc");
        A::init([&] {
          for (auto j : A::serial(2)) k[j] = A::cast(ifd1.pop(), "float18x64");
        });
        for (auto i : A::serial(16)) {
          (void)i;
          acc[0] = A::cast(ifd0.pop(), "float18x64") * k[0];
          dpu.push(A::cast(acc[0] + k[1], dt));
        }
      });
      A::ODR([&] {
        for (auto i : A::serial(16)) dst(i, 0) = dpu.pop();
      });
    });
  };
  region([&] {
    affine(inp, mid, 0.75, -3.5, "float32x64");
    affine(mid, out, 4.0, 1.0, "int8x64");
  });
  A::output(out);
  return mod;
}

TEST(Fusion, ConsecutiveDpuProgramsBecomeOne) {
  const auto fused = ax::compile(affine_twice([](const A::Body& b) { A::fuse(b); }).ir().main());
  const auto apart = ax::compile(affine_twice([](const A::Body& b) { A::prevent_fuse(b); }).ir().main());
  EXPECT_EQ(tasks(fused.program, axcore::spec::Queue::DWPU), 1);
  EXPECT_EQ(tasks(apart.program, axcore::spec::Queue::DWPU), 2);
  rt::Arrays in;
  NDArray<float> x({16, 64});
  for (std::size_t i = 0; i < x.size(); ++i)
    x.data()[i] = static_cast<float>(static_cast<int>(i * 37 % 101) - 50) / 8.0f;
  in["inp"] = x;
  const auto a = rt::make_backend("fsim")->run(fused.bundle, in, {});
  const auto b = rt::make_backend("fsim")->run(apart.bundle, in, {});
  EXPECT_EQ(rt::array_bytes(a.outputs.at("out")), rt::array_bytes(b.outputs.at("out")));
}

TEST(Fusion, AFuseInsideADatapathIsRefused) {
  uint32_t line = 0;
  const auto e = compile_error([&] {
    (void)module_of([&](A::Func&) {
      A::Datapath([&] {
        line = __LINE__ + 1;
        A::prevent_fuse([] {});
      });
    });
  });
  EXPECT_EQ(e.loc().line, line) << e.what();
  EXPECT_NE(std::string(e.what()).find("outside any A.Datapath"), std::string::npos) << e.what();
}

}  // namespace
