// Every operator compiled and run on the functional device (fsim: the emitted descriptors
// through the runtime's register path and the common/ref unit models), compared bit for bit with
// its reference (the graph nodes it records, run by the ref backend through common/ref).
#include <axcore/ref/op/matmul.hpp>

#include "harness.hpp"

namespace {

using namespace axtest;
using ops::invoke;

std::vector<double> values(std::size_t n, uint32_t seed, double lo, double hi, bool ints) {
  std::vector<double> v(n);
  uint32_t s = seed * 747796405u + 2891336453u;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    const double u = (s >> 8) / 16777216.0;
    x = ints ? std::floor(lo + (hi - lo + 1) * u) : static_cast<double>(static_cast<float>(lo + (hi - lo) * u));
  }
  return v;
}
std::size_t count(const std::vector<int64_t>& s) {
  std::size_t n = 1;
  for (auto d : s) n *= static_cast<std::size_t>(d);
  return n;
}
std::vector<int64_t> packed(std::vector<int64_t> s) {
  s.back() /= 64;
  return s;
}
// A constant with a logical shape.
A::BufferHandle weight(const std::string& name, const std::vector<int64_t>& logical, uint32_t seed, double lo = -8,
                       double hi = 8) {
  return A::alloc_constant(values(count(logical), seed, lo, hi, true), "int8x64", A::DDR, packed(logical), name);
}
A::BufferHandle floats(const std::string& name, const std::vector<int64_t>& logical, uint32_t seed, double lo = -2,
                       double hi = 2) {
  return A::alloc_constant(values(count(logical), seed, lo, hi, false), "float32x64", A::DDR, packed(logical), name);
}
A::BufferHandle input(A::Func& f, const std::string& name, const std::vector<int64_t>& logical, const std::string& dt) {
  return f.input(name, packed(logical), dt, A::DDR);
}
std::string S(const char* s) { return s; }

void check(const std::function<void(A::Func&)>& body, uint32_t seed = 1, double lo = -100, double hi = 100) {
  const A::Module m = module_of(body);
  const auto b = axcore::compiler::compile(m.ir().main()).bundle;
  expect_matches_reference(m, random_inputs(b, seed, lo, hi));
}

TEST(OpsFsim, CopyEveryDtype) {
  for (const char* dt : {"int8x64", "float16x64", "float32x64"})
    check([&](A::Func& f) { A::output(invoke("copy", {input(f, "x", {3, 5, 128}, dt)})); });
}

TEST(OpsFsim, FullInt8AndFloat) {
  check([](A::Func&) { A::output(invoke("full", {std::vector<int64_t>{4, 128}, -7.0}, {{"dtype", S("int8")}})); });
  check([](A::Func&) { A::output(invoke("full", {std::vector<int64_t>{2, 3, 64}, 0.375})); });
}

TEST(OpsFsim, PermuteAndTransposeKeepThePackedAxis) {
  check([](A::Func& f) {
    A::output(invoke("permute", {input(f, "x", {4, 3, 2, 128}, "int8x64"), std::vector<int64_t>{2, 0, 1, 3}}));
  });
  check([](A::Func& f) {
    A::output(invoke("transpose", {input(f, "x", {5, 3, 64}, "float32x64"), int64_t{0}, int64_t{1}}));
  });
}

// Moving the packed axis goes through the DWPU ODR's lane transpose (A.vtrsp): NCHW -> NHWC,
// a swap of the last two axes for each input dtype, a permute with the old packed axis in the middle.
TEST(OpsFsim, PermuteAndTransposeMoveThePackedAxis) {
  check([](A::Func& f) {
    A::output(invoke("permute", {input(f, "x", {1, 64, 5, 128}, "int8x64"), std::vector<int64_t>{0, 2, 3, 1}}));
  });
  for (const char* dt : {"int8x64", "float16x64", "float32x64"})  // (the harness makes no int32 inputs)
    check([&](A::Func& f) {
      A::output(invoke("transpose", {input(f, "x", {2, 128, 192}, dt), int64_t{1}, int64_t{2}}));
    });
  check([](A::Func& f) {
    A::output(invoke("permute", {input(f, "x", {64, 3, 128}, "float32x64"), std::vector<int64_t>{2, 1, 0}}));
  });
  // the guide's names: axol.atomic.vector_transpose, axol.core.transpose(x, dims=...)
  check([](A::Func& f) { A::output(invoke("atomic.vector_transpose", {input(f, "x", {3, 64, 128}, "int8x64")})); });
  check([](A::Func& f) {
    A::output(invoke("core.transpose", {input(f, "x", {128, 2, 64}, "float16x64")},
                     {{"dims", std::vector<int64_t>{1, 2, 0}}}));
  });
}

