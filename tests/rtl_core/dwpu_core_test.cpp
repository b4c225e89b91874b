// The DWPU datapath inside the whole tile, through registers only: DWPU-queue descriptors in
// CMD_MEM, data through DBG_MEM, checked against common/ref. The DWPU and MVMEXE datapaths run
// at the same time (their task intervals overlap and the pair finishes well before the two
// alone would), random windows of every op with a matmul beside each, the bypass datapath,
// refused descriptors, a unit fault, the watchdog of the DWPU datapath, perf counters.
#include <gtest/gtest.h>

#include <axcore/ref/dpu.hpp>
#include <axcore/ref/imc.hpp>
#include <chrono>
#include <cstdio>
#include <random>

#include "axcore/cosim/dwpu_case.hpp"
#include "tile_bench.hpp"

namespace {

namespace spec = axcore::spec;
namespace ref = axcore::ref;
namespace core = axcore::spec::core;
using rtlcore::DwWindow;
using rtlcore::Matmul;
using rtlcore::Tile;
using rtlcore::token_of;
using spec::DwpuOp;

constexpr unsigned kQMvm = 0, kQDw = 1, kQLi = 2;
constexpr uint32_t kDwWord = 0x200;

// L1 rows of the DWPU operands, clear of the matmul layout (mm_layout.hpp: x 0.., weights
// 5120.., outputs 10240..).
DwWindow placed(DwWindow c) {
  c.w0 = 11400;
  c.x0 = 11700;
  c.y0 = 12400;
  return c;
}

// A DWPU-kind descriptor; with `dpu` also the DPU section and its program (and IFD1 when
// `ifd1` is given).
spec::DatapathDesc dwpu_desc(const spec::Walk& ifd, const spec::DwpuDesc& d, const spec::Walk& odr,
                             bool has_main = true, const ref::DpuProgram* dpu = nullptr,
                             const spec::Walk* ifd1 = nullptr) {
  spec::DatapathDesc w;
  w.header.kind = spec::DpKind::DWPU;
  w.header.has_ifd0 = w.header.has_odr = 1;
  w.header.has_main = has_main;
  w.header.has_dpu = dpu != nullptr;
  w.header.has_ifd1 = ifd1 != nullptr;
  w.header.id = 9;
  w.ifd0 = ifd;
  w.dwpu = d;
  w.odr = odr;
  if (ifd1 != nullptr) w.ifd1 = *ifd1;
  if (dpu != nullptr) {
    w.dpu = dpu->desc;
    w.program = dpu->code;
  }
  return w;
}
std::vector<uint32_t> dwpu_words(const spec::Walk& ifd, const spec::DwpuDesc& d, const spec::Walk& odr,
                                 bool has_main = true, const ref::DpuProgram* dpu = nullptr,
                                 const spec::Walk* ifd1 = nullptr) {
  return dwpu_desc(ifd, d, odr, has_main, dpu, ifd1).words();
}

struct Scene {
  Tile t;
  std::mt19937 rng;
  std::vector<uint8_t> image = std::vector<uint8_t>(spec::param::l1_bytes, 0);
  ref::Imc imc;

