// L1 + the DWPU datapath (IFD0 -> DWPU -> ODR) against common/ref (run_ifd, run_dwpu, run_odr):
// seeded random windows for each pool type and depthwise convolution (odd shapes, strides,
// dilations, padding with pad values, 64-tap windows, ODR drops, every output dtype) under
// random L1 bank theft, the bypass datapath (IFD0 -> ODR), the tap rate and latency of
// docs/timing.md, and the L1_RANGE / DESC_RANGE faults with recovery. One model for all cases.
#include <gtest/gtest.h>

#include <axcore/ref/error.hpp>
#include <cstdio>
#include <random>

#include "Vtb_dwpu.h"
#include "axcore/cosim/dwpu_case.hpp"
#include "tb_util.hpp"

namespace {

namespace spec = axcore::spec;
namespace ref = axcore::ref;
using rtlcore::DwWindow;
using spec::DwpuOp;

struct Result {
  bool done = false;
  uint64_t cycles = 0;  // start to the ODR's done (inclusive)
  bool err = false;
  spec::ErrorCode code = spec::ErrorCode::NONE;
  uint32_t err_addr = 0;
};

struct Bench {
  rtlcore::Sim<Vtb_dwpu> sim;
  rtlcore::L1Dbg<Vtb_dwpu> l1{sim};
  std::vector<uint8_t> image = std::vector<uint8_t>(spec::param::l1_bytes, 0);
  std::mt19937 noise_rng{99};

  void fill(std::mt19937& rng, uint32_t row, uint32_t rows) {
    std::vector<uint8_t> b(std::size_t{rows} * 64);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    l1.write_bytes(uint64_t{row} * 64, b);
    std::copy(b.begin(), b.end(), image.begin() + std::ptrdiff_t{row} * 64);
  }
  // Starts the datapath and runs it to its done (or to idle after an error). noise: the
  // probability (in 1/16) that a top-priority read steals a random bank in a cycle.
  Result run(const spec::Walk& ifd, const spec::DwpuDesc& d, const spec::Walk& odr, bool has_main = true,
             unsigned noise = 0) {
    rtlcore::set_wide(sim->ifd_walk_i, ifd.encode());
    rtlcore::set_wide(sim->dwpu_desc_i, d.encode());
    rtlcore::set_wide(sim->odr_walk_i, odr.encode());
    sim->has_main_i = has_main;
    sim->start_i = 1;
    sim.tick();
    sim->start_i = 0;
    Result r;
    for (uint64_t i = 0; i < 2000000; ++i) {
      sim->noise_valid_i = noise != 0 && noise_rng() % 16 < noise;
      sim->noise_row_i = noise_rng() % 16384;
      sim.settle();
      const uint64_t e = sim->err_o;
      if (sim->done_o) {
        r.done = true;
        r.cycles = i + 1;
        break;
      }
      if (((e >> 37) & 1u) != 0 && !sim->busy_o) break;
      sim.tick();
    }
    sim->noise_valid_i = 0;
    sim.tick();
    const uint64_t e = sim->err_o;
    r.err = ((e >> 37) & 1u) != 0;
    r.code = static_cast<spec::ErrorCode>((e >> 32) & 0x1Fu);
    r.err_addr = static_cast<uint32_t>(e);
    return r;
  }
  void expect_rows(uint32_t row, uint32_t rows, const std::string& what) {
    const auto got = l1.read_bytes(uint64_t{row} * 64, std::size_t{rows} * 64);
    const auto* want = image.data() + std::size_t{row} * 64;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[i] && bad++ < 5)
        ADD_FAILURE() << what << ": byte " << i << " (row " << row + i / 64 << "): rtl " << int{got[i]} << ", ref "
                      << int{want[i]};
    }
    EXPECT_EQ(bad, 0u) << what;
  }
  // The reference of an IFD0 -> ODR datapath (the bypass) over the image.
  void ref_copy(const spec::Walk& in, const spec::Walk& out) {
    std::vector<ref::Element> xs;
    ref::run_ifd(in, image, [&](const ref::Element& e) { xs.push_back(e); });
    ref::VectorSource src(xs);
    ref::run_odr(out, image, src.fn());
  }
  // One random window: data, the RTL run, the reference, the comparison.
  void window(std::mt19937& rng, const DwWindow& c, unsigned noise, const std::string& what) {
    fill(rng, c.x0, c.input_rows());
    if (c.weights > 0) fill(rng, c.w0, c.weights);
    const Result r = run(c.ifd(), c.dwpu(), c.odr(), true, noise);
    ASSERT_TRUE(r.done) << what << (r.err ? " ended with an error" : " did not finish");
    EXPECT_FALSE(r.err) << what;
    c.run_ref(image);
    expect_rows(c.y0, c.out_rows(), what);
    EXPECT_EQ(sim->dw_stall_out_o + sim->dw_stall_in_o + sim->dw_busy_o <= r.cycles, true) << what;
  }
};

