// The MVMEXE datapath with the DPU and IFD1, through the whole tile (tb_core, the same model as
// core_test): a matmul with a requantizing epilogue (per-channel scale and bias from IFD1, relu,
// cast to int8), a DPU-only datapath (IFD0 + IFD1 -> DPU -> ODR), all checked against common/ref
// (run_ifd, run_mvm, ref::Dpu, run_odr); refused programs (DPU_ILLEGAL, STREAM_DTYPE,
// DESC_RANGE), a run-time DPU_ILLEGAL, and the watchdog on a DPU starved on IFD1. The DWPU
// queue's datapath has the same DPU and IFD1: a DPU-only datapath with IFD1 on it (beside an
// MVMEXE one), and its refused unit sets and stream dtypes.
#include <gtest/gtest.h>

#include <algorithm>
#include <axcore/ref/dpu.hpp>
#include <axcore/ref/imc.hpp>
#include <axcore/ref/walk.hpp>
#include <cstdio>
#include <random>
#include <tuple>

#include "axcore/cosim/stimulus.hpp"
#include "tile_bench.hpp"

namespace {

namespace num = axcore::num;
namespace ref = axcore::ref;
namespace spec = axcore::spec;
namespace stim = axcore::stim;
namespace core = axcore::spec::core;
using ref::dpu_instr;
using ref::dpu_reg;
using rtlcore::kDpWord;
using rtlcore::kLiWord;
using rtlcore::kW0;
using rtlcore::kX0;
using rtlcore::kY0;
using rtlcore::Matmul;
using rtlcore::Tile;
using rtlcore::token_of;
using spec::DpuOp;
using spec::Dtype;
using spec::ErrorCode;

constexpr uint32_t kB0 = 9000;  // L1 row of the IFD1 operands

// A datapath descriptor with every section (MVMEXE kind unless `kind` says DWPU).
struct Dp {
  spec::DpKind kind = spec::DpKind::MVMEXE;
  spec::DpHeader h{};
  spec::Walk ifd0{}, ifd1{}, odr{};
  spec::MvmDesc mvm{};
  ref::DpuProgram dpu{};
  spec::Walk seg0{}, seg1{};  // the IFDs' later segments (walk.segs)

  // Every section is written (the MVM's words too, zero on the DWPU queue).
  std::vector<uint32_t> words() const {
    spec::DatapathDesc d;
    d.header = h;
    d.header.kind = kind;
    d.header.has_ifd0 = d.header.has_odr = 1;
    d.ifd0 = ifd0;
    d.ifd1 = ifd1;
    d.mvm = mvm;
    d.dpu = dpu.desc;
    d.odr = odr;
    d.seg0 = seg0;
    d.seg1 = seg1;
    d.program = dpu.code;
    return d.words();
  }
};

struct Bench {
  Tile t;
  std::vector<uint8_t> image = std::vector<uint8_t>(spec::param::l1_bytes, 0);
  ref::Imc imc;

  void put(uint32_t row, std::span<const uint8_t> b) {
    t.write_l1(uint64_t{row} * 64, b);
    std::copy(b.begin(), b.end(), image.begin() + std::ptrdiff_t{row} * 64);
  }
  void fill(std::mt19937& rng, uint32_t row, uint32_t rows) {
    std::vector<uint8_t> b(std::size_t{rows} * 64);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    put(row, b);
  }
  void put_elements(uint32_t row, const std::vector<num::AnyPword>& es) {
    std::vector<uint8_t> b;
    for (const auto& e : es) {
      std::vector<uint8_t> one(num::element_bytes(e.dtype));
      num::store_element(e, one);
      b.insert(b.end(), one.begin(), one.end());
    }
    put(row, b);
  }
  void load(const Matmul& mm) {
    t.write_cmd(kLiWord, mm.load().encode());
    t.push(2, kLiWord, 1);
    const std::size_t n = t.tokens.size();
    ASSERT_TRUE(t.wait_tokens(n + 1));
    ASSERT_FALSE(token_of(t.tokens.back()).error);
    ref::run_loadimc(mm.load(), image, imc);
  }
  // Runs the datapath on the tile and the reference; returns the task's token.
  spec::Token run(const Dp& dp, uint32_t tag, int limit = 2000000) {
    t.write_cmd(kDpWord, dp.words());
    const std::size_t n = t.tokens.size();
    t.push(dp.kind == spec::DpKind::DWPU ? 1 : 0, kDpWord, tag);
    EXPECT_TRUE(t.wait_tokens(n + 1, limit));
    if (t.tokens.size() <= n) return {};
    return token_of(t.tokens.back());
  }
  // The reference of a legal datapath, writing its result into `image`.
  void reference(const Dp& dp) {
    std::vector<ref::Element> xs, ws, ys, zs;
    const auto desc = spec::DatapathDesc::decode(dp.words());  // each feeder with its segments
    ref::run_ifd(ref::ifd_walks(desc, 0, dp.h.has_ifd1), image, [&](const ref::Element& e) { xs.push_back(e); });
    if (dp.h.has_ifd1)
      ref::run_ifd(ref::ifd_walks(desc, 1, true), image, [&](const ref::Element& e) { ws.push_back(e); });
    if (dp.h.has_main) {
      ref::VectorSource src(xs);
      ref::run_mvm(dp.mvm, imc, src.fn(), [&](const ref::Element& e) { ys.push_back(e); });
    } else {
      ys = xs;
    }
    if (dp.h.has_dpu) {
      std::size_t i0 = 0, i1 = 0;
      ref::DpuIo io;
      io.pop = [&](unsigned s) { return s == 1 ? ws.at(i1++) : ys.at(i0++); };
      io.push = [&](const ref::Element& e) { zs.push_back(e); };
      ref::run_dpu(dp.dpu, ref::DpuConfig{dp.h.has_ifd1 != 0}, io);
    } else {
      zs = ys;
    }
    ref::VectorSource zsrc(zs);
    ref::run_odr(dp.odr, image, zsrc.fn());
  }
  void expect_output(std::size_t bytes, uint32_t row = kY0) {
    const auto got = t.read_l1(uint64_t{row} * 64, bytes);
    const auto* want = image.data() + std::size_t{row} * 64;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[i] && bad++ < 5)
        ADD_FAILURE() << "output byte " << i << ": rtl " << int{got[i]} << ", ref " << int{want[i]};
    }
    EXPECT_EQ(bad, 0u);
  }
  uint32_t perf(spec::PerfUnit u, unsigned which) {
    const uint32_t i = static_cast<uint32_t>(u);
    return t.read(which == 0 ? core::PERF_BUSY.at(i) : which == 1 ? core::PERF_STALL_IN.at(i) : core::PERF_TASKS.at(i));
  }
};

