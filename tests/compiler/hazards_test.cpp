// The language guide's §14 hazards: each one either cannot be written (the compiler refuses it, at
// the user's line) or is diagnosed — a warning naming both statements and what to write instead,
// an error with hazards_are_errors — and the runs on fsim show what the warning is about
// (IMC_STALE_READS counted, a K tile's product lost). docs/compiler.md "Hazards (§14)".
#include <gtest/gtest.h>

#include <axcore/compiler/ops/op.hpp>
#include <axcore/ref/ndarray.hpp>
#include <axcore/runtime/backend.hpp>
#include <type_traits>

#include "catalog.hpp"
#include "hazard_programs.hpp"

namespace ax = axcore::compiler;
namespace A = axcore::compiler::A;
namespace hp = axcore::hazard_programs;
using axcore::ref::NDArray;

namespace {

bool in_this_program(const ax::SourceLoc& l) { return l.file.find("hazard_programs.hpp") != std::string::npos; }

ax::CompileResult compile(const hp::Built& b, bool errors = false, const ax::TilingOptions& t = ax::TilingOptions{}) {
  ax::CompileOptions o;
  o.hazards_are_errors = errors;
  return ax::compile(b.mod.ir().main(), o, t);
}

axcore::runtime::RunResult run_fsim(const ax::CompileResult& r, const axcore::runtime::Arrays& in) {
  return axcore::runtime::make_backend("fsim")->run(r.bundle, in, {});
}

NDArray<int8_t> int8_input(uint32_t seed) {
  NDArray<int8_t> a({4, 128});
  uint32_t s = seed;
  for (std::size_t i = 0; i < a.size(); ++i) {
    s = s * 1103515245u + 12345u;
    a.data()[i] = static_cast<int8_t>(static_cast<int>((s >> 9) % 17) - 8);
  }
  return a;
}

const NDArray<int32_t>& out(const axcore::runtime::RunResult& r, const std::string& n) {
  return std::get<NDArray<int32_t>>(r.outputs.at(n));
}

// x[:, k_lo:k_hi] · w[k_lo:k_hi] for x (4, 128) and w (128, 64) given as hp::weights.
std::vector<int32_t> matmul_ref(const NDArray<int8_t>& x, const std::vector<double>& w, int64_t k_lo, int64_t k_hi) {
  std::vector<int32_t> y(4 * 64, 0);
  for (int64_t m = 0; m < 4; ++m)
    for (int64_t n = 0; n < 64; ++n)
      for (int64_t k = k_lo; k < k_hi; ++k)
        y[static_cast<std::size_t>(m * 64 + n)] += int32_t{x.data()[static_cast<std::size_t>(m * 128 + k)]} *
                                                   static_cast<int32_t>(w[static_cast<std::size_t>(k * 64 + n)]);
  return y;
}

// Checks the one warning of `r`: its text, the statement it names and the other one.
void expect_one_warning(const ax::CompileResult& r, const hp::Built& b, const std::string& text) {
  ASSERT_EQ(r.warnings.size(), 1u) << (r.warnings.size() > 1 ? r.warnings[1].str() : "none");
  const auto& w = r.warnings[0];
  EXPECT_EQ(w.kind, "hazard");
  EXPECT_NE(w.message.find(text), std::string::npos) << w.str();
  EXPECT_TRUE(in_this_program(w.loc)) << w.str();
  EXPECT_EQ(w.loc.line, b.at) << w.str();
  EXPECT_FALSE(w.hint.empty());
  if (b.related != b.at || !w.related_what.empty()) {
    EXPECT_TRUE(in_this_program(w.related)) << w.str();
    EXPECT_EQ(w.related.line, b.related) << w.str();
  }
  const std::string s = w.str();
  EXPECT_NE(s.find(": warning: "), std::string::npos) << s;
  EXPECT_NE(s.find("[-Whazard]"), std::string::npos) << s;
  EXPECT_NE(s.find("write instead: "), std::string::npos) << s;
}

// With hazards_are_errors the same program is refused at the same line, naming the other one.
void expect_error(const hp::Built& b, const std::string& text, const ax::TilingOptions& t = {}) {
  try {
    (void)compile(b, true, t);
    ADD_FAILURE() << "no CompileError";
  } catch (const ax::CompileError& e) {
    EXPECT_NE(e.message().find(text), std::string::npos) << e.what();
    EXPECT_EQ(e.loc().line, b.at) << e.what();
    EXPECT_NE(e.message().find("hazard_programs.hpp:" + std::to_string(b.related) + ":"), std::string::npos)
        << e.what();
    EXPECT_FALSE(e.hint().empty());
  }
}

}  // namespace

