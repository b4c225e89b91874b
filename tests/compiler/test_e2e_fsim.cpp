// Compiled guide kernels run on the functional device (runtime regfile device + common/ref unit
// references executing the emitted descriptors), compared with references computed here from
// common/ref / common/num primitives.
#include <gtest/gtest.h>

#include <axcore/compiler/compile.hpp>
#include <axcore/num/reduce.hpp>
#include <axcore/ref/op/elementwise.hpp>
#include <axcore/ref/op/matmul.hpp>
#include <axcore/runtime/backend.hpp>

#include "guide_kernels.hpp"

namespace ax = axcore;
using ax::ref::NDArray;

namespace {

ax::runtime::RunResult run_fsim(const ax::compiler::A::Module& m, const ax::runtime::Arrays& in) {
  const auto r = ax::compiler::compile(m.ir().main());
  auto be = ax::runtime::make_backend("fsim");
  return be->run(r.bundle, in, {});
}

template <class T>
NDArray<T> pseudo(ax::ref::Shape s, uint32_t seed, double lo, double hi) {
  NDArray<T> a(s);
  uint32_t x = seed;
  for (std::size_t i = 0; i < a.size(); ++i) {
    x = x * 1103515245u + 12345u;
    a.data()[i] = static_cast<T>(lo + (hi - lo) * ((x >> 8) % 10000) / 10000.0);
  }
  return a;
}

}  // namespace

TEST(CompilerE2eFsim, ScaleByTwoMatchesFloat18Reference) {
  auto x = pseudo<float>({8, 64}, 7, -100, 100);
  const auto res = run_fsim(ax::examples::scale(), {{"inp", x}});
  const auto& out = std::get<NDArray<float>>(res.outputs.at("out"));
  NDArray<float> two({8, 64}, 2.0f);
  const auto want = ax::ref::mul_tensor<float>(x, two);
  ASSERT_EQ(out.shape(), want.shape());
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out.data()[i], want.data()[i]) << "element " << i;
}

TEST(CompilerE2eFsim, MatmulAndBiasEpilogueMatchRefLinear) {
  for (bool bias : {false, true}) {
    const int64_t m = 4, kb = 2, nb = 2;
    auto mod = ax::examples::matmul(m, kb, nb, bias, 3);
    auto x = pseudo<int8_t>({4, 128}, 11, -128, 127);
    const auto res = run_fsim(mod, {{"inp", x}});
    const auto& out = std::get<NDArray<float>>(res.outputs.at("out"));
    // The weights and bias the kernel holds, as logical arrays.
    const auto& f = mod.ir().main();
    NDArray<int8_t> w({128, 128});
    NDArray<float> b({128});
    for (const auto& buf : f.buffers) {
      if (buf->name == "weights")
        for (std::size_t i = 0; i < w.size(); ++i) w.data()[i] = static_cast<int8_t>(buf->data[i]);
      if (buf->name == "bias")
        for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = static_cast<float>(buf->data[i]);
    }
    ax::ref::Epilogue e;
    if (bias) e.bias = b;
    const auto want = ax::ref::linear<float>(x, w, e);
    ASSERT_EQ(out.shape(), want.shape());
    for (std::size_t i = 0; i < out.size(); ++i)
      ASSERT_EQ(out.data()[i], want.data()[i]) << "bias " << bias << " element " << i;
  }
}

TEST(CompilerE2eFsim, DpuAffineFromInitPreamble) {
  auto x = pseudo<float>({5, 64}, 5, -10, 10);
  const auto res = run_fsim(ax::examples::dpu_affine(5, 0.5f, 3.25f), {{"inp", x}});
  const auto& out = std::get<NDArray<float>>(res.outputs.at("out"));
  const auto y =
      ax::ref::add_tensor<float>(ax::ref::mul_tensor<float>(x, NDArray<float>({1}, 0.5f)), NDArray<float>({1}, 3.25f));
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out.data()[i], y.data()[i]) << i;
}