// out = int8(relu(acc * scale[n] + bias[n])) per N-block n: scale and bias arrive on IFD1 in the
// init preamble (a loop into a loop-indexed register file); the body loops over the N-blocks.
Dp epilogue(const Matmul& mm) {
  Dp dp;
  dp.h.has_main = dp.h.has_dpu = dp.h.has_ifd1 = 1;
  dp.ifd0 = mm.ifd();
  dp.mvm = mm.mvm();
  dp.ifd1 = stim::linear_walk(kB0, 2 * mm.nb, Dtype::FLOAT32, Dtype::FLOAT32);
  Matmul o = mm;
  o.out = o.odr_from = Dtype::INT8;
  dp.odr = o.odr();
  auto& d = dp.dpu.desc;
  d.in0_dtype = Dtype::INT32;
  d.in1_dtype = Dtype::FLOAT32;
  d.out_dtype = Dtype::INT8;
  d.iterations = mm.m;
  const auto idx = spec::DpuIndex::LOOP1;
  dp.dpu.code = {
      // init: scale[n] -> r8 + n, bias[n] -> r16 + n
      dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, mm.nb),
      dpu_instr(DpuOp::POP, dpu_reg(8, idx), 0, 0, 0, 1),
      dpu_instr(DpuOp::POP, dpu_reg(16, idx), 0, 0, 0, 1),
      dpu_instr(DpuOp::ENDLOOP),
      // body (one output row): for each N-block
      dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, mm.nb),
      dpu_instr(DpuOp::POP, dpu_reg(0)),
      dpu_instr(DpuOp::FMA, dpu_reg(1), dpu_reg(0), dpu_reg(8, idx), dpu_reg(16, idx)),
      dpu_instr(DpuOp::MAX, dpu_reg(1), dpu_reg(1), dpu_reg(31)),  // r31 stays +0: relu
      dpu_instr(DpuOp::PUSH, 0, dpu_reg(1)),
      dpu_instr(DpuOp::ENDLOOP),
  };
  d.init_len = 4;
  d.body_len = 6;
  return dp;
}

std::vector<num::AnyPword> scales_and_biases(std::mt19937& rng, uint32_t nb) {
  std::vector<num::AnyPword> r;
  std::uniform_real_distribution<float> sc(1.0f / 4000, 1.0f / 500), bi(-20.0f, 20.0f);
  for (uint32_t n = 0; n < nb; ++n) {
    num::PwordF32 s, b;
    for (auto& v : s) v = sc(rng);
    for (auto& v : b) v = bi(rng);
    r.push_back(num::AnyPword::of(s));
    r.push_back(num::AnyPword::of(b));
  }
  return r;
}

TEST(DatapathTest, MatmulWithRequantizingEpilogueMatchesTheReference) {
  Bench b;
  std::mt19937 rng(41);
  Matmul mm{6, 3, 2};
  b.fill(rng, kX0, mm.m * mm.kb);
  b.fill(rng, kW0, mm.kb * mm.nb * 64);
  b.load(mm);
  b.put_elements(kB0, scales_and_biases(rng, mm.nb));
  const Dp dp = epilogue(mm);
  b.t.write_cmd(kDpWord, dp.words());
  const uint64_t c0 = b.t.sim.cycle();
  b.t.push(0, kDpWord, 5);
  ASSERT_TRUE(b.t.wait_tokens(2));
  const spec::Token tk = token_of(b.t.tokens.back());
  std::printf(
      "matmul M=%u K=%u N=%u + requantizing epilogue (5 DPU instructions per output): %llu cycles "
      "push to token\n",
      mm.m, 64 * mm.kb, 64 * mm.nb, static_cast<unsigned long long>(b.t.sim.cycle() - c0));
  EXPECT_FALSE(tk.error) << spec::to_string(tk.code);
  b.reference(dp);
  b.expect_output(std::size_t{mm.m} * mm.nb * 64);
  // the output is not trivially clipped or zero
  std::size_t zeros = 0, clipped = 0;
  for (std::size_t i = 0; i < std::size_t{mm.m} * mm.nb * 64; ++i) {
    const auto v = static_cast<int8_t>(b.image[std::size_t{kY0} * 64 + i]);
    zeros += v == 0;
    clipped += v == 127;
  }
  EXPECT_LT(zeros, std::size_t{mm.m} * mm.nb * 48);
  EXPECT_LT(clipped, std::size_t{mm.m} * mm.nb * 32);
  // perf: the DPU's init and body instructions; IFD1 and the DPU one task each
  const uint32_t instr = (1 + 3 * mm.nb) + mm.m * (1 + 5 * mm.nb);
  EXPECT_EQ(b.perf(spec::PerfUnit::MVM_DPU, 0), instr);
  EXPECT_EQ(b.perf(spec::PerfUnit::MVM_DPU, 2), 1u);
  EXPECT_EQ(b.perf(spec::PerfUnit::MVM_IFD1, 2), 1u);
  EXPECT_EQ(b.perf(spec::PerfUnit::MVM, 0), mm.m * mm.kb * mm.nb);
}