// --- diagnosed -----------------------------------------------------------------------------------

TEST(Hazards, ImcReuseAfterAnotherMatrixWarnsAtBothStatementsAndCountsStaleReadsOnFsim) {
  const auto b = hp::imc_reuse(false);
  const auto r = compile(b, false, hp::imc_tiles_budget());
  expect_one_warning(r, b, "whose residency on core 0 ended when w2_imc was loaded");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].hint.find("load w1_imc again right before this datapath"), std::string::npos);
  expect_error(b, "IMC_STALE_READS", hp::imc_tiles_budget());
  // It runs as written: o3 is computed with the tiles w2 left (= o2), and the device counts
  // every tile-op of it (4 outputs x 2 K blocks) as stale.
  const auto res = run_fsim(r, {{"x", int8_input(5)}});
  EXPECT_EQ(res.imc_stale_reads(), 8u);
  EXPECT_EQ(res.sticky.at("core0.IMC_STALE_READS"), 8u);
  EXPECT_EQ(out(res, "o3").data(), out(res, "o2").data());
  EXPECT_NE(out(res, "o3").data(), out(res, "o1").data());
}

TEST(Hazards, ReloadingTheMatrixBeforeItsReuseIsCleanAndCorrect) {
  const auto b = hp::imc_reuse(true);
  const auto r = compile(b, true, hp::imc_tiles_budget());  // no hazard: not even as an error
  EXPECT_TRUE(r.warnings.empty());
  const auto res = run_fsim(r, {{"x", int8_input(5)}});
  EXPECT_EQ(res.imc_stale_reads(), 0u);
  EXPECT_EQ(out(res, "o3").data(), out(res, "o1").data());
  EXPECT_NE(out(res, "o3").data(), out(res, "o2").data());
}

TEST(Hazards, WaitAfterTwoDependentDatapathsWarnsAndTheCompilerOrdersThem) {
  const auto b = hp::wait_after_both(false);
  const auto r = compile(b);
  expect_one_warning(r, b, "depends on the launch tagged id=\"produce\"");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].hint.find("A.sync(waits=[\"produce\"])"), std::string::npos);
  expect_error(b, "no A.sync waits for \"produce\" before it");
  const auto x = int8_input(3);
  const auto res = run_fsim(r, {{"x", x}});
  EXPECT_EQ(out(res, "out").data(), matmul_ref(x, hp::weights(128, 4), 0, 128));
}

TEST(Hazards, WaitingOnTheProducerBeforeTheConsumerIsClean) {
  const auto r = compile(hp::wait_after_both(true), true);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Hazards, KTiledMatmulOverwritingItsPartialSumsWarns) {
  const auto b = hp::k_tiles(false);
  const auto r = compile(b);
  expect_one_warning(r, b, "each K tile's product overwrites the one before it");
  // Only the second K tile reached out: x[:, 64:] · w[64:].
  const auto x = int8_input(9);
  const auto res = run_fsim(r, {{"x", x}});
  EXPECT_EQ(out(res, "out").data(), matmul_ref(x, hp::weights(128, 3), 64, 128));
  EXPECT_NE(out(res, "out").data(), matmul_ref(x, hp::weights(128, 3), 0, 128));
}

TEST(Hazards, KTilesSunkIntoOneDatapathStoringTheSameRowsWarns) {
  const auto b = hp::k_tiles(true);
  const auto r = compile(b);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].message.find("stores the same rows for every step of a loop"), std::string::npos)
      << r.warnings[0].str();
  EXPECT_EQ(r.warnings[0].loc.line, b.at);
  const auto x = int8_input(4);
  const auto res = run_fsim(r, {{"x", x}});
  EXPECT_EQ(out(res, "out").data(), matmul_ref(x, hp::weights(128, 3), 64, 128));
}

// No example kernel of the catalog (matmuls with a K split that accumulates, pipelined tiling
// with its own ids and waits, several matrices on one core) raises a hazard.
TEST(Hazards, NoExampleKernelRaisesOne) {
  for (const auto& e : axcore::examples::catalog()) {
    const auto r = ax::compile(e.make().ir().main());
    EXPECT_TRUE(r.warnings.empty()) << e.name << ": " << (r.warnings.empty() ? "" : r.warnings[0].str());
  }
}

// --- impossible by construction ------------------------------------------------------------------

namespace {
// A datapath whose body `body` builds; returns the refusal (line and text checked by the caller).
ax::CompileError refusal(const std::function<void(A::BufferHandle&, A::BufferHandle&)>& body) {
  A::Module mod("K");
  A::Func f = mod.prim_func("main");
  auto x = f.input("x", {4, 2}, "float32x64", A::DDR);
  try {
    {
      A::Script s(f);
      auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
      body(x, out);
      A::output(out);
    }
    (void)ax::compile(mod.ir().main());
  } catch (const ax::CompileError& e) { return e; }
  ADD_FAILURE() << "no CompileError";
  return ax::CompileError({}, "");
}
}  // namespace