  explicit Scene(uint32_t seed) : rng(seed) {}
  void fill(uint32_t row, uint32_t rows) {
    std::vector<uint8_t> b(std::size_t{rows} * 64);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    t.write_l1(uint64_t{row} * 64, b);
    std::copy(b.begin(), b.end(), image.begin() + std::ptrdiff_t{row} * 64);
  }
  void expect_rows(uint32_t row, uint32_t rows, const std::string& what) {
    const auto got = t.read_l1(uint64_t{row} * 64, std::size_t{rows} * 64);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const uint8_t want = image[std::size_t{row} * 64 + i];
      if (got[i] != want && bad++ < 5)
        ADD_FAILURE() << what << ": byte " << i << ": rtl " << int{got[i]} << ", ref " << int{want};
    }
    EXPECT_EQ(bad, 0u) << what;
  }
  // Operands and residency of a matmul (LoadIMC through the command processor).
  void load_matmul(const Matmul& mm) {
    fill(rtlcore::kX0, mm.m * mm.kb);
    fill(rtlcore::kW0, mm.kb * mm.nb * 64);
    t.write_cmd(rtlcore::kLiWord, mm.load().encode());
    t.write_cmd(rtlcore::kDpWord, rtlcore::datapath_words(mm));
    const std::size_t n = t.tokens.size();
    t.push(kQLi, rtlcore::kLiWord, 1);
    ASSERT_TRUE(t.wait_tokens(n + 1));
    ref::run_loadimc(mm.load(), image, imc);
  }
  void ref_matmul(const Matmul& mm) {
    std::vector<ref::Element> xs, ys;
    ref::run_ifd(mm.ifd(), image, [&](const ref::Element& e) { xs.push_back(e); });
    ref::VectorSource src(xs);
    ref::run_mvm(mm.mvm(), imc, src.fn(), [&](const ref::Element& e) { ys.push_back(e); });
    ref::VectorSource ysrc(ys);
    ref::run_odr(mm.odr(), image, ysrc.fn());
  }
  void load_window(const DwWindow& c) {
    fill(c.x0, c.input_rows());
    if (c.weights > 0) fill(c.w0, c.weights);
    t.write_cmd(kDwWord, dwpu_words(c.ifd(), c.dwpu(), c.odr()));
  }
  // Ticks until `n` tokens arrived; returns the cycle of each queue's first TASK_START and
  // last TASK_DONE seen meanwhile.
  struct Span {
    uint64_t start = 0, done = 0;
  };
  std::array<Span, 4> run_until(std::size_t n) {
    std::array<Span, 4> s{};
    std::array<std::size_t, 4> seen{};
    for (unsigned q = 0; q < 4; ++q) seen[q] = t.cmd_events[q].size();
    for (int i = 0; i < 2000000 && t.tokens.size() < n; ++i) {
      t.tick();
      for (unsigned q = 0; q < 4; ++q) {
        for (; seen[q] < t.cmd_events[q].size(); ++seen[q]) {
          if (t.cmd_events[q][seen[q]].first) {
            if (s[q].start == 0) s[q].start = t.sim.cycle();
          } else {
            s[q].done = t.sim.cycle();
          }
        }
      }
    }
    EXPECT_GE(t.tokens.size(), n) << "tokens missing";
    return s;
  }
};

