// Seeded random patterns and a brute-force walk, for the property tests.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "axcore/tap/pattern.hpp"

namespace axcore::tap::testing {

using Rng = std::mt19937_64;

inline int64_t pick(Rng& rng, int64_t lo, int64_t hi) {  // inclusive
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

inline std::vector<int64_t> ints(const std::vector<SymInt>& v) {
  std::vector<int64_t> out;
  for (const auto& x : v) out.push_back(x.value());
  return out;
}

// Mixed-radix decomposition of k over `sizes` (outermost first).
inline std::vector<int64_t> digits(int64_t k, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> d(sizes.size());
  for (std::size_t i = sizes.size(); i-- > 0;) {
    d[i] = k % sizes[i];
    k /= sizes[i];
  }
  return d;
}

// The walk by its definition, one stream position at a time.
inline std::vector<int64_t> brute_walk(const TensorAccessPattern& p) {
  std::vector<int64_t> sizes = ints(p.sizes()), strides = ints(p.strides());
  std::vector<PadPair> pads = p.padding().value_or(std::vector<PadPair>(sizes.size(), {0, 0}));
  std::vector<int64_t> padded;
  int64_t total = 1;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    padded.push_back(sizes[i] + pads[i].first + pads[i].second);
    total *= padded.back();
  }
  std::vector<int64_t> out;
  for (int64_t k = 0; k < total; ++k) {
    std::vector<int64_t> d = digits(k, padded);
    int64_t idx = p.offset().value();
    for (std::size_t i = 0; i < d.size() && idx >= 0; ++i) {
      int64_t j = d[i] - pads[i].first;
      idx = (j < 0 || j >= sizes[i]) ? -1 : idx + j * strides[i];
    }
    out.push_back(idx);
  }
  return out;
}

inline std::vector<SymInt> divisors_pick(Rng& rng, const std::vector<SymInt>& sizes) {
  std::vector<SymInt> out;
  for (const auto& s : sizes) {
    std::vector<int64_t> divs;
    for (int64_t d = 1; d <= s.value(); ++d)
      if (s.value() % d == 0) divs.push_back(d);
    out.emplace_back(divs[static_cast<std::size_t>(pick(rng, 0, static_cast<int64_t>(divs.size()) - 1))]);
  }
  return out;
}

// A pattern built from full() with a few random operations; every result walks at most
// `max_walk` elements.
inline TensorAccessPattern random_pattern(Rng& rng, int64_t max_walk = 4096) {
  static const int64_t kDims[] = {1, 2, 3, 4, 6, 8, 12};
  std::vector<SymInt> dims;
  for (int64_t r = pick(rng, 1, 3); r > 0; --r) dims.emplace_back(kDims[pick(rng, 0, 6)]);
  TensorAccessPattern p = TensorAccessPattern::full(dims);
  for (int64_t ops = pick(rng, 0, 4); ops > 0; --ops) {
    int rank = p.rank();
    int dim = static_cast<int>(pick(rng, 0, rank - 1));
    int64_t n = p.sizes()[static_cast<std::size_t>(dim)].value();
    std::optional<TensorAccessPattern> next;
    switch (pick(rng, 0, 7)) {
      case 0:
        if (rank <= 3) next = p.tile(divisors_pick(rng, p.sizes()));
        break;
      case 1:
        if (rank > 1) next = p[pick(rng, 0, p.sizes()[0].value() - 1)];
        break;
      case 2: {
        int64_t a = pick(rng, 0, n - 1), b = pick(rng, a + 1, n), c = pick(rng, 1, 3);
        std::vector<Index> idx;
        for (int i = 0; i < dim; ++i) idx.emplace_back(std::in_place_type<Slice>);
        idx.emplace_back(std::in_place_type<Slice>, SymInt(a), SymInt(b), SymInt(c));
        next = p.at(idx);
        break;
      }
      case 3: {
        std::vector<int> axes(static_cast<std::size_t>(rank));
        for (int i = 0; i < rank; ++i) axes[static_cast<std::size_t>(i)] = i;
        std::shuffle(axes.begin(), axes.end(), rng);
        next = p.permute(axes);
        break;
      }
      case 4: next = p.split(dim, divisors_pick(rng, {n})[0]); break;
      case 5: next = p.repeat(pick(rng, 1, 3)); break;
      case 6: next = p.partition(divisors_pick(rng, {n})[0], dim); break;
      default: next = p.T();
    }
    if (next && next->numel().value() <= max_walk && next->rank() <= 8) p = *next;
  }
  return p;
}

// A pattern given directly with small random numbers (may leave its tensor, may repeat).
inline TensorAccessPattern random_raw(Rng& rng, bool padded) {
  static const int64_t kStrides[] = {0, 1, 2, 3, 4, 6};
  std::vector<SymInt> sizes, strides;
  for (int64_t r = pick(rng, 1, 3); r > 0; --r) {
    sizes.emplace_back(pick(rng, 1, 3));
    strides.emplace_back(kStrides[pick(rng, 0, 5)]);
  }
  TensorAccessPattern p(std::vector<SymInt>{64}, pick(rng, 0, 1), sizes, strides);
  if (!padded) return p;
  std::vector<PadPair> pads;
  for (std::size_t i = 0; i < sizes.size(); ++i) pads.emplace_back(pick(rng, 0, 2) / 2, pick(rng, 0, 3) / 3);
  return p.pad(pads);
}

}  // namespace axcore::tap::testing
