// The YAML front end: the example models compile and run on fsim bit-exact with their
// references; malformed models are refused at the right line:column with a useful message.
#include <axcore/compiler/frontend/model.hpp>
#include <axcore/ref/npy.hpp>
#include <filesystem>
#include <set>

#include "../ops/harness.hpp"

namespace {

using namespace axtest;
namespace fe = axcore::compiler::frontend;

const std::filesystem::path kModels = AXCORE_EXAMPLE_MODELS;

fe::Model parse(const std::string& text) {
  return fe::parse_model(text, "model.yaml", std::filesystem::temp_directory_path());
}

// The error a model text raises: message and where.
axcore::compiler::CompileError parse_error(const std::string& text) {
  return compile_error([&] { (void)parse(text); });
}

class ExampleModel : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleModel, CompilesAndMatchesItsReferenceOnFsim) {
  const fe::Model m = fe::load_model(kModels / (GetParam() + ".yaml"));
  EXPECT_EQ(m.name, GetParam());
  const auto b = axcore::compiler::compile(m.module.ir().main()).bundle;
  const RunOutputs r = expect_matches_reference(m.module, random_inputs(b, 42, -128, 127));
  // The references are not degenerate: every output takes many distinct values.
  for (const auto& [name, arr] : r.reference.outputs) {
    const auto bytes = rt::array_bytes(arr);
    const std::size_t lane = axcore::num::lane_bytes(rt::dtype_of(arr));
    std::set<uint64_t> distinct;
    for (std::size_t i = 0; i + lane <= bytes.size() && distinct.size() < 16; i += lane) {
      uint64_t v = 0;
      std::memcpy(&v, &bytes[i], lane);
      distinct.insert(v);
    }
    EXPECT_GE(distinct.size(), 16u) << name << " is nearly constant: the model's scales lose the signal";
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleModel,
                         ::testing::Values("mlp", "cnn", "attention", "self_attention", "vit_patch_embed",
                                           "resident_linear"));

// The full-size models compiled for firmware/fpga/small.yaml's 256 KiB of L1 (with every buffer
// resident they need 445 696 (mlp), 374 016 (cnn) and 336 384 (vit_patch_embed) bytes): the
// placement keeps only the live buffers in L1, and the MLP's first linear streams its 256 KiB
// weight in two chunks. Run on the normal device, bit-exact with the reference.
class ExampleModelSmallL1 : public ::testing::TestWithParam<std::string> {};
TEST_P(ExampleModelSmallL1, FitsAndMatchesItsReferenceOnFsim) {
  constexpr uint64_t kL1 = 256 * 1024;
  const fe::Model m = fe::load_model(kModels / (GetParam() + ".yaml"), axcore::compiler::ops::Target{kL1});
  axcore::compiler::TilingOptions t;
  t.l1_bytes = kL1;
  const auto c = axcore::compiler::compile(m.module.ir().main(), {}, t);
  EXPECT_LE(uint64_t{c.program.l1_rows_used.at(0)} * 64, kL1);
  std::size_t streamed = 0;
  for (const auto& s : c.program.steps)
    if (const auto* x = std::get_if<axcore::compiler::Transfer>(&s))
      streamed += x->name.find("_l1") != std::string::npos;
  EXPECT_EQ(streamed, GetParam() == "mlp" ? 2u : 0u) << axcore::compiler::explain(c.program);
  std::printf("%s at %llu bytes of L1: %u rows (%u bytes) used\n", GetParam().c_str(),
              static_cast<unsigned long long>(kL1), c.program.l1_rows_used.at(0), c.program.l1_rows_used.at(0) * 64);
  (void)expect_matches_reference(m.module, random_inputs(c.bundle, 42, -128, 127), t);
}
INSTANTIATE_TEST_SUITE_P(Examples, ExampleModelSmallL1,
                         ::testing::Values("mlp", "cnn", "attention", "self_attention", "vit_patch_embed"));

TEST(Frontend, LinearWhoseInputAndResultFillTheL1BudgetIsRefused) {
  const auto e = compile_error([&] {
    (void)fe::parse_model(
        "inputs:\n  - {name: x, shape: [256, 512], dtype: int8}\nconstants:\n"
        "  - {name: w, shape: [512, 512], dtype: int8, init: {seed: 1, low: -4, high: 4}}\n"
        "ops:\n  - {op: core.linear, input: x, weight: w, out: y}\noutputs: [y]\n",
        "model.yaml", ".", axcore::compiler::ops::Target{512 * 1024});
  });
  EXPECT_EQ(e.loc().line, 6u);
  EXPECT_NE(e.message().find("core.linear: the input (131072 bytes) and the result (524288 bytes) leave less of the "
                             "524288-byte L1 budget"),
            std::string::npos)
      << e.message();
}

TEST(Frontend, UnknownKeyPointsAtTheKey) {
  const auto e =
      parse_error("inputs:\n  - {name: x, shape: [4, 64], dtype: int8, layout: nhwc}\nops: []\noutputs: [x]\n");
  EXPECT_EQ(e.loc().line, 2u);
  EXPECT_EQ(e.loc().column, 44u);
  EXPECT_NE(e.message().find("unknown key 'layout' in an input"), std::string::npos) << e.message();
  EXPECT_NE(e.hint().find("name, shape, dtype"), std::string::npos);
}

TEST(Frontend, UndefinedTensorNamesTheKnownOnes) {
  const auto e = parse_error(
      "inputs:\n  - {name: x, shape: [4, 64], dtype: float32}\nops:\n  - {op: relu, input: xx, out: y}\noutputs: "
      "[y]\n");
  EXPECT_EQ(e.loc().line, 4u);
  EXPECT_EQ(e.loc().column, 23u);  // the 'xx'
  EXPECT_NE(e.message().find("'xx' is not defined"), std::string::npos);
  EXPECT_NE(e.hint().find("x"), std::string::npos);
}

TEST(Frontend, PackedAxisMustBeAMultipleOf64) {
  const auto e = parse_error("inputs:\n  - {name: x, shape: [4, 100], dtype: int8}\nops: []\noutputs: [x]\n");
  EXPECT_EQ(e.loc().line, 2u);
  EXPECT_NE(e.message().find("multiple of 64"), std::string::npos);
  EXPECT_NE(e.hint().find("pad it to 128"), std::string::npos);
}

TEST(Frontend, OperatorRefusalPointsAtTheOpLine) {
  const auto e = parse_error(
      "inputs:\n  - {name: x, shape: [8, 8, 64], dtype: int8}\nconstants:\n  - {name: w, shape: [3, 3, 64], dtype: "
      "int8, init: {seed: 1}}\n"
      "ops:\n  - {op: core.dw_convolution_2d, input: x, weight: w, padding: [1, 1], out: y}\noutputs: [y]\n");
  EXPECT_EQ(e.loc().line, 6u);
  EXPECT_EQ(e.loc().column, 5u);
  EXPECT_NE(e.message().find("core.dw_convolution_2d: argument 'padding': must be zero"), std::string::npos)
      << e.message();
}

TEST(Frontend, WrongArgumentKindAndUnknownOperator) {
  auto e = parse_error(
      "inputs:\n  - {name: x, shape: [4, 64], dtype: float32}\nops:\n  - {op: quantize, input: x, scale: big, out: "
      "y}\noutputs: [y]\n");
  EXPECT_EQ(e.loc().line, 4u);
  EXPECT_NE(e.message().find("'scale' must be a number, got 'big'"), std::string::npos) << e.message();
  e = parse_error(
      "inputs:\n  - {name: x, shape: [4, 64], dtype: float32}\nops:\n  - {op: frobnicate, input: x, out: y}\noutputs: "
      "[y]\n");
  EXPECT_EQ(e.loc().line, 4u);
  EXPECT_EQ(e.loc().column, 10u);  // the operator's name
  EXPECT_NE(e.message().find("no operator 'frobnicate'"), std::string::npos);
}

TEST(Frontend, InvalidYamlAndDuplicateNames) {
  auto e = parse_error("inputs: [\n  {name: x\n");
  EXPECT_GT(e.loc().line, 0u);
  EXPECT_NE(e.message().find("not valid YAML"), std::string::npos);
  e = parse_error(
      "inputs:\n  - {name: x, shape: [4, 64], dtype: float32}\nops:\n  - {op: relu, input: x, out: x}\noutputs: [x]\n");
  EXPECT_EQ(e.loc().line, 4u);
  EXPECT_NE(e.message().find("'x' is defined twice"), std::string::npos);
}

// A reshape view as the output: the program writes the viewed result in place and the bundle
// names it as the view, with the view's shape (fsim equals the ref backend's reshape of it).
TEST(Frontend, OutputThatIsAViewIsTheViewedResultUnderTheViewsName) {
  const auto m = parse(
      "inputs:\n  - {name: x, shape: [4, 128], dtype: float32}\nops:\n  - {op: relu, input: x, out: r}\n"
      "  - {op: reshape, input: r, shape: [8, 64], out: v}\noutputs: [v]\n");
  const auto b = axcore::compiler::compile(m.module.ir().main()).bundle;
  const RunOutputs r = expect_matches_reference(m.module, random_inputs(b, 5, -50, 50));
  ASSERT_EQ(r.device.outputs.count("v"), 1u);
  EXPECT_EQ(rt::shape_of(r.device.outputs.at("v")), (std::vector<uint64_t>{8, 64}));
  EXPECT_EQ(r.device.outputs.size(), 1u);
}

TEST(Frontend, OutputsSharingStorageOrViewingAnInputAreRefused) {
  auto e = parse_error(
      "inputs:\n  - {name: x, shape: [4, 128], dtype: float32}\nops:\n  - {op: relu, input: x, out: r}\n"
      "  - {op: reshape, input: r, shape: [8, 64], out: v}\noutputs: [r, v]\n");
  EXPECT_EQ(e.loc().line, 6u);
  EXPECT_NE(e.message().find("v and r share storage"), std::string::npos) << e.message();
  e = parse_error(
      "inputs:\n  - {name: x, shape: [4, 128], dtype: float32}\nops:\n"
      "  - {op: reshape, input: x, shape: [8, 64], out: v}\noutputs: [v]\n");
  EXPECT_EQ(e.loc().line, 5u);
  EXPECT_NE(e.message().find("is a model input"), std::string::npos) << e.message();
}

TEST(Frontend, NpyConstantAndPositionalArguments) {
  const auto dir = std::filesystem::temp_directory_path() / "axcore_frontend_test";
  std::filesystem::create_directories(dir);
  NDArray<float> b({64});
  for (std::size_t i = 0; i < 64; ++i) b.data()[i] = static_cast<float>(i) * 0.5f - 3.0f;
  axcore::ref::save_npy((dir / "b.npy").string(), b);
  const std::string text =
      "name: npy\ninputs:\n  - {name: x, shape: [3, 64], dtype: float32}\nconstants:\n  - {name: b, file: b.npy}\n"
      "ops:\n  - {op: add, args: [x, b], out: y}\noutputs: [y]\n";
  const fe::Model m = fe::parse_model(text, "npy.yaml", dir);
  ASSERT_EQ(m.constants, std::vector<std::string>{"b"});
  const auto c = axcore::compiler::compile(m.module.ir().main());
  NDArray<float> x({3, 64});
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(i);
  const RunOutputs r = expect_matches_reference(m.module, {{"x", x}});
  const auto& y = std::get<NDArray<float>>(r.device.outputs.at("y"));
  EXPECT_EQ(y({1, 5}), 64.0f + 5.0f + (5 * 0.5f - 3.0f));  // small integers and halves: exact in float18
  auto e = compile_error([&] {
    (void)fe::parse_model("inputs: []\nconstants:\n  - {name: w, file: missing.npy}\nops: []\noutputs: [w]\n", "m.yaml",
                          dir);
  });
  EXPECT_EQ(e.loc().line, 3u);
  EXPECT_NE(e.message().find("cannot load"), std::string::npos) << e.message();
}

TEST(Frontend, L1OverflowPointsAtTheOperatorThatDoesNotFit) {
  const fe::Model m = parse(
      "inputs:\n  - {name: x, shape: [128, 4096], dtype: int8}\nops:\n  - {op: dpu_cast, input: x, dtype: float32, "
      "out: y}\noutputs: [y]\n");
  const auto e = compile_error([&] { (void)axcore::compiler::compile(m.module.ir().main()); });
  EXPECT_EQ(e.loc().file, "model.yaml");
  EXPECT_EQ(e.loc().line, 4u);
  EXPECT_NE(e.message().find("bytes of L1 (y is the first that does not fit)"), std::string::npos) << e.message();
}

TEST(Frontend, SeededInitIsReproducibleAndInRange) {
  const auto a = fe::seeded_values(1000, 7, -8, 8, true), b = fe::seeded_values(1000, 7, -8, 8, true);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, fe::seeded_values(1000, 8, -8, 8, true));
  std::set<double> seen(a.begin(), a.end());
  EXPECT_EQ(seen.size(), 17u);  // every integer of -8..8 appears
  EXPECT_EQ(*seen.begin(), -8.0);
  EXPECT_EQ(*seen.rbegin(), 8.0);
  for (double v : fe::seeded_values(1000, 3, 0.5, 1.5, false)) {
    EXPECT_GE(v, 0.5);
    EXPECT_LT(v, 1.5);
  }
}

}  // namespace