// The two datapath kinds overlap: a 3x3 depthwise conv on the DWPU datapath and a matmul on
// the MVMEXE datapath, first each alone, then pushed together.
TEST(DwpuCoreTest, DwpuAndMvmexeDatapathsOverlap) {
  Scene s(31);
  Matmul mm{48, 18, 4};
  s.load_matmul(mm);
  DwWindow c;
  c.op = DwpuOp::CONV;
  c.h = 10;
  c.w = 18;
  c.kh = c.kw = 3;
  c.ph = c.pw = 1;
  c.cb = 2;
  c.out = spec::Dtype::INT8;
  c.weights = c.weight_rows();
  c = placed(c);
  s.load_window(c);

  auto alone = [&](unsigned q, uint32_t word) {
    const std::size_t n = s.t.tokens.size();
    s.t.push(q, word, 20 + q);
    const auto sp = s.run_until(n + 1);
    return sp[q].done - sp[q].start;
  };
  const uint64_t t_mm = alone(kQMvm, rtlcore::kDpWord), t_dw = alone(kQDw, kDwWord);

  auto perf = [&](uint32_t reg_base, spec::PerfUnit u) { return s.t.read(reg_base + 16 * static_cast<uint32_t>(u)); };
  const uint32_t dw_stall0 = perf(core::PERF_STALL_IN.offset, spec::PerfUnit::DWPU);
  const std::size_t n = s.t.tokens.size();
  s.t.push(kQDw, kDwWord, 5);
  s.t.push(kQMvm, rtlcore::kDpWord, 6);
  const uint64_t c0 = s.t.sim.cycle();
  const auto w0 = std::chrono::steady_clock::now();
  const auto sp = s.run_until(n + 2);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  const double speed = static_cast<double>(s.t.sim.cycle() - c0) / secs;
  const uint32_t dw_stall = perf(core::PERF_STALL_IN.offset, spec::PerfUnit::DWPU) - dw_stall0;
  ASSERT_EQ(s.t.tokens.size(), n + 2);
  for (std::size_t i = n; i < n + 2; ++i) EXPECT_FALSE(token_of(s.t.tokens[i]).error);
  EXPECT_EQ(token_of(s.t.tokens[n]).channel + token_of(s.t.tokens[n + 1]).channel, 8u + 9u);
  // the intervals overlap, and the pair takes about the longer of the two
  EXPECT_LT(sp[kQDw].start, sp[kQMvm].done);
  EXPECT_LT(sp[kQMvm].start, sp[kQDw].done);
  const uint64_t both = std::max(sp[kQDw].done, sp[kQMvm].done) - std::min(sp[kQDw].start, sp[kQMvm].start);
  std::printf(
      "DWPU 3x3 conv alone %llu cycles, MVMEXE M=48 K=1152 N=256 alone %llu cycles, both pushed "
      "together "
      "%llu cycles (sum alone %llu; the DWPU stalled %u cycles on IFD0, which loses L1 banks to "
      "the "
      "MVMEXE ports); %.0f simulated cycles/s\n",
      static_cast<unsigned long long>(t_dw), static_cast<unsigned long long>(t_mm),
      static_cast<unsigned long long>(both), static_cast<unsigned long long>(t_dw + t_mm), dw_stall, speed);
  // the pair costs the longer run, the second descriptor fetch (92 words) and the DWPU's stalls
  // on bank conflicts, far below the two runs back to back
  EXPECT_LE(static_cast<double>(both), static_cast<double>(std::max(t_dw, t_mm)) + 100.0 + dw_stall);
  EXPECT_LE(static_cast<double>(both), 0.7 * static_cast<double>(t_dw + t_mm));

  s.ref_matmul(mm);
  c.run_ref(s.image);
  s.expect_rows(rtlcore::kY0, static_cast<uint32_t>(mm.out_bytes() / 64), "matmul output");
  s.expect_rows(c.y0, c.out_rows(), "dwpu output");

  // perf counters of the DWPU pipeline: every tap of its two runs was a busy cycle
  const uint32_t taps = 2 * c.outputs() * c.taps();
  const uint32_t busy = s.t.read(core::PERF_BUSY.at(static_cast<uint32_t>(spec::PerfUnit::DWPU)));
  EXPECT_GE(busy, taps);
  EXPECT_LE(busy, taps + 2 * (c.weights + 8));
  EXPECT_EQ(s.t.read(core::PERF_TASKS.at(static_cast<uint32_t>(spec::PerfUnit::DWPU))), 2u);
  EXPECT_GT(s.t.read(core::PERF_BUSY.at(static_cast<uint32_t>(spec::PerfUnit::DW_ODR))), c.outputs());
  EXPECT_EQ(core::QStatus::decode_word(s.t.read(core::Q_STATUS.at(kQDw))).done, 2u);
}

// Random windows of every op through the DWPU queue, each with a matmul on the MVMEXE queue
// pushed right after it; both outputs against the reference.
TEST(DwpuCoreTest, RandomWindowsBesideMatmuls) {
  Scene s(32);
  Matmul mm{4, 3, 2};
  mm.out = spec::Dtype::INT8;
  s.load_matmul(mm);
  const DwpuOp ops[] = {DwpuOp::CONV, DwpuOp::MAX, DwpuOp::MIN, DwpuOp::SUM, DwpuOp::AVERAGE, DwpuOp::CONV};
  int i = 0;
  for (DwpuOp op : ops) {
    const DwWindow c = placed(DwWindow::random(s.rng, op));
    s.load_window(c);
    const std::size_t n = s.t.tokens.size();
    s.t.push(kQDw, kDwWord, 40 + static_cast<uint32_t>(i));
    s.t.push(kQMvm, rtlcore::kDpWord, 50 + static_cast<uint32_t>(i));
    s.run_until(n + 2);
    for (std::size_t k = n; k < s.t.tokens.size(); ++k) EXPECT_FALSE(token_of(s.t.tokens[k]).error) << "case " << i;
    c.run_ref(s.image);
    s.expect_rows(c.y0, c.out_rows(), "window case " + std::to_string(i));
    ++i;
  }
  s.ref_matmul(mm);
  s.expect_rows(rtlcore::kY0, static_cast<uint32_t>(mm.out_bytes() / 64), "matmul output");

  // a DWPU-kind datapath without the DWPU: IFD0 -> ODR, int8 -> float16
  spec::Walk in{};
  in.dtype = in.cast_from = spec::Dtype::INT8;
  in.base_row = 11700;
  in.ndims = 2;
  in.d0_size = 7;
  in.d0_stride = 1;
  in.d1_size = 3;
  in.d1_stride = 9;
  spec::Walk out = in;
  out.base_row = 12400;
  out.dtype = spec::Dtype::FLOAT16;
  out.d0_stride = 2;
  out.d1_stride = 14;
  s.fill(in.base_row, 27);
  s.t.write_cmd(kDwWord, dwpu_words(in, spec::DwpuDesc{}, out, false));
  const std::size_t n = s.t.tokens.size();
  s.t.push(kQDw, kDwWord, 60);
  s.run_until(n + 1);
  EXPECT_FALSE(token_of(s.t.tokens.back()).error);
  std::vector<ref::Element> xs;
  ref::run_ifd(in, s.image, [&](const ref::Element& e) { xs.push_back(e); });
  ref::VectorSource src(xs);
  ref::run_odr(out, s.image, src.fn());
  s.expect_rows(out.base_row, 42, "bypass");
}