// n float16 elements at x0 and n int8 elements at b0 (the operands of dpu_only).
void put_dpu_only_operands(Bench& b, std::mt19937& rng, uint32_t n, uint32_t x0, uint32_t b0) {
  std::vector<num::AnyPword> xs, ws;
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  for (uint32_t i = 0; i < n; ++i) {
    num::PwordF16 x;
    for (auto& v : x) v = num::f16_from_double(u(rng));
    xs.push_back(num::AnyPword::of(x));
    num::PwordI8 w;
    for (auto& v : w) v = static_cast<int8_t>(rng());
    ws.push_back(num::AnyPword::of(w));
  }
  b.put_elements(x0, xs);
  b.put_elements(b0, ws);
}

// IFD0 (float16) and IFD1 (int8) straight into the DPU (7 instructions per element), no main
// unit; the ODR stores float16 of the DPU's float32 output.
Dp dpu_only(spec::DpKind kind, uint32_t n, uint32_t x0, uint32_t b0, uint32_t y0) {
  Dp dp;
  dp.kind = kind;
  dp.h.has_dpu = dp.h.has_ifd1 = 1;
  dp.ifd0 = stim::linear_walk(x0, n, Dtype::FLOAT16, Dtype::FLOAT16);
  dp.ifd1 = stim::linear_walk(b0, n, Dtype::INT8, Dtype::INT8);
  dp.odr = stim::linear_walk(y0, n, Dtype::FLOAT16, Dtype::FLOAT32);
  auto& d = dp.dpu.desc;
  d.in0_dtype = Dtype::FLOAT16;
  d.in1_dtype = Dtype::INT8;
  d.out_dtype = Dtype::FLOAT32;
  d.iterations = n;
  dp.dpu.code = {
      dpu_instr(DpuOp::POP, dpu_reg(0)),
      dpu_instr(DpuOp::POP, dpu_reg(1), 0, 0, 0, 1),
      dpu_instr(DpuOp::MUL, dpu_reg(2), dpu_reg(0), dpu_reg(1)),
      dpu_instr(DpuOp::MAX_REDUCE, dpu_reg(3), dpu_reg(2)),
      dpu_instr(DpuOp::SUB, dpu_reg(4), dpu_reg(2), dpu_reg(3)),
      dpu_instr(DpuOp::ADD, dpu_reg(5), dpu_reg(5), dpu_reg(4)),  // a running sum across elements
      dpu_instr(DpuOp::PUSH, 0, dpu_reg(5)),
  };
  d.body_len = static_cast<uint32_t>(dp.dpu.code.size());
  return dp;
}

// The DPU-only datapath on the MVMEXE queue, twice (repeat 1): the registers start at +0 in
// every run.
TEST(DatapathTest, DpuOnlyWithSideInputMatchesTheReference) {
  Bench b;
  std::mt19937 rng(42);
  constexpr uint32_t n = 12;
  put_dpu_only_operands(b, rng, n, kX0, kB0);
  const Dp dp = dpu_only(spec::DpKind::MVMEXE, n, kX0, kB0, kY0);
  b.t.write_cmd(kDpWord, dp.words());
  b.t.push(0, kDpWord, 6, true, 1);
  ASSERT_TRUE(b.t.wait_tokens(1));
  EXPECT_FALSE(token_of(b.t.tokens[0]).error) << spec::to_string(token_of(b.t.tokens[0]).code);
  b.reference(dp);
  b.expect_output(std::size_t{n} * 128);
  EXPECT_EQ(b.perf(spec::PerfUnit::MVM_DPU, 0), 2 * n * 7);
  EXPECT_EQ(b.perf(spec::PerfUnit::MVM, 0), 0u);
}

