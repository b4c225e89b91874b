// Operator refusals: each names the operator, the argument and the limit, and points at the
// caller's line (the std::source_location of the ops::invoke call).
#include "harness.hpp"

namespace {

using namespace axtest;
using ops::invoke;

std::vector<int64_t> packed(std::vector<int64_t> s) {
  s.back() /= 64;
  return s;
}
ops::Tensor in(A::Func& f, const std::string& n, const std::vector<int64_t>& s, const std::string& dt) {
  return f.input(n, packed(s), dt, A::DDR);
}
ops::Tensor cst(const std::string& n, const std::vector<int64_t>& s, const std::string& dt) {
  std::size_t c = 1;
  for (auto d : s) c *= static_cast<std::size_t>(d);
  return A::alloc_constant(std::vector<double>(c, 1.0), dt, A::DDR, packed(s), n);
}
using Ints = std::vector<int64_t>;
std::string S(const char* s) { return s; }

// `body` sets `line` on the line of its failing invoke; expects the error there with every fragment.
void refused(const std::function<void(A::Func&, uint32_t&)>& body, const std::vector<std::string>& fragments) {
  uint32_t line = 0;
  const auto e = compile_error([&] { (void)module_of([&](A::Func& f) { body(f, line); }); });
  EXPECT_EQ(e.loc().line, line) << e.what();
  EXPECT_NE(e.loc().file.find("ops_validate_test.cpp"), std::string::npos) << e.loc().str();
  for (const auto& fr : fragments)
    EXPECT_NE(std::string(e.what()).find(fr), std::string::npos) << "missing '" << fr << "' in: " << e.what();
}

// Line-sensitive: each refusal stays on the line its __LINE__ names, so the formatter leaves these alone.
// clang-format off
TEST(OpsValidate, LinearLimits) {
  refused([](A::Func&, uint32_t& l) { l = __LINE__; invoke("atomic.load_imc", {cst("w", {64 * 129, 64}, "int8x64")}); },
          {"atomic.load_imc: argument 'weight'", "129 IMC tiles", "holds 128 (imc_tiles)"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.linear", {in(f, "x", {2, 64 * 129}, "int8x64"), cst("w", {64 * 129, 64}, "int8x64")}, {{"activation", S("relu")}}); },
          {"core.linear: argument 'activation'", "exceeds one residency (8192)", "only a bias distributes"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.linear", {in(f, "x", {2, 128}, "int8x64"), cst("w", {128, 64}, "int8x64")}, {{"bias", cst("b", {128}, "float32x64")}}); },
          {"argument 'bias'", "one value per output column is (64,)"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.linear", {in(f, "x", {2, 128}, "int8x64"), cst("w", {128, 64}, "int8x64")}, {{"activation", S("gelu")}}); },
          {"argument 'activation'", "'gelu' is not none or relu"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.linear", {in(f, "x", {2, 192}, "int8x64"), cst("w", {128, 64}, "int8x64")}); },
          {"argument 'input'", "K = 192", "K = 128"});
  // An input weight is repacked on the device (issue 24); its out_features still become the packed axis.
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("aten.linear", {in(f, "x", {2, 128}, "int8x64"), in(f, "w", {96, 128}, "int8x64")}); },
          {"aten.linear: argument 'weight'", "out_features 96 must be a multiple of 64"});
  refused([](A::Func&, uint32_t& l) { l = __LINE__; invoke("atomic.load_imc", {cst("w", {64 * 12, 64 * 11}, "int8x64")}); },
          {"needs 132 IMC tiles", "core.linear splits"});
}

TEST(OpsValidate, ConvolutionAndDepthwiseWindows) {
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.convolution", {in(f, "x", {8, 8, 64}, "int8x64"), cst("w", {3, 3, 64, 64}, "int8x64")}, {{"padding", Ints{3}}}); },
          {"argument 'padding'", "exceeds dilation * (kernel - 1) = 2"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.convolution", {in(f, "x", {1, 1, 64}, "int8x64"), cst("w", {3, 3, 64, 64}, "int8x64")}, {{"padding", Ints{1}}}); },
          {"argument 'weight'", "first window's last tap along H", "= 1) lies past the input's last index 0"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.convolution", {in(f, "x", {8, 8, 64}, "int8x64"), cst("w", {3, 3, 128, 64}, "int8x64")}); },
          {"argument 'weight'", "C_in 128", "the input has C_in 64"});
  // A window beyond one residency (3 x 3 x 1024 = 144 tiles) runs in K passes of kernel rows: no padding, no relu,
  // and a kernel row must fit one residency.
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.convolution", {in(f, "x", {8, 8, 1024}, "int8x64"), in(f, "w", {3, 3, 1024, 64}, "int8x64")}, {{"padding", Ints{1}}}); },
          {"argument 'padding'", "split into 2 K passes, which take no padding"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.convolution", {in(f, "x", {8, 8, 1024}, "int8x64"), in(f, "w", {3, 3, 1024, 64}, "int8x64")}, {{"activation", S("relu")}}); },
          {"argument 'activation'", "only a bias distributes over the partial sums"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.convolution", {in(f, "x", {8, 8, 64 * 65}, "int8x64"), in(f, "w", {2, 2, 64 * 65, 64}, "int8x64")}); },
          {"argument 'weight'", "one kernel row is KW*C_in/64 = 130 IMC tiles"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("aten.convolution", {in(f, "x", {8, 8, 128}, "int8x64"), in(f, "w", {2, 3, 3, 192}, "int8x64")}); },
          {"aten.convolution: argument 'weight'", "3 PWORDs on its last axis", "C_in 128"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.dw_convolution_2d", {in(f, "x", {8, 8, 64}, "int8x64"), cst("w", {3, 3, 64}, "int8x64")}, {{"padding", Ints{1}}}); },
          {"argument 'padding'", "must be zero in every depthwise operator (guide §6.3)"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.dwpu_pool", {in(f, "x", {16, 16, 64}, "int8x64"), S("MAX"), Ints{9, 9}}); },
          {"argument 'kernel'", "81 taps", "at most 64 (dwpu_max_taps)"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.dwpu_pool", {in(f, "x", {8, 8, 64}, "int8x64"), S("MAX"), Ints{2, 2}}, {{"divisor_override", int64_t{3}}}); },
          {"argument 'divisor_override'", "AVERAGE only"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.dwpu_pool", {in(f, "x", {8, 8, 64}, "int8x64"), S("MEDIAN"), Ints{2, 2}}); },
          {"argument 'pool_type'", "'MEDIAN' is not MAX, MIN, SUM or AVERAGE"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.dw_convolution_2d", {in(f, "x", {8, 8, 512}, "int8x64"), cst("w", {7, 7, 512}, "int8x64")}); },
          {"argument 'weight'", "392 PWORDs", "holds 256 (dwpu_weight_pwords)"});
  // The guide's layout (C_BLOCKS, KH, KW, 1): one PWORD per tap, and as many channel blocks as the input.
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.dw_convolution_2d", {in(f, "x", {8, 8, 64}, "int8x64"), in(f, "w", {1, 3, 3, 128}, "int8x64")}); },
          {"argument 'weight'", "holds one PWORD per tap, so it is 1"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.dw_convolution_2d", {in(f, "x", {8, 8, 64}, "int8x64"), in(f, "w", {2, 3, 3, 64}, "int8x64")}); },
          {"argument 'weight'", "has 128 channels, the input 64"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("core.dw_convolution_2d", {in(f, "x", {8, 8, 64}, "int8x64"), in(f, "w", {3, 3, 64}, "int8x64")}); },
          {"argument 'weight'", "is not a constant"});
}

TEST(OpsValidate, MovementKeepsThePackedAxis) {
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("permute", {in(f, "x", {4, 2, 64}, "int8x64"), Ints{0, 2, 1}}); },
          {"argument 'dims'", "makes axis 1 (extent 2) the PWORD-packed last axis", "multiple of 64"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("slice_tensor", {in(f, "x", {4, 256}, "int8x64")}, {{"dim", int64_t{1}}, {"start", int64_t{32}}}); },
          {"argument 'start'", "whole PWORDs"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("reshape", {in(f, "x", {4, 128}, "int8x64"), Ints{16, 32}}); },
          {"argument 'shape'", "multiple of 64"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("concat", {std::vector<ops::Tensor>{in(f, "x", {4, 128}, "int8x64"), in(f, "y", {3, 64}, "int8x64")}}); },
          {"argument 'tensors'", "does not match", "off dim 0"});
}

TEST(OpsValidate, ElementwiseAndRowReductions) {
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("add", {in(f, "x", {4, 128}, "float32x64"), cst("c", {64}, "float32x64")}); },
          {"argument 'other'", "does not broadcast", "per-channel operands have the channel count"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("add", {in(f, "x", {4, 128}, "float32x64")}); },
          {"give exactly one of `other` (a tensor) and `value` (a scalar)"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("quantize", {in(f, "x", {4, 128}, "float32x64"), 0.0}); },
          {"argument 'scale'", "must be > 0"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("softmax", {in(f, "x", {2, 64 * 25}, "float32x64")}); },
          {"argument 'input'", "25 PWORDs", "holds 24"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("layer_norm", {in(f, "x", {2, 576}, "float32x64"), cst("g", {576}, "float32x64"), cst("b", {576}, "float32x64")}); },
          {"argument 'input'", "needs 35 DPU registers", "the DPU has 32"});
  refused([](A::Func&, uint32_t& l) { l = __LINE__; invoke("full", {Ints{4, 64}, 300.0}, {{"dtype", S("int8")}}); },
          {"argument 'value'", "-128..127"});
}

TEST(OpsValidate, Binding) {
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("relu", {in(f, "x", {4, 64}, "float32x64")}, {{"alpha", 1.0}}); },
          {"aten.relu has no argument 'alpha'", "its arguments are: input"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("quantize", {in(f, "x", {4, 64}, "float32x64"), S("big")}); },
          {"argument 'scale'", "takes float, got a string"});
  refused([](A::Func&, uint32_t& l) { l = __LINE__; invoke("core.linear", {}); }, {"argument 'input'", "is required"});
  refused([](A::Func&, uint32_t& l) { l = __LINE__; invoke("frobnicate", {}); }, {"no operator 'frobnicate'"});
  refused([](A::Func& f, uint32_t& l) { l = __LINE__; invoke("relu", {in(f, "x", {4, 64}, "int32x64")}); },
          {"argument 'input'", "is int32x64; the operator takes int8x64, float16x64, float32x64"});
}

TEST(OpsValidate, ChainedLutTablesAreConsecutiveRegisters) {
  auto e = compile_error([] {
    (void)module_of([](A::Func& f) {
      auto x = f.input("x", {1}, "float32x64");
      auto y = A::alloc_buffer({1}, "float32x64");
      A::Datapath([&] {
        auto s = A::decl_stream("float32x64");
        auto o = A::decl_stream("float32x64");
        A::IFD(0, [&] { s.push(x(0)); });
        A::DPU([&] {
          auto t = A::array("float18x64", 4, "tables");
          auto v = A::var("float18x64", "v");
          v = A::cast(s.pop(), "float18x64");
          v = A::dpu::lut(v, t[2], 3);
          o.push(A::cast(v, "float32x64"));
        });
        A::ODR([&] { y(0) = o.pop(); });
      });
    });
  });
  EXPECT_NE(std::string(e.what()).find("the chain tables[2 .. 4] runs past its size 4"), std::string::npos) << e.what();
  e = compile_error([] {
    (void)module_of([](A::Func&) {
      A::Datapath([&] { A::DPU([&] { auto v = A::var("float18x64", "v"); v = A::dpu::lut(v, v, 9); }); });
    });
  });
  EXPECT_NE(std::string(e.what()).find("chains 1..8 tables (lut_max_chain), not 9"), std::string::npos) << e.what();
}

TEST(OpsValidate, RegistryListsEveryLevel) {
  int levels[3] = {0, 0, 0};
  for (const auto& op : ops::registry()) {
    ++levels[static_cast<int>(op.level)];
    EXPECT_EQ(op.name.substr(0, op.name.find('.')), ops::to_string(op.level)) << op.name;
    EXPECT_TRUE(op.compose || (op.infer_output && op.implementation && op.emulate)) << op.name << " lacks a part";
  }
  EXPECT_GE(levels[0], 14);
  EXPECT_GE(levels[1], 6);
  EXPECT_GE(levels[2], 15);
  EXPECT_NE(ops::describe_ops().find("core.linear — "), std::string::npos);
  EXPECT_EQ(ops::find_op("linear")->name, "aten.linear");  // bare names resolve aten -> core -> atomic
  EXPECT_EQ(ops::find_op("copy")->name, "atomic.copy");
}

// clang-format on
}  // namespace
