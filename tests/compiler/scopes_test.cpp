// Memory scopes (guide §5.1): buffers in A.L2 live in the mem tile's L2 and move between DDR, L2
// and L1 on the engine beside each memory; weak scopes move (an A.L1_WEAK buffer beyond L1 to L2,
// its loops tiled through L1 from there; an A.L2_WEAK one into L1 when it fits, to DDR when L2 is
// full) and `axc explain` says where and why; pinned ones never move, and one that does not fit is
// an error at its line. Run on fsim here; on the TLM and the RTL by examples_e2e_test.cpp
// (memory_scopes, l2_spill) and tests/python/test_scopes.py.
#include <gtest/gtest.h>

#include <axcore/compiler/compile.hpp>
#include <axcore/num/float18.hpp>
#include <axcore/ref/ndarray.hpp>
#include <axcore/runtime/backend.hpp>
#include <memory>
#include <set>

#include "catalog.hpp"

namespace ax = axcore::compiler;
namespace A = axcore::compiler::A;
namespace rt = axcore::runtime;
using axcore::ref::NDArray;

namespace {

float mul18(float x, double s) {
  return axcore::num::to_float(axcore::num::mul(axcore::num::f18_from_float(x), axcore::num::f18_from_double(s)));
}

NDArray<float> floats(int64_t rows, uint32_t seed) {
  NDArray<float> a({static_cast<std::size_t>(rows), 64});
  uint32_t s = seed;
  for (std::size_t i = 0; i < a.size(); ++i) {
    s = s * 1664525u + 1013904223u;
    a.data()[i] = static_cast<float>(-100.0 + 200.0 * static_cast<double>(s >> 8) / 16777216.0);
  }
  return a;
}

// The bytes the program's copies move to and from DDR (each DDR side of each copy).
uint64_t ddr_bytes(const ax::Program& p) {
  uint64_t b = 0;
  for (const auto& s : p.steps)
    if (const auto* t = std::get_if<ax::Transfer>(&s))
      b += t->words * 4 * ((t->ddr_mm2s ? 1 : 0) + (t->ddr_s2mm ? 1 : 0));
  return b;
}

const ax::Transfer* transfer(const ax::Program& p, const std::string& name) {
  for (const auto& s : p.steps)
    if (const auto* t = std::get_if<ax::Transfer>(&s); t && t->name == name) return t;
  return nullptr;
}

bool all_in(const axcore::tap::BdTask& task, axcore::spec::MemSel mem) {
  for (const auto& bd : task.bds)
    if (bd.mem != mem) return false;
  return !task.bds.empty();
}

std::set<std::string> names(const std::map<const ax::BufferNode*, uint64_t>& m) {
  std::set<std::string> n;
  for (const auto& [b, at] : m) n.insert(b->name);
  return n;
}

const NDArray<float>& out(const rt::RunResult& r, const std::string& n) {
  return std::get<NDArray<float>>(r.outputs.at(n));
}

// Copies x into `b` (allocated in `scope` at the line returned) and b out: DMA blocks only.
struct Copy {
  A::Module mod{"ScopeCopy"};
  uint32_t line = 0;
};
std::unique_ptr<Copy> copy_through(ax::Scope scope, int64_t rows) {
  auto c = std::make_unique<Copy>();
  A::Func f = c->mod.prim_func("main");
  auto x = f.input("x", {rows, 1}, "float32x64", A::DDR);
  A::Script script(f);
  c->line = __LINE__ + 1;
  auto b = A::alloc_buffer({rows, 1}, "float32x64", scope, "b");
  auto y = A::alloc_buffer({rows, 1}, "float32x64", A::DDR, "y");
  for (auto i : A::serial(rows)) A::SysDMA([&] { b(i, 0) = x(i, 0); });
  for (auto i : A::serial(rows)) A::SysDMA([&] { y(i, 0) = b(i, 0); });
  A::output(y);
  return c;
}

TEST(Scopes, L2BuffersLiveInTheMemTileAndEachCopyRunsOnTheEngineBesideItsMemories) {
  const auto mod = axcore::examples::memory_scopes();
  const auto r = ax::compile(mod.ir().main());
  using axcore::spec::MemSel;
  EXPECT_EQ(names(r.program.l2), (std::set<std::string>{"mid", "staged"}));  // small (L2_WEAK) fits L1: lives there
  const auto* in = transfer(r.program, "sysdma inp -> staged");              // DDR -> L2: the shim's SysDMA
  ASSERT_NE(in, nullptr) << ax::explain(r.program);
  EXPECT_EQ(in->engine, axcore::tap::Engine::kSysDma);
  EXPECT_TRUE(all_in(in->mm2s, MemSel::DDR) && all_in(in->s2mm, MemSel::L2));
  const auto* down = transfer(r.program, "coredma staged -> a");  // L2 -> L1: the core's DMA
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->engine, axcore::tap::Engine::kCoreDma);
  EXPECT_TRUE(all_in(down->mm2s, MemSel::L2) && all_in(down->s2mm, MemSel::L1));
  const auto* back = transfer(r.program, "store mid (L2)");  // the units' L1 copy of mid -> L2: MemDMA
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->engine, axcore::tap::Engine::kMemDma);
  EXPECT_TRUE(all_in(back->mm2s, MemSel::L1) && all_in(back->s2mm, MemSel::L2));
  EXPECT_EQ(back->buffer, nullptr);                           // nothing patched: L2 is addressed by the compiler
  const auto* up = transfer(r.program, "sysdma mid -> out");  // L2 -> DDR
  ASSERT_NE(up, nullptr);
  EXPECT_TRUE(all_in(up->mm2s, MemSel::L2) && all_in(up->s2mm, MemSel::DDR));
  const std::string ex = ax::explain(r.program);
  EXPECT_NE(ex.find("scope staged (A.L2, 2048 bytes) -> L2: pinned (A.L2)"), std::string::npos) << ex;
  EXPECT_NE(ex.find("scope small (A.L2_WEAK, 2048 bytes) -> L1: A.L2_WEAK moved"), std::string::npos) << ex;
  EXPECT_NE(ex.find("L2 bytes 0..2047: staged"), std::string::npos) << ex;
  // inp in, out and out2 out, the two constants: no scratch goes through DDR.
  EXPECT_EQ(ddr_bytes(r.program), 3u * 2048 + 2 * 256);

  const auto x = floats(8, 3);
  const auto res = rt::make_backend("fsim")->run(r.bundle, {{"inp", x}}, {});
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(out(res, "out").data()[i], mul18(x.data()[i], 2.0)) << i;
    ASSERT_EQ(out(res, "out2").data()[i], mul18(mul18(x.data()[i], 2.0), 3.0)) << i;
  }
}