// The same DPU-only datapath on the DWPU queue (its own IFD1 and DPU), first alone (twice:
// repeat 1), then beside the MVMEXE queue's copy on other rows: both match the reference and
// the two task intervals overlap.
TEST(DatapathTest, DwpuQueueDpuOnlyWithSideInputMatchesTheReference) {
  Bench b;
  std::mt19937 rng(47);
  constexpr uint32_t n = 12, kX1 = kX0 + 64, kB1 = kB0 + 64, kY1 = kY0 + 64;
  constexpr uint32_t kDwWord = 0x200;
  put_dpu_only_operands(b, rng, n, kX0, kB0);
  put_dpu_only_operands(b, rng, n, kX1, kB1);
  const Dp dw = dpu_only(spec::DpKind::DWPU, n, kX0, kB0, kY0);
  b.t.write_cmd(kDwWord, dw.words());
  const uint64_t c0 = b.t.sim.cycle();
  b.t.push(1, kDwWord, 7);
  ASSERT_TRUE(b.t.wait_tokens(1));
  std::printf("DWPU-queue DPU-only datapath, %u elements x 7 DPU instructions: %llu cycles push to token\n", n,
              static_cast<unsigned long long>(b.t.sim.cycle() - c0));
  EXPECT_FALSE(token_of(b.t.tokens[0]).error) << spec::to_string(token_of(b.t.tokens[0]).code);
  EXPECT_EQ(token_of(b.t.tokens[0]).channel, spec::param::core_queue_channel_base + 1);
  b.reference(dw);
  b.expect_output(std::size_t{n} * 128);
  EXPECT_EQ(b.perf(spec::PerfUnit::DW_DPU, 0), n * 7);
  EXPECT_EQ(b.perf(spec::PerfUnit::DW_DPU, 2), 1u);
  EXPECT_EQ(b.perf(spec::PerfUnit::DW_IFD1, 2), 1u);
  EXPECT_EQ(b.perf(spec::PerfUnit::DWPU, 2), 0u);
  EXPECT_EQ(b.perf(spec::PerfUnit::MVM_DPU, 0), 0u);
  // both queues at once (the DWPU one repeated 3 times, so it outlasts the MVMEXE one: the
  // MVMEXE task, pushed later, ends inside the DWPU task's interval)
  const Dp mv = dpu_only(spec::DpKind::MVMEXE, n, kX1, kB1, kY1);
  b.t.write_cmd(kDpWord, mv.words());
  b.t.push(1, kDwWord, 8, true, 3);
  b.t.push(0, kDpWord, 9);
  ASSERT_TRUE(b.t.wait_tokens(3));
  for (std::size_t i = 1; i < 3; ++i)
    EXPECT_FALSE(token_of(b.t.tokens[i]).error) << spec::to_string(token_of(b.t.tokens[i]).code);
  EXPECT_EQ(token_of(b.t.tokens[1]).tag, 9u);  // the MVMEXE task ended first
  EXPECT_EQ(token_of(b.t.tokens[2]).tag, 8u);
  b.reference(mv);
  b.expect_output(std::size_t{n} * 128, kY1);
  b.expect_output(std::size_t{n} * 128, kY0);
  EXPECT_EQ(b.perf(spec::PerfUnit::DW_DPU, 0), 5 * n * 7);
  EXPECT_EQ(b.perf(spec::PerfUnit::MVM_DPU, 0), n * 7);
}

// Datapaths queued back to back (docs/timing.md "Command processor", prefetch): three DPU-only
// datapaths on the MVMEXE queue and two on the DWPU queue, with programs of different lengths and
// results. Each fetches its descriptor and loads its program into the DPU's other bank while its
// predecessor runs, starts two cycles after that one's TASK_DONE, and matches the reference.
TEST(DatapathTest, QueuedDatapathsRunTheirOwnProgramsWithoutAFetchGap) {
  Bench b;
  std::mt19937 rng(51);
  constexpr uint32_t n = 40;
  std::vector<Dp> dps;
  for (uint32_t i = 0; i < 5; ++i) {
    const uint32_t x = 200 * i, w = kB0 + 64 * i, y = kY0 + 100 * i;
    put_dpu_only_operands(b, rng, n, x, w);
    Dp dp = dpu_only(i >= 3 ? spec::DpKind::DWPU : spec::DpKind::MVMEXE, n, x, w, y);
    if (i % 2 == 1) {  // a shorter program: x * side input, pushed
      dp.dpu.code = {dp.dpu.code[0], dp.dpu.code[1], dp.dpu.code[2], dpu_instr(DpuOp::PUSH, 0, dpu_reg(2))};
      dp.dpu.desc.body_len = static_cast<uint32_t>(dp.dpu.code.size());
    }
    dps.push_back(dp);
  }
  for (uint32_t i = 0; i < dps.size(); ++i) b.t.write_cmd(0x400 + 0x100 * i, dps[i].words());
  for (uint32_t i = 0; i < dps.size(); ++i) b.t.push(i >= 3 ? 1 : 0, 0x400 + 0x100 * i, i);
  ASSERT_TRUE(b.t.wait_tokens(5));
  for (const uint32_t tk : b.t.tokens) EXPECT_FALSE(token_of(tk).error) << spec::to_string(token_of(tk).code);
  for (uint32_t i = 0; i < dps.size(); ++i) {
    b.reference(dps[i]);
    b.expect_output(std::size_t{n} * 128, kY0 + 100 * i);
  }
  // start (queue q, i-th start) two cycles after the previous task's done
  for (const auto& [q, first, count] : {std::tuple{0u, 0u, 3u}, std::tuple{1u, 3u, 2u}}) {
    const auto& ev = b.t.cmd_events[q];
    const auto& cy = b.t.cmd_cycles[q];
    ASSERT_EQ(ev.size(), 2u * count);
    for (std::size_t k = 2; k < ev.size(); k += 2) {
      EXPECT_TRUE(ev[k].first);
      EXPECT_EQ(ev[k].second, 0x400 + 0x100 * (first + k / 2));
      EXPECT_EQ(cy[k], cy[k - 1] + 2) << "queue " << q << " task " << k / 2;
    }
  }
}

