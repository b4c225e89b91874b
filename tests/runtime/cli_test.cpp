// axrun and axtrace end to end: a bundle file, .npy inputs, outputs, traces, timelines, exit codes
// and the messages of bad inputs, a truncated bundle and a foreign spec hash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "axcore/ref/npy.hpp"
#include "axcore/runtime/buffer_image.hpp"
#include "sample_programs.hpp"
#include "shell.hpp"

namespace axcore::runtime {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

using testing_support::Exec;
using testing_support::sh;

class RuntimeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("axcore_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    save_bundle(dir / "copy.axb", testing_support::dma_copy_bundle());
    for (size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<int32_t>(7 * i - 100);
    ref::save_npy((dir / "x.npy").string(), x);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string axrun(const std::string& args) {
    return std::string(AXRUN) + " " + (dir / "copy.axb").string() + " " + args;
  }
  std::string p(const char* name) { return (dir / name).string(); }
  fs::path dir;
  ref::NDArray<int32_t> x{{8, 8}};
};

TEST_F(RuntimeCli, RunsAndWritesOutputsTracesAndTimeline) {
  const Exec r = sh(axrun("--backend regfile -q --input x=" + p("x.npy") + " --output-dir " + p("out") + " --trace " +
                          p("t1.trace") + " --timeline " + p("t.json")));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("axrun: regfile ran dma_copy_pad in"));
  EXPECT_THAT(r.out, HasSubstr("TXN: 14 ops, 4 waits, 2 patches"));
  EXPECT_THAT(r.out, HasSubstr("bytes moved: DMA 1 088, host in 256, host out 320"));
  const auto y = ref::load_npy_as<int32_t>(p("out/y.npy"));
  EXPECT_EQ(y.data(), testing_support::dma_copy_expected(x).data());
  EXPECT_EQ(sh(axrun("--backend regfile -q --input x=" + p("x.npy") + " --output-dir " + p("out") + " --trace " +
                     p("t2.trace")))
                .rc,
            0);
  const Exec same = sh(std::string(AXTRACE) + " compare " + p("t1.trace") + " " + p("t2.trace"));
  EXPECT_EQ(same.rc, 0) << same.out;
  EXPECT_THAT(same.out, HasSubstr("equivalent:"));
  // A different parameter value is one different register write: reported as the divergence.
  EXPECT_EQ(sh(axrun("--backend regfile -q --param marker=9 --input x=" + p("x.npy") + " --output-dir " + p("out") +
                     " --trace " + p("t3.trace")))
                .rc,
            0);
  const Exec diff = sh(std::string(AXTRACE) + " compare " + p("t1.trace") + " " + p("t3.trace"));
  EXPECT_EQ(diff.rc, 1) << diff.out;
  EXPECT_THAT(diff.out, HasSubstr("first divergence in (0,0) host at record 0 of that unit:"));
  EXPECT_THAT(diff.out, HasSubstr("tile (0,0) host reg_write addr 0x50 (shim SCRATCH), value 0x9"));
  EXPECT_THAT(diff.out, HasSubstr("differs in value: 0x7 vs 0x9"));
  const Exec show = sh(std::string(AXTRACE) + " show --summary " + p("t1.trace"));
  EXPECT_THAT(show.out, HasSubstr("(0,0) host reg_write: "));
  std::ifstream tl(p("t.json"));
  std::string head;
  std::getline(tl, head);
  EXPECT_EQ(head, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
}

TEST_F(RuntimeCli, FpgaFakeBoardRun) {
  const Exec r = sh(axrun("--backend fpga --board fake=" + p("board.log") + " -q --input x=" + p("x.npy") +
                          " --output-dir " + p("fout")));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(ref::load_npy_as<int32_t>(p("fout/y.npy")).data(), testing_support::dma_copy_expected(x).data());
  EXPECT_TRUE(fs::file_size(p("board.log")) > 1000);
}

// fsim, the functional device (runtime/fsim), is one of axrun's backends like any other.
TEST_F(RuntimeCli, FsimIsABackendOfAxrun) {
  const Exec r = sh(axrun("--backend fsim -q --input x=" + p("x.npy") + " --output-dir " + p("sout")));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("axrun: fsim ran dma_copy_pad in"));
  EXPECT_EQ(ref::load_npy_as<int32_t>(p("sout/y.npy")).data(), testing_support::dma_copy_expected(x).data());
}

// `axrun BUNDLE --backend B` as typed: the input not given is seeded random data (random_inputs,
// seed 1), written beside the outputs and said; the outputs go to BUNDLE_STEM.out/.
TEST_F(RuntimeCli, InputNotGivenIsFilledAndSaid) {
  const Exec r = sh(axrun("--backend regfile -q"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("axrun: input 'x' not given: seeded random INT32 (8, 8) (seed 1, uniform over the "
                               "int32 range) -> " +
                               p("copy.out/inputs/x.npy") + "; pass --input x=FILE.npy"));
  const auto filled = ref::load_npy_as<int32_t>(p("copy.out/inputs/x.npy"));
  EXPECT_EQ(filled.data(),
            std::get<ref::NDArray<int32_t>>(random_inputs(testing_support::dma_copy_bundle(), 1).at("x")).data());
  EXPECT_EQ(ref::load_npy_as<int32_t>(p("copy.out/y.npy")).data(), testing_support::dma_copy_expected(filled).data());
  const Exec given = sh(axrun("--backend regfile -q --input x=" + p("x.npy") + " --output-dir " + p("g")));
  ASSERT_EQ(given.rc, 0) << given.out;
  EXPECT_THAT(given.out, ::testing::Not(HasSubstr("not given")));
  EXPECT_EQ(ref::load_npy_as<int32_t>(p("g/y.npy")).data(), testing_support::dma_copy_expected(x).data());
}

TEST_F(RuntimeCli, InputErrorsSayWhatWasExpected) {
  ref::save_npy(p("bad.npy"), ref::NDArray<float>({8, 8}));
  Exec r = sh(axrun("--backend regfile --input x=" + p("bad.npy") + " --output-dir " + p("o")));
  EXPECT_EQ(r.rc, 2);
  EXPECT_THAT(r.out, HasSubstr("input 'x': expected INT32 (8, 8), got FLOAT32 (8, 8)"));
  r = sh(axrun("--backend regfile --input y=" + p("x.npy") + " --output-dir " + p("o")));
  EXPECT_THAT(r.out,
              HasSubstr("unknown input 'y' (it is a output buffer); the bundle's inputs are:\n  x: INT32 (8, 8)"));
  r = sh(axrun("--backend regfile --input x=" + p("x.npy") + " --param gain=2 --output-dir " + p("o")));
  EXPECT_THAT(r.out, HasSubstr("unknown parameter 'gain'; the bundle's parameters are: marker (int32)"));
  r = sh(axrun("--backend tpu --input x=" + p("x.npy") + " --output-dir " + p("o")));
  EXPECT_EQ(r.rc, 2);
  EXPECT_THAT(r.out, HasSubstr("unknown backend 'tpu'"));
  r = sh(axrun("--backend ref --input x=" + p("x.npy") + " --output-dir " + p("o")));
  EXPECT_EQ(r.rc, 2);
  EXPECT_THAT(r.out, HasSubstr("ref: the bundle has no operator graph"));
}

TEST_F(RuntimeCli, TruncatedAndForeignBundlesAreRefused) {
  fs::copy_file(p("copy.axb"), p("cut.axb"));
  fs::resize_file(p("cut.axb"), fs::file_size(p("cut.axb")) - 9);
  Exec r = sh(std::string(AXRUN) + " " + p("cut.axb") + " --describe");
  EXPECT_EQ(r.rc, 2);
  EXPECT_THAT(r.out, HasSubstr("cut.axb: bundle: truncated: the header gives"));
  Bundle f = testing_support::dma_copy_bundle();
  f.spec_hash = 0xfeedfacecafebeefULL;
  save_bundle(p("foreign.axb"), f);
  r = sh(std::string(AXRUN) + " " + p("foreign.axb") + " --backend regfile --output-dir " + p("o"));
  EXPECT_EQ(r.rc, 2);
  EXPECT_THAT(r.out, HasSubstr("built against spec hash 0xfeedfacecafebeef, this runtime implements spec hash 0x"));
  r = sh(std::string(AXTRACE) + " compare " + p("none.trace") + " " + p("none.trace"));
  EXPECT_EQ(r.rc, 2);
  EXPECT_THAT(r.out, HasSubstr("none.trace: cannot open trace"));
}

TEST_F(RuntimeCli, DescribeListsTheBundle) {
  const Exec r = sh(std::string(AXRUN) + " " + p("copy.axb") + " --describe");
  EXPECT_EQ(r.rc, 0);
  EXPECT_THAT(r.out, HasSubstr("    x input INT32(8, 8) dense 256 B arg0"));
  EXPECT_THAT(r.out, HasSubstr("    marker int32 default 0x7 -> 1 targets"));
}

}  // namespace
}  // namespace axcore::runtime