TEST(OpsFsim, SliceAlongAnAxisAndAlongThePackedAxis) {
  check([](A::Func& f) {
    A::output(invoke("slice_tensor", {input(f, "x", {9, 128}, "float32x64")},
                     {{"dim", int64_t{0}}, {"start", int64_t{1}}, {"end", int64_t{8}}, {"step", int64_t{3}}}));
  });
  check([](A::Func& f) {
    A::output(invoke("slice_tensor", {input(f, "x", {2, 256}, "int8x64")},
                     {{"dim", int64_t{-1}}, {"start", int64_t{64}}, {"end", int64_t{192}}}));
  });
}

TEST(OpsFsim, ReshapeIsAViewThenConcat) {
  check([](A::Func& f) {
    auto v = invoke("reshape", {input(f, "x", {4, 2, 128}, "int8x64"), std::vector<int64_t>{8, -1}});
    A::output(
        invoke("concat", {std::vector<ops::Tensor>{v, input(f, "y", {3, 128}, "int8x64")}}, {{"dim", int64_t{0}}}));
  });
  check([](A::Func& f) {
    A::output(
        invoke("concat",
               {std::vector<ops::Tensor>{input(f, "x", {3, 64}, "float32x64"), input(f, "y", {3, 128}, "float32x64")}},
               {{"dim", int64_t{1}}}));
  });
}

TEST(OpsFsim, DpuCastRoundsThroughFloat18AndSaturates) {
  check(
      [](A::Func& f) {
        A::output(invoke("dpu_cast", {input(f, "x", {6, 128}, "float32x64"), S("int8")}));
      },
      3, -300, 300);
  check([](A::Func& f) { A::output(invoke("dpu_cast", {input(f, "x", {6, 64}, "int8x64"), S("float16")})); });
}

TEST(OpsFsim, QuantizeAndDequantize) {
  check(
      [](A::Func& f) {
        A::output(invoke("quantize", {input(f, "x", {4, 128}, "float32x64"), 0.37, 3.0}));
      },
      5, -40, 40);
  check([](A::Func& f) { A::output(invoke("dequantize", {input(f, "q", {4, 128}, "int8x64"), 0.05, -2.0})); });
}

TEST(OpsFsim, BinaryOpsWithPerChannelBroadcastAndScalars) {
  for (const char* op : {"add", "sub", "mul", "prelu"}) {
    check([&](A::Func& f) {
      A::output(invoke(op, {input(f, "x", {3, 4, 128}, "float32x64"), floats("c", {128}, 9)}));
    });
    check([&](A::Func& f) {
      A::output(invoke(op, {input(f, "x", {5, 64}, "int8x64"), input(f, "y", {5, 64}, "float32x64")}));
    });
    check([&](A::Func& f) { A::output(invoke(op, {input(f, "x", {2, 64}, "float32x64")}, {{"value", 0.75}})); });
  }
}

TEST(OpsFsim, Relu) {
  check([](A::Func& f) { A::output(invoke("relu", {input(f, "x", {7, 192}, "float32x64")})); });
}

TEST(OpsFsim, LoadImcThenMatmul) {
  check(
      [](A::Func& f) {
        auto imc = invoke("load_imc", {weight("w", {128, 192}, 4)});
        A::output(invoke("matmul", {input(f, "x", {5, 128}, "int8x64"), imc}));
      },
      2, -128, 127);
}

TEST(OpsFsim, LinearWithScaleBiasRelu) {
  check(
      [](A::Func& f) {
        A::output(invoke("core.linear", {input(f, "x", {6, 256}, "int8x64"), weight("w", {256, 128}, 5)},
                         {{"bias", floats("b", {128}, 6, -500, 500)}, {"scale", 0.125}, {"activation", S("relu")}}));
      },
      3, -128, 127);
}

// Tasks of a compiled program on one core queue.
int tasks_on(const axcore::compiler::Program& p, axcore::spec::Queue q) {
  int n = 0;
  for (const auto& s : p.steps)
    if (const auto* t = std::get_if<axcore::compiler::Task>(&s)) n += t->queue == q;
  return n;
}

