// Backends behind the factory: ref (operator graph), regfile (TXN on the register-level device),
// fpga over the fake board (protocol log, replay into a fresh device, a perturbed replay reporting
// the exact line) and over mapped files as a UIO board would be; input/parameter validation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "axcore/runtime/backend.hpp"
#include "axcore/runtime/fpga.hpp"
#include "axcore/runtime/ref_backend.hpp"
#include "axcore/runtime/regfile_device.hpp"
#include "sample_programs.hpp"

namespace axcore::runtime {
namespace {

using ::testing::HasSubstr;
namespace ts = testing_support;

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) { return e.what(); }
  return "(no error)";
}

ref::NDArray<int32_t> copy_input() {
  ref::NDArray<int32_t> x({8, 8});
  for (size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<int32_t>(i * 1000003 - 77);
  return x;
}

std::filesystem::path tmp(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("axcore_rt_" + std::to_string(::getpid()) + "_" + name);
}

TEST(RuntimeRef, LinearReluThroughTheGraph) {
  const Bundle b = ts::linear_relu_bundle();
  ref::NDArray<int8_t> x({2, 64});
  for (size_t k = 0; k < 64; ++k) {
    x({0, k}) = 1;
    x({1, k}) = static_cast<int8_t>(int(k % 5) - 2);
  }
  auto be = make_backend("ref");
  const RunResult r = be->run(b, {{"x", x}}, {});
  const auto& y = std::get<ref::NDArray<float>>(r.outputs.at("y"));
  EXPECT_EQ(y.data(), (std::vector<float>{0, 64, 256, 0, 0, 0, 0, 2}));
}

TEST(RuntimeRef, GraphErrorsNameTheNode) {
  Bundle b = ts::linear_relu_bundle();
  b.graph[1].op = "gelu";
  ref::NDArray<int8_t> x({2, 64});
  EXPECT_THAT(error_of([&] {
                run_ref(b, {{"x", x}});
              }),
              HasSubstr("ref: graph node 1 (gelu): unknown op; the ref backend runs:"));
  b = ts::linear_relu_bundle();
  b.graph[0].inputs = {"scale", "w"};
  EXPECT_THAT(error_of([&] {
                run_ref(b, {{"x", x}});
              }),
              HasSubstr("graph node 0 (linear): input 'scale' is FLOAT32, the op takes INT8"));
}

TEST(RuntimeInputs, MissingExtraAndMismatchedSayWhatWasExpected) {
  const Bundle b = ts::linear_relu_bundle();
  EXPECT_THAT(error_of([&] { run_ref(b, {}); }),
              HasSubstr("missing input 'x': expected INT8 (2, 64); the bundle's inputs are:\n  x: INT8 (2, 64)"));
  EXPECT_THAT(error_of([&] {
                run_ref(b, {{"x", ref::NDArray<int8_t>({2, 64})}, {"z", ref::NDArray<int8_t>({1})}});
              }),
              HasSubstr("unknown input 'z'; the bundle's inputs are:"));
  EXPECT_THAT(error_of([&] {
                run_ref(b, {{"w", ref::NDArray<int8_t>({64, 4})}});
              }),
              HasSubstr("unknown input 'w' (it is a constant buffer)"));
  EXPECT_THAT(error_of([&] {
                run_ref(b, {{"x", ref::NDArray<float>({2, 64})}});
              }),
              HasSubstr("input 'x': expected INT8 (2, 64), got FLOAT32 (2, 64)"));
  EXPECT_THAT(error_of([&] {
                run_ref(b, {{"x", ref::NDArray<int8_t>({64, 2})}});
              }),
              HasSubstr("input 'x': expected INT8 (2, 64), got INT8 (64, 2)"));
}

TEST(RuntimeParams, ParsedByTypeAndAppliedToTheirTargets) {
  const Bundle b = ts::dma_copy_bundle();
  EXPECT_THAT(error_of([&] {
                param_bits(b, {{"nope", "1"}});
              }),
              HasSubstr("unknown parameter 'nope'; the bundle's parameters are: marker (int32)"));
  EXPECT_THAT(error_of([&] {
                param_bits(b, {{"marker", "1.5"}});
              }),
              HasSubstr("parameter 'marker' is int32, '1.5' is not an int32 value"));
  EXPECT_EQ(param_bits(b, {{"marker", "0x1234"}}).at("marker"), 0x1234u);
  EXPECT_EQ(param_bits(b, {}).at("marker"), 7u);
  auto be = make_backend("regfile");
  RunOptions opt;
  opt.params["marker"] = "0xBEEF";
  be->run(b, {{"x", copy_input()}}, opt);
  EXPECT_EQ(be->device()->read32(spec::tile_addr(0, 0, spec::shim::SCRATCH.offset)), 0xBEEFu);
}

TEST(RuntimeDeviceRun, DmaCopyOnTheRegisterLevelDevice) {
  auto be = make_backend("regfile");
  const auto x = copy_input();
  const RunResult r = be->run(ts::dma_copy_bundle(), {{"x", x}}, {});
  EXPECT_EQ(std::get<ref::NDArray<int32_t>>(r.outputs.at("y")).data(), ts::dma_copy_expected(x).data());
  EXPECT_EQ(r.play.waits, 4u);
  EXPECT_GT(r.cycles, 0u);
  EXPECT_EQ(r.dma_bytes, 4u * (64 + 64 + 64 + 80));  // read + written, both copies (pads are not read)
  EXPECT_EQ(r.host_bytes_in, 256u);
  EXPECT_EQ(r.host_bytes_out, 320u);
}

// A bundle with dispatch-time scalars binds the call's values before anything reaches the device:
// a failing guard is refused with its message and the device sees no register write, no DDR
// write, no cycle; an admissible call runs as the static bundle does, the other --param values
// still reaching their parameters.
TEST(RuntimeDispatch, RefusedBeforeTheDeviceAndRunWhenAdmissible) {
  Bundle b = ts::dma_copy_bundle();
  b.dispatch.scalars.push_back({"N", 1, 8, ""});
  b.dispatch.guards.push_back({Affine{0, {{0, 1}}}, 2, GuardOp::EQ, 0, "N must be even"});
  auto be = make_backend("regfile");
  uint64_t records = 0;
  be->device()->set_trace_sink([&](const trace::Record&) { ++records; });
  RunOptions opt;
  opt.params = {{"N", "3"}, {"marker", "0x51"}};
  EXPECT_THAT(error_of([&] { be->run(b, {{"x", copy_input()}}, opt); }), ::testing::StrEq("N must be even"));
  EXPECT_EQ(records, 0u);
  EXPECT_EQ(be->device()->cycle(), 0u);
  EXPECT_EQ(be->device()->read32(spec::tile_addr(0, 0, spec::shim::SCRATCH.offset)), 0u);
  opt.params["N"] = "x";
  EXPECT_THAT(error_of([&] {
                be->run(b, {{"x", copy_input()}}, opt);
              }),
              HasSubstr("dispatch-time scalar 'N' is an integer, 'x' is not"));
  EXPECT_THAT(error_of([&] {
                run_ref(b, {{"x", copy_input()}}, {});
              }),
              HasSubstr("dispatch-time scalar 'N' not given"));
  // A host that plays the bundle its own way (the firmware runner) without binding it is refused.
  EXPECT_THAT(error_of([&] {
                check_inputs(b, {{"x", copy_input()}});
              }),
              HasSubstr("the bundle has dispatch-time scalars (N): bind the call's values first"));
  EXPECT_EQ(records, 0u);
  opt.params["N"] = "4";
  const auto x = copy_input();
  const RunResult r = be->run(b, {{"x", x}}, opt);
  EXPECT_EQ(std::get<ref::NDArray<int32_t>>(r.outputs.at("y")).data(), ts::dma_copy_expected(x).data());
  EXPECT_EQ(be->device()->read32(spec::tile_addr(0, 0, spec::shim::SCRATCH.offset)), 0x51u);
  EXPECT_GT(records, 0u);
}

TEST(RuntimeFactory, NamesWhatThisBuildHas) {
  EXPECT_THAT(error_of([] { make_backend("gpu"); }), HasSubstr("unknown backend 'gpu'; this build has: ref fpga"));
  const auto names = backend_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "regfile"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "fsim"), names.end());  // built in (runtime/fsim)
  EXPECT_EQ(make_device("fsim")->backend(), "fsim");
  if (std::find(names.begin(), names.end(), "tlm") == names.end()) {
    EXPECT_THAT(error_of([] { make_backend("tlm"); }), HasSubstr("backend 'tlm' is not built in this tree"));
  }
  EXPECT_THAT(error_of([] { make_backend("fpga"); }), HasSubstr("fpga: name the board"));
}