TEST(Scopes, AnL1WeakIntermediateBeyondL1MovesToL2AndItsDdrTrafficGoes) {
  // y = 2x, z = 3y over 256 rows of float32x64 (64 KiB each) against a 64 KiB L1: y cannot sit in
  // L1 beside anything. A.L1_WEAK: it moves to L2 and both loops are tiled through L1 from there.
  ax::TilingOptions t;
  t.l1_bytes = 64 * 1024;
  const auto weak = axcore::examples::l2_spill(256, A::L1_WEAK);
  const auto r = ax::compile(weak.ir().main(), {}, t);
  EXPECT_EQ(names(r.program.l2), std::set<std::string>{"y"});
  const std::string ex = ax::explain(r.program);
  EXPECT_NE(ex.find("scope y (A.L1_WEAK, 65536 bytes) -> L2: A.L1_WEAK moved out of L1 (L1 overflowed at "),
            std::string::npos)
      << ex;
  EXPECT_NE(ex.find("memdma y.tile1.slot0 -> y "), std::string::npos) << ex;  // y's tiles: L1 -> L2
  EXPECT_NE(ex.find("memdma y -> y.tile2.slot0 "), std::string::npos) << ex;  // and back: L2 -> L1
  // Without L2 (an L2 budget of 0: L2 full) the spill goes to DDR: y's tiles go out and come back.
  ax::TilingOptions no_l2 = t;
  no_l2.l2_bytes = 0;
  const auto d = ax::compile(weak.ir().main(), {}, no_l2);
  EXPECT_TRUE(d.program.l2.empty());
  EXPECT_NE(ax::explain(d.program).find("scope y (A.L1_WEAK, 65536 bytes) -> DDR"), std::string::npos);
  EXPECT_EQ(ddr_bytes(r.program), 2u * 65536 + 2 * 256);  // x in, z out, the two constants
  EXPECT_EQ(ddr_bytes(d.program), 4u * 65536 + 2 * 256);  // and y out and in again
  // Pinned in DDR, y is not moved and not streamed: it cannot sit in L1 whole, as before.
  const auto pinned = axcore::examples::l2_spill(256, A::DDR);
  EXPECT_THROW(ax::compile(pinned.ir().main(), {}, t), ax::L1Overflow);

  const auto x = floats(256, 5);
  for (const auto* c : {&r, &d}) {
    const auto res = rt::make_backend("fsim")->run(c->bundle, {{"x", x}}, {});
    for (std::size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(out(res, "z").data()[i], mul18(mul18(x.data()[i], 2.0), 3.0)) << i;
  }
}

TEST(Scopes, APinnedBufferIsNeverMovedAndOneThatDoesNotFitIsAnErrorAtItsLine) {
  ax::TilingOptions t;
  t.l1_bytes = 16 * 1024;
  t.l2_bytes = 16 * 1024;
  // A.L1 beyond L1: refused at the allocation (its A.L1_WEAK twin compiles, below).
  const auto l1 = copy_through(A::L1, 128);  // 32 KiB
  try {
    ax::compile(l1->mod.ir().main(), {}, t);
    FAIL() << "a 32 KiB A.L1 buffer compiled against a 16 KiB L1";
  } catch (const ax::CompileError& e) {
    EXPECT_EQ(e.loc().line, l1->line);
    EXPECT_NE(e.message().find("b, pinned to L1 (A.L1), is the first that does not fit"), std::string::npos)
        << e.message();
    EXPECT_NE(e.hint().find("A.L1_WEAK"), std::string::npos) << e.hint();
  }
  // A.L2 beyond the L2 left: refused at the allocation.
  const auto l2 = copy_through(A::L2, 128);
  try {
    ax::compile(l2->mod.ir().main(), {}, t);
    FAIL() << "a 32 KiB A.L2 buffer compiled against a 16 KiB L2";
  } catch (const ax::CompileError& e) {
    EXPECT_EQ(e.loc().line, l2->line);
    EXPECT_NE(e.message().find("b is pinned to L2 (A.L2) and needs 32768 bytes, but only 16384 bytes"),
              std::string::npos)
        << e.message();
  }
  // Fitting, the pinned A.L2 buffer stays in L2 (not moved into L1, where it would fit too).
  const auto fits = copy_through(A::L2, 32);  // 8 KiB
  const auto r = ax::compile(fits->mod.ir().main(), {}, t);
  EXPECT_EQ(names(r.program.l2), std::set<std::string>{"b"});
  EXPECT_TRUE(r.program.l1.empty());
  const auto x = floats(32, 9);
  const auto res = rt::make_backend("fsim")->run(r.bundle, {{"x", x}}, {});
  EXPECT_EQ(out(res, "y").data()[100], x.data()[100]);
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(out(res, "y").data()[i], x.data()[i]) << i;
}

TEST(Scopes, WeakBuffersMoveWhereTheyFit) {
  auto run = [&](const ax::CompileResult& r, int64_t rows) {
    const auto x = floats(rows, 13);
    const auto res = rt::make_backend("fsim")->run(r.bundle, {{"x", x}}, {});
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(out(res, "y").data()[i], x.data()[i]) << i;
  };
  ax::TilingOptions t;
  t.l1_bytes = 16 * 1024;
  t.l2_bytes = 64 * 1024;
  // A.L1_WEAK: kept in L1 while it fits, moved to L2 (the copies address it there) when not.
  const auto small = copy_through(A::L1_WEAK, 48);  // 12 KiB
  EXPECT_TRUE(ax::compile(small->mod.ir().main(), {}, t).program.l2.empty());
  const auto big = copy_through(A::L1_WEAK, 80);  // 20 KiB
  const auto r1 = ax::compile(big->mod.ir().main(), {}, t);
  EXPECT_EQ(names(r1.program.l2), std::set<std::string>{"b"});
  EXPECT_TRUE(r1.program.l1.empty());
  run(r1, 80);
  // A.L2_WEAK beyond L1 and the L2 left: to DDR, and explain says why.
  t.l2_bytes = 16 * 1024;
  const auto l2 = copy_through(A::L2_WEAK, 128);  // 32 KiB
  const auto r2 = ax::compile(l2->mod.ir().main(), {}, t);
  EXPECT_TRUE(r2.program.l2.empty());
  const std::string ex = ax::explain(r2.program);
  EXPECT_NE(ex.find("scope b (A.L2_WEAK, 32768 bytes) -> DDR: A.L2_WEAK moved: it needs 32768 bytes and only 16384 "
                    "bytes of L2 are left"),
            std::string::npos)
      << ex;
  run(r2, 128);
}

}  // namespace