// §8.3 IFD interleave: two logical streams on one feeder (two IFD(num=1) blocks) popped by one DPU
// block, interleaved — refused at the pop of the second stream (a DPU block reads one IFD block's
// stream; the datapath's blocks run as consecutive tasks).
TEST(Hazards, IfdInterleaveTwoStreamsOnOneFeederPoppedByOneDpuBlockAreRefused) {
  uint32_t line = 0;
  const auto e = refusal([&](A::BufferHandle& x, A::BufferHandle& out) {
    for (auto [i] : A::grid(4)) {
      A::Datapath([&] {
        auto main = A::decl_stream("float32x64");
        auto sa = A::decl_stream("float32x64", "IFD_1_STREAM", "sa");
        auto sb = A::decl_stream("float32x64", "IFD_1_STREAM", "sb");
        auto y = A::decl_stream("float32x64");
        A::IFD(0, [&] { main.push(x(i, 0)); });
        A::IFD(1, [&] { sa.push(x(i, 1)); });
        A::IFD(1, [&] { sb.push(x(i, 1)); });
        A::DPU([&] {
          auto r = A::array("float18x64", 2, "r");
          r[0] = A::cast(sa.pop(), "float18x64");
          line = __LINE__ + 1;
          r[1] = A::cast(sb.pop(), "float18x64");
          r[0] = r[0] + r[1];
          r[1] = A::cast(main.pop(), "float18x64");
          r[0] = r[0] + r[1];
          y.push(A::cast(r[0], "float32x64"));
        });
        A::ODR([&] { out(i, 0) = y.pop(); });
      });
    }
  });
  EXPECT_NE(e.message().find("this DPU block pops sb besides sa, two streams of one feeder (IFD(num=1))"),
            std::string::npos)
      << e.what();
  EXPECT_NE(e.message().find("never interleaved (§8.3)"), std::string::npos) << e.what();
  EXPECT_EQ(e.loc().line, line) << e.what();
}

// §9.2 state carried between two blocks of one unit inside a sunk loop: each DPU block runs as a
// task of its own (registers at 0), so a register of the first used in the second is refused there.
TEST(Hazards, StateBetweenTwoBlocksOfOneUnitIsRefusedAtTheSecondBlocksUse) {
  uint32_t line = 0;
  const auto e = refusal([&](A::BufferHandle& x, A::BufferHandle& out) {
    for (auto [i, j] : A::grid(4, 2)) {
      A::Datapath([&] {
        auto a = A::decl_stream("float32x64");
        auto b = A::decl_stream("float32x64");
        auto r = A::array("float18x64", 1, "state");
        A::IFD(0, [&] { a.push(x(i, j)); });
        A::DPU([&] { r[0] = A::cast(a.pop(), "float18x64"); });
        line = __LINE__ + 1;
        A::DPU([&] { b.push(A::cast(r[0], "float32x64")); });
        A::ODR([&] { out(i, j) = b.pop(); });
      });
    }
  });
  EXPECT_NE(e.message().find("register state of the DPU block at line " + std::to_string(line - 2) +
                             " is used again in a later DPU block of the same datapath"),
            std::string::npos)
      << e.what();
  EXPECT_NE(e.message().find("§9.2"), std::string::npos) << e.what();
  EXPECT_EQ(e.loc().line, line) << e.what();
}

// §4.3 dropping a sub-region operand's offset: an operator's operands are whole buffers
// (ops::Tensor, a BufferHandle: a buffer or a reshape of all of it, never an offset region), and a
// region of one (buf(i, A::slice(a, b))) is not an operand at all — a C++ type error.
using Region = decltype(std::declval<A::BufferHandle&>()(0, A::slice(0, 1)));
static_assert(!std::is_constructible_v<axcore::compiler::ops::ArgValue, Region>,
              "a buffer region must not be an operator operand (§14: its offset would be dropped)");
static_assert(!std::is_convertible_v<Region, axcore::compiler::ops::Tensor>);

TEST(Hazards, SubRegionOperandCannotBeWrittenAViewCoversTheWholeBuffer) {
  const auto e = refusal([&](A::BufferHandle& x, A::BufferHandle&) {
    (void)x.reshape({2, 2});  // 4 of its 8 elements: a region, refused
  });
  EXPECT_NE(e.message().find("reshape of x: 8 elements cannot view as"), std::string::npos) << e.what();
}