// A DWPU window and a DPU epilogue in one DWPU datapath: IFD0 -> DWPU -> DPU (<- IFD1) -> ODR.
// (1) a padded 3x3 depthwise conv requantized per channel block (scale and bias float32 from
// IFD1 in the init preamble, FMA, relu, int8); (2) an AVERAGE pool and (3) a MAX pool, each
// followed by a per-element DPU program (square minus its lane maximum; plus an int8 side
// input from IFD1), float16 and int8 out. Every output against ref::run_ifd -> run_dwpu ->
// ref::Dpu -> run_odr, bit for bit; DW_DPU/DW_IFD1 count one task each.
TEST(DwpuCoreTest, DwpuWithDpuEpilogueMatchesTheReference) {
  using ref::dpu_instr;
  using ref::dpu_reg;
  using spec::DpuOp;
  using spec::Dtype;
  Scene s(34);
  constexpr uint32_t kSide = 12200;  // L1 row of the IFD1 operands
  struct Case {
    DwWindow c;
    ref::DpuProgram dpu;
    spec::Walk ifd1{};
    bool has_ifd1 = false;
  };
  auto side_walk = [](Dtype dt, uint32_t n) {
    spec::Walk w{};
    w.dtype = w.cast_from = dt;
    w.base_row = kSide;
    w.ndims = 1;
    w.d0_size = n;
    w.d0_stride = static_cast<int32_t>(axcore::num::element_rows(dt));
    return w;
  };
  std::vector<Case> cases;
  {  // (1) conv + requantizing epilogue: outputs (ow, oh, cb), cb outermost = the outer loop
    Case k;
    k.c.op = DwpuOp::CONV;
    k.c.h = 6;
    k.c.w = 9;
    k.c.kh = k.c.kw = 3;
    k.c.ph = k.c.pw = 1;
    k.c.cb = 3;
    k.c.out = Dtype::INT8;
    k.c.weights = k.c.weight_rows();
    k.c = placed(k.c);
    auto& d = k.dpu.desc;
    d.in0_dtype = Dtype::INT32;
    d.in1_dtype = Dtype::FLOAT32;
    d.out_dtype = Dtype::INT8;
    d.iterations = 1;
    const auto l1 = spec::DpuIndex::LOOP1;
    k.dpu.code = {
        dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, k.c.cb),  // init: scale[cb] -> r8 + cb, bias -> r16 + cb
        dpu_instr(DpuOp::POP, dpu_reg(8, l1), 0, 0, 0, 1),
        dpu_instr(DpuOp::POP, dpu_reg(16, l1), 0, 0, 0, 1),
        dpu_instr(DpuOp::ENDLOOP),
        dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, k.c.cb),  // body: per channel block
        dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, k.c.oh() * k.c.ow()),
        dpu_instr(DpuOp::POP, dpu_reg(0)),
        dpu_instr(DpuOp::FMA, dpu_reg(1), dpu_reg(0), dpu_reg(8, l1), dpu_reg(16, l1)),
        dpu_instr(DpuOp::MAX, dpu_reg(1), dpu_reg(1), dpu_reg(31)),  // r31 stays +0: relu
        dpu_instr(DpuOp::PUSH, 0, dpu_reg(1)),
        dpu_instr(DpuOp::ENDLOOP),
        dpu_instr(DpuOp::ENDLOOP),
    };
    d.init_len = 4;
    d.body_len = 8;
    k.ifd1 = side_walk(Dtype::FLOAT32, 2 * k.c.cb);
    k.has_ifd1 = true;
    cases.push_back(k);
  }
  for (const DwpuOp op : {DwpuOp::AVERAGE, DwpuOp::MAX}) {  // (2), (3) pools + per-element DPU
    Case k;
    k.c = placed(DwWindow::random(s.rng, op));
    k.c.keep_ow = 0;
    auto& d = k.dpu.desc;
    d.in0_dtype = Dtype::INT32;
    d.iterations = k.c.outputs();
    if (op == DwpuOp::AVERAGE) {
      k.c.out = Dtype::FLOAT16;
      d.out_dtype = Dtype::FLOAT32;
      k.dpu.code = {dpu_instr(DpuOp::POP, dpu_reg(0)), dpu_instr(DpuOp::MUL, dpu_reg(1), dpu_reg(0), dpu_reg(0)),
                    dpu_instr(DpuOp::MAX_REDUCE, dpu_reg(2), dpu_reg(1)),
                    dpu_instr(DpuOp::SUB, dpu_reg(3), dpu_reg(1), dpu_reg(2)), dpu_instr(DpuOp::PUSH, 0, dpu_reg(3))};
    } else {
      k.c.out = Dtype::INT8;
      d.in1_dtype = Dtype::INT8;
      d.out_dtype = Dtype::INT8;
      k.dpu.code = {dpu_instr(DpuOp::POP, dpu_reg(0)), dpu_instr(DpuOp::POP, dpu_reg(1), 0, 0, 0, 1),
                    dpu_instr(DpuOp::ADD, dpu_reg(2), dpu_reg(0), dpu_reg(1)), dpu_instr(DpuOp::PUSH, 0, dpu_reg(2))};
      k.ifd1 = side_walk(Dtype::INT8, k.c.outputs());
      k.has_ifd1 = true;
    }
    d.body_len = static_cast<uint32_t>(k.dpu.code.size());
    cases.push_back(k);
  }

  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& k = cases[i];
    SCOPED_TRACE("case " + std::to_string(i));
    s.fill(k.c.x0, k.c.input_rows());
    if (k.c.weights > 0) s.fill(k.c.w0, k.c.weights);
    if (k.has_ifd1) {
      if (k.ifd1.dtype == Dtype::FLOAT32) {  // scales near 1/500, biases in [-20, 20]
        std::uniform_real_distribution<float> sc(1.0f / 2000, 1.0f / 200), bi(-20.0f, 20.0f);
        std::vector<uint8_t> b;
        for (uint32_t e = 0; e < k.ifd1.d0_size; ++e) {
          axcore::num::PwordF32 v;
          for (auto& x : v) x = e % 2 == 0 ? sc(s.rng) : bi(s.rng);
          std::vector<uint8_t> one(256);
          axcore::num::store_element(axcore::num::AnyPword::of(v), one);
          b.insert(b.end(), one.begin(), one.end());
        }
        s.t.write_l1(uint64_t{kSide} * 64, b);
        std::copy(b.begin(), b.end(), s.image.begin() + std::ptrdiff_t{kSide} * 64);
      } else {
        s.fill(kSide, k.ifd1.d0_size);
      }
    }
    spec::Walk odr = k.c.odr();
    odr.cast_from = k.dpu.desc.out_dtype;
    s.t.write_cmd(kDwWord, dwpu_words(k.c.ifd(), k.c.dwpu(), odr, true, &k.dpu, k.has_ifd1 ? &k.ifd1 : nullptr));
    const uint32_t dpu_tasks0 = s.t.read(core::PERF_TASKS.at(static_cast<uint32_t>(spec::PerfUnit::DW_DPU)));
    const uint32_t ifd1_tasks0 = s.t.read(core::PERF_TASKS.at(static_cast<uint32_t>(spec::PerfUnit::DW_IFD1)));
    const std::size_t n = s.t.tokens.size();
    s.t.push(kQDw, kDwWord, 80 + static_cast<uint32_t>(i));
    s.run_until(n + 1);
    ASSERT_EQ(s.t.tokens.size(), n + 1);
    const auto tk = token_of(s.t.tokens.back());
    EXPECT_FALSE(tk.error) << spec::to_string(tk.code);
    EXPECT_EQ(tk.channel, 9u);

    // the reference: IFD0 -> DWPU -> ref::Dpu (IFD1 side input) -> ODR
    std::vector<ref::Element> xs, ys, ws, zs;
    ref::run_ifd(k.c.ifd(), s.image, [&](const ref::Element& e) { xs.push_back(e); });
    ref::VectorSource src(xs);
    ref::run_dwpu(k.c.dwpu(), s.image, src.fn(), [&](const ref::Element& e) { ys.push_back(e); });
    if (k.has_ifd1) ref::run_ifd(k.ifd1, s.image, [&](const ref::Element& e) { ws.push_back(e); });
    std::size_t i0 = 0, i1 = 0;
    ref::DpuIo io;
    io.pop = [&](unsigned st) { return st == 1 ? ws.at(i1++) : ys.at(i0++); };
    io.push = [&](const ref::Element& e) { zs.push_back(e); };
    ref::run_dpu(k.dpu, ref::DpuConfig{k.has_ifd1}, io);
    EXPECT_EQ(i0, ys.size());
    ASSERT_EQ(zs.size(), k.c.outputs());
    ref::VectorSource zsrc(zs);
    ref::run_odr(odr, s.image, zsrc.fn());
    s.expect_rows(k.c.y0, k.c.out_rows(), "dwpu + dpu case " + std::to_string(i));
    // not a trivial output: the int8 epilogue neither all zero nor all clipped
    std::size_t zero = 0;
    const auto got = s.t.read_l1(uint64_t{k.c.y0} * 64, std::size_t{k.c.out_rows()} * 64);
    for (const uint8_t v : got) zero += v == 0;
    EXPECT_LT(zero, got.size() * 3 / 4);
    EXPECT_EQ(s.t.read(core::PERF_TASKS.at(static_cast<uint32_t>(spec::PerfUnit::DW_DPU))), dpu_tasks0 + 1);
    EXPECT_EQ(s.t.read(core::PERF_TASKS.at(static_cast<uint32_t>(spec::PerfUnit::DW_IFD1))),
              ifd1_tasks0 + (k.has_ifd1 ? 1u : 0u));
  }
}