std::string describe(const DwWindow& c, int i) {
  char b[256];
  std::snprintf(b, sizeof b, "case %d op %u: %ux%ux%u k %ux%u s %u,%u d %u,%u p %u,%u out %s div %u pad 0x%x keep %u",
                i, static_cast<unsigned>(c.op), c.h, c.w, c.cb, c.kh, c.kw, c.sh, c.sw, c.dh, c.dw, c.ph, c.pw,
                std::string(spec::to_string(c.out)).c_str(), c.divisor, c.pad_value, c.keep_ow);
  return b;
}

void random_windows(DwpuOp op, uint32_t seed, int n) {
  Bench b;
  std::mt19937 rng(seed);
  for (int i = 0; i < n; ++i) {
    const DwWindow c = DwWindow::random(rng, op);
    b.window(rng, c, i % 3 == 0 ? 0 : 1 + i % 6, describe(c, i));
    if (testing::Test::HasFailure()) return;
  }
}

TEST(DwpuTest, DepthwiseConvMatchesTheReference) { random_windows(DwpuOp::CONV, 101, 14); }
TEST(DwpuTest, MaxPoolMatchesTheReference) { random_windows(DwpuOp::MAX, 102, 10); }
TEST(DwpuTest, MinPoolMatchesTheReference) { random_windows(DwpuOp::MIN, 103, 10); }
TEST(DwpuTest, SumPoolMatchesTheReference) { random_windows(DwpuOp::SUM, 104, 10); }
TEST(DwpuTest, AveragePoolMatchesTheReference) { random_windows(DwpuOp::AVERAGE, 105, 14); }

// AVERAGE rounding: 2-tap sums at every odd value -65..63 (exact halves, both signs, ties to
// even), a fixed divisor, a pad value inside the sum, and windows that are all padding (with
// divisor 0 the count of real taps is 0 -> 0).
TEST(DwpuTest, AverageRoundsHalfToEven) {
  Bench b;
  std::vector<uint8_t> x(128);
  for (std::size_t n = 0; n < 64; ++n) {
    x[n] = static_cast<uint8_t>(2 * static_cast<int>(n) - 64);
    x[64 + n] = static_cast<uint8_t>(n % 2 == 0 ? 1 : 0xFF);
  }
  b.l1.write_bytes(uint64_t{DwWindow::kX0} * 64, x);
  std::copy(x.begin(), x.end(), b.image.begin() + std::ptrdiff_t{DwWindow::kX0} * 64);
  struct Cfg {
    uint32_t dw, pw, divisor, pad;
  };
  // dw = 1, pw = 1: windows of 1, 2, 1 real taps; dw = 3, pw = 3: the middle window is all pad
  for (const Cfg& g : {Cfg{1, 1, 0, 0}, Cfg{1, 1, 4, 0}, Cfg{1, 1, 0, 3}, Cfg{3, 3, 0, 0}, Cfg{3, 3, 2, 0xFB}}) {
    DwWindow c;
    c.op = DwpuOp::AVERAGE;
    c.h = 1;
    c.w = 2;
    c.kw = 2;
    c.dw = g.dw;
    c.pw = g.pw;
    c.divisor = g.divisor;
    c.pad_value = g.pad;
    const std::string what = "average dw " + std::to_string(g.dw) + " divisor " + std::to_string(g.divisor) + " pad " +
                             std::to_string(g.pad);
    const Result r = b.run(c.ifd(), c.dwpu(), c.odr());
    ASSERT_TRUE(r.done) << what;
    c.run_ref(b.image);
    b.expect_rows(c.y0, c.out_rows(), what);
  }
}

