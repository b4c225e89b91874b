// slice_walk (compiler/src/lower_walk.cpp), which cuts an IFD / ODR block's walk between the tasks
// of a datapath with several blocks of one unit: a slice visits exactly the elements
// [from, from + count) of the walk, in order, with the same L1 rows and guard outcomes (stepped by
// the reference's WalkCursor); a slice inside one run of the innermost dimension always exists.
#include <gtest/gtest.h>

#include <axcore/ref/walk.hpp>
#include <random>
#include <utility>
#include <vector>

#include "lower_internal.hpp"

namespace {

namespace spec = axcore::spec;
namespace ref = axcore::ref;

std::vector<std::pair<int64_t, bool>> visit(const spec::Walk& w) {
  std::vector<std::pair<int64_t, bool>> v;
  for (ref::WalkCursor c(w, ref::WalkRole::Ifd); !c.done(); c.advance())
    v.emplace_back(c.step().row, c.step().guards_pass);
  return v;
}

spec::Walk random_walk(std::mt19937& rng) {
  auto in = [&](int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<uint32_t>(hi - lo + 1)); };
  spec::Walk w;
  w.dtype = w.cast_from = spec::Dtype::FLOAT32;
  w.base_row = 4096;
  w.ndims = static_cast<uint32_t>(in(1, 4));
  w.nguards = static_cast<uint32_t>(in(0, 2));
  uint32_t* sizes[] = {&w.d0_size, &w.d1_size, &w.d2_size, &w.d3_size, &w.d4_size, &w.d5_size};
  int32_t* strides[] = {&w.d0_stride, &w.d1_stride, &w.d2_stride, &w.d3_stride, &w.d4_stride, &w.d5_stride};
  int32_t* gc[2][6] = {{&w.g0_coef0, &w.g0_coef1, &w.g0_coef2, &w.g0_coef3, &w.g0_coef4, &w.g0_coef5},
                       {&w.g1_coef0, &w.g1_coef1, &w.g1_coef2, &w.g1_coef3, &w.g1_coef4, &w.g1_coef5}};
  for (uint32_t k = 0; k < 6; ++k) *sizes[k] = 1;
  for (uint32_t k = 0; k < w.ndims; ++k) {
    *sizes[k] = static_cast<uint32_t>(in(1, 4));
    *strides[k] = 4 * in(-6, 6);
    for (uint32_t g = 0; g < w.nguards; ++g) *gc[g][k] = in(-2, 2);
  }
  w.g0_offset = in(-3, 3);
  w.g0_extent = static_cast<uint32_t>(in(1, 6));
  w.g1_offset = in(-3, 3);
  w.g1_extent = static_cast<uint32_t>(in(1, 6));
  return w;
}

}  // namespace

TEST(SliceWalk, ASliceVisitsItsElementsOfTheWalkWithTheirRowsAndGuards) {
  std::mt19937 rng(7);
  uint64_t cuts = 0, refused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const spec::Walk w = random_walk(rng);
    const auto all = visit(w);
    for (uint64_t a = 0; a < all.size(); ++a)
      for (uint64_t n = 1; a + n <= all.size(); ++n) {
        const auto s = axcore::compiler::lower_detail::slice_walk(w, a, n);
        if (n <= w.d0_size - a % w.d0_size) { EXPECT_TRUE(s) << "trial " << trial << ": " << a << " + " << n; }
        if (!s) {
          ++refused;
          continue;
        }
        ++cuts;
        const std::vector<std::pair<int64_t, bool>> want(all.begin() + static_cast<std::ptrdiff_t>(a),
                                                         all.begin() + static_cast<std::ptrdiff_t>(a + n));
        ASSERT_EQ(visit(*s), want) << "trial " << trial << ": elements " << a << " + " << n;
      }
  }
  EXPECT_GT(cuts, 10000u);
  EXPECT_GT(refused, 0u);  // slices across runs exist, and are refused rather than cut wrong
}