// The port reads only the words the device uses (docs/timing.md "Fetched words", ax_fetch_next):
// a datapath pushed to an idle queue starts as many cycles after its push as its descriptor has
// such words, plus the fixed overhead a LoadIMC (4 read words) shows; the other words hold
// garbage here and the output still equals the reference. A guard that is always true adds its
// 3 words; IFD0 split into two segments (walk.segs, the seg0 section) the seg walk's 4. (tests/tlm
// cmdproc_test: the same case on the TLM.)
TEST(DatapathTest, FetchReadsOnlyTheWordsTheDeviceUses) {
  Tile t;
  constexpr uint32_t n = 64, kDp = 0x400, kDpGuard = 0x600, kDpSeg = 0x800, kY = 1000, kYGuard = 2000, kYSeg = 3000;
  std::vector<uint8_t> image(spec::param::l1_bytes, 0);
  const auto bytes = stim::f16_elements(n, 3);
  std::copy(bytes.begin(), bytes.end(), image.begin());
  t.write_l1(0, bytes);
  stim::Datapath dp = stim::dpu_f16(spec::DpKind::MVMEXE, n, 0, kY, true);
  stim::Datapath guarded = dp;
  guarded.odr.base_row = kYGuard;
  guarded.odr.nguards = 1;
  guarded.odr.g0_extent = 0xFFFF;                          // 0 <= 0 < 65535: every element stored
  stim::Datapath segmented = stim::split_ifd0(dp, n / 2);  // the same 64 elements as two segments
  segmented.odr.base_row = kYSeg;
  stim::reference_datapath(dp, image, nullptr);
  stim::reference_datapath(guarded, image, nullptr);
  stim::reference_datapath(segmented, image, nullptr);
  const auto [w_dp, reads_dp] = stim::garble_unread_words(dp, spec::Queue::MVMEXE);
  const auto [w_guarded, reads_guarded] = stim::garble_unread_words(guarded, spec::Queue::MVMEXE);
  const auto [w_seg, reads_seg] = stim::garble_unread_words(segmented, spec::Queue::MVMEXE);
  EXPECT_EQ(reads_guarded, reads_dp + 3);
  EXPECT_EQ(reads_seg, reads_dp + 4);
  t.write_cmd(kDp, w_dp);
  t.write_cmd(kDpGuard, w_guarded);
  t.write_cmd(kDpSeg, w_seg);
  t.write_cmd(kLiWord, rtlcore::tile_load(1, 0, 0).encode());
  // each pushed to its idle queue: TASK_START - push = overhead + words read
  auto latency = [&](unsigned q, uint32_t word, uint32_t tag) -> uint64_t {
    const uint64_t c = t.sim.cycle();
    t.push(q, word, tag);
    if (!t.wait_tokens(tag, 5000)) ADD_FAILURE() << "no token " << tag;
    for (std::size_t i = 0; i < t.cmd_events[q].size(); ++i)
      if (t.cmd_events[q][i] == std::make_pair(true, word)) return t.cmd_cycles[q][i] - c;
    ADD_FAILURE() << "no TASK_START at word " << word;
    return 0;
  };
  const uint64_t li = latency(2, kLiWord, 1);
  EXPECT_EQ(latency(0, kDp, 2), li - 4 + reads_dp);
  EXPECT_EQ(latency(0, kDpGuard, 3), li - 4 + reads_guarded);
  EXPECT_EQ(latency(0, kDpSeg, 4), li - 4 + reads_seg);
  for (const uint32_t tk : t.tokens) EXPECT_FALSE(token_of(tk).error) << spec::to_string(token_of(tk).code);
  for (const uint32_t y : {kY, kYGuard, kYSeg}) {
    const auto got = t.read_l1(uint64_t{y} * 64, std::size_t{n} * 128);
    EXPECT_TRUE(std::equal(got.begin(), got.end(), image.begin() + std::ptrdiff_t{y} * 64)) << "output at row " << y;
  }
}

// PERF_TASKS counts the tasks a unit completed without error (spec/axcore.yaml): a task that
// fails at run time and one refused at its descriptor are not counted, the good ones are; the
// counter after each task is its own (it used to take the previous task's error flag, one task
// late).
TEST(DatapathTest, PerfTasksCountsOnlyTasksWithoutError) {
  Bench b;
  std::mt19937 rng(49);
  constexpr uint32_t n = 12;
  constexpr uint32_t kRows = spec::param::l1_bytes / 64;
  put_dpu_only_operands(b, rng, n, kX0, kB0);
  auto expect_tasks = [&](uint32_t units, uint32_t cmdproc, const char* after) {
    SCOPED_TRACE(after);
    for (const auto u :
         {spec::PerfUnit::MVM_IFD0, spec::PerfUnit::MVM_IFD1, spec::PerfUnit::MVM_DPU, spec::PerfUnit::MVM_ODR})
      EXPECT_EQ(b.perf(u, 2), units) << "unit " << static_cast<unsigned>(u);
    EXPECT_EQ(b.perf(spec::PerfUnit::MVM, 2), 0u);  // no MVM in these datapaths
    EXPECT_EQ(b.perf(spec::PerfUnit::CMDPROC, 2), cmdproc);
  };
  const Dp good = dpu_only(spec::DpKind::MVMEXE, n, kX0, kB0, kY0);
  // the ODR's third float16 element (2 rows each) lies past the end of L1
  const Dp faulty = dpu_only(spec::DpKind::MVMEXE, n, kX0, kB0, kRows - 4);
  Dp refused = good;
  refused.dpu.desc.in0_dtype = Dtype::INT8;  // IFD0 delivers float16

  spec::Token tk = b.run(faulty, 60);
  EXPECT_TRUE(tk.error);
  EXPECT_EQ(tk.code, ErrorCode::L1_RANGE) << spec::to_string(tk.code);
  expect_tasks(0, 0, "a run-time L1_RANGE first");
  tk = b.run(refused, 61);
  EXPECT_EQ(tk.code, ErrorCode::STREAM_DTYPE) << spec::to_string(tk.code);
  expect_tasks(0, 0, "then a refused descriptor");
  tk = b.run(good, 62);
  EXPECT_FALSE(tk.error) << spec::to_string(tk.code);
  expect_tasks(1, 1, "then a good task");
  tk = b.run(faulty, 63);
  EXPECT_EQ(tk.code, ErrorCode::L1_RANGE) << spec::to_string(tk.code);
  expect_tasks(1, 1, "a run-time fault after a good task");
  tk = b.run(good, 64);
  EXPECT_FALSE(tk.error) << spec::to_string(tk.code);
  expect_tasks(2, 2, "a good task after a fault");
  b.reference(good);
  b.expect_output(std::size_t{n} * 128);
}

