// One RTL-visible effect perturbed (labels rtl, e2e): the matmul program runs on the Verilated
// core tile in process; once the MVMEXE task's token is popped, the harness flips one byte of an
// output word in L1, before the CoreDMA copies y to DDR. `axtrace compare` of the reference trace
// (the TLM's, or a clean RTL run without the TLM) against the perturbed one must name exactly the
// CoreDMA MEM_WRITE record that carries that word as the first divergence.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "axcore/rtl/rtl_device.hpp"
#include "axcore/runtime/ref_backend.hpp"
#include "axcore/runtime/trace_tools.hpp"
#include "axrun_harness.hpp"
#include "corrupting_device.hpp"
#include "hand_programs.hpp"

namespace axcore::runtime {
namespace {

using ::testing::HasSubstr;
namespace ts = testing_support;

struct Traced {
  RunResult res;
  std::vector<trace::Record> records;
};

Traced run_rtl(const ts::HandProgram& p, const ts::CorruptingDevice::Fault* fault, bool* fired = nullptr) {
  rtl::RtlOptions o;
  o.cores = 1;
  rtl::RtlDevice rtl(o);
  Traced t;
  auto sink = [&](const trace::Record& r) { t.records.push_back(r); };
  if (!fault) {
    rtl.set_trace_sink(sink);
    t.res = run_on_device(rtl, p.bundle, p.inputs);
    return t;
  }
  ts::CorruptingDevice dev(rtl, *fault);
  dev.set_trace_sink(sink);
  t.res = run_on_device(dev, p.bundle, p.inputs);
  if (fired) *fired = dev.fired();
  return t;
}

void write_trace(const std::filesystem::path& f, const std::vector<trace::Record>& v) {
  std::ofstream o(f);
  trace::Writer w(o);
  for (const auto& r : v) w.write(r);
}

TEST(RuntimeRtlPerturb, ACorruptedOutputWordIsTheFirstDivergence) {
  const ts::HandProgram p = ts::matmul_program();
  ts::Scratch s("perturb");
  // The reference trace.
  std::filesystem::path ref_trace;
  std::vector<trace::Record> ref;
#if AXCORE_SIM_COMPARE_TLM
  const ts::AxrunRun tlm = ts::run_axrun(s, p.name, p.bundle, p.inputs, "tlm");
  ASSERT_EQ(tlm.exec.rc, 0) << tlm.exec.out;
  ref_trace = tlm.trace;
  ref = tlm.records;
#else
  ref = run_rtl(p, nullptr).records;
  ref_trace = s / "clean.rtl.trace";
  write_trace(ref_trace, ref);
#endif
  // Output y[2][5] (int8): byte 5 of row 2, i.e. bits 8..15 of the word at row offset 4.
  constexpr uint32_t kM = 2, kN = 5;
  ts::CorruptingDevice::Fault f;
  f.when = [](const spec::Token& t) {
    return t.row == spec::core_row(0) && t.channel == spec::param::core_queue_channel_base + 0 && !t.error;
  };
  f.l1_addr = ts::kMatmulOutL1 + kM * ts::kMatmulN + 4;
  f.xor_mask = 0xFFu << 8;
  bool fired = false;
  const Traced bad = run_rtl(p, &f, &fired);
  ASSERT_TRUE(fired) << "the MVMEXE token was never popped";
  // The flipped byte reached the output, and nothing else changed.
  const auto& got = std::get<ref::NDArray<int8_t>>(bad.res.outputs.at("y"));
  auto want = std::get<ref::NDArray<int8_t>>(run_ref(p.bundle, p.inputs).outputs.at("y"));
  want({kM, kN}) = static_cast<int8_t>(~want({kM, kN}));
  EXPECT_EQ(got.data(), want.data());

  // The record that carries the word to DDR: the CoreDMA S2MM ch0 MEM_WRITE covering its address.
  const uint64_t ddr = bad.res.buffer_addr.at("y") + kM * ts::kMatmulN + 4;
  size_t index = 0;
  const trace::Record* expect = nullptr;
  for (const auto& r : ref) {
    if (r.row != spec::core_row(0) || r.unit != trace::Unit::DMA_S2MM0) continue;
    if (r.kind == trace::Kind::MEM_WRITE && r.addr <= ddr && ddr < r.addr + r.bytes) {
      expect = &r;
      break;
    }
    ++index;
  }
  ASSERT_NE(expect, nullptr);
  EXPECT_EQ(index, 1u + kM);  // TASK_START, then one record per output row
  const trace::Record* perturbed = nullptr;
  size_t k = 0;
  for (const auto& r : bad.records)
    if (r.row == expect->row && r.unit == expect->unit && k++ == index) {
      perturbed = &r;
      break;
    }
  ASSERT_NE(perturbed, nullptr);
  EXPECT_EQ(perturbed->addr, expect->addr);
  EXPECT_NE(perturbed->data_hash, expect->data_hash);

  const auto bad_trace = s / "perturbed.rtl.trace";
  write_trace(bad_trace, bad.records);
  const ts::Exec cmp = ts::axtrace_compare(ref_trace, bad_trace);
  EXPECT_EQ(cmp.rc, 1) << cmp.out;
  EXPECT_THAT(cmp.out,
              HasSubstr("first divergence in (0,2) dma.s2mm0 at record " + std::to_string(index) + " of that unit:"));
  EXPECT_THAT(cmp.out, HasSubstr("  " + ref_trace.string() + ": " + describe_record(*expect) + "\n"));
  EXPECT_THAT(cmp.out, HasSubstr("  " + bad_trace.string() + ": " + describe_record(*perturbed) + "\n"));
  EXPECT_THAT(cmp.out, HasSubstr("1 of "));  // that stream only
  std::printf("%s", cmp.out.c_str());
}

}  // namespace
}  // namespace axcore::runtime
