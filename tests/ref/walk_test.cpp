#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <random>
#include <tuple>
#include <vector>

#include "axcore/num/int_cast.hpp"
#include "axcore/ref/walk.hpp"
#include "ref_test_util.hpp"

namespace axcore::ref {
namespace {

using spec::Dtype;
using spec::ErrorCode;
using testing::expect_error;

std::vector<uint8_t> make_l1(std::size_t rows) {
  std::vector<uint8_t> l1(rows * 64);
  for (std::size_t i = 0; i < l1.size(); ++i) l1[i] = static_cast<uint8_t>(i / 64 * 3 + i % 64);
  return l1;
}

spec::Walk walk2d(uint32_t base, uint32_t s0, int32_t st0, uint32_t s1, int32_t st1, Dtype dt = Dtype::INT8) {
  spec::Walk w{};
  w.base_row = base;
  w.dtype = dt;
  w.cast_from = dt;
  w.ndims = 2;
  w.d0_size = s0;
  w.d0_stride = st0;
  w.d1_size = s1;
  w.d1_stride = st1;
  return w;
}

std::vector<Element> ifd_all(const spec::Walk& w, const std::vector<uint8_t>& l1) {
  VectorSink sink;
  run_ifd(w, l1, sink.fn());
  return sink.elems;
}

TEST(IfdWalk, RowsInHardwareOrder) {
  const auto l1 = make_l1(32);
  const spec::Walk w = walk2d(2, 3, 1, 2, 10);
  const auto e = ifd_all(w, l1);
  ASSERT_EQ(e.size(), 6u);
  EXPECT_EQ(walk_length(w), 6u);
  const int rows[] = {2, 3, 4, 12, 13, 14};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_FALSE(e[i].pad);
    EXPECT_EQ(e[i].value.dtype, Dtype::INT8);
    for (std::size_t n = 0; n < 64; ++n) {
      EXPECT_EQ(e[i].value.lanes[n], l1[static_cast<std::size_t>(rows[i]) * 64 + n]);
    }
  }
}

TEST(IfdWalk, NegativeStrideAndFloat32Elements) {
  auto l1 = make_l1(40);
  // float32 element at row 20 spans rows 20..23, lane n at byte 4n.
  const spec::Walk w = walk2d(20, 2, -4, 1, 0, Dtype::FLOAT32);
  const auto e = ifd_all(w, l1);
  ASSERT_EQ(e.size(), 2u);
  for (std::size_t n = 0; n < 64; ++n) {
    const std::size_t b = 20 * 64 + 4 * n;
    EXPECT_EQ(e[0].value.lanes[n],
              uint32_t{l1[b]} | uint32_t{l1[b + 1]} << 8 | uint32_t{l1[b + 2]} << 16 | uint32_t{l1[b + 3]} << 24);
  }
  EXPECT_EQ(e[1].value.lanes[0], uint32_t{l1[16 * 64]} | uint32_t{l1[16 * 64 + 1]} << 8 |
                                     uint32_t{l1[16 * 64 + 2]} << 16 | uint32_t{l1[16 * 64 + 3]} << 24);
}

TEST(IfdWalk, GuardsPadWithPadValue) {
  const auto l1 = make_l1(8);
  // A 1-D padded read: i0 in 0..4 reads row i0, guarded 0 <= i0 - 1 < 3 (i0 = 1..3 load).
  spec::Walk w = walk2d(0, 5, 1, 1, 0);
  w.ndims = 1;
  w.nguards = 1;
  w.g0_offset = -1;
  w.g0_coef0 = 1;
  w.g0_extent = 3;
  w.pad_value = 0xFFFFFF80u;  // int8 uses the low byte: -128
  const auto e = ifd_all(w, l1);
  ASSERT_EQ(e.size(), 5u);
  EXPECT_TRUE(e[0].pad);
  EXPECT_FALSE(e[1].pad);
  EXPECT_FALSE(e[3].pad);
  EXPECT_TRUE(e[4].pad);
  EXPECT_EQ(e[0].value.as_i8()[7], -128);
  EXPECT_EQ(e[4].value.as_i8()[63], -128);
  EXPECT_EQ(e[2].value.lanes[5], l1[2 * 64 + 5]);
}

TEST(IfdWalk, PaddedElementAddressIsNeverChecked) {
  const auto l1 = make_l1(4);
  spec::Walk w = walk2d(0, 3, 100, 1, 0);  // rows 0, 100, 200: only row 0 is inside L1
  w.ndims = 1;
  w.nguards = 1;
  w.g0_extent = 1;  // 0 <= i0 < 1
  w.g0_coef0 = 1;
  const auto e = ifd_all(w, l1);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_FALSE(e[0].pad);
  EXPECT_TRUE(e[1].pad && e[2].pad);
  w.g0_extent = 2;  // now row 100 is read: L1_RANGE
  expect_error([&] { ifd_all(w, l1); }, ErrorCode::L1_RANGE, "row 100");
}

TEST(IfdWalk, TwoGuardsOverTwoDimensions) {
  const auto l1 = make_l1(64);
  spec::Walk w = walk2d(0, 4, 1, 4, 8);
  w.nguards = 2;
  w.g0_offset = -1;
  w.g0_coef0 = 1;
  w.g0_extent = 2;  // 1 <= i0 < 3
  w.g1_offset = -1;
  w.g1_coef1 = 1;
  w.g1_extent = 2;  // 1 <= i1 < 3
  const auto e = ifd_all(w, l1);
  ASSERT_EQ(e.size(), 16u);
  for (uint32_t i1 = 0; i1 < 4; ++i1)
    for (uint32_t i0 = 0; i0 < 4; ++i0)
      EXPECT_EQ(e[i1 * 4 + i0].pad, !(i0 >= 1 && i0 < 3 && i1 >= 1 && i1 < 3)) << i0 << "," << i1;
}

// The cursor steps by carries; every step equals the walk's formula: row = base_row +
// sum(ik * dk_stride), guard g passes when 0 <= g_offset + sum(g_coefk * ik) < g_extent
// (random walks of 1..6 dims, negative strides and coefficients, 0..3 guards).
TEST(WalkCursor, EveryStepEqualsTheFormula) {
  std::mt19937 rng(3);
  auto pick = [&](int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1)); };
  for (int round = 0; round < 300; ++round) {
    spec::Walk w{};
    w.dtype = w.cast_from = Dtype::INT8;
    w.base_row = static_cast<uint32_t>(pick(0, 1000));
    w.ndims = static_cast<uint32_t>(pick(1, 6));
    w.nguards = static_cast<uint32_t>(pick(0, 3));
    std::array<uint32_t, 6> size{1, 1, 1, 1, 1, 1};
    std::array<int32_t, 6> stride{};
    for (uint32_t k = 0; k < w.ndims; ++k) size[k] = static_cast<uint32_t>(pick(1, 4)), stride[k] = pick(-40, 40);
    std::tie(w.d0_size, w.d1_size, w.d2_size, w.d3_size, w.d4_size, w.d5_size) =
        std::tuple(size[0], size[1], size[2], size[3], size[4], size[5]);
    std::tie(w.d0_stride, w.d1_stride, w.d2_stride, w.d3_stride, w.d4_stride, w.d5_stride) =
        std::tuple(stride[0], stride[1], stride[2], stride[3], stride[4], stride[5]);
    std::array<std::array<int32_t, 6>, 3> coef{};
    std::array<int32_t, 3> off{};
    std::array<uint32_t, 3> ext{};
    for (uint32_t g = 0; g < w.nguards; ++g) {
      off[g] = pick(-3, 3), ext[g] = static_cast<uint32_t>(pick(1, 6));
      for (auto& c : coef[g]) c = pick(-2, 2);
    }
    std::tie(w.g0_offset, w.g0_extent, w.g1_offset, w.g1_extent, w.g2_offset, w.g2_extent) =
        std::tuple(off[0], ext[0], off[1], ext[1], off[2], ext[2]);
    std::tie(w.g0_coef0, w.g0_coef1, w.g0_coef2, w.g0_coef3, w.g0_coef4, w.g0_coef5) =
        std::tuple(coef[0][0], coef[0][1], coef[0][2], coef[0][3], coef[0][4], coef[0][5]);
    std::tie(w.g1_coef0, w.g1_coef1, w.g1_coef2, w.g1_coef3, w.g1_coef4, w.g1_coef5) =
        std::tuple(coef[1][0], coef[1][1], coef[1][2], coef[1][3], coef[1][4], coef[1][5]);
    std::tie(w.g2_coef0, w.g2_coef1, w.g2_coef2, w.g2_coef3, w.g2_coef4, w.g2_coef5) =
        std::tuple(coef[2][0], coef[2][1], coef[2][2], coef[2][3], coef[2][4], coef[2][5]);
    WalkCursor c(w, WalkRole::Ifd);
    std::array<uint32_t, 6> idx{};
    for (uint64_t n = 0; n < walk_length(w); ++n, c.advance()) {
      ASSERT_FALSE(c.done());
      EXPECT_EQ(c.index(), n);
      int64_t row = w.base_row;
      bool pass = true;
      for (std::size_t k = 0; k < 6; ++k) row += int64_t{idx[k]} * stride[k];
      for (uint32_t g = 0; g < w.nguards; ++g) {
        int64_t v = off[g];
        for (std::size_t k = 0; k < 6; ++k) v += int64_t{coef[g][k]} * idx[k];
        pass = pass && v >= 0 && v < int64_t{ext[g]};
      }
      ASSERT_EQ(c.step().idx, idx) << "round " << round << ", step " << n;
      ASSERT_EQ(c.step().row, row) << "round " << round << ", step " << n;
      ASSERT_EQ(c.step().guards_pass, pass) << "round " << round << ", step " << n;
      for (std::size_t k = 0; k < w.ndims; ++k) {
        if (++idx[k] < size[k]) break;
        idx[k] = 0;
      }
    }
    EXPECT_TRUE(c.done());
  }
}

