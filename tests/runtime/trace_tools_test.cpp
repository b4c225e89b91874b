// axtrace's library: compare per (tile, unit) in strict order with cycles ignored, the first
// divergence with context and tail, the cycle ratio; the timeline export.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "axcore/runtime/trace_tools.hpp"

namespace axcore::runtime {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using trace::Kind;
using trace::Record;
using trace::Unit;

std::vector<Record> program(uint64_t cycle_scale) {
  std::vector<Record> v;
  uint64_t seq = 0;
  auto add = [&](uint8_t row, Unit u, Kind k, uint64_t addr, uint32_t bytes, uint64_t hash, uint64_t cyc) {
    Record r;
    r.seq = seq++;
    r.cycle = cyc * cycle_scale;
    r.row = row;
    r.unit = u;
    r.kind = k;
    r.addr = addr;
    r.bytes = bytes;
    r.data_hash = hash;
    v.push_back(r);
  };
  add(0, Unit::HOST, Kind::REG_WRITE, 0x2004, 0, 0x1000, 1);
  for (uint64_t i = 0; i < 6; ++i) {
    add(2, Unit::MVM_ODR, Kind::MEM_WRITE, 0x40 * i, 64, 0xABC0 + i, 10 + 2 * i);
    add(0, Unit::DMA_S2MM0, Kind::MEM_WRITE, 0x100 + 4 * i, 4, 0x77 + i, 11 + 2 * i);  // interleaved
  }
  add(2, Unit::CMDPROC, Kind::TASK_DONE, 64, 384, 0, 30);
  return v;
}

TEST(RuntimeTraceCompare, EquivalentWithADifferentTimingAndInterleaving) {
  auto a = program(1), b = program(2);
  std::stable_sort(b.begin(), b.end(), [](const Record& x, const Record& y) { return x.unit < y.unit; });
  const auto r = compare_traces(a, b);
  EXPECT_TRUE(r.equivalent) << r.report;
  EXPECT_EQ(r.matched, a.size());
  EXPECT_NEAR(r.cycle_ratio, 0.5, 1e-9);
  EXPECT_THAT(r.report, HasSubstr("ratio A/B 0.5000"));
}

TEST(RuntimeTraceCompare, ReportsThePerturbedRecordAsTheFirstDivergence) {
  const auto a = program(1);
  auto b = program(1);
  b[7].data_hash ^= 1;  // the 4th ODR write (index 3 of its unit)
  b[8].data_hash ^= 1;  // a later DMA write diverges too, but after it in A's order
  CompareOptions opt;
  opt.context = 2;
  const auto r = compare_traces(a, b, opt);
  ASSERT_FALSE(r.equivalent);
  ASSERT_EQ(r.divergences.size(), 2u);
  EXPECT_EQ(r.divergences[0].unit, Unit::MVM_ODR);
  EXPECT_EQ(r.divergences[0].index, 3u);
  EXPECT_THAT(r.report,
              HasSubstr("first divergence in (0,2) mvm.odr at record 3 of that unit:\n  last 2 matching:\n    " +
                        describe_record(a[3]) + "\n    " + describe_record(a[5]) + "\n  A: " + describe_record(a[7]) +
                        "\n  B: " + describe_record(b[7]) + "\n  differs in data_hash: "));
  EXPECT_THAT(r.report, HasSubstr("2 of 4 unit streams diverge"));
}

TEST(RuntimeTraceCompare, TailCheckNamesTheLongerTrace) {
  const auto a = program(1);
  auto b = program(1);
  b.pop_back();  // the TASK_DONE
  const auto r = compare_traces(a, b);
  ASSERT_FALSE(r.equivalent);
  EXPECT_TRUE(r.divergences[0].b_ended);
  EXPECT_THAT(r.report, HasSubstr("B: (no more records)"));
  EXPECT_THAT(r.report,
              HasSubstr("(0,2) cmdproc descriptor at word 64: diverges at record 0; tail: A has 1 more records"));
}

// A core's queues run concurrently: the CMDPROC records of different descriptors may interleave
// in another order on the other backend (a DWPU task starting two cycles before or after a
// LoadIMC ends); one descriptor's records keep their order and their fields.
TEST(RuntimeTraceCompare, CmdprocRecordsOfConcurrentQueuesMayInterleave) {
  std::vector<Record> a;
  auto add = [&](Kind k, uint64_t start, uint32_t bytes) {
    Record r;
    r.seq = a.size();
    r.cycle = 10 * a.size();
    r.row = 2;
    r.unit = Unit::CMDPROC;
    r.kind = k;
    r.addr = start;
    r.bytes = bytes;
    a.push_back(r);
  };
  add(Kind::TASK_START, 312, 0);     // LoadIMC
  add(Kind::TASK_DONE, 312, 8192);   //   done
  add(Kind::TASK_START, 174, 0);     // DWPU
  add(Kind::TASK_START, 320, 0);     // the next LoadIMC
  add(Kind::TASK_DONE, 320, 8192);   //   done
  add(Kind::TASK_DONE, 174, 16384);  // DWPU done
  auto b = a;
  std::swap(b[1], b[2]);  // the DWPU starts before the first LoadIMC is done
  const auto r = compare_traces(a, b);
  EXPECT_TRUE(r.equivalent) << r.report;
  EXPECT_EQ(r.units, 3u);
  b[5].bytes = 4096;  // a descriptor's own record still differs
  const auto d = compare_traces(a, b);
  ASSERT_FALSE(d.equivalent);
  EXPECT_THAT(d.report, HasSubstr("first divergence in (0,2) cmdproc descriptor at word 174 at record 1"));
}

// The TLM writes REG_WRITE records with bytes 0 and the RTL with bytes 4 (the smoke suite's
// "tlm~rtl: traces diverge" on every random DMA program): a field the kind does not define is
// not part of the transaction; a field it defines still is.
TEST(RuntimeTraceCompare, FieldsAKindDoesNotDefineAreNotCompared) {
  const auto a = program(1);
  auto b = program(1);
  b[0].bytes = 4;          // REG_WRITE: bytes undefined
  b[1].token = 0x80;       // MEM_WRITE: token undefined
  b.back().data_hash = 9;  // TASK_DONE: data_hash undefined
  EXPECT_TRUE(compare_traces(a, b).equivalent) << compare_traces(a, b).report;
  b[0].data_hash ^= 1;  // the value written: defined
  const auto r = compare_traces(a, b);
  ASSERT_FALSE(r.equivalent);
  EXPECT_EQ(r.divergences.front().unit, Unit::HOST);
  b = program(1);
  b.back().bytes = 1;  // TASK_DONE bytes: defined
  EXPECT_FALSE(compare_traces(a, b).equivalent);
  EXPECT_EQ(trace::defined_fields(Kind::TOKEN), trace::kFieldToken);
}

// A DMA pair's MM2S and S2MM finish a few cycles apart (the TLM of 93e0f87 issued the S2MM token
// first, the RTL the MM2S one). Tokens of different issuers may interleave in any order; one
// issuer's may not.
TEST(RuntimeTraceCompare, TokensAreOrderedPerIssuer) {
  auto tok = [](uint64_t seq, uint32_t word) {
    Record r;
    r.seq = seq;
    r.unit = Unit::TOKEN;
    r.kind = Kind::TOKEN;
    r.token = word;
    return r;
  };
  const uint32_t s2mm0 = 0x80000000, mm2s0 = 0x80000020, mm2s0_tag1 = 0x80040020;
  const std::vector<Record> a{tok(0, s2mm0), tok(1, mm2s0), tok(2, mm2s0_tag1)};
  const std::vector<Record> b{tok(0, mm2s0), tok(1, s2mm0), tok(2, mm2s0_tag1)};
  const auto same = compare_traces(a, b);
  EXPECT_TRUE(same.equivalent) << same.report;
  EXPECT_EQ(same.units, 2u);
  const std::vector<Record> c{tok(0, s2mm0), tok(1, mm2s0_tag1), tok(2, mm2s0)};
  const auto r = compare_traces(a, c);
  ASSERT_FALSE(r.equivalent);
  EXPECT_THAT(r.report, HasSubstr("first divergence in (0,0) token from (0,0) MM2S ch0 at record 0 of that unit:"));
  EXPECT_EQ(r.divergences.front().source, 0x20);
}

TEST(RuntimeTimeline, OneTrackPerUnitWithTaskSpans) {
  auto v = program(1);
  Record start = v.back();
  start.kind = Kind::TASK_START;
  start.cycle = 5;
  v.insert(v.begin() + 1, start);
  std::ostringstream o;
  write_timeline(o, v);
  const std::string j = o.str();
  EXPECT_EQ(j.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0), 0u);
  // Without the compiler's names a core task is named by its descriptor word, in decimal.
  EXPECT_THAT(j, HasSubstr("{\"name\":\"descriptor at word 64\",\"cat\":\"task\",\"ph\":\"X\",\"ts\":0.005,"
                           "\"dur\":0.025,\"pid\":2,\"tid\":1"));
  EXPECT_THAT(j, HasSubstr("\"args\":{\"name\":\"mvm.odr\"}"));
  EXPECT_THAT(j, HasSubstr("\"args\":{\"name\":\"core0 (0,2)\"}"));
  EXPECT_THAT(j, Not(HasSubstr("\"cat\":\"mem\",\"ph\":\"X\"")));  // writes are instants
  EXPECT_EQ(j.substr(j.size() - 4), "\n]}\n");
}