// The DWPU queue checks its DPU and IFD1 as the MVMEXE queue does: IFD1 without the DPU is
// DESC_UNITS, a DPU input dtype other than IFD0's is STREAM_DTYPE, an illegal program is
// DPU_ILLEGAL; a good one runs afterwards.
TEST(DatapathTest, DwpuQueueRefusesBadDpuDescriptors) {
  Bench b;
  std::mt19937 rng(48);
  constexpr uint32_t n = 4;
  put_dpu_only_operands(b, rng, n, kX0, kB0);
  auto code_of = [&](const Dp& dp, uint32_t tag) {
    const spec::Token tk = b.run(dp, tag, 20000);
    EXPECT_TRUE(tk.error);
    return tk.code;
  };
  Dp dp = dpu_only(spec::DpKind::DWPU, n, kX0, kB0, kY0);
  dp.h.has_dpu = 0;
  EXPECT_EQ(code_of(dp, 50), ErrorCode::DESC_UNITS);
  dp = dpu_only(spec::DpKind::DWPU, n, kX0, kB0, kY0);
  dp.dpu.desc.in0_dtype = Dtype::INT8;
  EXPECT_EQ(code_of(dp, 51), ErrorCode::STREAM_DTYPE);
  dp = dpu_only(spec::DpKind::DWPU, n, kX0, kB0, kY0);
  dp.dpu.code[1].imm = 2;  // no stream 2
  EXPECT_EQ(code_of(dp, 52), ErrorCode::DPU_ILLEGAL);
  dp = dpu_only(spec::DpKind::DWPU, n, kX0, kB0, kY0);
  dp.dpu.desc.body_len += 1;
  EXPECT_EQ(code_of(dp, 53), ErrorCode::DESC_RANGE);
  dp = dpu_only(spec::DpKind::DWPU, n, kX0, kB0, kY0);
  const spec::Token ok = b.run(dp, 54);
  EXPECT_FALSE(ok.error) << spec::to_string(ok.code);
  b.reference(dp);
  b.expect_output(std::size_t{n} * 128);
}

TEST(DatapathTest, RefusedAndFailingDpuProgramsEndWithErrorTokens) {
  Bench b;
  std::mt19937 rng(43);
  Matmul mm{2, 1, 1};
  b.fill(rng, kX0, mm.m * mm.kb);
  b.fill(rng, kW0, mm.kb * mm.nb * 64);
  b.load(mm);
  b.put_elements(kB0, scales_and_biases(rng, mm.nb));
  auto code_of = [&](const Dp& dp, uint32_t tag) {
    const spec::Token tk = b.run(dp, tag, 20000);
    EXPECT_TRUE(tk.error);
    return tk.code;
  };
  Dp dp = epilogue(mm);
  dp.dpu.code[3] = dpu_instr(DpuOp::NOP);  // the init ends inside its loop
  EXPECT_EQ(code_of(dp, 10), ErrorCode::DPU_ILLEGAL);
  dp = epilogue(mm);
  dp.dpu.code[1].imm = 2;  // no stream 2
  EXPECT_EQ(code_of(dp, 11), ErrorCode::DPU_ILLEGAL);
  dp = epilogue(mm);
  dp.dpu.desc.in0_dtype = Dtype::FLOAT32;  // the MVM delivers int32
  EXPECT_EQ(code_of(dp, 12), ErrorCode::STREAM_DTYPE);
  dp = epilogue(mm);
  dp.dpu.desc.out_dtype = Dtype::FLOAT18;  // not a stream dtype
  EXPECT_EQ(code_of(dp, 13), ErrorCode::STREAM_DTYPE);
  b.t.write(core::ERROR_STATUS.offset, 0xFFFFFFFFu);  // ERROR_INFO keeps the first error
  dp = epilogue(mm);
  dp.dpu.desc.body_len += 1;  // the program runs past the descriptor's words
  EXPECT_EQ(code_of(dp, 14), ErrorCode::DESC_RANGE);
  EXPECT_EQ(core::ErrorInfo::decode_word(b.t.read(core::ERROR_INFO.offset)).code, ErrorCode::DESC_RANGE);
  // at run time: a loop-indexed register past the file
  dp = epilogue(mm);
  dp.dpu.code[2] = dpu_instr(DpuOp::POP, dpu_reg(31, spec::DpuIndex::LOOP1), 0, 0, 0, 1);
  dp.dpu.code[0].imm = 2;  // the init loop runs twice: r31 + 1 leaves the file
  dp.ifd1.d0_size = 4;
  EXPECT_EQ(code_of(dp, 15), ErrorCode::DPU_ILLEGAL);
  // and the datapath still works afterwards
  b.t.write(core::ERROR_STATUS.offset, 0xFFFFFFFFu);
  dp = epilogue(mm);
  const spec::Token ok = b.run(dp, 16);
  EXPECT_FALSE(ok.error) << spec::to_string(ok.code);
  b.reference(dp);
  b.expect_output(std::size_t{mm.m} * mm.nb * 64);
}