// IFD0 -> ODR without the DWPU: a copy with a cast (the movement datapath of guide §6.4).
TEST(DwpuTest, BypassCopiesThroughTheOdr) {
  Bench b;
  std::mt19937 rng(107);
  spec::Walk in{};
  in.dtype = in.cast_from = spec::Dtype::FLOAT16;
  in.base_row = DwWindow::kX0;
  in.ndims = 2;
  in.d0_size = 5;
  in.d0_stride = 2;
  in.d1_size = 3;
  in.d1_stride = 10;
  spec::Walk out = in;
  out.base_row = DwWindow::kY0;
  out.cast_from = spec::Dtype::FLOAT16;
  out.dtype = spec::Dtype::FLOAT32;
  out.d0_stride = 4;
  out.d1_stride = 20;
  b.fill(rng, in.base_row, 30);
  const Result r = b.run(in, spec::DwpuDesc{}, out, false, 4);
  ASSERT_TRUE(r.done);
  b.ref_copy(in, out);
  b.expect_rows(out.base_row, 60, "bypass");
  EXPECT_EQ(b.sim->dw_busy_o, 0u);
}

// docs/timing.md: the weights load at one row per cycle, then one tap per cycle and the output
// mvm_latency cycles after its last tap. A 3x3 conv (9 taps) with int8 outputs: every cycle of
// the run is a tap, the weight load, a DWPU stall on IFD0 (IFD0 loses banks to the ODR, which
// has priority) or the fixed latency of the pipeline.
TEST(DwpuTest, TapRateAndLatency) {
  Bench b;
  std::mt19937 rng(108);
  DwWindow c;
  c.op = DwpuOp::CONV;
  c.h = 10;
  c.w = 18;
  c.kh = c.kw = 3;
  c.cb = 2;
  c.out = spec::Dtype::INT8;
  c.weights = c.weight_rows();
  b.fill(rng, c.x0, c.input_rows());
  b.fill(rng, c.w0, c.weights);
  const Result r = b.run(c.ifd(), c.dwpu(), c.odr());
  ASSERT_TRUE(r.done);
  c.run_ref(b.image);
  b.expect_rows(c.y0, c.out_rows(), "rate case");
  const uint64_t taps = uint64_t{c.outputs()} * c.taps();
  const uint64_t load = c.weights + 2;  // requests, the last response, the first weight read
  EXPECT_GE(b.sim->dw_busy_o, taps + load);
  EXPECT_LE(b.sim->dw_busy_o, taps + load + 4);  // a weight request may lose a bank to IFD0
  const uint64_t fixed = r.cycles - taps - (b.sim->dw_busy_o - taps) - b.sim->dw_stall_in_o;
  std::printf(
      "DWPU 3x3 conv, %u outputs x %u taps, %u weights: %llu cycles (start to ODR done), "
      "DWPU busy %u (taps + weight load), stall in %u, stall out %u; fixed latency %llu cycles; "
      "tap utilization %.4f\n",
      c.outputs(), c.taps(), c.weights, static_cast<unsigned long long>(r.cycles), b.sim->dw_busy_o,
      b.sim->dw_stall_in_o, b.sim->dw_stall_out_o, static_cast<unsigned long long>(fixed),
      static_cast<double>(taps) / static_cast<double>(r.cycles));
  EXPECT_LE(fixed, 12u);
  EXPECT_EQ(b.sim->dw_stall_out_o, 0u);

  // one tap per output (1x1 pool): one output per cycle through the DWPU and the int8 ODR
  DwWindow p;
  p.op = DwpuOp::MAX;
  p.h = 8;
  p.w = 16;
  p.cb = 1;
  p.out = spec::Dtype::INT8;
  const Result rp = b.run(p.ifd(), p.dwpu(), p.odr());
  ASSERT_TRUE(rp.done);
  p.run_ref(b.image);
  b.expect_rows(p.y0, p.out_rows(), "1-tap case");
  std::printf("DWPU 1-tap pool, %u outputs: %llu cycles, stall in %u, stall out %u\n", p.outputs(),
              static_cast<unsigned long long>(rp.cycles), b.sim->dw_stall_in_o, b.sim->dw_stall_out_o);
  EXPECT_LE(rp.cycles, uint64_t{p.outputs()} + b.sim->dw_stall_in_o + 12u);
  EXPECT_EQ(b.sim->dw_stall_out_o, 0u);
}