TEST(CompilerE2eFsim, RowSumWithRegisterFileAndAddReduce) {
  // nb = 1 makes the DPU's A.serial(1, nb) a zero-extent loop: it collapses (guide §4.4) and the
  // rest of the datapath still runs — the output is written, not silently dropped.
  for (const int64_t nb : {4, 1}) {
    const int64_t rows = 3;
    auto x = pseudo<float>({3, static_cast<size_t>(nb * 64)}, 9, -4, 4);
    const auto res = run_fsim(ax::examples::row_sum(rows, nb), {{"inp", x}});
    const auto& out = std::get<NDArray<float>>(res.outputs.at("out"));
    for (int64_t r = 0; r < rows; ++r) {
      // acc = x0 + x1 + x2 + x3 blockwise in float18, then the lane tree.
      ax::num::PwordF18 acc{};
      for (int64_t j = 0; j < nb; ++j)
        for (int l = 0; l < 64; ++l) {
          const auto v = ax::num::f18_from_double(x({static_cast<size_t>(r), static_cast<size_t>(j * 64 + l)}));
          acc[static_cast<size_t>(l)] = j == 0 ? v : ax::num::add(acc[static_cast<size_t>(l)], v);
        }
      const auto s = ax::num::add_reduce(acc)[0];
      for (int l = 0; l < 64; ++l)
        ASSERT_EQ(out({static_cast<size_t>(r), static_cast<size_t>(l)}), static_cast<float>(ax::num::to_double(s)))
            << "nb " << nb << " row " << r;
    }
  }
}

TEST(CompilerE2eFsim, ADatapathWhoseUnitStreamsNothingLowersToNothing) {
  // The IFD's only push sits in a zero-extent loop: the datapath streams nothing and is dropped.
  ax::compiler::A::Module mod("Empty");
  namespace A = ax::compiler::A;
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {4, 1}, "float32x64", A::DDR);
  A::Script script(f);
  auto out = A::alloc_buffer({4, 1}, "float32x64", A::DDR, "out");
  A::Datapath([&] {
    auto s = A::decl_stream("float32x64");
    A::IFD(0, [&] {
      for (auto i : A::serial(0)) s.push(inp(i, 0));
    });
    A::ODR([&] {
      for (auto i : A::serial(0)) out(i, 0) = s.pop();
    });
  });
  A::output(out);
  const auto r = ax::compiler::compile(mod.ir().main());
  std::size_t tasks = 0;
  for (const auto& st : r.program.steps) tasks += std::holds_alternative<ax::compiler::Task>(st) ? 1 : 0;
  EXPECT_EQ(tasks, 0u);
}

// Index arithmetic is not the statement's one operation (§8.5): acc = acc + x[j + 1] is one add
// (the register index j + 1 is the DPU's loop-indexed addressing), and runs as the row sum.
TEST(CompilerE2eFsim, RegisterIndexArithmeticIsNotTheStatementsOperation) {
  namespace A = ax::compiler::A;
  const int64_t rows = 3, nb = 4;
  A::Module mod("RowSumShifted");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {rows, nb}, "float32x64", A::DDR);
  {
    A::Script script(f);
    auto out = A::alloc_buffer({rows, 1}, "float32x64", A::DDR, "out");
    for (auto [r] : A::grid(rows)) {
      A::Datapath([&] {
        auto in_s = A::decl_stream("float32x64");
        auto out_s = A::decl_stream("float32x64");
        for (auto j : A::serial(nb)) A::IFD(0, [&] { in_s.push(inp(r, j)); });
        A::DPU([&] {
          auto x = A::array("float18x64", nb, "x");
          auto acc = A::var("float18x64", "acc");
          for (auto j : A::serial(nb)) x[j] = A::cast(in_s.pop(), "float18x64");
          acc = x[0];
          for (auto j : A::serial(nb - 1)) acc = acc + x[j + 1];
          out_s.push(A::cast(A::dpu::add_reduce(acc), "float32x64"));
        });
        A::ODR([&] { out(r, 0) = out_s.pop(); });
      });
    }
    A::output(out);
  }
  auto x = pseudo<float>({3, 256}, 9, -4, 4);
  const auto res = run_fsim(mod, {{"inp", x}});
  const auto& out = std::get<NDArray<float>>(res.outputs.at("out"));
  for (std::size_t r = 0; r < 3; ++r) {
    ax::num::PwordF18 acc{};
    for (std::size_t j = 0; j < 4; ++j)
      for (std::size_t l = 0; l < 64; ++l) {
        const auto v = ax::num::f18_from_double(x({r, j * 64 + l}));
        acc[l] = j == 0 ? v : ax::num::add(acc[l], v);
      }
    const auto s = static_cast<float>(ax::num::to_double(ax::num::add_reduce(acc)[0]));
    for (std::size_t l = 0; l < 64; ++l) ASSERT_EQ(out({r, l}), s) << "row " << r;
  }
}

