// Property tests over seeded random patterns against the brute-force walk.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <string>

#include "random_patterns.hpp"

namespace axcore::tap {
namespace {

using P = TensorAccessPattern;
using namespace testing;

constexpr int kCases = 1500;

int64_t row_major(const std::vector<int64_t>& d, const std::vector<int64_t>& sizes) {
  int64_t k = 0;
  for (std::size_t i = 0; i < d.size(); ++i) k = k * sizes[i] + d[i];
  return k;
}

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(TapProperty, WalkMatchesBruteForce) {
  Rng rng(1);
  for (int c = 0; c < kCases; ++c) {
    P p = c % 2 ? random_pattern(rng) : random_raw(rng, c % 4 == 0);
    ASSERT_EQ(p.walk(), brute_walk(p)) << p;
  }
}

TEST(TapProperty, CoalesceSplitMergeKeepTheWalk) {
  Rng rng(2);
  for (int c = 0; c < kCases; ++c) {
    P p = c % 3 ? random_pattern(rng) : random_raw(rng, c % 2 == 0);
    std::vector<int64_t> w = brute_walk(p);
    P co = p.coalesce();
    ASSERT_EQ(brute_walk(co), w) << p << " coalesced to " << co;
    ASSERT_LE(co.rank(), p.rank());
    ASSERT_EQ(co.coalesce().str(), co.str()) << "coalesce() is idempotent";
    ASSERT_EQ(brute_walk(p.coalesce_unpadded_pairs()), w) << p;
    if (p.padding()) continue;
    int dim = static_cast<int>(pick(rng, 0, p.rank() - 1));
    SymInt inner = divisors_pick(rng, {p.sizes()[static_cast<std::size_t>(dim)]})[0];
    P sp = p.split(dim, inner);
    ASSERT_EQ(brute_walk(sp), w) << p << " split " << dim << " by " << inner.str();
    ASSERT_EQ(brute_walk(sp.merge(dim)), w) << "split then merge";
    ASSERT_EQ(sp.merge(dim), p);
    for (int d = 0; d + 1 < p.rank(); ++d) {
      try {
        ASSERT_EQ(brute_walk(p.merge(d)), w) << p << " merge " << d;
      } catch (const ValueError&) {  // not contiguous: refused, never a different walk
      }
    }
  }
}

TEST(TapProperty, PermuteReordersAsDefined) {
  Rng rng(3);
  for (int c = 0; c < kCases; ++c) {
    P p = random_pattern(rng);
    std::vector<int> axes(static_cast<std::size_t>(p.rank()));
    std::iota(axes.begin(), axes.end(), 0);
    std::shuffle(axes.begin(), axes.end(), rng);
    P q = p.permute(axes);
    std::vector<int64_t> wp = brute_walk(p), wq = brute_walk(q);
    std::vector<int64_t> ps = ints(p.sizes()), qs = ints(q.sizes());
    for (int64_t k = 0; k < static_cast<int64_t>(wq.size()); ++k) {
      std::vector<int64_t> dq = digits(k, qs), dp(dq.size());
      for (std::size_t i = 0; i < axes.size(); ++i) dp[static_cast<std::size_t>(axes[i])] = dq[i];
      ASSERT_EQ(wq[static_cast<std::size_t>(k)], wp[static_cast<std::size_t>(row_major(dp, ps))]) << p << " permuted";
    }
    std::vector<int64_t> sp = wp, sq = wq;
    std::sort(sp.begin(), sp.end());
    std::sort(sq.begin(), sq.end());
    ASSERT_EQ(sp, sq) << "a permutation visits the same elements";
    std::vector<int> rev(axes.rbegin(), axes.rend());
    std::vector<int> t(static_cast<std::size_t>(p.rank()));
    std::iota(t.rbegin(), t.rend(), 0);
    ASSERT_EQ(p.T(), p.permute(t));
  }
}

TEST(TapProperty, TileIndexSliceRepeatAsDefined) {
  Rng rng(4);
  for (int c = 0; c < kCases; ++c) {
    P p = random_pattern(rng, 1024);
    if (p.rank() > 3) continue;
    std::vector<int64_t> wp = brute_walk(p), ps = ints(p.sizes());
    // tile: grid position g and in-tile position t are element g * tile + t of the walk.
    std::vector<SymInt> tdims = divisors_pick(rng, p.sizes());
    P tiled = p.tile(tdims);
    std::vector<int64_t> wt = brute_walk(tiled), ts = ints(tiled.sizes()), td = ints(tdims);
    std::size_t r = ps.size();
    for (int64_t k = 0; k < static_cast<int64_t>(wt.size()); ++k) {
      std::vector<int64_t> d = digits(k, ts), e(r);
      for (std::size_t i = 0; i < r; ++i) e[i] = d[i] * td[i] + d[r + i];
      ASSERT_EQ(wt[static_cast<std::size_t>(k)], wp[static_cast<std::size_t>(row_major(e, ps))]) << p << " tiled";
    }
    // slice: position j of the slice is position a + j * step.
    int64_t n = ps[0], a = pick(rng, 0, n - 1), b = pick(rng, a + 1, n), step = pick(rng, 1, 3);
    P sl = p[Slice{a, b, step}];
    std::vector<int64_t> ws = brute_walk(sl), ss = ints(sl.sizes());
    for (int64_t k = 0; k < static_cast<int64_t>(ws.size()); ++k) {
      std::vector<int64_t> d = digits(k, ss);
      d[0] = a + d[0] * step;
      ASSERT_EQ(ws[static_cast<std::size_t>(k)], wp[static_cast<std::size_t>(row_major(d, ps))]) << p << " sliced";
    }
    // integer index: the sub-walk at that position.
    if (p.rank() > 1) {
      int64_t i = pick(rng, 0, n - 1);
      std::vector<int64_t> wi = brute_walk(p[i]);
      std::size_t block = wp.size() / static_cast<std::size_t>(n);
      ASSERT_EQ(wi,
                std::vector<int64_t>(wp.begin() + static_cast<std::ptrdiff_t>(i * static_cast<int64_t>(block)),
                                     wp.begin() + static_cast<std::ptrdiff_t>((i + 1) * static_cast<int64_t>(block))));
    }
    // repeat: the whole walk again.
    int64_t times = pick(rng, 1, 3);
    std::vector<int64_t> expect;
    for (int64_t t = 0; t < times; ++t) expect.insert(expect.end(), wp.begin(), wp.end());
    ASSERT_EQ(brute_walk(p.repeat(times)), expect);
    // partition(k)[i] is the i-th of k equal chunks along the dimension.
    SymInt parts = divisors_pick(rng, {SymInt(n)})[0];
    P part = p.partition(parts);
    ASSERT_EQ(brute_walk(part), brute_walk(p.split(0, floordiv(n, parts)))) << p << " partition";
  }
}

// range(*slice(start, stop, step).indices(n)) for step > 0, written out from Python's rules
// (CPython's PySlice_AdjustIndices), independently of the library: a missing bound is the
// dimension's start or end, a negative one counts from the end, then each clips to [0, n].
std::vector<int64_t> python_slice(int64_t n, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
  auto adjust = [n](std::optional<int64_t> bound, int64_t missing) {
    if (!bound) return missing;
    int64_t v = *bound;
    if (v < 0) {
      v += n;
      if (v < 0) v = 0;
    } else if (v >= n) {
      v = n;
    }
    return v;
  };
  std::vector<int64_t> out;
  for (int64_t k = adjust(start, 0); k < adjust(stop, n); k += step) out.push_back(k);
  return out;
}

std::optional<SymInt> sym(std::optional<int64_t> v) {
  if (v) return SymInt(*v);
  return std::nullopt;
}

// The walk of `p` with dimension `dim` restricted to the positions `along` (its digit k becomes
// along[k]), or dropped (its digit fixed to along[0]) when `drop`.
std::vector<int64_t> restricted_walk(const std::vector<int64_t>& wp, std::vector<int64_t> ps, std::size_t dim,
                                     const std::vector<int64_t>& along, bool drop) {
  std::vector<int64_t> rs = ps;
  rs[dim] = drop ? 1 : static_cast<int64_t>(along.size());
  int64_t total = 1;
  for (int64_t x : rs) total *= x;
  std::vector<int64_t> out;
  for (int64_t k = 0; k < total; ++k) {
    std::vector<int64_t> d = digits(k, rs);
    d[dim] = along[static_cast<std::size_t>(d[dim])];
    out.push_back(wp[static_cast<std::size_t>(row_major(d, ps))]);
  }
  return out;
}

// NumPy indexing of a random dimension of a random pattern: for n, start, stop in [-2n, 2n]
// (sometimes missing) and a step in [1, 2n], the walk is the brute-force walk of the positions
// Python's slice gives, or the empty-slice error; an integer index in [-2n, 2n] selects position
// i mod n when -n <= i < n, else the out-of-bounds error.
TEST(TapProperty, IndexingFollowsPythonSlices) {
  Rng rng(8);
  int sliced = 0, clipped = 0, empty = 0, indexed = 0, negative = 0, out_of_range = 0;
  for (int c = 0; c < kCases; ++c) {
    P p = random_pattern(rng, 512);
    std::vector<int64_t> wp = brute_walk(p), ps = ints(p.sizes());
    auto dim = static_cast<std::size_t>(pick(rng, 0, p.rank() - 1));
    int64_t n = ps[dim];
    auto bound = [&]() -> std::optional<int64_t> {
      if (pick(rng, 0, 5) == 0) return std::nullopt;
      return pick(rng, -2 * n, 2 * n);
    };
    std::optional<int64_t> start = bound(), stop = bound();
    int64_t step = pick(rng, 1, 2 * n);
    std::vector<Index> idx(dim, Index(Slice{}));
    idx.emplace_back(Slice{sym(start), sym(stop), pick(rng, 0, 3) || step != 1 ? sym(step) : std::nullopt});
    std::vector<int64_t> along = python_slice(n, start, stop, step);
    std::string where = p.str() + " axis " + std::to_string(dim) + " slice " + (start ? std::to_string(*start) : "") +
                        ":" + (stop ? std::to_string(*stop) : "") + ":" + std::to_string(step);
    if (along.empty()) {
      ++empty;
      std::string message = "slice " + std::to_string(start.value_or(0)) + ":" + std::to_string(stop.value_or(n)) +
                            " of axis " + std::to_string(dim) + " (size " + std::to_string(n) + ") is empty";
      try {
        P q = p.at(idx);
        ADD_FAILURE() << where << " should be empty, got " << q;
      } catch (const ValueError& e) { ASSERT_EQ(e.what(), message) << where; }
    } else {
      ++sliced;
      bool clips = (start && (*start < -n || *start > n)) || (stop && (*stop < -n || *stop > n));
      clipped += clips;
      P q = p.at(idx);
      ASSERT_EQ(brute_walk(q), restricted_walk(wp, ps, dim, along, false)) << where << " gave " << q;
      ASSERT_EQ(q.sizes()[dim].value(), static_cast<int64_t>(along.size())) << where;
    }
    int64_t i = pick(rng, -2 * n, 2 * n);
    idx.back() = SymInt(i);
    if (i < -n || i >= n) {
      ++out_of_range;
      std::string message = "index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(dim) +
                            " with size " + std::to_string(n);
      try {
        P q = p.at(idx);
        ADD_FAILURE() << p << " index " << i << " of axis " << dim << " should be refused, got " << q;
      } catch (const ValueError& e) { ASSERT_EQ(e.what(), message); }
    } else {
      ++indexed;
      negative += i < 0;
      ASSERT_EQ(brute_walk(p.at(idx)), restricted_walk(wp, ps, dim, {i < 0 ? i + n : i}, true))
          << p << " index " << i << " of axis " << dim;
    }
  }
  // Every rule is drawn often.
  EXPECT_GT(sliced, kCases / 4);
  EXPECT_GT(clipped, kCases / 10);
  EXPECT_GT(empty, kCases / 10);
  EXPECT_GT(negative, kCases / 10);
  EXPECT_GT(out_of_range, kCases / 10);
  EXPECT_GT(indexed, kCases / 4);
}

// A bijective walk: a random reordering of a whole tensor.
P random_bijection(Rng& rng) {
  std::vector<SymInt> dims;
  static const int64_t kDims[] = {1, 2, 3, 4, 6, 8};
  for (int64_t r = pick(rng, 1, 3); r > 0; --r) dims.emplace_back(kDims[pick(rng, 0, 5)]);
  P p = P::full(dims);
  if (pick(rng, 0, 1)) p = p.tile(divisors_pick(rng, dims));
  for (int s = static_cast<int>(pick(rng, 0, 2)); s > 0; --s) {
    int dim = static_cast<int>(pick(rng, 0, p.rank() - 1));
    p = p.split(dim, divisors_pick(rng, {p.sizes()[static_cast<std::size_t>(dim)]})[0]);
  }
  std::vector<int> axes(static_cast<std::size_t>(p.rank()));
  std::iota(axes.begin(), axes.end(), 0);
  std::shuffle(axes.begin(), axes.end(), rng);
  return p.permute(axes);
}

TEST(TapProperty, InverseGatherScatterIdentities) {
  Rng rng(5);
  for (int c = 0; c < kCases; ++c) {
    P p = random_bijection(rng);
    int64_t numel = static_cast<int64_t>(ints(p.tensor_dims()).size() ? [&] { int64_t n = 1; for (auto d : ints(p.tensor_dims())) n *= d; return n; }() : 0);
    std::vector<int64_t> x = iota(numel);
    for (auto& v : x) v = v * 7 + 3;
    ASSERT_EQ(p.inverse().gather(p.gather(x)), x) << p;
    ASSERT_EQ(p.scatter(p.gather(x)), x) << p << " scatter(gather(x))";
    ASSERT_EQ(p.gather(p.scatter(x)), x) << p << " gather(scatter(s))";
    ASSERT_EQ(p.inverse().inverse(), p.coalesce()) << p;
  }
}

TEST(TapProperty, GatherScatterOfPartialWalks) {
  Rng rng(6);
  int injective = 0;
  for (int c = 0; c < kCases; ++c) {
    P p = random_pattern(rng, 512);
    std::vector<int64_t> w = brute_walk(p);
    int64_t numel = static_cast<int64_t>(ints(p.tensor_dims()).size() ? [&] { int64_t n = 1; for (auto d : ints(p.tensor_dims())) n *= d; return n; }() : 0);
    std::vector<int64_t> x = iota(numel);
    ASSERT_EQ(p.gather(x), w) << "gather of arange is the walk";
    std::vector<int64_t> sorted = w;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) continue;
    ++injective;
    std::vector<int64_t> s = iota(static_cast<int64_t>(w.size()));
    std::vector<int64_t> out = p.scatter(s, std::vector<int64_t>(static_cast<std::size_t>(numel), -5));
    ASSERT_EQ(p.gather(out), s) << p;
    Accesses a = p.accesses();
    for (int64_t e = 0; e < numel; ++e) {
      auto it = std::find(w.begin(), w.end(), e);
      int64_t expect = it == w.end() ? -1 : it - w.begin();
      ASSERT_EQ(a.order.data[static_cast<std::size_t>(e)], expect);
      ASSERT_EQ(a.count.data[static_cast<std::size_t>(e)], it == w.end() ? 0 : 1);
      ASSERT_EQ(out[static_cast<std::size_t>(e)], it == w.end() ? -5 : expect);
    }
  }
  EXPECT_GT(injective, kCases / 4);
}

TEST(TapProperty, EqualityIsEqualWalks) {
  Rng rng(7);
  std::vector<P> pool;
  for (int c = 0; c < 400; ++c) pool.push_back(random_raw(rng, c % 3 == 0));
  for (int c = 0; c < 200; ++c) {  // equal walks written differently
    P p = random_raw(rng, false);
    pool.push_back(p.coalesce());
    if (p.rank() > 1) {
      try {
        pool.push_back(p.merge(0));
      } catch (const ValueError&) {}
    }
    pool.push_back(p.split(0, 1));
  }
  int equal_pairs = 0, distinct_walk_pairs = 0;
  std::map<std::vector<int64_t>, std::size_t> hashes;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    std::vector<int64_t> wi = brute_walk(pool[i]);
    for (std::size_t j = i; j < pool.size(); ++j) {
      bool same_walk = wi == brute_walk(pool[j]);
      ASSERT_EQ(pool[i] == pool[j], same_walk) << pool[i] << " vs " << pool[j];
      ASSERT_EQ(pool[i].compare_access_orders(pool[j]), same_walk);
      if (same_walk) {
        ASSERT_EQ(pool[i].hash(), pool[j].hash());
        ++equal_pairs;
      } else {
        ++distinct_walk_pairs;
      }
    }
  }
  EXPECT_GT(equal_pairs - static_cast<int>(pool.size()), 200) << "the pool has non-trivial equal pairs";
  EXPECT_GT(distinct_walk_pairs, 1000);
}

}  // namespace
}  // namespace axcore::tap
