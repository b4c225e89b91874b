// Hand-built programs (hand_programs.hpp) on a timed backend through axrun, against the ref
// backend's outputs; on the RTL also against the TLM's trace with `axtrace compare`. Fault
// programs and bad bundles end with their diagnostics and exit codes, never a hang or a crash.
// Compiled once per backend: AXCORE_SIM_BACKEND is "tlm" (labels tlm, e2e) or "rtl" (rtl, e2e);
// AXCORE_SIM_COMPARE_TLM is 1 when the RTL binary can also run the TLM for trace comparisons.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "axcore/runtime/backend.hpp"
#include "axcore/runtime/ref_backend.hpp"
#include "axcore/txn/decode.hpp"
#include "axrun_harness.hpp"
#include "hand_programs.hpp"

namespace axcore::runtime {
namespace {

using ::testing::HasSubstr;
namespace ts = testing_support;

const std::string kBackend = AXCORE_SIM_BACKEND;
// Suite names carry the backend (AXCORE_SIM_NAME: Tlm, Rtl) so the two binaries' CTest entries differ.
#define AX_CAT2(a, b) a##b
#define AX_CAT(a, b) AX_CAT2(a, b)
#define HAND_PROGRAMS AX_CAT(RuntimeHandPrograms, AXCORE_SIM_NAME)
#define HAND_FAULTS AX_CAT(RuntimeHandFaults, AXCORE_SIM_NAME)

// Why the backend cannot run a program, or "": the RTL refuses datapaths naming the DPU with
// DESC_UNITS until rtl/core has one (docs/rtl_core.md), and says so in the error token.
std::string unsupported(const ts::AxrunRun& r) {
  if (kBackend == "rtl" && r.exec.rc == 1 && r.exec.out.find("ended with error DESC_UNITS") != std::string::npos)
    return "the RTL refuses this datapath with DESC_UNITS (rtl/core has no DPU yet); the test runs once it has one:\n" +
           r.exec.out.substr(0, r.exec.out.find('\n'));
  return "";
}

size_t count(const std::vector<trace::Record>& v, uint8_t row, trace::Unit u, trace::Kind k) {
  return static_cast<size_t>(std::count_if(
      v.begin(), v.end(), [&](const trace::Record& r) { return r.row == row && r.unit == u && r.kind == k; }));
}

// Runs the program on ref (in process) and on the backend (axrun): the outputs must be equal
// byte for byte, and the output DMA must have written one record per output row. On the RTL,
// the TLM's trace of the same program must be equivalent (axtrace compare, exit 0).
void check_program(const ts::HandProgram& p) {
  const auto names = backend_names();  // this build's axrun has the backend
  ASSERT_NE(std::find(names.begin(), names.end(), kBackend), names.end());
  const RunResult golden = run_ref(p.bundle, p.inputs);
  ts::Scratch s("sim_" + p.name);
  const ts::AxrunRun r = ts::run_axrun(s, p.name, p.bundle, p.inputs, kBackend);
  if (const std::string why = unsupported(r); !why.empty()) GTEST_SKIP() << why;
  ASSERT_EQ(r.exec.rc, 0) << r.exec.out;
  for (const auto& [name, want] : golden.outputs) {
    ASSERT_TRUE(r.outputs.count(name)) << name;
    EXPECT_EQ(ts::array_difference(want, r.outputs.at(name)), "") << "output " << name << " on " << kBackend;
  }
  const auto& y = *p.bundle.find_buffer("y");
  EXPECT_EQ(count(r.records, 2, trace::Unit::DMA_S2MM0, trace::Kind::MEM_WRITE), y.shape[0]) << r.exec.out;
  EXPECT_EQ(count(r.records, 2, trace::Unit::DMA_S2MM0, trace::Kind::TASK_DONE), 1u);
  std::printf("%s on %s: %s", p.name.c_str(), kBackend.c_str(), r.exec.out.c_str());
#if AXCORE_SIM_COMPARE_TLM
  const ts::AxrunRun tlm = ts::run_axrun(s, p.name, p.bundle, p.inputs, "tlm");
  ASSERT_EQ(tlm.exec.rc, 0) << tlm.exec.out;
  const ts::Exec cmp = ts::axtrace_compare(tlm.trace, r.trace);
  EXPECT_EQ(cmp.rc, 0) << cmp.out;
  EXPECT_THAT(cmp.out, HasSubstr("equivalent: " + std::to_string(r.records.size()) + " records match"));
  std::printf("tlm vs rtl: %s", cmp.out.c_str());
#endif
}

TEST(HAND_PROGRAMS, DmaCopyThroughAPaddedTaplibWalk) { check_program(ts::dma_pad_program()); }
// The golden of dma_pad (ref graph: transpose, pad) is what taplib says the walk streams.
TEST(HAND_PROGRAMS, TheDmaPadGraphIsTheTaplibWalksStream) {
  const ts::HandProgram p = ts::dma_pad_program();
  const auto& x = std::get<ref::NDArray<int32_t>>(p.inputs.at("x"));
  const auto& y = std::get<ref::NDArray<int32_t>>(run_ref(p.bundle, p.inputs).outputs.at("y"));
  EXPECT_EQ(ts::dma_pad_walk().gather(x.data(), static_cast<int32_t>(ts::kPadWord)), y.data());
}
TEST(HAND_PROGRAMS, ElementwiseDatapathIfdDpuOdr) { check_program(ts::elementwise_program()); }
TEST(HAND_PROGRAMS, LoadImcMatmulWithAnOdrCastEpilogue) { check_program(ts::matmul_program()); }
TEST(HAND_PROGRAMS, LoadImcMatmulWithADpuScaleBiasEpilogue) { check_program(ts::matmul_dpu_epilogue_program()); }

// The stream word of the first op that writes `addr` (the push the player will name).
uint32_t word_writing(const Bundle& b, uint64_t addr) {
  for (const txn::Op& op : txn::decode(b.txn).ops)
    if (const auto* w = std::get_if<txn::Write32>(&op.body); w && w->addr == addr) return op.pos;
  return 0;
}

TEST(HAND_FAULTS, OutOfRangeBdEndsWithItsErrorToken) {
  const ts::HandProgram p = ts::out_of_range_bd_program();
  ts::Scratch s("fault_bd");
  const ts::AxrunRun r = ts::run_axrun(s, p.name, p.bundle, {}, kBackend);
  EXPECT_EQ(r.exec.rc, 1) << r.exec.out;
  EXPECT_THAT(r.exec.out, HasSubstr("axrun: the run failed on " + kBackend + ": tct at word"));
  const uint32_t at = word_writing(p.bundle, spec::tile_addr(0, 0, spec::shim::DMA_MM2S_QUEUE.at(1)));
  EXPECT_THAT(r.exec.out, HasSubstr("the task pushed at word " + std::to_string(at) + " to (0,0) MM2S ch1 (push "));
  EXPECT_THAT(r.exec.out, HasSubstr("ended with error ADDR_RANGE (token 0x"));
  EXPECT_THAT(r.exec.out, HasSubstr("device status (" + kBackend + ", cycle "));
  EXPECT_THAT(r.exec.out, HasSubstr("(ADDR_RANGE, MM2S ch1, detail 2)"));  // the shim's ERROR_INFO: BD 2
}

TEST(HAND_FAULTS, MissingTokenNamesTheTaskAndDumpsTheStatus) {
  const ts::HandProgram p = ts::missing_token_program();
  ts::Scratch s("fault_tok");
  const ts::AxrunRun r = ts::run_axrun(s, p.name, p.bundle, {}, kBackend, "--token-timeout 20000");
  EXPECT_EQ(r.exec.rc, 1) << r.exec.out;
  const uint32_t at = word_writing(p.bundle, spec::tile_addr(0, 0, spec::shim::DMA_S2MM_QUEUE.at(1)));
  EXPECT_THAT(r.exec.out,
              HasSubstr("no completion token within 20000 cycles: the task pushed at word " + std::to_string(at) +
                        " to (0,0) S2MM ch1 (push 0x89000004: start 4, repeat 0, tag 9) never completed"));
  EXPECT_THAT(r.exec.out, HasSubstr("device status (" + kBackend + ", cycle "));
  // The channel still has its task: S2MM1 status with pending >= 1.
  const auto pos = r.exec.out.find(" S2MM1=0x");
  ASSERT_NE(pos, std::string::npos) << r.exec.out;
  EXPECT_GE(std::stoul(r.exec.out.substr(pos + 7, 10), nullptr, 16) & 0x1F, 1u) << r.exec.out;
  EXPECT_THAT(r.exec.out, HasSubstr("Q_STATUS.MVMEXE=0x"));  // every core's watchdog and queues dumped
  EXPECT_THAT(r.exec.out, HasSubstr("WDOG_STATUS=0x"));
}

TEST(HAND_FAULTS, TruncatedAndForeignBundlesAreRefusedBeforeTheDevice) {
  const ts::HandProgram p = ts::matmul_program();
  ts::Scratch s("fault_bundle");
  save_bundle(s / "cut.axb", p.bundle);
  std::filesystem::resize_file(s / "cut.axb", std::filesystem::file_size(s / "cut.axb") - 13);
  const ts::AxrunRun cut = ts::run_axrun(s, "cut", p.bundle, p.inputs, kBackend);
  EXPECT_EQ(cut.exec.rc, 2) << cut.exec.out;
  EXPECT_THAT(cut.exec.out, HasSubstr("cut.axb: bundle: truncated: the header gives"));
  Bundle foreign = p.bundle;
  foreign.spec_hash = 0xfeedfacecafebeefULL;
  const ts::AxrunRun f = ts::run_axrun(s, "foreign", foreign, p.inputs, kBackend);
  EXPECT_EQ(f.exec.rc, 2) << f.exec.out;
  char want[128];
  std::snprintf(want, sizeof want,
                "built against spec hash 0xfeedfacecafebeef, this runtime implements spec hash 0x%llx",
                static_cast<unsigned long long>(spec::kSpecHash));
  EXPECT_THAT(f.exec.out, HasSubstr(want));
  EXPECT_TRUE(f.records.empty());  // refused before any device existed
}

}  // namespace
}  // namespace axcore::runtime