// A reshape view named as the output: the program writes the viewed buffer, and the bundle's
// output is that buffer under the view's name and shape.
TEST(CompilerE2eFsim, AViewAsTheOutputIsTheViewedBufferInTheViewsShape) {
  namespace A = ax::compiler::A;
  A::Module mod("ScaleView");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {4, 2}, "float32x64", A::DDR);
  std::string view_name;
  {
    A::Script script(f);
    auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
    auto two = A::alloc_constant(std::vector<double>(64, 2.0), "float32x64", A::DDR, {1}, "two");
    for (auto [i, j] : A::grid(4, 2)) {
      A::Datapath([&] {
        auto s = A::decl_stream("float32x64");
        auto o = A::decl_stream("float32x64");
        A::IFD(0, [&] { s.push(inp(i, j)); });
        A::DPU([&] { o.push(A::cast(A::cast(s.pop(), "float18x64") * A::cast(two(0), "float18x64"), "float32x64")); });
        A::ODR([&] { out(i, j) = o.pop(); });
      });
    }
    auto flat = out.reshape({8, 1});
    view_name = flat.name();
    A::output(flat);
  }
  auto x = pseudo<float>({4, 128}, 3, -50, 50);
  const auto res = run_fsim(mod, {{"inp", x}});
  ASSERT_EQ(res.outputs.size(), 1u);
  ASSERT_EQ(res.outputs.count(view_name), 1u) << "outputs are named as the view";
  const auto& out = std::get<NDArray<float>>(res.outputs.at(view_name));
  ASSERT_EQ(out.shape(), (ax::ref::Shape{8, 64}));
  const auto want = ax::ref::mul_tensor<float>(x, NDArray<float>({1}, 2.0f));
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out.data()[i], want.data()[i]) << "element " << i;
}

// §4.4 / §9.2: A.unroll is the opt-out of sinking. The example's unroll(2) around a single
// A.serial(4) datapath is two datapath tasks (i sunk into each), unroll(2, 3) one, and the
// always-tuple grid nest over its (2, 3, 2) shape one (sunk); an A.serial in place of the unroll
// would make three.
TEST(CompilerE2eFsim, UnrollIsNotSunkTheTupleGridIs) {
  const auto r = ax::compiler::compile(ax::examples::loop_forms().ir().main());
  int datapaths = 0;
  for (const auto& s : r.program.steps)
    if (const auto* t = std::get_if<ax::compiler::Task>(&s))
      datapaths += t->queue == ax::spec::Queue::MVMEXE || t->queue == ax::spec::Queue::DWPU;
  EXPECT_EQ(datapaths, 4);
}

// §10: A.where bounds the data movement of its block. In the where_guard example the two datapaths
// store 5 and 3 rows (the inert A.where(i < 6) of the second's ODR does not cut it to 1), the two
// CoreDMA copies move 4 rows each, and one of the two unrolled SysDMA copies out (8 rows) remains.
TEST(CompilerE2eFsim, WhereBoundsTheMovementOfItsBlock) {
  const auto r = ax::compiler::compile(ax::examples::where_guard().ir().main());
  std::vector<uint64_t> odr, core_dma, copied_out;
  for (const auto& s : r.program.steps) {
    if (const auto* t = std::get_if<ax::compiler::Task>(&s); t && t->queue == ax::spec::Queue::DWPU)
      odr.push_back(t->odr_elems);
    if (const auto* t = std::get_if<ax::compiler::Transfer>(&s)) {
      if (t->engine == ax::tap::Engine::kCoreDma) core_dma.push_back(t->words);
      if (t->buffer && t->buffer->name == "out") copied_out.push_back(t->words);
    }
  }
  EXPECT_EQ(odr, (std::vector<uint64_t>{5, 3}));
  EXPECT_EQ(core_dma, (std::vector<uint64_t>{4 * 64, 4 * 64}));  // 4 rows of 64 float32 lanes, in words
  EXPECT_EQ(copied_out, (std::vector<uint64_t>{8 * 64}));        // once
  auto x = pseudo<float>({8, 64}, 3, -50, 50);
  const auto res = ax::runtime::make_backend("fsim")->run(r.bundle, {{"inp", x}}, {});
  const auto& out = std::get<NDArray<float>>(res.outputs.at("out"));
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t l = 0; l < 64; ++l) {
      const float v = x({i, l});
      const float want = i < 4 ? v : ax::num::rf18(ax::num::rf18(v) * (i == 4 ? 2.0f : 3.0f));
      ASSERT_EQ(out({i, l}), want) << i << "," << l;
    }
}