std::vector<std::string> lines_of(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::vector<std::string> v;
  for (std::string l; std::getline(f, l);) v.push_back(l);
  return v;
}

TEST(RuntimeFpga, FakeBoardLogsTheProtocolAndReplaysIntoAFreshDevice) {
  const auto log = tmp("board.log");
  const auto x = copy_input();
  BackendConfig cfg;
  cfg.board = "fake=" + log.string();
  RunResult r;
  {
    auto be = make_backend("fpga", cfg);
    r = be->run(ts::dma_copy_bundle(), {{"x", x}}, {});
  }
  EXPECT_EQ(std::get<ref::NDArray<int32_t>>(r.outputs.at("y")).data(), ts::dma_copy_expected(x).data());

  // The exact sequence a board sees: the shim BD 0 address word gets x's device address.
  const auto lines = lines_of(log);
  const auto bd0 = spec::tile_addr(0, 0, spec::shim::DMA_BD.at(0) + 4);
  std::ostringstream want;
  want << "W 0x" << std::hex << bd0 << " 0x" << r.buffer_addr.at("x");
  EXPECT_NE(std::find(lines.begin(), lines.end(), want.str()), lines.end()) << want.str();
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l[0] == 'F'; }), 1);
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l[0] == 'I'; }), 1);

  RegFileDevice fresh;
  const ReplayResult ok = replay_board_log(log, fresh);
  EXPECT_TRUE(ok.mismatches.empty()) << ok.mismatches.front();
  EXPECT_GT(ok.reads, 10u);

  // Perturbed: the core S2MM channel never completes. The first divergence is the first token
  // pop of that channel's token the board saw.
  RegFileDevice broken;
  broken.hang(0, 2, 0, 0);
  size_t first_pop = 0;
  const auto pop = spec::tile_addr(0, 0, spec::shim::TOKEN_POP.offset);
  std::ostringstream pop_prefix;
  pop_prefix << "R 0x" << std::hex << pop << " ";
  for (size_t i = 0; i < lines.size() && !first_pop; ++i)
    if (lines[i].rfind(pop_prefix.str(), 0) == 0 && lines[i] != pop_prefix.str() + "0x0") {
      const auto tok = spec::Token::decode_word(
          static_cast<uint32_t>(std::stoul(lines[i].substr(pop_prefix.str().size()), nullptr, 16)));
      if (tok.row == 2 && tok.dir == 0) first_pop = i + 1;
    }
  ASSERT_GT(first_pop, 0u);
  const ReplayResult bad = replay_board_log(log, broken);
  ASSERT_FALSE(bad.mismatches.empty());
  EXPECT_THAT(bad.mismatches.front(), HasSubstr("line " + std::to_string(first_pop) + ": R 0x40: the board read"));
  std::filesystem::remove(log);
  std::filesystem::remove(log.string() + ".dma");
}