TEST(OpsFsim, LinearSplitsNAcrossResidencies) {
  // K = 4096 is 64 tiles per output block: two blocks per residency, three blocks in two chunks.
  const auto r = [] {
    A::Module m = module_of([](A::Func& f) {
      A::output(invoke("core.linear", {input(f, "x", {2, 4096}, "int8x64"), weight("w", {4096, 192}, 7, -2, 2)},
                       {{"bias", floats("b", {192}, 8)}}));
    });
    return m;
  }();
  const auto b = axcore::compiler::compile(r.ir().main());
  const int loads = tasks_on(b.program, axcore::spec::Queue::LOADIMC);
  EXPECT_EQ(loads, 16);  // two chunks, each weight chunk made resident in 8 groups of K blocks (load_streamed)
  expect_matches_reference(r, random_inputs(b.bundle, 4, -128, 127));
}

TEST(OpsFsim, LinearInColumnChunksReadsItsEpilogueSegment) {
  // A constant weight in column chunks (docs/compiler.md): N = 448 is 7 output blocks, cut 2 + 2 +
  // 2 + 1 by the cost model, each chunk's scale read from its own segment of one epilogue constant
  // (no bias: the segments are 1 block each, the last chunk's too).
  const A::Module m = module_of([](A::Func& f) {
    A::output(
        invoke("core.linear", {input(f, "x", {128, 256}, "int8x64"), weight("w", {256, 448}, 31)}, {{"scale", 0.25}}));
  });
  const auto r = axcore::compiler::compile(m.ir().main());
  const int mvmexe = tasks_on(r.program, axcore::spec::Queue::MVMEXE);
  EXPECT_EQ(mvmexe, 4);
  expect_matches_reference(m, random_inputs(r.bundle, 17, -128, 127));
}

// Weights as inputs (issue 24), through the C++ builder: aten.linear's (out, in) and
// aten.convolution's OHWI repacked on the device (atomic.permute through A.vtrsp), the guide's
// blocked (C_out/64, KH, KW, C_in) loaded as it is. The blocked window of 4 x 4 x 576 = 144 tiles
// exceeds a residency: two K passes (3 + 1 kernel rows) per output block, float18 partial sums.
TEST(OpsFsim, AtenWeightsAsInputs) {
  check([](A::Func& f) {
    A::output(invoke("aten.linear", {input(f, "x", {4, 128}, "int8x64"), input(f, "w", {192, 128}, "int8x64")}));
  });
  check([](A::Func& f) {
    A::output(invoke("aten.convolution",
                     {input(f, "x", {6, 6, 64}, "int8x64"), input(f, "w", {128, 3, 3, 64}, "int8x64")},
                     {{"stride", std::vector<int64_t>{1, 1}}}));
  });
  const A::Module m = module_of([](A::Func& f) {
    A::output(invoke("aten.convolution",
                     {input(f, "x", {1, 9, 9, 576}, "int8x64"), input(f, "w", {2, 4, 4, 576 * 64}, "int8x64")},
                     {{"bias", floats("b", {128}, 9, -300, 300)}, {"stride", std::vector<int64_t>{2, 2}}}));
  });
  const auto r = axcore::compiler::compile(m.ir().main());
  // 2 output blocks x 2 passes, each resident in 8 groups of K blocks
  EXPECT_EQ(tasks_on(r.program, axcore::spec::Queue::LOADIMC), 2 * (8 + 8));
  expect_matches_reference(m, random_inputs(r.bundle, 11, -128, 127));
}

TEST(OpsFsim, LinearBeyondOneResidencySplitsK) {
  // K = 8320 is 130 IMC tiles per output block: split-k cuts the reduction into 128 + 2 K blocks,
  // partial sums in float18; the reference sums the same chunks the same way. (One output block:
  // the 532 KB weight must fit L1 with everything else.)
  const A::Module m = module_of([](A::Func& f) {
    A::output(invoke("core.linear", {input(f, "x", {2, 64 * 130}, "int8x64"), weight("w", {64 * 130, 64}, 23, -2, 2)},
                     {{"bias", floats("b", {64}, 24, -50, 50)}}));
  });
  const auto r = axcore::compiler::compile(m.ir().main());
  const int loads = tasks_on(r.program, axcore::spec::Queue::LOADIMC);
  EXPECT_EQ(loads, 2);
  expect_matches_reference(m, random_inputs(r.bundle, 16, -128, 127));
}