// With the bundle's launch names (metadata "steps"), a task is named by the launch whose tag its
// push carries, and its datapath's units get a thread each with the task's span.
TEST(RuntimeTimeline, SpansCarryTheCompilersNamesOnEveryUnitsThread) {
  auto v = program(1);
  Record start = v.back();
  start.kind = Kind::TASK_START;
  start.cycle = 5;
  start.token = 3u << 24;  // tag 3
  v.back().token = 3u << 24;
  v.insert(v.begin() + 1, start);
  auto opt = timeline_options("0 load w1\n3 dp1.mvmexe (core.linear)\n");
  opt.task_units = [](unsigned, uint64_t) { return std::vector<Unit>{Unit::MVM_IFD0, Unit::MVM}; };
  std::ostringstream o;
  write_timeline(o, v, opt);
  const std::string j = o.str();
  EXPECT_THAT(j, HasSubstr("{\"name\":\"dp1.mvmexe (core.linear)\",\"cat\":\"task\""));
  EXPECT_THAT(j, HasSubstr("{\"name\":\"dp1.mvmexe (core.linear)\",\"cat\":\"unit\",\"ph\":\"X\",\"ts\":0.005,"
                           "\"dur\":0.025,\"pid\":2,\"tid\":" +
                           std::to_string(static_cast<unsigned>(Unit::MVM))));
  EXPECT_THAT(j, HasSubstr("\"args\":{\"name\":\"mvm.ifd0\"}"));
  EXPECT_THAT(j, HasSubstr("\"args\":{\"name\":\"mvm\"}"));
}

}  // namespace
}  // namespace axcore::runtime
