// Random YAML models (axrand --kind model / dwpu): legal and deterministic, compiled by the front
// end and the compiler in process and run on the functional device (fsim) bit-exact against the
// ref backend; clear errors for illegal or malformed models; the reducer shrinks a planted bug to
// a minimal model.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <axcore/compiler/compile.hpp>
#include <filesystem>
#include <iostream>
#include <set>

#include "axcore/compiler/frontend/model.hpp"
#include "axcore/ref/npy.hpp"
#include "axcore/runtime/backend.hpp"
#include "axcore/runtime/buffer_image.hpp"
#include "datapath.hpp"
#include "model.hpp"

using namespace axcore;
using namespace axcore::rand;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const auto d = fs::temp_directory_path() / ("rand_model_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Compiles the model as axc does, runs it on fsim and on the ref backend with seeded inputs, and
// compares the outputs bit for bit.
void expect_fsim_equals_ref(const ModelProgram& p) {
  const auto dir = scratch("m" + std::to_string(p.seed) + p.kind);
  const auto yaml = model_yaml(p);
  auto m = compiler::frontend::parse_model(yaml, (dir / "model.yaml").string(), dir);
  const auto r = compiler::compile(m.module.ir().main(), {p.cores, m.name, "rand"});
  write_inputs(r.bundle, p.seed, dir / "inputs");
  runtime::Arrays in;
  for (const auto& e : fs::directory_iterator(dir / "inputs"))
    in[e.path().stem().string()] = ref::load_npy(e.path().string());
  const auto dev = runtime::make_backend("fsim")->run(r.bundle, in, {});
  const auto gold = runtime::make_backend("ref")->run(r.bundle, in, {});
  ASSERT_EQ(gold.outputs.size(), 1u) << summary(p);
  for (const auto& [name, want] : gold.outputs) {
    const auto it = dev.outputs.find(name);
    ASSERT_NE(it, dev.outputs.end()) << name;
    EXPECT_EQ(runtime::array_bytes(it->second), runtime::array_bytes(want)) << summary(p) << yaml;
  }
  fs::remove_all(dir);
}

}  // namespace

TEST(RegressRandModel, GeneratedModelsAreLegalDeterministicAndVaried) {
  std::set<std::string> points;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    for (const char* kind : {"model", "dwpu"}) {
      const auto p = generate_model(seed, 1, kind);
      ASSERT_TRUE(derive(p).error.empty()) << summary(p);
      if (std::string(kind) == "model") {
        EXPECT_GE(p.ops.size(), 2u);
        EXPECT_LE(p.ops.size(), 8u);
      } else {
        EXPECT_EQ(p.ops.size(), 1u);
      }
      EXPECT_EQ(to_json(p), to_json(generate_model(seed, 1, kind)));
      EXPECT_EQ(to_json(model_from_json(to_json(p))), to_json(p));
      EXPECT_TRUE(is_model_json(to_json(p)));
      EXPECT_EQ(model_yaml(p), model_yaml(generate_model(seed, 1, kind)));
      const auto space = model_coverage_space(kind);
      for (const auto& c : coverage_points(p)) {
        EXPECT_TRUE(std::find(space.begin(), space.end(), c) != space.end()) << c;
        points.insert(c);
      }
    }
  }
  // Every operator, operand form and DAG shape occurs in 300 models.
  for (const char* op : {"linear", "conv", "dwconv", "pool", "add", "sub", "mul", "prelu", "relu", "quantize",
                         "softmax", "layernorm", "reshape", "concat", "slice"})
    EXPECT_TRUE(points.count(std::string("model.op.") + op)) << op;
  for (const char* pt :
       {"model.dag", "model.operand.tensor", "model.operand.scalar", "model.operand.channel", "model.conv.padding",
        "dwpu.pool.ceil_mode", "dwpu.pool.divisor", "dwpu.dwconv.dilation", "dwpu.pool.1d", "dwpu.pool.AVERAGE"})
    EXPECT_TRUE(points.count(pt)) << pt;
  EXPECT_TRUE(points.count("model.ops.2") && points.count("model.ops.8"));
}