TEST(OpsFsim, LinearAgreesWithRefLinearDirectly) {
  // The same numbers computed here with common/ref, not through the recorded graph.
  A::Module m = module_of([](A::Func& f) {
    A::output(invoke("core.linear", {input(f, "x", {3, 128}, "int8x64"), weight("w", {128, 64}, 11)},
                     {{"bias", floats("b", {64}, 12)}}, "y"));
  });
  const auto r = axcore::compiler::compile(m.ir().main());
  const auto in = random_inputs(r.bundle, 5, -128, 127);
  const auto out = rt::make_backend("fsim")->run(r.bundle, in, {});
  NDArray<int8_t> w({128, 64});
  NDArray<float> bias({64});
  const auto wv = values(128 * 64, 11, -8, 8, true), bv = values(64, 12, -2, 2, false);
  for (std::size_t i = 0; i < w.size(); ++i) w.data()[i] = static_cast<int8_t>(wv[i]);
  for (std::size_t i = 0; i < bias.size(); ++i) bias.data()[i] = static_cast<float>(bv[i]);
  axcore::ref::Epilogue e;
  e.bias = bias;
  const auto want = axcore::ref::linear<float>(std::get<NDArray<int8_t>>(in.at("x")), w, e);
  const auto& got = std::get<NDArray<float>>(out.outputs.at("y"));
  ASSERT_EQ(got.shape(), want.shape());
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got.data()[i], want.data()[i]) << i;
}

TEST(OpsFsim, ConvolutionPaddedStridedDilated) {
  struct P {
    int64_t h, w, ci, co, k, s, p, d;
  };
  for (const P& p : {P{8, 8, 64, 128, 3, 1, 1, 1}, P{9, 7, 64, 64, 3, 2, 0, 2}, P{6, 6, 128, 64, 3, 1, 1, 1},
                     P{7, 7, 64, 64, 2, 2, 1, 1}}) {
    check(
        [&](A::Func& f) {
          A::output(invoke("core.convolution",
                           {input(f, "x", {p.h, p.w, p.ci}, "int8x64"), weight("w", {p.k, p.k, p.ci, p.co}, 13)},
                           {{"bias", floats("b", {p.co}, 14, -100, 100)},
                            {"stride", std::vector<int64_t>{p.s}},
                            {"padding", std::vector<int64_t>{p.p}},
                            {"dilation", std::vector<int64_t>{p.d}},
                            {"activation", S("relu")}}));
        },
        6, -128, 127);
  }
}

// A constant-weight convolution cut into column chunks computes its last chunk in two bands of
// output rows (docs/compiler.md "Copies in pieces and row bands"), equal to the reference. A padded
// walk starts at its first window's last tap, which must lie in the input: with 2 input rows and
// padding 2 the second band (output row 2) would start on input row 2, so that chunk stays one band
// (it used to be refused: "the first element x reads is outside the buffer", random models 172,
// 382, ...). Both chunked (128 output channels in 2 chunks); each band >= 256 tile-ops.
TEST(OpsFsim, ChunkedConvolutionsLastChunkRunsInTwoRowBands) {
  struct P {
    int64_t h, w, k, s, pad;
    bool bands;
  };
  for (const P& p : {P{32, 32, 4, 4, 0, true}, P{16, 16, 3, 1, 1, true}, P{2, 14, 3, 1, 2, false}}) {
    SCOPED_TRACE(p.h * 100 + p.pad);
    const A::Module m = module_of([&](A::Func& f) {
      A::output(invoke("core.convolution",
                       {input(f, "x", {p.h, p.w, 64}, "int8x64"), weight("w", {p.k, p.k, 64, 128}, 13)},
                       {{"bias", floats("b", {128}, 14, -100, 100)},
                        {"stride", std::vector<int64_t>{p.s}},
                        {"padding", std::vector<int64_t>{p.pad}}}));
    });
    const auto r = axcore::compiler::compile(m.ir().main());
    const std::string why = axcore::compiler::explain(r.program);
    EXPECT_EQ(tasks_on(r.program, axcore::spec::Queue::MVMEXE), p.bands ? 3 : 2) << why;
    EXPECT_EQ(why.find("in 2 bands of output rows") != std::string::npos, p.bands) << why;
    expect_matches_reference(m, random_inputs(r.bundle, 19, -128, 127));
  }
}

