// LoadIMC + IMC + IFD0 -> MVM -> ODR against common/ref (run_loadimc, run_ifd, run_mvm,
// run_odr): random matmuls, residency and stale reads, IMC_RANGE, the tile-op timing of
// docs/timing.md, and the MVM utilization of the M = 256, K = 1152, N = 256 benchmark
// (printed, and bounded by 1.05 x ideal). Built once per MVM width: AXCORE_TB_MVM_ROWS is the
// model's tb_mvm MvmRows (-G), mvm_rows_per_cycle of the spec when not given.
#include <gtest/gtest.h>

#include <axcore/ref/imc.hpp>
#include <axcore/ref/walk.hpp>
#include <axcore/spec.hpp>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>

#include "Vtb_mvm.h"
#include "axcore/rtl/mm_layout.hpp"
#include "tb_util.hpp"

namespace {

using axcore::spec::Dtype;
namespace ref = axcore::ref;
namespace spec = axcore::spec;
using rtlcore::kW0;
using rtlcore::kX0;
using rtlcore::kY0;
using rtlcore::Matmul;

#ifdef AXCORE_TB_MVM_ROWS
constexpr uint64_t kRows = AXCORE_TB_MVM_ROWS;
#else
constexpr uint64_t kRows = spec::param::mvm_rows_per_cycle;
#endif
constexpr uint64_t kOpCycles = spec::param::imc_tile_rows / kRows;  // cycles per tile-op (timing.md)

struct Bench {
  rtlcore::Sim<Vtb_mvm> sim;
  rtlcore::L1Dbg<Vtb_mvm> l1{sim};
  std::vector<uint8_t> image = std::vector<uint8_t>(spec::param::l1_bytes, 0);
  ref::Imc imc;

  void fill(std::mt19937& rng, uint32_t row, uint32_t rows) {
    std::vector<uint8_t> b(std::size_t{rows} * 64);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    l1.write_bytes(uint64_t{row} * 64, b);
    std::copy(b.begin(), b.end(), image.begin() + std::ptrdiff_t{row} * 64);
  }
  // Runs until done (checked after each settle; `each` sees every settled cycle before it).
  uint64_t wait(const char* what, int limit, bool (*done)(Vtb_mvm&), const std::function<void(Vtb_mvm&)>& each = {}) {
    const uint64_t c0 = sim.cycle();
    for (int i = 0; i < limit; ++i) {
      sim.settle();
      if (each) each(*sim);
      if (done(*sim)) return sim.cycle() - c0;
      sim.tick();
    }
    ADD_FAILURE() << what << " did not finish in " << limit << " cycles";
    return 0;
  }
  void load(const Matmul& mm) {
    rtlcore::set_wide(sim->load_desc_i, mm.load().encode());
    sim->load_start_i = 1;
    sim.tick();
    sim->load_start_i = 0;
    wait("LoadIMC", 1000000, [](Vtb_mvm& m) { return m.load_done_o != 0; });
    ref::run_loadimc(mm.load(), image, imc);
  }
  // Returns the cycles from the start to the ODR's done.
  uint64_t run(const Matmul& mm, const std::function<void(Vtb_mvm&)>& each = {}) {
    rtlcore::set_wide(sim->ifd_walk_i, mm.ifd().encode());
    rtlcore::set_wide(sim->mvm_desc_i, mm.mvm().encode());
    rtlcore::set_wide(sim->odr_walk_i, mm.odr().encode());
    sim->run_start_i = 1;
    sim.tick();
    sim->run_start_i = 0;
    const uint64_t c = wait(
                           "MVMEXE run", 10000000, [](Vtb_mvm& m) { return m.odr_done_o != 0; }, each) +
                       1;
    std::vector<ref::Element> xs, ys;
    ref::run_ifd(mm.ifd(), image, [&](const ref::Element& e) { xs.push_back(e); });
    ref::VectorSource src(xs);
    ref::run_mvm(mm.mvm(), imc, src.fn(), [&](const ref::Element& e) { ys.push_back(e); });
    ref::VectorSource ysrc(ys);
    ref::run_odr(mm.odr(), image, ysrc.fn());
    return c;
  }
  void expect_output(const Matmul& mm) {
    const auto got = l1.read_bytes(uint64_t{kY0} * 64, mm.out_bytes());
    const auto* want = image.data() + std::size_t{kY0} * 64;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[i] && bad++ < 5)
        ADD_FAILURE() << "output byte " << i << ": rtl " << int{got[i]} << ", ref " << int{want[i]};
    }
    EXPECT_EQ(bad, 0u);
  }
};

TEST(MvmTest, RandomMatmulsMatchTheReference) {
  Bench b;
  std::mt19937 rng(11);
  for (Dtype out : {Dtype::INT32, Dtype::INT8, Dtype::FLOAT16}) {
    Matmul mm{3 + static_cast<uint32_t>(rng() % 6), 1 + static_cast<uint32_t>(rng() % 4),
              1 + static_cast<uint32_t>(rng() % 3)};
    mm.out = out;
    b.fill(rng, kX0, mm.m * mm.kb);
    b.fill(rng, kW0, mm.kb * mm.nb * 64);
    b.load(mm);
    EXPECT_EQ(b.sim->valid_tiles_o, b.imc.valid_tiles());
    b.run(mm);
    EXPECT_EQ(b.sim->stale_reads_o, b.imc.stale_reads);
    b.expect_output(mm);
  }
  EXPECT_EQ(b.sim->stale_reads_o, 0u);
}

