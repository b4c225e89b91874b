// The seed's taplib examples, printed form and values, and every error message of the algebra.
#include <gtest/gtest.h>

#include <numeric>

#include "axcore/tap/pattern.hpp"
#include "expect_error.hpp"

namespace axcore::tap {
namespace {

using P = TensorAccessPattern;

std::string S(const P& p) { return p.str(); }

using testing::expect_error;

TEST(TapSeed, TileExamples) {
  P tiles = P::full({16, 16}).tile({4, 4});
  EXPECT_EQ(S(tiles), "TensorAccessPattern([16, 16], offset=0, sizes=[4, 4, 4, 4], strides=[64, 4, 16, 1])");
  EXPECT_EQ(S(tiles.at({1, 2})), "TensorAccessPattern([16, 16], offset=72, sizes=[4, 4], strides=[16, 1])");
  EXPECT_EQ(S(tiles.at({Slice{{}, 2, {}}, Slice{{}, 2, {}}})),
            "TensorAccessPattern([16, 16], offset=0, sizes=[2, 2, 4, 4], strides=[64, 4, 16, 1])");
  EXPECT_EQ(S(P::full({1024}).partition(4)[2]), "TensorAccessPattern([1024], offset=512, sizes=[256], strides=[1])");
}

TEST(TapSeed, TileTableOperations) {
  P tiles = P::full({16, 16}).tile({4, 4});
  // A row of tiles, every 2nd tile of a column range, column-major tile order.
  EXPECT_EQ(S(tiles[1]), "TensorAccessPattern([16, 16], offset=64, sizes=[4, 4, 4], strides=[4, 16, 1])");
  EXPECT_EQ(S(tiles.at({Slice{1, 3, {}}, Slice{1, {}, 2}})),
            "TensorAccessPattern([16, 16], offset=68, sizes=[2, 2, 4, 4], strides=[64, 8, 16, 1])");
  EXPECT_EQ(S(tiles.permute({1, 0, 2, 3})),
            "TensorAccessPattern([16, 16], offset=0, sizes=[4, 4, 4, 4], strides=[4, 64, 16, 1])");
  EXPECT_EQ(S(tiles.permute({0, 1, 3, 2})),
            "TensorAccessPattern([16, 16], offset=0, sizes=[4, 4, 4, 4], strides=[64, 4, 1, 16])");
  EXPECT_EQ(S(tiles[1].repeat(3)),
            "TensorAccessPattern([16, 16], offset=64, sizes=[3, 4, 4, 4], strides=[0, 4, 16, 1])");
  // Hierarchical tiling: grid kept, each tile cut into 2 x 2 sub-tiles.
  P sub = tiles.tile({1, 1, 2, 2});
  EXPECT_EQ(sub.rank(), 8);
  EXPECT_EQ(S(sub.coalesce()),
            "TensorAccessPattern([16, 16], offset=0, sizes=[4, 4, 2, 2, 2, 2], strides=[64, 4, 32, 2, 16, 1])");
  EXPECT_EQ(S(tiles.at({1, 2}).tile({2, 2})),
            "TensorAccessPattern([16, 16], offset=72, sizes=[2, 2, 2, 2], strides=[32, 2, 16, 1])");
}

TEST(TapSeed, HierarchicalTilingAsWritten) {
  // The seed's two spellings, on its 16 x 16 tensor of 4 x 4 tiles: tiles.tile((1, 1, 4, 4))
  // keeps the grid and cuts each tile into 4 x 4 sub-tiles (here one per tile, so the walk is
  // the tiles' walk), tiles[i, j].tile((4, 4)) does the same for one tile.
  P tiles = P::full({16, 16}).tile({4, 4});
  P sub = tiles.tile({1, 1, 4, 4});
  EXPECT_EQ(
      S(sub),
      "TensorAccessPattern([16, 16], offset=0, sizes=[4, 4, 1, 1, 1, 1, 4, 4], strides=[64, 4, 64, 4, 64, 4, 16, 1])");
  EXPECT_EQ(sub, tiles);
  EXPECT_TRUE(sub.compare_access_orders(tiles));
  P one = tiles.at({1, 2}).tile({4, 4});
  EXPECT_EQ(S(one), "TensorAccessPattern([16, 16], offset=72, sizes=[1, 1, 4, 4], strides=[0, 0, 16, 1])");
  EXPECT_EQ(one, tiles.at({1, 2}));
  // With 8 x 8 tiles the sub-tiles are real: tile by tile, sub-tile by sub-tile inside each.
  P big = P::full({16, 16}).tile({8, 8});
  P nested = big.tile({1, 1, 4, 4});
  EXPECT_EQ(S(nested.coalesce()),
            "TensorAccessPattern([16, 16], offset=0, sizes=[2, 2, 2, 2, 4, 4], strides=[128, 8, 64, 4, 16, 1])");
  EXPECT_EQ(nested.at({1, 0}), big.at({1, 0}).tile({4, 4}));
  std::vector<int64_t> w = nested.walk();
  EXPECT_EQ(std::vector<int64_t>(w.begin(), w.begin() + 5), (std::vector<int64_t>{0, 1, 2, 3, 16}));
  EXPECT_EQ(w[16], 4);     // the second sub-tile of the first tile
  EXPECT_EQ(w[64], 8);     // the second tile
  EXPECT_EQ(w[128], 128);  // the second row of tiles
}

TEST(TapSeed, InverseOfTiling) {
  // full((m, n)).tile((r, t)).inverse(): sizes [m//r, r, n//t, t], strides [r*n, t, r*t, 1].
  P inv = P::full({8, 12}).tile({2, 3}).inverse();
  EXPECT_EQ(S(inv), "TensorAccessPattern([8, 12], offset=0, sizes=[4, 2, 4, 3], strides=[24, 3, 6, 1])");
  std::vector<int> x(96);
  std::iota(x.begin(), x.end(), 0);
  P p = P::full({8, 12}).tile({2, 3});
  EXPECT_EQ(inv.gather(p.gather(x)), x);
}

TEST(TapSeed, HostSideTransposesCheck) {
  constexpr int64_t M = 64, K = 64, m = 16, n = 16, s = 8;
  std::vector<int64_t> host(M * K);
  std::iota(host.begin(), host.end(), 0);
  P shim = P::full({M, K}).tile({m, n});
  P memtile_in = P::full({n, m}).tile({s, s}).permute({1, 2, 0, 3});
  std::vector<int64_t> stream = shim.gather(host);
  ASSERT_EQ(stream.size(), static_cast<std::size_t>(M * K));
  for (int64_t t = 0; t < M * K / (m * n); ++t) {
    int64_t i = t / (K / n), j = t % (K / n);
    std::vector<int64_t> tile(stream.begin() + t * m * n, stream.begin() + (t + 1) * m * n);
    std::vector<int64_t> obj = memtile_in.scatter(tile);  // the memtile's (n, m) object
    // blocks = obj.reshape(n//s, s, m//s, s); kernel_out = blocks.transpose(0, 3, 2, 1)
    for (int64_t a = 0; a < n / s; ++a)
      for (int64_t b = 0; b < s; ++b)
        for (int64_t c = 0; c < m / s; ++c)
          for (int64_t d = 0; d < s; ++d) {
            int64_t kernel_out = obj[static_cast<std::size_t>((a * s + d) * m + c * s + b)];
            int64_t row = a * s + b, col = c * s + d;
            ASSERT_EQ(kernel_out, host[static_cast<std::size_t>((i * m + col) * K + j * n + row)])
                << "tile " << t << " at (" << row << ", " << col << ")";
          }
  }
}

TEST(TapSeed, Properties) {
  P p = P::full({16, 16}).tile({4, 4}).at({1, 2});
  ASSERT_EQ(p.transformation_dims().size(), 2u);
  EXPECT_EQ(p.transformation_dims()[0].first.value(), 4);
  EXPECT_EQ(p.transformation_dims()[0].second.value(), 16);
  EXPECT_EQ(p.numel().value(), 16);
  EXPECT_EQ(p.rank(), 2);
  EXPECT_FALSE(p.padding().has_value());
  EXPECT_FALSE(p.is_symbolic());
  P padded = p.pad(std::vector<PadPair>{{1, 1}, {0, 2}});
  EXPECT_EQ(show(padded.padded_sizes()), "[6, 6]");
  EXPECT_EQ(padded.numel().value(), 16);
  EXPECT_EQ(S(padded),
            "TensorAccessPattern([16, 16], offset=72, sizes=[4, 4], strides=[16, 1], padding=[(1, 1), (0, 2)])");
  EXPECT_EQ(S(P::full({4, 4}).T()), "TensorAccessPattern([4, 4], offset=0, sizes=[4, 4], strides=[1, 4])");
}

TEST(TapSeed, PaddedGather) {
  P p = P::full({2, 3}).pad(std::vector<PadPair>{{1, 0}, {0, 1}});
  std::vector<int> x{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(p.gather(x, -1), (std::vector<int>{-1, -1, -1, -1, 1, 2, 3, -1, 4, 5, 6, -1}));
  EXPECT_EQ(p.walk().size(), 12u);
}

TEST(TapSeed, Accesses) {
  P p = P::full({4, 4}).tile({2, 2}).at({Slice{}, 1});
  Accesses a = p.accesses();
  EXPECT_EQ(a.order.to_list(), "[[-1, -1, 0, 1], [-1, -1, 2, 3], [-1, -1, 4, 5], [-1, -1, 6, 7]]");
  EXPECT_EQ(a.count.to_list(), "[[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 1, 1]]");
  P r = P::full({2, 2}).repeat(3);
  EXPECT_EQ(r.access_order().to_list(), "[[8, 9], [10, 11]]");
  EXPECT_EQ(r.access_count().to_list(), "[[3, 3], [3, 3]]");
}

TEST(TapSeed, CompareAndEquality) {
  P a = P::full({4, 6});
  P b(std::vector<SymInt>{4, 6}, 0, {2, 2, 6}, {12, 6, 1});
  EXPECT_EQ(a, b);
  EXPECT_TRUE(a.compare_access_orders(b));
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_NE(a, a.T());
  EXPECT_FALSE(a.compare_access_orders(a.T()));
  EXPECT_NE(P::full({4, 6}), P::full({6, 4}));  // same walk, different tensors
  EXPECT_EQ(S(b.coalesce()), "TensorAccessPattern([4, 6], offset=0, sizes=[24], strides=[1])");
  // Leading unit dimensions lose their strides.
  EXPECT_EQ(S(P(std::vector<SymInt>{8}, 0, {1, 8}, {5, 1})),
            "TensorAccessPattern([8], offset=0, sizes=[1, 8], strides=[0, 1])");
}

TEST(TapErrors, Construction) {
  using V = std::vector<SymInt>;
  expect_error<ValueError>([] { P(V{}, 0, {1}, {1}); }, "Number of tensor dimensions must be >= 1 (dimensions=[])");
  expect_error<ValueError>([] { P(V{4, 0}, 0, {1}, {1}); }, "Each tensor dimension must be >= 1 (dimensions=[4, 0])");
  expect_error<ValueError>([] { P(V{4}, -1, {1}, {1}); }, "Offset must be >= 0 (offset=-1)");
  expect_error<ValueError>([] { P(V{4}, 4, {1}, {1}); }, "Offset too large: 4. Max value allowed for tensor: 4");
  expect_error<ValueError>([] { P(V{4}, 0, {}, {}); }, "len(sizes) must be >0");
  expect_error<ValueError>([] { P(V{4}, 0, {1, 2}, {1}); }, "len(sizes) (2) != len(strides) (1)");
  expect_error<ValueError>([] { P(V{4}, 0, {2, 0}, {1, 1}); }, "All sizes must be >= 1, but got [2, 0]");
  expect_error<ValueError>([] { P(V{4}, 0, {2, 2}, {1, -1}); }, "All strides must be >= 0, but got [1, -1]");
}

TEST(TapErrors, Operations) {
  P p = P::full({16, 16});
  expect_error<ValueError>([&] { p.permute({0, 0}); }, "axes must be a permutation of range(2), got (0, 0)");
  expect_error<ValueError>([&] { p.permute({0}); }, "axes must be a permutation of range(2), got (0,)");
  expect_error<ValueError>([&] { p.split(1, 3); }, "dimension 1 of size 16 is not divisible by 3");
  expect_error<ValueError>([&] { p.split(2, 2); }, "dimension 2 is out of range for a pattern of rank 2");
  expect_error<ValueError>([&] { p.merge(1); }, "dimension 1 has no successor to merge with");
  expect_error<ValueError>([&] { p.T().merge(0); },
                           "dimensions 0 and 1 are not contiguous (stride 1 != 16 * 16); cannot merge");
  expect_error<ValueError>([&] { p.repeat(0); }, "repeat count must be >= 1, got 0");
  expect_error<ValueError>([&] { p.tile({4}); }, "tile_dims has 1 entries for a pattern of rank 2");
  expect_error<ValueError>([&] { p.tile({4, 0}); }, "tile_dims[1] must be >= 1");
  expect_error<ValueError>([&] { p.tile({4, 5}); }, "dimension 1 of size 16 is not divisible by tile size 5");
  expect_error<ValueError>([&] { p.partition(0); }, "parts must be >= 1");
  expect_error<ValueError>([&] { p.partition(3, 1); }, "dimension 1 of size 16 is not divisible into 3 parts");
  expect_error<ValueError>(
      [&] {
        p.at({1, 2, 3});
      },
      "too many indices for pattern: pattern is 2-dimensional, but 3 were indexed");
  expect_error<ValueError>([&] { p[16]; }, "index 16 is out of bounds for axis 0 with size 16");
  expect_error<ValueError>([&] { p.at({0, -17}); }, "index -17 is out of bounds for axis 1 with size 16");
  expect_error<ValueError>([&] { p[Slice{{}, {}, 0}]; }, "slice step cannot be zero");
  expect_error<ValueError>([&] { p[Slice{{}, {}, -1}]; }, "slice step must be positive, got -1");
  expect_error<ValueError>([&] { p[Slice{4, 4, {}}]; }, "slice 4:4 of axis 0 (size 16) is empty");
  expect_error<TypeError>([&] { p[Slice{{}, {}, SymInt::param("k")}]; }, "slice steps must be compile-time ints");
}

// NumPy's rules: an integer index in [-n, n), negative counting from the end; slice bounds
// wrapped by +n, then clipped to [0, n] (Python's slice.indices); an empty result is an error.
TEST(TapIndexing, NegativeIndicesCountFromTheEnd) {
  P p = P::full({16, 16});
  P tiles = p.tile({4, 4});
  EXPECT_EQ(S(tiles[-1]), "TensorAccessPattern([16, 16], offset=192, sizes=[4, 4, 4], strides=[4, 16, 1])");
  EXPECT_EQ(tiles[-1], tiles[3]);
  EXPECT_EQ(S(tiles.at({-1, -2})), S(tiles.at({3, 2})));
  EXPECT_EQ(S(p.at({0, -1})), "TensorAccessPattern([16, 16], offset=15, sizes=[1], strides=[1])");
  EXPECT_EQ(S(p[-16]), S(p[0]));  // -n is the first
  EXPECT_EQ(S(p.at({Slice{}, -3})), S(p.at({Slice{}, 13})));
  expect_error<ValueError>([&] { p[-17]; }, "index -17 is out of bounds for axis 0 with size 16");
  expect_error<ValueError>([&] { p[16]; }, "index 16 is out of bounds for axis 0 with size 16");
  expect_error<ValueError>([&] { tiles.at({0, 0, 0, -5}); }, "index -5 is out of bounds for axis 3 with size 4");
  expect_error<ValueError>([&] { tiles.at({0, 4}); }, "index 4 is out of bounds for axis 1 with size 4");
}

TEST(TapIndexing, SliceBoundsWrapAndClip) {
  P p = P::full({16});
  EXPECT_EQ(S(p[Slice{-4, {}}]), "TensorAccessPattern([16], offset=12, sizes=[4], strides=[1])");
  EXPECT_EQ(S(p[Slice{{}, -1}]), "TensorAccessPattern([16], offset=0, sizes=[15], strides=[1])");
  EXPECT_EQ(S(p[Slice{-4, -1}]), S(p[Slice{12, 15}]));
  EXPECT_EQ(S(p[Slice{-16, -15}]), S(p[Slice{0, 1}]));
  EXPECT_EQ(S(p[Slice{1, -1, 4}]), "TensorAccessPattern([16], offset=1, sizes=[4], strides=[4])");  // 1 5 9 13
  // Clipping: a stop past the end is the end, a start before the start is the start.
  EXPECT_EQ(S(p[Slice{{}, 20}]), S(p));
  EXPECT_EQ(show(p[Slice{{}, 20}].sizes()), "[16]");
  EXPECT_EQ(S(p[Slice{-20, 4}]), S(p[Slice{0, 4}]));
  EXPECT_EQ(S(p[Slice{-100, 100, 3}]), S(p[Slice{0, 16, 3}]));
  EXPECT_EQ(S(p[Slice{15, 99}]), S(p[Slice{15, 16}]));
  P grid = P::full({8, 8});
  EXPECT_EQ(S(grid.at({Slice{-2, {}}, Slice{{}, 100, 2}})),
            "TensorAccessPattern([8, 8], offset=48, sizes=[2, 4], strides=[8, 2])");
  // Empty after wrapping and clipping: the bounds as written in the message.
  expect_error<ValueError>([&] { p[Slice{20, {}}]; }, "slice 20:16 of axis 0 (size 16) is empty");
  expect_error<ValueError>([&] { p[Slice{16, 30}]; }, "slice 16:30 of axis 0 (size 16) is empty");
  expect_error<ValueError>([&] { p[Slice{-4, -8}]; }, "slice -4:-8 of axis 0 (size 16) is empty");
  expect_error<ValueError>([&] { p[Slice{{}, -20}]; }, "slice 0:-20 of axis 0 (size 16) is empty");
  expect_error<ValueError>([&] { p[Slice{{}, -16}]; }, "slice 0:-16 of axis 0 (size 16) is empty");
  expect_error<ValueError>([&] { p[Slice{5, -11}]; }, "slice 5:-11 of axis 0 (size 16) is empty");
  expect_error<ValueError>([&] { grid.at({0, Slice{9, {}}}); }, "slice 9:8 of axis 1 (size 8) is empty");
  // Steps stay positive.
  expect_error<ValueError>([&] { p[Slice{-1, {}, -1}]; }, "slice step must be positive, got -1");
  expect_error<ValueError>([&] { p[Slice{{}, 20, 0}]; }, "slice step cannot be zero");
}

TEST(TapErrors, PaddingAndStreams) {
  P p = P::full({4, 4});
  P padded = p.pad(std::vector<PadPair>{{1, 0}, {0, 0}});
  expect_error<ValueError>([&] { padded.pad(std::vector<PadPair>{{1, 0}, {0, 0}}); }, "this pattern is already padded");
  expect_error<ValueError>(
      [&] {
        p.pad(std::vector<std::vector<SymInt>>{{1}, {0, 0}});
      },
      "each padding entry is a (before, after) pair");
  expect_error<TypeError>(
      [&] {
        p.pad(std::vector<std::vector<SymInt>>{{SymInt::param("n"), 0}, {0, 0}});
      },
      "padding counts must be compile-time ints");
  expect_error<ValueError>(
      [&] {
        p.pad(std::vector<PadPair>{{-1, 0}, {0, 0}});
      },
      "padding counts must be >= 0, got (-1, 0)");
  expect_error<ValueError>(
      [&] {
        p.pad(std::vector<PadPair>{{1, 0}});
      },
      "padding has 1 entries for a pattern of rank 2");
  EXPECT_EQ(p.pad(std::vector<PadPair>{{0, 0}, {0, 0}}).padding(), std::nullopt);
  expect_error<ValueError>([&] { padded.T(); }, "Padding is applied last: a padded pattern cannot be reshaped further");
  expect_error<ValueError>([&] { padded.inverse(); }, "a padded pattern has no inverse");
  expect_error<ValueError>([&] { p[1].inverse(); },
                           "TensorAccessPattern([4, 4], offset=4, sizes=[4], strides=[1]) does not visit every element "
                           "exactly once, so it has no inverse");
  std::vector<int> x(16, 1);
  expect_error<ValueError>([&] { padded.scatter(x); }, "only a to_stream pattern can pad");
  expect_error<ValueError>([&] { p[1].scatter(x); }, "stream has 16 elements for a walk of 4");
  expect_error<ValueError>([&] { p.scatter(x, std::vector<int>(15)); },
                           "out has 15 elements, but the pattern's tensor [4, 4] has 16");
  expect_error<ValueError>([&] { p.gather(std::vector<int>(3)); },
                           "tensor has 3 elements, but the pattern's tensor [4, 4] has 16");
  P leaving(std::vector<SymInt>{4, 4}, 8, {4, 4}, {4, 1});
  expect_error<ValueError>([&] { leaving.gather(x); },
                           "TensorAccessPattern([4, 4], offset=8, sizes=[4, 4], strides=[4, 1]) leaves its tensor: it "
                           "reaches element 23 of a tensor of 16 elements");
}

TEST(TapScatter, KeepsUnvisited) {
  P p = P::full({2, 4})[Slice{{}, {}, {}}];
  P col = P::full({2, 4}).at({Slice{}, 1});
  std::vector<int> out = col.scatter(std::vector<int>{7, 8}, std::vector<int>(8, -1));
  EXPECT_EQ(out, (std::vector<int>{-1, 7, -1, -1, -1, 8, -1, -1}));
  EXPECT_EQ(p, P::full({2, 4}));
}

}  // namespace
}  // namespace axcore::tap
