// Random datapath programs: deterministic, JSON round trip, clear errors for a malformed program,
// and the generator's expected outputs (computed from common/num, not from the compiler) equal what
// the compiler's functional device (fsim: the runtime's register-level device + common/ref units)
// computes from the compiled bundle.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "axcore/ref/npy.hpp"
#include "axcore/runtime/backend.hpp"
#include "axcore/runtime/buffer_image.hpp"
#include "datapath.hpp"

using namespace axcore;
using namespace axcore::rand;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const auto d = fs::temp_directory_path() / ("rand_datapath_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  return d;
}

// Runs DIR's bundle on `fsim` and compares every output with DIR/expected bit for bit.
void expect_ref_matches(const fs::path& dir) {
  const auto bundle = runtime::load_bundle(dir / "program.axb");
  runtime::Arrays in;
  for (const auto& e : fs::directory_iterator(dir / "inputs"))
    in[e.path().stem().string()] = ref::load_npy(e.path().string());
  const auto res = runtime::make_backend("fsim")->run(bundle, in, {});
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir / "expected")) {
    const auto want = ref::load_npy(e.path().string());
    const auto it = res.outputs.find(e.path().stem().string());
    ASSERT_NE(it, res.outputs.end()) << e.path();
    EXPECT_EQ(runtime::array_bytes(it->second), runtime::array_bytes(want)) << dir << ": " << e.path().filename();
    ++n;
  }
  EXPECT_EQ(n, 1u);
}

}  // namespace

TEST(RegressRandDatapath, GeneratedProgramsAreDeterministicAndVaried) {
  std::set<std::string> points;
  std::set<int64_t> kblocks, nblocks;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    for (const auto kind : {DpKind::MATMUL, DpKind::DPU}) {
      const auto p = generate_datapath(seed, 1, kind);
      EXPECT_EQ(to_json(p), to_json(generate_datapath(seed, 1, kind)));
      EXPECT_EQ(to_json(datapath_from_json(to_json(p))), to_json(p));
      EXPECT_TRUE(is_datapath_json(to_json(p)));
      for (const auto& c : coverage_points(p)) points.insert(c);
      if (kind == DpKind::MATMUL) kblocks.insert(p.k_blocks), nblocks.insert(p.n_blocks);
    }
  }
  for (const char* op : {"add", "sub", "mul", "min", "max", "prelu", "fma"})
    EXPECT_TRUE(points.count(std::string("dpu.op.") + op)) << op;
  for (const char* r : {"add", "max", "min"}) EXPECT_TRUE(points.count(std::string("dpu.reduce.") + r)) << r;
  EXPECT_GE(kblocks.size(), 5u);
  EXPECT_GE(nblocks.size(), 3u);
}

TEST(RegressRandDatapath, MalformedProgramsNameTheirField) {
  auto msg = [](nlohmann::json j) {
    try {
      datapath_from_json(j);
    } catch (const std::runtime_error& e) { return std::string(e.what()); }
    return std::string("(accepted)");
  };
  auto p = to_json(generate_datapath(3, 1, DpKind::DPU));
  auto q = p;
  q.erase("rows");
  EXPECT_NE(msg(q).find("missing field 'rows'"), std::string::npos) << msg(q);
  q = p;
  q["steps"] = nlohmann::json::array({{{"op", "div"}, {"c", 0}, {"c2", 0}}});
  EXPECT_NE(msg(q).find("unknown DPU op 'div'"), std::string::npos) << msg(q);
  q = p;
  q["kind"] = "conv";
  EXPECT_NE(msg(q).find("unknown program kind 'conv'"), std::string::npos) << msg(q);
  auto m = to_json(generate_datapath(3, 1, DpKind::MATMUL));
  m["k_blocks"] = 0;
  EXPECT_NE(msg(m).find(">= 1"), std::string::npos) << msg(m);
}

TEST(RegressRandDatapath, ExpectedOutputsEqualTheFunctionalDevice) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    for (const auto kind : {DpKind::MATMUL, DpKind::DPU}) {
      const auto dir = scratch(std::string(to_string(kind)) + std::to_string(seed));
      write_datapath_program(generate_datapath(seed, 1, kind), dir);
      expect_ref_matches(dir);
    }
  }
}

TEST(RegressRandDatapath, ShrinkCandidatesAreSmaller) {
  const auto p = generate_datapath(5, 1, DpKind::DPU);
  for (const auto& q : shrink_candidates(p)) {
    EXPECT_TRUE(q.rows < p.rows || q.steps.size() < p.steps.size() || q.reduce.size() < p.reduce.size());
  }
  const auto m = generate_datapath(7, 1, DpKind::MATMUL);
  for (const auto& q : shrink_candidates(m)) EXPECT_LT(q.m * q.k_blocks * q.n_blocks, m.m * m.k_blocks * m.n_blocks);
}