TEST(OpsFsim, DepthwiseConvolution2dAnd1d) {
  check(
      [](A::Func& f) {
        A::output(invoke("dw_convolution_2d",
                         {input(f, "x", {10, 18, 128}, "int8x64"), weight("w", {3, 3, 128}, 15, -100, 100)},
                         {{"stride", std::vector<int64_t>{1, 2}}}));
      },
      7, -128, 127);
  check(
      [](A::Func& f) {
        A::output(invoke("dw_convolution_1d", {input(f, "x", {20, 64}, "int8x64"), weight("w", {5, 64}, 16, -100, 100)},
                         {{"dilation", std::vector<int64_t>{2}}}));
      },
      8, -128, 127);
}

// The guide's weight layout (§6.3): (C_BLOCKS, KH, KW, 1) / (C_BLOCKS, K, 1), the filter an input.
TEST(OpsFsim, DepthwiseConvolutionGuideLayoutWeightAsInput) {
  check(
      [](A::Func& f) {
        A::output(invoke("dw_convolution_2d",
                         {input(f, "x", {10, 18, 128}, "int8x64"), input(f, "w", {2, 3, 3, 64}, "int8x64")},
                         {{"stride", std::vector<int64_t>{1, 2}}}));
      },
      9, -128, 127);
  check(
      [](A::Func& f) {
        A::output(invoke("dw_convolution_1d",
                         {input(f, "x", {20, 128}, "int8x64"), input(f, "w", {2, 5, 64}, "int8x64")},
                         {{"dilation", std::vector<int64_t>{2}}}));
      },
      10, -128, 127);
}

TEST(OpsFsim, PoolsMaxMinSumAverageCeilModeDivisor) {
  const std::vector<std::function<void(A::Func&)>> cases = {
      [](A::Func& f) {
        A::output(invoke("dwpu_pool", {input(f, "x", {8, 8, 128}, "int8x64"), S("MAX"), std::vector<int64_t>{2, 2}}));
      },
      [](A::Func& f) {
        A::output(invoke("dwpu_pool", {input(f, "x", {7, 9, 64}, "int8x64"), S("AVERAGE"), std::vector<int64_t>{3, 3}},
                         {{"stride", std::vector<int64_t>{2, 2}}, {"ceil_mode", true}}));
      },
      [](A::Func& f) {
        A::output(invoke("dwpu_pool", {input(f, "x", {6, 6, 64}, "int8x64"), S("AVERAGE"), std::vector<int64_t>{2, 3}},
                         {{"stride", std::vector<int64_t>{1, 1}}, {"divisor_override", int64_t{4}}}));
      },
      [](A::Func& f) {
        A::output(invoke("dwpu_pool", {input(f, "x", {5, 5, 64}, "int8x64"), S("SUM"), std::vector<int64_t>{3, 3}},
                         {{"stride", std::vector<int64_t>{1}}}));
      },
      [](A::Func& f) {
        A::output(invoke("dwpu_pool", {input(f, "x", {11, 128}, "int8x64"), S("MIN"), std::vector<int64_t>{3}},
                         {{"stride", std::vector<int64_t>{2}}, {"ceil_mode", true}}));
      },
  };
  for (const auto& c : cases) check(c, 9, -128, 127);
}

TEST(OpsFsim, SoftmaxRows) {
  check([](A::Func& f) { A::output(invoke("softmax", {input(f, "x", {5, 256}, "float32x64")})); }, 10, -8, 8);
  check([](A::Func& f) { A::output(invoke("softmax", {input(f, "x", {2, 3, 64}, "float32x64")})); }, 11, -30, 30);
}

TEST(OpsFsim, LayerNormRows) {
  check(
      [](A::Func& f) {
        A::output(invoke("layer_norm", {input(f, "x", {4, 128}, "float32x64"), floats("g", {128}, 17, 0.5, 1.5),
                                        floats("b", {128}, 18)}));
      },
      12, -3, 5);
}