// Descriptors the DWPU queue refuses (code per the TLM's order), a unit fault at run time
// (weights outside L1) and the DWPU datapath's watchdog (IFD0 ends one element short).
TEST(DwpuCoreTest, RefusalsFaultsAndWatchdog) {
  Scene s(33);
  DwWindow c;
  c.op = DwpuOp::MAX;
  c.h = 3;
  c.w = 4;
  c.kh = c.kw = 2;
  c = placed(c);
  s.fill(c.x0, c.input_rows());
  struct Bad {
    const char* what;
    std::vector<uint32_t> words;
    spec::ErrorCode code;
  };
  std::vector<Bad> bad;
  // the base descriptor with its header changed after words() filled the magic
  auto with_header = [&](auto edit) {
    spec::DatapathDesc d = dwpu_desc(c.ifd(), c.dwpu(), c.odr());
    std::vector<uint32_t> w = d.words();
    spec::DpHeader h = spec::DpHeader::decode(w);
    edit(h);
    h.encode_to(w);
    return w;
  };
  bad.push_back({"magic", with_header([](spec::DpHeader& h) { h.magic ^= 0x01; }), spec::ErrorCode::DESC_MAGIC});
  // as the TLM: magic/queue mismatch
  bad.push_back({"kind MVMEXE", with_header([](spec::DpHeader& h) { h.kind = spec::DpKind::MVMEXE; }),
                 spec::ErrorCode::DESC_MAGIC});
  bad.push_back(
      {"IFD1 without the DPU", with_header([](spec::DpHeader& h) { h.has_ifd1 = 1; }), spec::ErrorCode::DESC_UNITS});
  // a DPU whose input dtype (int8 in the zeroed dpu_desc) is not the DWPU's int32
  bad.push_back(
      {"DPU in0 dtype", with_header([](spec::DpHeader& h) { h.has_dpu = 1; }), spec::ErrorCode::STREAM_DTYPE});
  {
    auto d = c.dwpu();
    d.taps = spec::param::dwpu_max_taps + 1;
    bad.push_back({"taps", dwpu_words(c.ifd(), d, c.odr()), spec::ErrorCode::DESC_RANGE});
    auto x = c.ifd();
    x.dtype = x.cast_from = spec::Dtype::FLOAT16;
    bad.push_back({"IFD0 dtype", dwpu_words(x, c.dwpu(), c.odr()), spec::ErrorCode::STREAM_DTYPE});
    d = c.dwpu();
    d.weight_base_row = static_cast<uint32_t>(spec::param::l1_bytes / 64 - 1);
    d.weight_count = 2;
    bad.push_back({"weights outside L1", dwpu_words(c.ifd(), d, c.odr()), spec::ErrorCode::L1_RANGE});
  }
  for (const Bad& b : bad) {
    s.t.write_cmd(kDwWord, b.words);
    const std::size_t n = s.t.tokens.size();
    s.t.push(kQDw, kDwWord, 70, false);
    s.run_until(n + 1);
    ASSERT_EQ(s.t.tokens.size(), n + 1) << b.what;
    const auto tk = token_of(s.t.tokens.back());
    EXPECT_TRUE(tk.error) << b.what;
    EXPECT_EQ(tk.code, b.code) << b.what;
    EXPECT_EQ(tk.channel, 9u) << b.what;
    EXPECT_EQ(core::ErrorInfo::decode_word(s.t.read(core::ERROR_INFO.offset)).code, b.code) << b.what;
    s.t.write(core::ERROR_STATUS.offset, 0xFFFFFFFFu);
  }

  // IFD0 one element short: the DWPU starves on its last tap and the watchdog aborts the task
  s.t.write(core::WDOG_LIMIT.offset, 200);
  auto x = c.ifd();
  x.d3_size = c.oh() - 1;  // one output row of windows fewer
  auto d = c.dwpu();
  s.t.write_cmd(kDwWord, dwpu_words(x, d, c.odr()));
  const std::size_t n = s.t.tokens.size();
  s.t.push(kQDw, kDwWord, 71);
  s.run_until(n + 1);
  const auto tk = token_of(s.t.tokens.back());
  EXPECT_TRUE(tk.error);
  EXPECT_EQ(tk.code, spec::ErrorCode::WATCHDOG);
  EXPECT_EQ(s.t.read(core::WDOG_STATUS.offset), 3u);  // fired, kind DWPU
  core::WdogWaits waits;
  waits.main_in = waits.odr_in = 1;
  EXPECT_EQ(s.t.read(core::WDOG_WAITS.offset), waits.encode_word());
  s.t.write(core::WDOG_STATUS.offset, 3);
  EXPECT_EQ(s.t.read(core::WDOG_STATUS.offset), 0u);

  // IFD0 one channel block of windows too long: the task ends with the ODR's last store and
  // the leftover elements are cleared, so the next task sees only its own
  x = c.ifd();
  x.d4_size = c.cb + 1;
  s.t.write_cmd(kDwWord, dwpu_words(x, c.dwpu(), c.odr()));
  const std::size_t l = s.t.tokens.size();
  s.t.push(kQDw, kDwWord, 73);
  s.run_until(l + 1);
  EXPECT_FALSE(token_of(s.t.tokens.back()).error);

  // the queue runs normally afterwards
  s.t.write_cmd(kDwWord, dwpu_words(c.ifd(), c.dwpu(), c.odr()));
  const std::size_t m = s.t.tokens.size();
  s.t.push(kQDw, kDwWord, 72);
  s.run_until(m + 1);
  EXPECT_FALSE(token_of(s.t.tokens.back()).error);
  c.run_ref(s.image);
  s.expect_rows(c.y0, c.out_rows(), "after the faults");
}

}  // namespace