// A new matrix_id ends the previous residency; an MVM of the old id reads stale tiles (the
// data is still used) and counts every tile-op.
TEST(MvmTest, NewResidencyMakesOldTilesStale) {
  Bench b;
  std::mt19937 rng(12);
  Matmul mm{4, 2, 2};
  b.fill(rng, kX0, mm.m * mm.kb);
  b.fill(rng, kW0, mm.kb * mm.nb * 64);
  b.load(mm);
  Matmul other = mm;
  other.matrix_id = 2;
  other.nb = 1;  // loads tiles 0, 1 only
  b.load(other);
  EXPECT_EQ(b.sim->matrix_id_o, 2u);
  EXPECT_EQ(b.sim->valid_tiles_o, 2u);
  mm.run_id = 2;  // tiles 2, 3 are not valid in residency 2
  b.run(mm);
  EXPECT_EQ(b.imc.stale_reads, uint64_t{mm.m} * 1 * mm.kb);
  EXPECT_EQ(b.sim->stale_reads_o, b.imc.stale_reads);
  b.expect_output(mm);
}

TEST(MvmTest, TileOutsideTheImcIsImcRange) {
  Bench b;
  Matmul mm{2, 1, 1};
  auto d = mm.mvm();
  d.tile_base = spec::param::imc_tiles - 1;
  d.o1_tstride = 1;  // output 1 uses tile imc_tiles
  rtlcore::set_wide(b.sim->ifd_walk_i, mm.ifd().encode());
  rtlcore::set_wide(b.sim->mvm_desc_i, d.encode());
  rtlcore::set_wide(b.sim->odr_walk_i, mm.odr().encode());
  b.sim->run_start_i = 1;
  b.sim.tick();
  b.sim->run_start_i = 0;
  bool err = false;
  for (int i = 0; i < 50; ++i) {
    b.sim.settle();
    const uint64_t e = b.sim->mvm_err_o;
    if ((e >> 37) & 1u) {
      err = true;
      EXPECT_EQ((e >> 32) & 0x1Fu, static_cast<uint32_t>(spec::ErrorCode::IMC_RANGE));
      EXPECT_EQ(e & 0xFFFFFFFFu, spec::param::imc_tiles);
    }
    EXPECT_FALSE(b.sim->mvm_done_o);
    b.sim.tick();
  }
  EXPECT_TRUE(err);
}

// docs/timing.md: one tile-op per 64 / mvm_rows_per_cycle cycles (its x element popped in its
// first cycle), the output pushed mvm_latency cycles after the last cycle of its K chain's last
// tile-op (the ODR pops it the cycle after: int8 out, one row per element, never stalls), no
// bubble between outputs, PERF busy = tile-op cycles.
TEST(MvmTest, TileOpTimingPerTimingMd) {
  Bench b;
  std::mt19937 rng(14);
  for (Matmul mm : {Matmul{5, 3, 2}, Matmul{4, 1, 3}, Matmul{2, 7, 1}}) {
    mm.out = Dtype::INT8;
    b.fill(rng, kX0, mm.m * mm.kb);
    b.fill(rng, kW0, mm.kb * mm.nb * 64);
    b.load(mm);
    std::vector<uint64_t> pops, outs;
    b.run(mm, [&](Vtb_mvm& m) {
      if (m.x_pop_o) pops.push_back(b.sim.cycle());
      if (m.y_pop_o) outs.push_back(b.sim.cycle());
    });
    b.expect_output(mm);
    const uint64_t ops = uint64_t{mm.m} * mm.kb * mm.nb;
    ASSERT_EQ(pops.size(), ops);
    ASSERT_EQ(outs.size(), uint64_t{mm.m} * mm.nb);
    EXPECT_EQ(b.sim->mvm_busy_cycles_o, ops * kOpCycles);
    for (std::size_t i = 1; i < pops.size(); ++i) {
      EXPECT_GE(pops[i] - pops[i - 1], kOpCycles) << "tile-op " << i;
      // wider than one cycle per tile-op the IFD runs ahead: every tile-op follows the last one
      if (kOpCycles > 1) { EXPECT_EQ(pops[i] - pops[i - 1], kOpCycles) << "tile-op " << i; }
    }
    for (std::size_t j = 0; j < outs.size(); ++j) {
      const uint64_t last = pops[(j + 1) * mm.kb - 1];
      EXPECT_EQ(outs[j], last + kOpCycles - 1 + spec::param::mvm_latency + 1) << "output " << j;
    }
  }
}

// The benchmark: a resident matmul M = 256, K = 1152 (18 K-blocks), N = 256 (4 blocks).
TEST(MvmTest, UtilizationM256K1152N256) {
  Bench b;
  std::mt19937 rng(13);
  Matmul mm{256, 18, 4};
  b.fill(rng, kX0, mm.m * mm.kb);
  b.fill(rng, kW0, mm.kb * mm.nb * 64);
  b.load(mm);
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t cycles = b.run(mm);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t ideal = uint64_t{mm.m} * mm.kb * mm.nb * kOpCycles;
  std::printf(
      "MVM utilization M=256 K=1152 N=256, %llu rows/cycle: cycles %llu, ideal (M*K_BLOCKS*N_BLOCKS*64/rows) %llu, "
      "ratio %.4f, MVM busy %u; sim speed %.0f cycles/s (incl. the reference run)\n",
      static_cast<unsigned long long>(kRows), static_cast<unsigned long long>(cycles),
      static_cast<unsigned long long>(ideal), static_cast<double>(cycles) / static_cast<double>(ideal),
      b.sim->mvm_busy_cycles_o, static_cast<double>(cycles) / secs);
  EXPECT_EQ(b.sim->mvm_busy_cycles_o, ideal);
  EXPECT_LE(static_cast<double>(cycles), 1.05 * static_cast<double>(ideal) + 16.0);
  b.expect_output(mm);
}

}  // namespace