TEST(OpsFsim, AtenLinearAndConvolutionTakePyTorchLayouts) {
  check(
      [](A::Func& f) {
        A::output(invoke("aten.linear", {input(f, "x", {4, 128}, "int8x64"), weight("w", {64, 128}, 19)},
                         {{"bias", floats("b", {64}, 20)}}));
      },
      13, -128, 127);
  check(
      [](A::Func& f) {
        A::output(invoke("aten.convolution", {input(f, "x", {6, 6, 64}, "int8x64"), weight("w", {64, 3, 3, 64}, 21)},
                         {{"padding", std::vector<int64_t>{1}}}));
      },
      14, -128, 127);
}

TEST(OpsFsim, AtenMaxPoolAndElementwiseForward) {
  check(
      [](A::Func& f) {
        auto p = invoke("aten.max_pool2d", {input(f, "x", {8, 8, 64}, "int8x64"), std::vector<int64_t>{2, 2}});
        A::output(invoke("aten.add_tensor", {p, floats("c", {64}, 22)}));
      },
      15, -128, 127);
}

}  // namespace

namespace {
// How close the single-table LUT softmax and layer norm come to exact math (float64), on fsim.
TEST(OpsFsimAccuracy, SoftmaxAndLayerNormAgainstFloat64) {
  const A::Module m = module_of([](A::Func& f) {
    A::output(invoke("softmax", {input(f, "x", {16, 128}, "float32x64")}, {}, "p"));
  });
  const auto r = axcore::compiler::compile(m.ir().main());
  const auto in = random_inputs(r.bundle, 21, -6, 6);
  const auto out = rt::make_backend("fsim")->run(r.bundle, in, {});
  const auto& x = std::get<NDArray<float>>(in.at("x"));
  const auto& p = std::get<NDArray<float>>(out.outputs.at("p"));
  double worst = 0, worst_sum = 0;
  for (std::size_t row = 0; row < 16; ++row) {
    double mx = -1e30, s = 0, got_sum = 0;
    for (std::size_t i = 0; i < 128; ++i) mx = std::max(mx, static_cast<double>(x({row, i})));
    for (std::size_t i = 0; i < 128; ++i) s += std::exp(x({row, i}) - mx);
    for (std::size_t i = 0; i < 128; ++i) {
      const double want = std::exp(x({row, i}) - mx) / s;
      worst = std::max(worst, std::fabs(p({row, i}) - want));
      got_sum += p({row, i});
    }
    worst_sum = std::max(worst_sum, std::fabs(got_sum - 1.0));
  }
  std::printf("softmax (16 x 128, x in [-6, 6]): max |error| %.5f, max |row sum - 1| %.4f\n", worst, worst_sum);
  EXPECT_LT(worst, 0.002);  // 8 chained exp and 1/x tables
  EXPECT_LT(worst_sum, 0.01);

  const A::Module ln = module_of([](A::Func& f) {
    auto ones = A::alloc_constant(std::vector<double>(128, 1.0), "float32x64", A::DDR, {2}, "g");
    auto zeros = A::alloc_constant(std::vector<double>(128, 0.0), "float32x64", A::DDR, {2}, "b");
    A::output(invoke("layer_norm", {input(f, "x", {16, 128}, "float32x64"), ones, zeros}, {}, "y"));
  });
  const auto rl = axcore::compiler::compile(ln.ir().main());
  const auto lin = random_inputs(rl.bundle, 22, -3, 5);
  const auto lout = rt::make_backend("fsim")->run(rl.bundle, lin, {});
  const auto& lx = std::get<NDArray<float>>(lin.at("x"));
  const auto& y = std::get<NDArray<float>>(lout.outputs.at("y"));
  double worst_ln = 0;
  for (std::size_t row = 0; row < 16; ++row) {
    double mean = 0, var = 0;
    for (std::size_t i = 0; i < 128; ++i) mean += lx({row, i}) / 128.0;
    for (std::size_t i = 0; i < 128; ++i) var += (lx({row, i}) - mean) * (lx({row, i}) - mean) / 128.0;
    for (std::size_t i = 0; i < 128; ++i)
      worst_ln = std::max(worst_ln, std::fabs(y({row, i}) - (lx({row, i}) - mean) / std::sqrt(var + 1e-5)));
  }
  std::printf("layer_norm (16 x 128, x in [-3, 5]): max |error| %.4f (outputs within about +-2)\n", worst_ln);
  EXPECT_LT(worst_ln, 0.02);  // 8 chained 1/sqrt tables
}
}  // namespace
