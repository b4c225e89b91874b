// ax_ifd / ax_odr / ax_l1 against common/ref walks: random walks with guards and every dtype,
// stream back-pressure, bank conflicts, IFD -> ODR copies with casts and drops, the stream rate
// of docs/timing.md, and L1_RANGE.
#include <gtest/gtest.h>

#include <axcore/ref/walk.hpp>
#include <axcore/spec.hpp>
#include <random>

#include "Vtb_walk.h"
#include "tb_util.hpp"

namespace {

using axcore::spec::Dtype;
using axcore::spec::Walk;
namespace ref = axcore::ref;
namespace num = axcore::num;

constexpr uint32_t kRegionRows = 2048;  // walks stay inside rows [0, kRegionRows) (src)
constexpr uint32_t kDstRow = 8192;      // ODR destination region

struct Bench {
  rtlcore::Sim<Vtb_walk> sim;
  rtlcore::L1Dbg<Vtb_walk> l1{sim};
  std::vector<uint8_t> image = std::vector<uint8_t>(axcore::spec::param::l1_bytes, 0);

  void fill(std::mt19937& rng, uint32_t first_row, uint32_t rows) {
    std::vector<uint8_t> b(std::size_t{rows} * 64);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    l1.write_bytes(uint64_t{first_row} * 64, b);
    std::copy(b.begin(), b.end(), image.begin() + std::ptrdiff_t{first_row} * 64);
  }
  void start(const Walk& ifd, const Walk& odr, bool odr_en) {
    rtlcore::set_wide(sim->ifd_walk_i, ifd.encode());
    rtlcore::set_wide(sim->odr_walk_i, odr.encode());
    sim->odr_en_i = odr_en;
    sim->start_i = 1;
    sim.tick();
    sim->start_i = 0;
  }
};

ref::Element tap(Vtb_walk& m, Dtype d) {
  const std::size_t n = num::element_bytes(d);
  std::vector<uint8_t> bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(m.tap_data_o[i / 4] >> (8 * (i % 4)));
  return ref::Element{num::load_element(d, bytes), (m.tap_data_o[64] & 1u) != 0};
}

Dtype random_dtype(std::mt19937& rng) {
  const Dtype d[] = {Dtype::INT8, Dtype::INT32, Dtype::FLOAT16, Dtype::FLOAT32};
  return d[rng() % 4];
}

// A random walk of up to `max_elems` elements whose rows stay in [first, first + rows).
Walk random_walk(std::mt19937& rng, Dtype dt, uint32_t first, uint32_t rows, uint32_t guards) {
  for (;;) {
    Walk w{};
    w.dtype = dt;
    w.cast_from = dt;
    w.ndims = 1 + rng() % 4;
    uint32_t* sizes[] = {&w.d0_size, &w.d1_size, &w.d2_size, &w.d3_size, &w.d4_size, &w.d5_size};
    int32_t* strides[] = {&w.d0_stride, &w.d1_stride, &w.d2_stride, &w.d3_stride, &w.d4_stride, &w.d5_stride};
    for (uint32_t k = 0; k < w.ndims; ++k) {
      *sizes[k] = 1 + rng() % 5;
      *strides[k] = static_cast<int32_t>(rng() % 41) - 20;
    }
    w.base_row = first + rng() % rows;
    w.nguards = guards;
    w.pad_value = rng();
    w.g0_offset = static_cast<int32_t>(rng() % 5) - 2;
    w.g0_extent = 1 + rng() % 5;
    w.g0_coef0 = 1;
    w.g1_offset = static_cast<int32_t>(rng() % 5) - 1;
    w.g1_extent = 2 + rng() % 4;
    w.g1_coef1 = 1;
    w.g1_coef0 = static_cast<int32_t>(rng() % 3) - 1;
    w.g2_offset = 0;
    w.g2_extent = 1 + rng() % 8;
    w.g2_coef2 = 2;
    bool ok = true;
    for (ref::WalkCursor c(w, ref::WalkRole::Ifd); !c.done() && ok; c.advance()) {
      const int64_t r = c.step().row;
      ok = r >= first && r + static_cast<int64_t>(num::element_rows(dt)) <= first + rows;
    }
    if (ok) return w;
  }
}

// Pops the IFD stream with a random ready; returns the elements and checks done.
std::vector<ref::Element> run_ifd(Bench& b, const Walk& w, std::mt19937& rng, unsigned ready_pct, bool conflicts) {
  b.start(w, Walk{}, false);
  std::vector<ref::Element> got;
  const uint64_t n = ref::walk_length(w);
  for (int guard = 0; guard < 20000 && got.size() < n; ++guard) {
    b.sim->tap_ready_i = (rng() % 100) < ready_pct;
    b.sim->other_valid_i = conflicts && (rng() % 2);
    b.sim->other_row_i = rng() % 64;
    b.sim.settle();
    if (b.sim->tap_valid_o && b.sim->tap_ready_i) got.push_back(tap(*b.sim, w.dtype));
    EXPECT_FALSE((b.sim->ifd_err_o >> 37) & 1u);
    b.sim.tick();
  }
  b.sim->tap_ready_i = 0;
  b.sim->other_valid_i = 0;
  for (int i = 0; i < 10 && b.sim->ifd_busy_o; ++i) b.sim.tick();
  EXPECT_FALSE(b.sim->ifd_busy_o);
  return got;
}

TEST(IfdTest, RandomWalksMatchTheReference) {
  Bench b;
  std::mt19937 rng(1);
  b.fill(rng, 0, kRegionRows);
  for (int t = 0; t < 60; ++t) {
    const Walk w = random_walk(rng, random_dtype(rng), 0, kRegionRows, t % 4);
    std::vector<ref::Element> want;
    ref::run_ifd(w, b.image, [&](const ref::Element& e) { want.push_back(e); });
    const auto got = run_ifd(b, w, rng, t % 3 == 0 ? 100 : 60, t % 2 == 1);
    ASSERT_EQ(got.size(), want.size()) << "walk " << t;
    for (std::size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(got[i], want[i]) << "walk " << t << " element " << i << " pad " << want[i].pad;
    }
  }
}

// docs/timing.md: pushed ifd_latency cycles after the (last) row grant; int8 runs gap-free,
// an element of R rows takes R cycles; a pad element takes R cycles too.
TEST(IfdTest, StreamRateAndLatency) {
  for (Dtype dt : {Dtype::INT8, Dtype::FLOAT16, Dtype::INT32}) {
    Bench b;
    std::mt19937 rng(2);
    b.fill(rng, 0, 256);
    Walk w{};
    w.dtype = w.cast_from = dt;
    w.ndims = 1;
    w.d0_size = 40;
    w.d0_stride = static_cast<int32_t>(num::element_rows(dt));
    w.nguards = 1;  // elements 10..19 are pads
    w.g0_offset = -10;
    w.g0_extent = 100;
    w.g0_coef0 = 1;
    w.g0_offset = 0;
    w.g0_extent = 10;
    w.g1_offset = 0;
    b.sim->tap_ready_i = 1;
    const uint64_t c0 = b.sim.cycle();
    b.start(w, Walk{}, false);  // start in cycle 0
    std::vector<uint64_t> pops;
    for (int i = 0; i < 400 && pops.size() < 40; ++i) {
      b.sim.settle();
      if (b.sim->tap_valid_o) pops.push_back(b.sim.cycle() - c0);
      b.sim.tick();
    }
    ASSERT_EQ(pops.size(), 40u);
    const uint64_t r = num::element_rows(dt);
    // start cycle 0, first request cycle 1, pushed cycle 1 + (r - 1) + ifd_latency, popped next.
    EXPECT_EQ(pops[0], 1 + (r - 1) + axcore::spec::param::ifd_latency + 1) << axcore::spec::to_string(dt);
    for (std::size_t i = 1; i < pops.size(); ++i) EXPECT_EQ(pops[i] - pops[i - 1], r) << i;
  }
}

TEST(IfdTest, OutsideL1IsL1Range) {
  Bench b;
  Walk w{};
  w.dtype = w.cast_from = Dtype::INT32;
  w.ndims = 1;
  w.d0_size = 8;
  w.d0_stride = 4;
  w.base_row = axcore::spec::param::l1_bytes / 64 - 12;  // elements 0..2 fit, element 3 leaves
  b.sim->tap_ready_i = 1;
  b.start(w, Walk{}, false);
  bool err = false;
  int pops = 0;
  for (int i = 0; i < 100; ++i) {
    b.sim.settle();
    const uint64_t e = b.sim->ifd_err_o;  // unit_err_t {valid, code[4:0], addr[31:0]}
    if ((e >> 37) & 1u) {
      err = true;
      EXPECT_EQ((e >> 32) & 0x1Fu, static_cast<uint32_t>(axcore::spec::ErrorCode::L1_RANGE));
      EXPECT_EQ(e & 0xFFFFFFFFu, axcore::spec::param::l1_bytes / 64);  // element 3's first row
    }
    pops += b.sim->tap_valid_o;
    EXPECT_FALSE(b.sim->ifd_done_o);
    b.sim.tick();
  }
  EXPECT_TRUE(err);
  EXPECT_EQ(pops, 3);
  EXPECT_FALSE(b.sim->ifd_busy_o);
}

TEST(OdrTest, CopiesWithCastsAndDropsMatchTheReference) {
  Bench b;
  std::mt19937 rng(3);
  b.fill(rng, 0, kRegionRows);
  for (int t = 0; t < 40; ++t) {
    const Walk src = random_walk(rng, random_dtype(rng), 0, kRegionRows, t % 2);
    // The ODR walk has the same length: one dimension, stride R(dst), a store guard on i0.
    Walk dst{};
    dst.cast_from = src.dtype;
    dst.dtype = random_dtype(rng);
    dst.ndims = 1;
    dst.d0_size = static_cast<uint32_t>(ref::walk_length(src));
    dst.d0_stride = static_cast<int32_t>(num::element_rows(dst.dtype)) * (1 + static_cast<int32_t>(rng() % 2));
    dst.base_row = kDstRow + static_cast<uint32_t>(t % 7) * 1024;
    dst.nguards = t % 3 == 0 ? 0 : 1;
    dst.g0_offset = -static_cast<int32_t>(rng() % 3);
    dst.g0_extent = 1 + rng() % 20;
    dst.g0_coef0 = 1;
    std::vector<ref::Element> stream;
    ref::run_ifd(src, b.image, [&](const ref::Element& e) { stream.push_back(e); });
    ref::VectorSource vs(stream);
    ref::run_odr(dst, b.image, vs.fn());

    b.start(src, dst, true);
    int writes = 0, stored = 0;
    bool done = false;
    for (int i = 0; i < 20000 && !done; ++i) {
      b.sim->other_valid_i = (t % 2) && (rng() % 2);
      b.sim->other_row_i = rng() % 64;
      b.sim.settle();
      if (rtlcore::bit(b.sim->mon_o, 562)) ++writes;  // mon_write_t.valid
      done = b.sim->odr_done_o;
      ASSERT_FALSE((b.sim->odr_err_o >> 37) & 1u);
      b.sim.tick();
    }
    b.sim->other_valid_i = 0;
    ASSERT_TRUE(done) << "walk " << t;
    for (ref::WalkCursor c(dst, ref::WalkRole::Odr); !c.done(); c.advance()) stored += c.step().guards_pass;
    EXPECT_EQ(writes, stored * static_cast<int>(num::element_rows(dst.dtype)));
    const std::size_t base = std::size_t{dst.base_row} * 64,
                      len = std::size_t{dst.d0_size} * static_cast<std::size_t>(dst.d0_stride) * 64;
    const auto got = b.l1.read_bytes(base, len);
    ASSERT_TRUE(std::equal(got.begin(), got.end(), b.image.begin() + static_cast<std::ptrdiff_t>(base)))
        << "walk " << t << " " << axcore::spec::to_string(src.dtype) << " -> " << axcore::spec::to_string(dst.dtype);
  }
}

}  // namespace