// §6 / §9.2 several blocks of one unit: the example's IFD -> DPU -> IFD -> DPU -> ODR datapath
// (sunk over 4 rows) lowers to one task per DPU block, in the order written, each with its IFD
// block and the half of the ODR's walk that stores its results; out's rows in order hold 2a, then
// b + 3 (block 1 for every iteration, then block 2).
TEST(CompilerE2eFsim, TwoDpuBlocksRunAsTwoTasksInTheOrderWritten) {
  const auto r = ax::compiler::compile(ax::examples::two_dpu_blocks().ir().main());
  std::vector<uint64_t> ifd0, odr;
  std::vector<std::string> names;
  for (const auto& s : r.program.steps)
    if (const auto* t = std::get_if<ax::compiler::Task>(&s); t && t->queue == ax::spec::Queue::DWPU) {
      ifd0.push_back(t->ifd0_elems);
      odr.push_back(t->odr_elems);
      names.push_back(t->name);
    }
  EXPECT_EQ(ifd0, (std::vector<uint64_t>{4, 4}));
  EXPECT_EQ(odr, (std::vector<uint64_t>{4, 4}));
  EXPECT_EQ(names, (std::vector<std::string>{"dp1.1.dwpu", "dp1.2.dwpu"}));
  auto a = pseudo<float>({4, 64}, 5, -50, 50);
  auto b = pseudo<float>({4, 64}, 6, -50, 50);
  const auto res = ax::runtime::make_backend("fsim")->run(r.bundle, {{"a", a}, {"b", b}}, {});
  const auto& out = std::get<NDArray<float>>(res.outputs.at("out"));
  ASSERT_EQ(out.shape(), (ax::ref::Shape{4, 128}));
  for (std::size_t e = 0; e < 512; ++e) {
    const std::size_t row = e / 64 % 4, l = e % 64;
    const float want =
        e < 256 ? ax::num::rf18(ax::num::rf18(a({row, l})) * 2.0f) : ax::num::rf18(ax::num::rf18(b({row, l})) + 3.0f);
    ASSERT_EQ(out.data()[e], want) << "element " << e;
  }
}

// §8.3 several streams on one feeder: feeder_segments_mixed is one task whose IFD0 runs m1 (int8)
// then m2 (float32), and IFD1 s1 (float32) then s2 (int8): the later walks in the seg sections
// (IFD0's first), each feeder's walk naming one, and the POPs of the later segments naming their
// dtype (own_dtype); on fsim out = q * s, then x + g[2j, k + 1] (hand-computed in float18).
TEST(CompilerE2eFsim, FeederSegmentsAreOneTaskWithTheLaterWalksInTheSegSections) {
  const auto r = ax::compiler::compile(ax::examples::feeder_segments_mixed().ir().main());
  std::vector<const ax::compiler::Task*> tasks;
  for (const auto& st : r.program.steps)
    if (const auto* t = std::get_if<ax::compiler::Task>(&st); t && t->queue == ax::spec::Queue::DWPU)
      tasks.push_back(t);
  ASSERT_EQ(tasks.size(), 1u);
  const auto d = ax::spec::DatapathDesc::parse(tasks[0]->words);
  EXPECT_EQ(d.ifd0.dtype, ax::spec::Dtype::INT8);
  EXPECT_EQ(d.ifd0.segs, 1u);
  EXPECT_EQ(d.seg0.dtype, ax::spec::Dtype::FLOAT32);
  EXPECT_EQ(d.ifd1.dtype, ax::spec::Dtype::FLOAT32);
  EXPECT_EQ(d.ifd1.segs, 1u);
  EXPECT_EQ(d.seg1.dtype, ax::spec::Dtype::INT8);
  EXPECT_EQ(d.seg1.ndims, 2u);  // g[2j, k + 1]: rows 8 apart, then 1
  EXPECT_EQ(d.seg0.segs + d.seg1.segs + d.odr.segs, 0u);
  EXPECT_EQ(d.dpu.in0_dtype, ax::spec::Dtype::INT8);
  EXPECT_EQ(d.dpu.in1_dtype, ax::spec::Dtype::FLOAT32);
  EXPECT_EQ(tasks[0]->ifd0_elems, 8u);
  EXPECT_EQ(tasks[0]->ifd1_elems, 5u);
  EXPECT_EQ(tasks[0]->ifd1_rows, 4u + 4u);                // one float32 element (4 rows), four int8 (1 row each)
  std::vector<std::pair<uint32_t, ax::spec::Dtype>> own;  // (stream, dtype) of the POPs naming theirs
  for (const auto& in : d.program)
    if (in.op == ax::spec::DpuOp::POP) {
      const auto p = ax::spec::DpuPop::decode_word(in.imm);
      if (p.own_dtype) own.emplace_back(p.stream, p.dtype);
    }
  EXPECT_EQ(own, (std::vector<std::pair<uint32_t, ax::spec::Dtype>>{{0, ax::spec::Dtype::FLOAT32},
                                                                    {1, ax::spec::Dtype::INT8}}));
  auto q = pseudo<int8_t>({4, 64}, 21, -128, 127);
  auto x = pseudo<float>({2, 128}, 22, -100, 100);
  auto sc = pseudo<float>({1, 64}, 23, -4, 4);
  auto g = pseudo<int8_t>({3, 256}, 24, -128, 127);
  const auto res = ax::runtime::make_backend("fsim")->run(r.bundle, {{"q", q}, {"x", x}, {"s", sc}, {"g", g}}, {});
  const auto& out = std::get<NDArray<float>>(res.outputs.at("out"));
  ASSERT_EQ(out.shape(), (ax::ref::Shape{8, 64}));
  for (std::size_t l = 0; l < 64; ++l) {
    for (std::size_t i = 0; i < 4; ++i)
      ASSERT_EQ(out({i, l}), ax::num::to_float(ax::num::mul(ax::num::f18_from_double(q({i, l})),
                                                            ax::num::f18_from_float(sc({0, l})))))
          << i << " " << l;
    for (std::size_t n = 0; n < 4; ++n)
      ASSERT_EQ(out({4 + n, l}),
                ax::num::to_float(ax::num::add(ax::num::f18_from_float(x({n / 2, n % 2 * 64 + l})),
                                               ax::num::f18_from_double(g({n / 2 * 2, (n % 2 + 1) * 64 + l})))))
          << n << " " << l;
  }
}