// Weights outside L1 stop the task with L1_RANGE before any tap; a CONV tap whose weight index
// is not loaded stops it with DESC_RANGE at that tap (the address is the index). A following
// task runs normally.
TEST(DwpuTest, FaultsAndRecovery) {
  Bench b;
  std::mt19937 rng(109);
  DwWindow c;
  c.op = DwpuOp::CONV;
  c.h = 3;
  c.w = 3;
  c.kh = c.kw = 2;
  c.cb = 2;
  c.weights = c.weight_rows();
  b.fill(rng, c.x0, c.input_rows());
  b.fill(rng, c.w0, c.weights);

  auto d = c.dwpu();
  d.weight_base_row = static_cast<uint32_t>(spec::param::l1_bytes / 64 - 3);
  d.weight_count = 4;
  Result r = b.run(c.ifd(), d, c.odr());
  EXPECT_FALSE(r.done);
  EXPECT_TRUE(r.err);
  EXPECT_EQ(r.code, spec::ErrorCode::L1_RANGE);
  EXPECT_EQ(r.err_addr, d.weight_base_row);
  EXPECT_EQ(b.sim->odr_writes_o, 0u);
  EXPECT_THROW(ref::dwpu_load_weights(d, b.image), ref::RefError);

  d = c.dwpu();
  d.weight_count = c.weights - 1;  // the last output's last tap has no weight
  r = b.run(c.ifd(), d, c.odr());
  EXPECT_FALSE(r.done);
  EXPECT_TRUE(r.err);
  EXPECT_EQ(r.code, spec::ErrorCode::DESC_RANGE);
  EXPECT_EQ(r.err_addr, c.weights - 1);

  r = b.run(c.ifd(), c.dwpu(), c.odr());
  ASSERT_TRUE(r.done);
  EXPECT_FALSE(r.err);
  c.run_ref(b.image);
  b.expect_rows(c.y0, c.out_rows(), "after the faults");
}

// The ODR's lane transpose (walk transpose, A.vtrsp) on the bypass datapath IFD0 -> ODR, against
// ref::run_odr: int8 blocks stored through a strided walk with a guard dropping some stores,
// under L1 bank theft; a float16 -> float32 cast block; the timing of docs/timing.md (64 pops,
// then from the cycle after the 64th pop one store per R(dtype) cycles, the next block's pops
// from the cycle after the 64th store); an L1_RANGE store fault and a run after it.
spec::Walk rows_walk(uint32_t base, uint32_t n, spec::Dtype dt) {
  spec::Walk w{};
  w.base_row = base;
  w.dtype = w.cast_from = dt;
  w.ndims = 1;
  w.d0_size = n;
  w.d0_stride = static_cast<int32_t>(axcore::num::element_rows(dt));
  return w;
}

void expect_transpose(Bench& b, const spec::Walk& in, const spec::Walk& out, unsigned noise, const std::string& what) {
  const Result r = b.run(in, spec::DwpuDesc{}, out, false, noise);
  ASSERT_TRUE(r.done) << what;
  EXPECT_FALSE(r.err) << what;
  b.ref_copy(in, out);
}