// Neither MVM nor DPU: IFD0 feeds the ODR (a copy with a cast); a cast_from other than IFD0's
// dtype is STREAM_DTYPE.
TEST(DatapathTest, MovementOnlyDatapathCopiesWithACast) {
  Bench b;
  std::mt19937 rng(46);
  constexpr uint32_t n = 5;
  b.fill(rng, kX0, 2 * n);
  Dp dp;
  dp.ifd0 = stim::linear_walk(kX0, n, Dtype::FLOAT16, Dtype::FLOAT16);
  dp.odr = stim::linear_walk(kY0, n, Dtype::FLOAT32, Dtype::FLOAT16);
  const spec::Token tk = b.run(dp, 40);
  EXPECT_FALSE(tk.error) << spec::to_string(tk.code);
  b.reference(dp);
  b.expect_output(std::size_t{n} * 256);
  dp.odr.cast_from = Dtype::INT32;
  const spec::Token bad = b.run(dp, 41);
  EXPECT_TRUE(bad.error);
  EXPECT_EQ(bad.code, ErrorCode::STREAM_DTYPE);
}

// §8.3 segments (spec walk.segs): IFD0 runs 5 float16 elements, then 3 more 50 rows on (seg0), into
// an ODR that casts them to float32: equal to the reference, in exactly the cycles of one 2-D walk
// over the same 8 elements (no bubble between the segments, docs/timing.md); more segments than
// the seg sections, segs on a seg section or on the ODR walk: DESC_RANGE.
TEST(DatapathTest, IfdSegmentsRunBackToBackWithoutABubble) {
  Bench b;
  std::mt19937 rng(48);
  b.fill(rng, kX0, 80);
  Dp dp;
  dp.ifd0 = stim::linear_walk(kX0, 5, Dtype::FLOAT16, Dtype::FLOAT16);
  dp.ifd0.segs = 1;
  dp.seg0 = stim::linear_walk(kX0 + 50, 3, Dtype::FLOAT16, Dtype::FLOAT16);
  dp.odr = stim::linear_walk(kY0, 8, Dtype::FLOAT32, Dtype::FLOAT16);
  auto span_of_last = [&] {  // start to end of the last MVMEXE task, in cycles
    const auto& cy = b.t.cmd_cycles[0];
    EXPECT_GE(cy.size(), 2u);
    return cy.size() >= 2 ? cy[cy.size() - 1] - cy[cy.size() - 2] : 0;
  };
  const spec::Token tk = b.run(dp, 50);
  EXPECT_FALSE(tk.error) << spec::to_string(tk.code);
  const uint64_t segmented = span_of_last();
  b.reference(dp);
  b.expect_output(std::size_t{8} * 256);
  Dp one = dp;  // the same 8 elements as one walk (rows kX0 + 10.. hold seg0's; the same L1 banks)
  one.ifd0 = stim::linear_walk(kX0, 8, Dtype::FLOAT16, Dtype::FLOAT16);
  one.ifd0.segs = 0;
  one.seg0 = {};
  b.put(kX0 + 10, b.t.read_l1(uint64_t{kX0 + 50} * 64, std::size_t{6} * 64));
  EXPECT_FALSE(b.run(one, 51).error);
  const uint64_t whole = span_of_last();
  EXPECT_EQ(segmented, whole);
  std::printf("IFD0 segments 5 + 3 float16 -> ODR float32: %llu cycles start to token; one walk: %llu\n",
              static_cast<unsigned long long>(segmented), static_cast<unsigned long long>(whole));
  b.reference(one);
  b.expect_output(std::size_t{8} * 256);
  Dp bad = dp;
  bad.ifd0.segs = 3;
  EXPECT_EQ(b.run(bad, 52).code, ErrorCode::DESC_RANGE);
  bad = dp;
  bad.seg0.segs = 1;
  EXPECT_EQ(b.run(bad, 53).code, ErrorCode::DESC_RANGE);
  bad = dp;
  bad.odr.segs = 1;
  EXPECT_EQ(b.run(bad, 54).code, ErrorCode::DESC_RANGE);
  bad = dp;
  bad.seg0.dtype = bad.seg0.cast_from = Dtype::INT8;  // the ODR takes one stream dtype
  EXPECT_EQ(b.run(bad, 55).code, ErrorCode::STREAM_DTYPE);
}