TEST(IfdWalk, DescriptorFaults) {
  const auto l1 = make_l1(4);
  spec::Walk w = walk2d(0, 1, 1, 1, 1);
  w.ndims = 0;
  expect_error([&] { ifd_all(w, l1); }, ErrorCode::DESC_RANGE, "ndims = 0");
  w.ndims = 7;
  expect_error([&] { ifd_all(w, l1); }, ErrorCode::DESC_RANGE, "ndims = 7");
  w = walk2d(0, 0, 1, 1, 1);
  expect_error([&] { ifd_all(w, l1); }, ErrorCode::DESC_RANGE, "d0_size is 0");
  w = walk2d(0, 1, 1, 1, 1);
  w.cast_from = Dtype::FLOAT32;
  expect_error([&] { ifd_all(w, l1); }, ErrorCode::DESC_RANGE, "cast_from must equal dtype");
  w = walk2d(0, 1, 1, 1, 1, Dtype::FLOAT18);
  expect_error([&] { ifd_all(w, l1); }, ErrorCode::DESC_RANGE, "not an L1 dtype");
  w = walk2d(0, 1, 1, 1, 1);
  w.nguards = 3;
  w.g2_extent = 0;  // an empty guard pads everything
  EXPECT_TRUE(ifd_all(w, l1)[0].pad);
  w = walk2d(3, 1, 1, 1, 1, Dtype::INT32);  // rows 3..6 of 4
  expect_error([&] { ifd_all(w, l1); }, ErrorCode::L1_RANGE, "outside L1");
}

