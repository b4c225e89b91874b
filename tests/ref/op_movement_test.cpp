// Data-movement operator references (permute / transpose, slice, reshape, concat): exact for
// every dtype. Hand cases, and random cases against index arithmetic written with explicit
// strides here (testing::flat), not NDArray's own offset().
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "axcore/ref/op/movement.hpp"
#include "op_test_util.hpp"

namespace axcore::ref {
namespace {

using testing::flat;

NDArray<int32_t> iota_array(const Shape& s) {
  NDArray<int32_t> a(s);
  std::iota(a.data().begin(), a.data().end(), 0);
  return a;
}

TEST(OpMovement, HandCases) {
  const auto a = iota_array({2, 3});  // [[0, 1, 2], [3, 4, 5]]
  EXPECT_EQ(transpose(a).shape(), (Shape{3, 2}));
  EXPECT_EQ(transpose(a).data(), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  const auto b = iota_array({2, 2, 2});
  EXPECT_EQ(permute(b, {2, 0, 1}).data(), (std::vector<int32_t>{0, 2, 4, 6, 1, 3, 5, 7}));
  EXPECT_EQ(slice(a, 1, 1, 3).data(), (std::vector<int32_t>{1, 2, 4, 5}));
  EXPECT_EQ(slice(a, -1, 0, 100, 2).data(), (std::vector<int32_t>{0, 2, 3, 5}));
  EXPECT_EQ(slice(a, 0, 2, 5).shape(), (Shape{0, 3}));
  EXPECT_EQ(reshape(a, {3, 2}).data(), a.data());
  EXPECT_EQ(concat<int32_t>({a, iota_array({2, 1})}, 1).data(), (std::vector<int32_t>{0, 1, 2, 0, 3, 4, 5, 1}));
  EXPECT_EQ(concat<int32_t>({a, a}, 0).shape(), (Shape{4, 3}));
  EXPECT_THROW(permute(a, {0, 0}), std::invalid_argument);
  EXPECT_THROW(permute(a, {0}), std::invalid_argument);
  EXPECT_THROW(slice(a, 2, 0, 1), std::invalid_argument);
  EXPECT_THROW(slice(a, 0, 0, 1, 0), std::invalid_argument);
  EXPECT_THROW(reshape(a, {4, 2}), std::invalid_argument);
  EXPECT_THROW(concat<int32_t>({a, iota_array({3, 2})}, 1), std::invalid_argument);
  EXPECT_THROW(concat<int32_t>({}, 0), std::invalid_argument);
  // Float16 and float32 move bit-exactly (NaN payloads and -0 included).
  const NDArray<num::Float16> h(Shape{1, 2}, {num::Float16{0x7E01}, num::Float16{0x8000}});
  EXPECT_EQ(transpose(h).data()[0].bits, 0x7E01);
  EXPECT_EQ(transpose(h).data()[1].bits, 0x8000);
}

TEST(OpMovement, RandomAgainstStrides) {
  std::mt19937 rng(41);
  for (int t = 0; t < 200; ++t) {
    const std::size_t rank = 1 + rng() % 4;
    Shape s(rank);
    for (auto& d : s) d = 1 + rng() % 5;
    const auto a = iota_array(s);
    // permute
    std::vector<std::size_t> dims(rank);
    std::iota(dims.begin(), dims.end(), std::size_t{0});
    std::shuffle(dims.begin(), dims.end(), rng);
    const auto p = permute(a, dims);
    Shape ps(rank);
    for (std::size_t k = 0; k < rank; ++k) ps[k] = s[dims[k]];
    ASSERT_EQ(p.shape(), ps);
    std::vector<std::size_t> idx(rank, 0), src(rank);
    for (std::size_t i = 0; i < p.size(); ++i) {
      for (std::size_t k = 0; k < rank; ++k) src[dims[k]] = idx[k];
      ASSERT_EQ(p.data()[flat(ps, idx)], a.data()[flat(s, src)]);
      next_index(idx, ps);
    }
    // slice on a random axis
    const std::size_t ax = rng() % rank, start = rng() % s[ax], step = 1 + rng() % 3, end = start + rng() % 6;
    const auto sl = slice(a, static_cast<int>(ax), start, end, step);
    const std::size_t e = std::min(end, s[ax]);
    Shape ss = s;
    ss[ax] = start >= e ? 0 : (e - start + step - 1) / step;
    ASSERT_EQ(sl.shape(), ss);
    std::fill(idx.begin(), idx.end(), 0);
    for (std::size_t i = 0; i < sl.size(); ++i) {
      src = idx;
      src[ax] = start + idx[ax] * step;
      ASSERT_EQ(sl.data()[flat(ss, idx)], a.data()[flat(s, src)]);
      next_index(idx, ss);
    }
    // concat of a with itself sliced along ax
    const auto c = concat<int32_t>({a, sl}, static_cast<int>(ax));
    Shape cs = s;
    cs[ax] += ss[ax];
    ASSERT_EQ(c.shape(), cs);
    std::fill(idx.begin(), idx.end(), 0);
    for (std::size_t i = 0; i < c.size(); ++i) {
      const int32_t want = idx[ax] < s[ax] ? a.data()[flat(s, idx)] : [&] {
        auto j = idx;
        j[ax] -= s[ax];
        return sl.data()[flat(ss, j)];
      }();
      ASSERT_EQ(c.data()[flat(cs, idx)], want);
      next_index(idx, cs);
    }
    // reshape keeps C order
    const auto r = reshape(a, {a.size()});
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(r.data()[i], static_cast<int32_t>(i));
  }
}

}  // namespace
}  // namespace axcore::ref