// The same with the main stage: one MVMEXE datapath over rows m, IFD -> MatMul (column block 0) ->
// DPU -> IFD -> MatMul (column block 1) -> DPU -> ODR, is two tasks whose results equal the §6.2
// matmul's, in stream order (every m of block 0, then every m of block 1).
TEST(CompilerE2eFsim, TwoMatMulBlocksEachWithItsDpuBlockMatchTheMatmul) {
  namespace A = ax::compiler::A;
  const auto plain = ax::examples::matmul(2, 1, 2, false, 9);
  std::vector<double> w;
  for (const auto& buf : plain.ir().main().buffers)
    if (buf->name == "weights") w = buf->data;
  A::Module mod("TwoMatMuls");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {2, 1}, "int8x64", A::DDR);
  {
    A::Script script(f);
    auto weights = A::alloc_constant(w, "int8x64", A::DDR, {64, 2}, "weights");
    auto out = A::alloc_buffer({2, 2}, "float32x64", A::DDR, "out");
    auto w_imc = A::alloc_imc({1, 2});
    for (auto [kb, nb] : A::grid(1, 2))
      A::LoadIMC([&] { w_imc(kb, nb) = weights(A::slice(kb * 64, kb * 64 + 64), nb); });
    for (auto [m] : A::grid(2)) {
      A::Datapath(A::DP_MVMEXE, [&] {
        auto s = A::decl_stream("int8x64");
        auto r0 = A::decl_stream("int32x64");
        auto r1 = A::decl_stream("int32x64");
        auto d = A::decl_stream("float32x64");
        auto matmul = [&](A::StreamHandle& res, int64_t nb) {
          A::MatMul([&] {
            auto acc = A::mvm_accumulator();
            A::reset_accumulator(acc);
            acc += A::mvm_1x1(s.pop(), w_imc(0, nb));
            res.push(acc);
          });
        };
        A::IFD(0, [&] { s.push(inp(m, 0)); });
        matmul(r0, 0);
        A::DPU([&] { d.push(A::cast(r0.pop(), "float32x64")); });
        A::IFD(0, [&] { s.push(inp(m, 0)); });
        matmul(r1, 1);
        A::DPU([&] { d.push(A::cast(r1.pop(), "float32x64")); });
        A::ODR([&] {
          for (auto j : A::serial(2)) out(m, j) = d.pop();
        });
      });
    }
    A::output(out);
  }
  const auto r = ax::compiler::compile(mod.ir().main());
  int tasks = 0;
  for (const auto& s : r.program.steps)
    if (const auto* t = std::get_if<ax::compiler::Task>(&s); t && t->queue == ax::spec::Queue::MVMEXE) ++tasks;
  EXPECT_EQ(tasks, 2);
  auto x = pseudo<int8_t>({2, 64}, 13, -128, 127);
  auto be = ax::runtime::make_backend("fsim");
  const auto got = std::get<NDArray<float>>(be->run(r.bundle, {{"inp", x}}, {}).outputs.at("out"));
  const auto want = std::get<NDArray<float>>(
      be->run(ax::compiler::compile(plain.ir().main()).bundle, {{"inp", x}}, {}).outputs.at("out"));
  ASSERT_EQ(got.shape(), (ax::ref::Shape{2, 128}));
  for (std::size_t e = 0; e < 256; ++e) {  // stream element e/64: (nb, m) = (e/128, e/64 % 2)
    const std::size_t nb = e / 128, m = e / 64 % 2, l = e % 64;
    ASSERT_EQ(got.data()[e], want({m, nb * 64 + l})) << "element " << e;
  }
}