TEST(RegressRandModel, IllegalAndMalformedModelsSayWhy) {
  ModelProgram p;
  p.input_shape = {4, 128};
  p.input_dtype = "float32";
  ModelOp lin;
  lin.op = "linear";
  p.ops = {lin};
  EXPECT_EQ(derive(p).error, "op 0: linear needs an int8 input");
  EXPECT_THROW(model_yaml(p), std::runtime_error);
  p.input_dtype = "int8";
  p.input_shape = {4, 100};
  EXPECT_NE(derive(p).error.find("the last a multiple of 64"), std::string::npos) << derive(p).error;
  ModelOp rs;
  rs.op = "reshape";
  rs.end = 2;
  p.input_shape = {4, 128};
  p.ops = {rs};
  EXPECT_NE(derive(p).error.find("a view of the input"), std::string::npos) << derive(p).error;
  // The 1 000-model run's only failures (seeds 80, 373, 468, 694, 809, 891 before the fix): a padded
  // conv whose first window's last tap lies in the padding, which core.convolution refuses; seed
  // 694 reduced to this one-operator model. The generator no longer makes it.
  ModelOp conv;
  conv.op = "conv";
  conv.kh = 3;
  conv.kw = 2;
  conv.pad = 1;
  p.input_shape = {1, 1, 64};
  p.ops = {conv};
  EXPECT_EQ(derive(p).error, "op 0: conv: the first window's last tap lies in the padding");
  p.input_shape = {3, 2, 64};
  EXPECT_TRUE(derive(p).error.empty()) << derive(p).error;
  auto j = to_json(generate_model(5, 1, "model"));
  j["ops"][0].erase("stride");
  try {
    model_from_json(j);
    ADD_FAILURE() << "a model without ops[0].stride was accepted";
  } catch (const std::runtime_error& e) { EXPECT_NE(std::string(e.what()).find("'stride'"), std::string::npos); }
}

// The generator's legality rules agree with the operator library's: every model of seeds 1..300
// compiles (the front end validates each operator, the compiler places and lowers the model).
TEST(RegressRandModel, EveryGeneratedModelCompiles) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    for (const char* kind : {"model", "dwpu"}) {
      const auto p = generate_model(seed, 1, kind);
      try {
        auto m = compiler::frontend::parse_model(model_yaml(p), "rand.yaml", fs::temp_directory_path());
        (void)compiler::compile(m.module.ir().main(), {1, m.name, "rand"});
      } catch (const std::exception& e) { ADD_FAILURE() << summary(p) << e.what() << "\n" << model_yaml(p); }
    }
  }
}

// The whole software stack on random models: front end, operator library, compiler, fsim = ref.
TEST(RegressRandModel, CompiledModelsMatchTheRefBackendOnFsim) {
  for (uint64_t seed = 1; seed <= 30; ++seed) expect_fsim_equals_ref(generate_model(seed, 1, "model"));
  for (uint64_t seed = 1; seed <= 12; ++seed) expect_fsim_equals_ref(generate_model(seed, 1, "dwpu"));
}

// A planted bug — "a softmax over more than one channel block miscomputes" — reduced from every
// model that has it among seeds 1..400: the reduced model still has it, with at most two operators
// (the softmax and what makes its float input), one row and the fewest channel blocks that keep
// the bug.
TEST(RegressRandModel, ReducerShrinksAPlantedBugToAMinimalModel) {
  auto has_bug = [](const ModelProgram& q) {
    const auto d = derive(q);
    if (!d.error.empty()) return false;
    for (std::size_t i = 0; i < q.ops.size(); ++i) {
      const int src = q.ops[i].src < 0 ? static_cast<int>(i) : q.ops[i].src;
      if (q.ops[i].op == "softmax" && d.tensors[static_cast<std::size_t>(src)].shape.back() > 64) return true;
    }
    return false;
  };
  unsigned reduced = 0;
  for (uint64_t seed = 1; seed <= 400 && reduced < 8; ++seed) {
    const auto p = generate_model(seed, 1, "model");
    if (!has_bug(p)) continue;
    unsigned tried = 0;
    const auto small = reduce_model(p, has_bug, &tried);
    ASSERT_TRUE(has_bug(small)) << summary(small);
    EXPECT_LE(small.ops.size(), 2u) << summary(p) << " -> " << summary(small);
    EXPECT_LE(small.ops.size(), p.ops.size());
    for (std::size_t a = 0; a + 1 < small.input_shape.size(); ++a) EXPECT_EQ(small.input_shape[a], 1) << summary(small);
    EXPECT_TRUE(model_yaml(small).find("core.softmax") != std::string::npos);
    std::cout << "  seed " << seed << ": " << p.ops.size() << " ops, " << model_size(p).second << " input elements -> "
              << small.ops.size() << " ops, " << model_size(small).second << " (" << tried
              << " candidates): " << summary(small);
    ++reduced;
  }
  EXPECT_GE(reduced, 5u);
}