TEST(OdrWalk, StoresWithCastAndDropsOnGuard) {
  std::vector<uint8_t> l1(8 * 64, 0xAA);
  spec::Walk w = walk2d(1, 3, 2, 1, 0);
  w.ndims = 1;
  w.cast_from = Dtype::FLOAT32;  // pops float32, stores int8
  w.nguards = 1;
  w.g0_coef0 = -1;
  w.g0_offset = 1;  // 0 <= 1 - i0 < 2: i0 = 0, 1 store; i0 = 2 drops
  w.g0_extent = 2;
  std::vector<Element> in;
  for (int i = 0; i < 3; ++i) {
    num::PwordF32 p;
    for (std::size_t n = 0; n < 64; ++n) p[n] = static_cast<float>(n) * 2.5f - 100.0f + static_cast<float>(i);
    in.push_back(Element{num::AnyPword::of(p), false});
  }
  VectorSource src(in);
  run_odr(w, l1, src.fn());
  EXPECT_EQ(src.remaining(), 0u);  // the dropped element was popped too
  for (std::size_t n = 0; n < 64; ++n) {
    const double v0 = static_cast<double>(n) * 2.5 - 100.0;
    EXPECT_EQ(static_cast<int8_t>(l1[1 * 64 + n]), num::saturate_to_int8(v0)) << n;
    EXPECT_EQ(static_cast<int8_t>(l1[3 * 64 + n]), num::saturate_to_int8(v0 + 1)) << n;
    EXPECT_EQ(l1[5 * 64 + n], 0xAA);  // dropped
    EXPECT_EQ(l1[2 * 64 + n], 0xAA);  // untouched
  }
  EXPECT_EQ(static_cast<int8_t>(l1[64 + 1]), -98);  // -97.5 ties to even
}