// The lane transpose in the tile: the DWPU queue's IFD0 -> ODR with walk transpose stores the
// reference's transposed blocks; the command processor refuses it with DESC_RANGE on the
// MVMEXE queue, on an IFD walk and with a walk length that is not a multiple of 64.
TEST(DatapathTest, LaneTransposeOnTheDwpuQueueOnly) {
  Bench b;
  std::mt19937 rng(49);
  b.fill(rng, kX0, 128);
  Dp dp;
  dp.kind = spec::DpKind::DWPU;
  dp.ifd0 = stim::linear_walk(kX0, 128, Dtype::INT8, Dtype::INT8);
  dp.odr = stim::linear_walk(kY0, 128, Dtype::INT8, Dtype::INT8);
  dp.odr.transpose = 1;
  const spec::Token tk = b.run(dp, 60);
  EXPECT_FALSE(tk.error) << spec::to_string(tk.code);
  b.reference(dp);
  b.expect_output(std::size_t{128} * 64);
  auto code_of = [&](const Dp& d, uint32_t tag) {
    const spec::Token t = b.run(d, tag, 20000);
    EXPECT_TRUE(t.error);
    return t.code;
  };
  Dp bad = dp;
  bad.kind = spec::DpKind::MVMEXE;
  EXPECT_EQ(code_of(bad, 61), ErrorCode::DESC_RANGE);
  bad = dp;
  bad.ifd0.transpose = 1;
  EXPECT_EQ(code_of(bad, 62), ErrorCode::DESC_RANGE);
  bad = dp;
  bad.ifd0.d0_size = bad.odr.d0_size = 96;
  EXPECT_EQ(code_of(bad, 63), ErrorCode::DESC_RANGE);
}

// IFD0 walks more elements than the DPU takes: the end of the task clears them, so the next
// task computes on its own data only (and the datapath is idle in between).
TEST(DatapathTest, LeftoverElementsDoNotReachTheNextTask) {
  Bench b;
  std::mt19937 rng(45);
  b.fill(rng, kX0, 16);
  auto task = [](uint32_t base, uint32_t walk_n, uint32_t iters) {
    Dp dp;
    dp.h.has_dpu = 1;
    dp.ifd0 = stim::linear_walk(base, walk_n, Dtype::INT8, Dtype::INT8);
    dp.odr = stim::linear_walk(kY0, iters, Dtype::INT32, Dtype::INT32);
    dp.dpu.desc.in0_dtype = Dtype::INT8;
    dp.dpu.desc.out_dtype = Dtype::INT32;
    dp.dpu.desc.iterations = iters;
    dp.dpu.code = {dpu_instr(DpuOp::POP, dpu_reg(0)), dpu_instr(DpuOp::MUL, dpu_reg(0), dpu_reg(0), dpu_reg(0)),
                   dpu_instr(DpuOp::PUSH, 0, dpu_reg(0))};
    dp.dpu.desc.body_len = 3;
    return dp;
  };
  const spec::Token t1 = b.run(task(kX0, 8, 3), 30);  // 5 elements left over
  EXPECT_FALSE(t1.error);
  for (int i = 0; i < 50; ++i) b.t.tick();
  EXPECT_EQ(core::CoreStatus::decode_word(b.t.read(core::CORE_STATUS.offset)).mvmexe_busy, 0u);
  const Dp second = task(kX0 + 8, 4, 4);
  const spec::Token t2 = b.run(second, 31);
  EXPECT_FALSE(t2.error);
  b.reference(second);
  b.expect_output(4 * 256);
}

// A DPU that pops IFD1 once more than IFD1 delivers hangs; the watchdog aborts it and records
// dpu_in1 (and the ODR waiting for input) in WDOG_WAITS.
TEST(DatapathTest, WatchdogSeesTheDpuStarvedOnIfd1) {
  Bench b;
  std::mt19937 rng(44);
  constexpr uint32_t n = 4;
  b.fill(rng, kX0, n);
  b.fill(rng, kB0, n);
  Dp dp;
  dp.h.has_dpu = dp.h.has_ifd1 = 1;
  dp.ifd0 = stim::linear_walk(kX0, n, Dtype::INT8, Dtype::INT8);
  dp.ifd1 = stim::linear_walk(kB0, n - 1, Dtype::INT8, Dtype::INT8);
  dp.odr = stim::linear_walk(kY0, n, Dtype::INT8, Dtype::INT8);
  dp.dpu.desc.in0_dtype = dp.dpu.desc.in1_dtype = dp.dpu.desc.out_dtype = Dtype::INT8;
  dp.dpu.desc.iterations = n;
  dp.dpu.code = {dpu_instr(DpuOp::POP, dpu_reg(0)), dpu_instr(DpuOp::POP, dpu_reg(1), 0, 0, 0, 1),
                 dpu_instr(DpuOp::ADD, dpu_reg(0), dpu_reg(0), dpu_reg(1)), dpu_instr(DpuOp::PUSH, 0, dpu_reg(0))};
  dp.dpu.desc.body_len = 4;
  b.t.write(core::WDOG_LIMIT.offset, 300);
  const spec::Token tk = b.run(dp, 20, 5000);
  EXPECT_TRUE(tk.error);
  EXPECT_EQ(tk.code, ErrorCode::WATCHDOG);
  EXPECT_EQ(core::WdogStatus::decode_word(b.t.read(core::WDOG_STATUS.offset)).fired, 1u);
  core::WdogWaits waits;  // the DPU starved on IFD1, the ODR on the DPU
  waits.dpu_in1 = waits.odr_in = 1;
  EXPECT_EQ(b.t.read(core::WDOG_WAITS.offset), waits.encode_word());
  EXPECT_EQ(b.perf(spec::PerfUnit::MVM_DPU, 1) >= 300, true);
}

}  // namespace