TEST(DwpuTest, LaneTransposeMatchesTheReference) {
  Bench b;
  std::mt19937 rng(110);
  // 3 int8 blocks; out element i of block blk at row kY0 + 3 i + blk (the blocks interleave); then
  // a guard 0 <= i - 5 < 50 keeps i in 5..54 and drops the rest
  const spec::Walk in = rows_walk(DwWindow::kX0, 192, spec::Dtype::INT8);
  spec::Walk out{};
  out.base_row = DwWindow::kY0;
  out.dtype = out.cast_from = spec::Dtype::INT8;
  out.ndims = 2;
  out.d0_size = 64;
  out.d0_stride = 3;
  out.d1_size = 3;
  out.d1_stride = 1;
  out.transpose = 1;
  b.fill(rng, in.base_row, 192);
  b.fill(rng, out.base_row, 192);
  expect_transpose(b, in, out, 5, "int8 blocks");
  b.expect_rows(out.base_row, 192, "int8 blocks");
  out.nguards = 1;
  out.g0_offset = -5;
  out.g0_extent = 50;
  out.g0_coef0 = 1;
  b.fill(rng, out.base_row, 192);
  expect_transpose(b, in, out, 3, "int8 blocks with drops");
  b.expect_rows(out.base_row, 192, "int8 blocks with drops");

  // float16 pops stored as float32 (4 rows per element)
  const spec::Walk hin = rows_walk(DwWindow::kX0, 64, spec::Dtype::FLOAT16);
  spec::Walk hout = rows_walk(DwWindow::kY0, 64, spec::Dtype::FLOAT32);
  hout.cast_from = spec::Dtype::FLOAT16;
  hout.transpose = 1;
  b.fill(rng, hin.base_row, 128);
  expect_transpose(b, hin, hout, 2, "float16 -> float32 block");
  b.expect_rows(hout.base_row, 256, "float16 -> float32 block");
}

TEST(DwpuTest, LaneTransposeTiming) {
  Bench b;
  std::mt19937 rng(111);
  constexpr uint32_t kBlocks = 4;
  const spec::Walk in = rows_walk(DwWindow::kX0, 64 * kBlocks, spec::Dtype::INT8);
  spec::Walk out = rows_walk(DwWindow::kY0, 64 * kBlocks, spec::Dtype::INT8);
  out.transpose = 1;
  b.fill(rng, in.base_row, 64 * kBlocks);
  const Result r = b.run(in, spec::DwpuDesc{}, out, false, 0);
  ASSERT_TRUE(r.done);
  b.ref_copy(in, out);
  b.expect_rows(out.base_row, 64 * kBlocks, "timing case");
  // per block 64 pop cycles + 64 store cycles; the IFD's first element and the last write are the fixed part
  std::printf("ODR lane transpose, %u int8 blocks (64x64): %llu cycles start to ODR done (%.2f per block)\n", kBlocks,
              static_cast<unsigned long long>(r.cycles), static_cast<double>(r.cycles) / kBlocks);
  EXPECT_GE(r.cycles, 128u * kBlocks);
  EXPECT_LE(r.cycles, 128u * kBlocks + 6);
  EXPECT_EQ(b.sim->odr_writes_o, 64u * kBlocks);

  // a store outside L1 stops the walk with L1_RANGE; the next task runs
  spec::Walk bad = rows_walk(static_cast<uint32_t>(spec::param::l1_bytes / 64 - 10), 64, spec::Dtype::INT8);
  bad.transpose = 1;
  const Result f = b.run(rows_walk(DwWindow::kX0, 64, spec::Dtype::INT8), spec::DwpuDesc{}, bad, false, 0);
  EXPECT_FALSE(f.done);
  EXPECT_TRUE(f.err);
  EXPECT_EQ(f.code, spec::ErrorCode::L1_RANGE);
  EXPECT_EQ(f.err_addr, spec::param::l1_bytes / 64);
  expect_transpose(b, in, out, 0, "after the fault");
  b.expect_rows(out.base_row, 64 * kBlocks, "after the fault");
}

}  // namespace