TEST(OdrWalk, Faults) {
  std::vector<uint8_t> l1(2 * 64);
  spec::Walk w = walk2d(0, 1, 1, 1, 1, Dtype::INT32);
  w.cast_from = Dtype::INT32;
  VectorSource src({Element{num::AnyPword::splat(Dtype::INT32, 5), false}});
  expect_error([&] { run_odr(w, l1, src.fn()); }, ErrorCode::L1_RANGE, "outside L1");
  w = walk2d(0, 1, 1, 1, 1);
  w.cast_from = Dtype::FLOAT16;
  VectorSource src2({Element{num::AnyPword::splat(Dtype::INT32, 5), false}});
  expect_error([&] { run_odr(w, l1, src2.fn()); }, ErrorCode::STREAM_DTYPE, "expects cast_from = FLOAT16");
}

// The DWPU ODR's lane transpose (walk transpose): two int8 blocks of 64 pops into a 64 x 128
// matrix written column-block by column-block (out row i of block b at row 64 b + i... here a
// strided walk), checked lane by lane against the definition; a float16 block cast to float32.
TEST(OdrWalk, TransposeBlocksOf64) {
  std::vector<uint8_t> l1(512 * 64, 0xAA);
  std::vector<Element> in;
  for (int b = 0; b < 2; ++b)
    for (int j = 0; j < 64; ++j) {
      num::PwordI8 p;
      for (std::size_t n = 0; n < 64; ++n) p[n] = static_cast<int8_t>(b * 64 + j * 3 - static_cast<int>(n));
      in.push_back(Element{num::AnyPword::of(p), false});
    }
  // out element (b, i) at row 2 * i + b: the two blocks interleave (d0 = i stride 2, d1 = b stride 1)
  spec::Walk w = walk2d(0, 64, 2, 2, 1);
  w.transpose = 1;
  VectorSource src(in);
  run_odr(w, l1, src.fn());
  EXPECT_EQ(src.remaining(), 0u);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < 64; ++j)
        ASSERT_EQ(static_cast<int8_t>(l1[static_cast<std::size_t>((2 * i + b) * 64 + j)]),
                  static_cast<int8_t>(b * 64 + j * 3 - i))
            << b << " " << i << " " << j;
  // float16 pops stored as float32: each lane cast, then transposed (4 rows per element)
  std::vector<Element> h;
  for (int j = 0; j < 64; ++j) {
    num::PwordF16 p;
    for (std::size_t n = 0; n < 64; ++n)
      p[n] = num::f16_from_double(static_cast<double>(j) + 0.5 * static_cast<double>(n));
    h.push_back(Element{num::AnyPword::of(p), false});
  }
  spec::Walk wf = walk2d(0, 64, 4, 1, 0, Dtype::FLOAT32);
  wf.ndims = 1;
  wf.cast_from = Dtype::FLOAT16;
  wf.transpose = 1;
  VectorSource hs(h);
  run_odr(wf, l1, hs.fn());
  for (std::size_t i = 0; i < 64; ++i) {
    const auto e = num::load_element(Dtype::FLOAT32, std::span<const uint8_t>(l1).subspan(i * 256, 256));
    for (std::size_t j = 0; j < 64; ++j)
      ASSERT_EQ(e.value(j), static_cast<double>(j) + 0.5 * static_cast<double>(i)) << i << " " << j;
  }
}

TEST(OdrWalk, TransposeRefusals) {
  spec::Walk w = walk2d(0, 63, 1, 1, 0);
  w.transpose = 1;
  expect_error([&] { validate_walk(w, WalkRole::Odr); }, ErrorCode::DESC_RANGE, "multiple of 64, got 63");
  w.d0_size = 64;
  validate_walk(w, WalkRole::Odr);
  expect_error([&] { validate_walk(w, WalkRole::Ifd); }, ErrorCode::DESC_RANGE, "IFD walk: transpose");
  expect_error([&] { validate_odr_kind(spec::DpKind::MVMEXE, w); }, ErrorCode::DESC_RANGE, "MVMEXE");
  validate_odr_kind(spec::DpKind::DWPU, w);
  std::vector<uint8_t> l1(64 * 64);
  std::vector<Element> in(64, Element{num::AnyPword::splat(Dtype::INT8, 1), false});
  in[7] = Element{num::AnyPword::splat(Dtype::INT32, 1), false};
  VectorSource src(in);
  expect_error([&] { run_odr(w, l1, src.fn()); }, ErrorCode::STREAM_DTYPE, "expects cast_from = INT8");
}

}  // namespace
}  // namespace axcore::ref