TEST(RuntimeFpga, UioBoardMapsTheRegisterWindowAndTheDmaBuffer) {
  const auto regs = tmp("uio.regs"), dma = tmp("udmabuf");
  {
    std::ofstream f(regs, std::ios::binary);
    std::vector<uint32_t> w(8 << 18, 0);  // 8 MiB window
    w[spec::shim::ID.offset / 4] = spec::kIdMagic;
    w[spec::shim::SPEC_HASH_LO.offset / 4] = static_cast<uint32_t>(spec::kSpecHash);
    w[spec::shim::SPEC_HASH_HI.offset / 4] = static_cast<uint32_t>(spec::kSpecHash >> 32);
    w[spec::shim::CONFIG.offset / 4] = spec::shim::CONFIG_RESET;
    f.write(reinterpret_cast<const char*>(w.data()), static_cast<std::streamsize>(4 * w.size()));
    std::ofstream g(dma, std::ios::binary);
    std::vector<char> z(1 << 16, 0);
    g.write(z.data(), static_cast<std::streamsize>(z.size()));
  }
  UioConfig cfg = parse_uio_config("uio=" + regs.string() + ",dma=" + dma.string());
  cfg.regs_bytes = 8 << 20;
  cfg.dma_bytes = 1 << 16;
  cfg.dma_phys = 0x7000'0000;
  FpgaDevice dev(std::make_unique<UioBoard>(cfg));
  EXPECT_EQ(dev.cores(), 1u);
  EXPECT_EQ(dev.ddr_base(), 0x7000'0000u);
  dev.write32(spec::tile_addr(0, 0, spec::shim::SCRATCH.offset), 0xC0FFEE);
  const uint8_t data[] = {1, 2, 3, 4};
  dev.ddr_write(0x100, data);
  EXPECT_THAT(error_of([&] { dev.ddr_write(1 << 16, data); }), HasSubstr("outside the 65536-byte DMA buffer"));
  EXPECT_THAT(error_of([&] { dev.read32(9 << 20); }), HasSubstr("outside the 8388608-byte window"));
  {
    std::ifstream f(regs, std::ios::binary);
    f.seekg(spec::shim::SCRATCH.offset);
    uint32_t v = 0;
    f.read(reinterpret_cast<char*>(&v), 4);
    EXPECT_EQ(v, 0xC0FFEEu);
    std::ifstream g(dma, std::ios::binary);
    g.seekg(0x100);
    char b[4];
    g.read(b, 4);
    EXPECT_EQ(b[3], 4);
  }
  // A window that is not an axcore device.
  {
    std::fstream f(regs, std::ios::binary | std::ios::in | std::ios::out);
    const uint32_t zero = 0;
    f.write(reinterpret_cast<const char*>(&zero), 4);
  }
  EXPECT_THAT(error_of([&] { UioBoard b(cfg); }), HasSubstr("reads ID 0x0, an axcore device reads 0x41584331"));
  std::filesystem::remove(regs);
  std::filesystem::remove(dma);
  EXPECT_THAT(error_of([] { parse_uio_config("uio=/dev/uio0"); }), HasSubstr("the board needs uio=/dev/uioN and dma="));
  EXPECT_THAT(error_of([] { parse_uio_config("uio=/dev/uio0,mem=12"); }), HasSubstr("mem= wants PHYS:BYTES"));
  EXPECT_THAT(error_of([] { UioBoard b(parse_uio_config("uio=/dev/uio_none,dma=/dev/udmabuf_none,regs_bytes=4096")); }),
              HasSubstr("cannot open /dev/uio_none"));
}

}  // namespace
}  // namespace axcore::runtime