// Several IFD and ODR blocks without a compute stage: two inputs copied one after the other into
// one output (IFD a, IFD b, ODR of a's stream, ODR of b's), then that output read backwards by one
// IFD block and split by two ODR blocks (the first three elements of its stream, then the rest):
// a task between every two block boundaries of either unit, four in all.
TEST(CompilerE2eFsim, IfdAndOdrBlocksAreCutWhereEitherUnitsBlocksEnd) {
  namespace A = ax::compiler::A;
  A::Module mod("CopyBlocks");
  A::Func f = mod.prim_func("main");
  auto a = f.input("a", {3, 1}, "float32x64", A::DDR);
  auto b = f.input("b", {3, 1}, "float32x64", A::DDR);
  {
    A::Script script(f);
    auto both = A::alloc_buffer({6, 1}, "float32x64", A::DDR, "both");
    auto back = A::alloc_buffer({2, 3}, "float32x64", A::DDR, "back");
    A::Datapath([&] {
      auto sa = A::decl_stream("float32x64");
      auto sb = A::decl_stream("float32x64");
      A::IFD(0, [&] {
        for (auto i : A::serial(3)) sa.push(a(i, 0));
      });
      A::IFD(0, [&] {
        for (auto i : A::serial(3)) sb.push(b(i, 0));
      });
      A::ODR([&] {
        for (auto i : A::serial(3)) both(i, 0) = sa.pop();
      });
      A::ODR([&] {
        for (auto i : A::serial(3)) both(3 + i, 0) = sb.pop();
      });
    });
    A::Datapath([&] {
      auto s = A::decl_stream("float32x64");
      A::IFD(0, [&] {
        for (auto i : A::serial(6)) s.push(both(5 - i, 0));
      });
      A::ODR([&] {
        for (auto i : A::serial(3)) back(0, i) = s.pop();
      });
      A::ODR([&] {
        for (auto i : A::serial(3)) back(1, i) = s.pop();
      });
    });
    A::output(both);
    A::output(back);
  }
  const auto r = ax::compiler::compile(mod.ir().main());
  std::vector<uint64_t> odr;
  for (const auto& s : r.program.steps)
    if (const auto* t = std::get_if<ax::compiler::Task>(&s); t && t->queue == ax::spec::Queue::DWPU)
      odr.push_back(t->odr_elems);
  EXPECT_EQ(odr, (std::vector<uint64_t>{3, 3, 3, 3}));
  auto xa = pseudo<float>({3, 64}, 21, -50, 50);
  auto xb = pseudo<float>({3, 64}, 22, -50, 50);
  const auto res = ax::runtime::make_backend("fsim")->run(r.bundle, {{"a", xa}, {"b", xb}}, {});
  const auto& both = std::get<NDArray<float>>(res.outputs.at("both"));
  const auto& back = std::get<NDArray<float>>(res.outputs.at("back"));
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t l = 0; l < 64; ++l) {
      const float v = i < 3 ? xa({i, l}) : xb({i - 3, l});
      ASSERT_EQ(both({i, l}), v) << i << "," << l;
      ASSERT_EQ(back({i / 3, (i % 3) * 64 + l}), both({5 - i, l})) << i << "," << l;
    }
}
