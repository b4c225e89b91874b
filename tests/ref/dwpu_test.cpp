#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "axcore/num/int_cast.hpp"
#include "axcore/ref/dwpu.hpp"
#include "ref_test_util.hpp"

namespace axcore::ref {
namespace {

using spec::Dtype;
using spec::DwpuOp;
using spec::ErrorCode;
using testing::expect_error;

Element el(const num::PwordI8& v, bool pad = false) { return Element{num::AnyPword::of(v), pad}; }
Element splat8(int8_t v, bool pad = false) {
  num::PwordI8 p;
  p.fill(v);
  return el(p, pad);
}

spec::DwpuDesc desc(DwpuOp op, uint32_t taps, uint32_t outputs) {
  spec::DwpuDesc d{};
  d.op = op;
  d.taps = taps;
  d.ndims = 1;
  d.o0_size = outputs;
  return d;
}

TEST(Dwpu, PoolingHandCases) {
  const std::vector<uint8_t> l1(64);
  const std::vector<Element> taps = {splat8(3), splat8(-7), splat8(4, true), splat8(5)};
  auto one = [&](spec::DwpuDesc d) { return dwpu_output(d, {}, 0, taps)[0]; };
  EXPECT_EQ(one(desc(DwpuOp::MAX, 4, 1)), 5);
  EXPECT_EQ(one(desc(DwpuOp::MIN, 4, 1)), -7);
  EXPECT_EQ(one(desc(DwpuOp::SUM, 4, 1)), 5);
  // AVERAGE, divisor 0: 3 non-pad taps, sum 5 (pad value included) -> 5/3 -> 2.
  EXPECT_EQ(one(desc(DwpuOp::AVERAGE, 4, 1)), 2);
  spec::DwpuDesc d = desc(DwpuOp::AVERAGE, 4, 1);
  d.divisor = 2;  // 5/2 = 2.5 -> 2 (half to even)
  EXPECT_EQ(one(d), 2);
  d.divisor = 10;  // 0.5 -> 0
  EXPECT_EQ(one(d), 0);
  const std::vector<Element> neg = {splat8(-3), splat8(-4)};
  spec::DwpuDesc d2 = desc(DwpuOp::AVERAGE, 2, 1);
  EXPECT_EQ(dwpu_output(d2, {}, 0, neg)[0], -4);  // -3.5 -> -4 (even)
  const std::vector<Element> all_pad = {splat8(9, true), splat8(9, true)};
  EXPECT_EQ(dwpu_output(d2, {}, 0, all_pad)[0], 0);  // no real tap
}

TEST(Dwpu, ConvUsesWeightGroups) {
  // Two outputs of 3 taps; group = o0 * 3; weights w[i] = i + 1 in every lane.
  std::vector<uint8_t> l1(8 * 64);
  for (std::size_t r = 0; r < 6; ++r)
    for (std::size_t n = 0; n < 64; ++n) l1[(2 + r) * 64 + n] = static_cast<uint8_t>(r + 1);
  spec::DwpuDesc d = desc(DwpuOp::CONV, 3, 2);
  d.weight_base_row = 2;
  d.weight_count = 6;
  d.o0_wstride = 3;
  VectorSource src({splat8(1), splat8(2), splat8(3), splat8(-1), splat8(0), splat8(10)});
  VectorSink out;
  run_dwpu(d, l1, src.fn(), out.fn());
  ASSERT_EQ(out.elems.size(), 2u);
  EXPECT_EQ(out.elems[0].value.as_i32()[0], 1 * 1 + 2 * 2 + 3 * 3);
  EXPECT_EQ(out.elems[1].value.as_i32()[63], -1 * 4 + 0 * 5 + 10 * 6);
  EXPECT_EQ(out.elems[1].value.dtype, Dtype::INT32);
}

TEST(Dwpu, RandomDepthwiseConvAndPoolMatchPlainLoops) {
  std::mt19937 rng(8);
  const uint32_t taps = 9, outs = 12, groups = 3;
  std::vector<uint8_t> l1((groups * taps) * 64);
  for (auto& b : l1) b = static_cast<uint8_t>(rng());
  std::vector<Element> in;
  for (uint32_t i = 0; i < outs * taps; ++i) {
    num::PwordI8 v;
    for (auto& x : v) x = static_cast<int8_t>(rng());
    in.push_back(el(v, rng() % 5 == 0));
  }
  for (DwpuOp op : {DwpuOp::CONV, DwpuOp::MAX, DwpuOp::MIN, DwpuOp::SUM, DwpuOp::AVERAGE}) {
    spec::DwpuDesc d = desc(op, taps, outs / groups);
    d.ndims = 2;
    d.o0_size = groups;  // o0 picks the weight group
    d.o0_wstride = static_cast<int32_t>(taps);
    d.o1_size = outs / groups;
    d.weight_count = groups * taps;
    VectorSource src(in);
    VectorSink out;
    run_dwpu(d, l1, src.fn(), out.fn());
    ASSERT_EQ(out.elems.size(), outs);
    for (uint32_t o = 0; o < outs; ++o) {
      const uint32_t g = o % groups;
      for (std::size_t n = 0; n < 64; ++n) {
        int64_t acc = 0, mx = -1000, mn = 1000, cnt = 0;
        for (uint32_t t = 0; t < taps; ++t) {
          const Element& e = in[o * taps + t];
          const int64_t x = e.value.as_i8()[n];
          acc += op == DwpuOp::CONV ? x * static_cast<int8_t>(l1[(g * taps + t) * 64 + n]) : x;
          mx = std::max(mx, x);
          mn = std::min(mn, x);
          cnt += e.pad ? 0 : 1;
        }
        int64_t want = acc;
        if (op == DwpuOp::MAX) want = mx;
        if (op == DwpuOp::MIN) want = mn;
        if (op == DwpuOp::AVERAGE)
          want =
              cnt == 0 ? 0 : static_cast<int64_t>(std::nearbyint(static_cast<double>(acc) / static_cast<double>(cnt)));
        ASSERT_EQ(out.elems[o].value.as_i32()[n], want) << static_cast<int>(op) << " o=" << o << " n=" << n;
      }
    }
  }
}

TEST(Dwpu, Faults) {
  std::vector<uint8_t> l1(4 * 64);
  VectorSink out;
  auto run = [&](const spec::DwpuDesc& d, std::vector<Element> in) {
    VectorSource src(std::move(in));
    run_dwpu(d, l1, src.fn(), out.fn());
  };
  spec::DwpuDesc d = desc(DwpuOp::SUM, 0, 1);
  expect_error([&] { run(d, {}); }, ErrorCode::DESC_RANGE, "taps = 0");
  d = desc(DwpuOp::SUM, 65, 1);
  expect_error([&] { run(d, {}); }, ErrorCode::DESC_RANGE, "taps = 65");
  d = desc(static_cast<DwpuOp>(9), 1, 1);
  expect_error([&] { run(d, {}); }, ErrorCode::DESC_RANGE, "not a dwpu_op");
  d = desc(DwpuOp::CONV, 2, 1);
  d.weight_count = 5;
  expect_error([&] { run(d, {}); }, ErrorCode::L1_RANGE, "leave L1");
  d.weight_count = 1;  // tap 1 needs w[1]
  expect_error([&] { run(d, {splat8(1), splat8(1)}); }, ErrorCode::DESC_RANGE, "weight 1 outside");
  d = desc(DwpuOp::MAX, 1, 1);
  expect_error(
      [&] {
        run(d, {Element{num::AnyPword::splat(Dtype::FLOAT16, 0), false}});
      },
      ErrorCode::STREAM_DTYPE, "takes INT8");
  d = desc(DwpuOp::MAX, 1, 1);
  d.weight_count = 257;
  expect_error([&] { run(d, {}); }, ErrorCode::DESC_RANGE, "weight buffer");
}

}  // namespace
}  // namespace axcore::ref
