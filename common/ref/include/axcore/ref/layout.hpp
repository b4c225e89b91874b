// The PWORD layout helper: packing one axis of a logical array into 64-lane PWORDs.
//
// pack_pwords(a, axis, pad): the axis of extent n becomes ceil(n / 64) blocks and a new
// trailing lane axis of 64 is appended: out[..., b, ..., l] = a[..., b * 64 + l, ...], and
// lanes with b * 64 + l >= n hold `pad`. With axis = -1 this is the guide's "(..., C) ->
// (..., C // 64) x64" buffer as emulate() sees it (the lane axis last). unpack_pwords inverts it.
#pragma once

#include <algorithm>

#include "axcore/num/pword.hpp"
#include "axcore/ref/ndarray.hpp"

namespace axcore::ref {

inline constexpr std::size_t kPwordLanes = num::kLanes;

inline std::size_t pword_blocks(std::size_t n) { return (n + kPwordLanes - 1) / kPwordLanes; }

namespace detail {
// The array as [outer, n, inner] around `axis` (C order): a[o, j, i] is at (o * n + j) * inner + i.
struct AxisSplit {
  std::size_t outer = 1, n = 1, inner = 1;
};
inline AxisSplit split_at(const Shape& shape, std::size_t ax) {
  AxisSplit s;
  for (std::size_t k = 0; k < shape.size(); ++k) (k < ax ? s.outer : k == ax ? s.n : s.inner) *= shape[k];
  return s;
}
}  // namespace detail

// out[o, b, i, l] = a[o, b * 64 + l, i], flat ((o * blocks + b) * inner + i) * 64 + l: written into
// `dst` (every element, pad lanes included) from the C-order `src` of `shape`. Each block moves in
// 64 x 64 tiles (64 source rows of up to 64 elements into 64 lanes), so a wide inner extent does
// not scatter every write over a new cache line.
template <class T>
void pack_pwords_into(const T* src, const Shape& shape, std::size_t ax, T pad, T* dst) {
  const auto [outer, n, inner] = detail::split_at(shape, ax);
  const std::size_t blocks = pword_blocks(n);
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t lanes = std::min(kPwordLanes, n - b * kPwordLanes);
      T* blk = dst + (o * blocks + b) * inner * kPwordLanes;
      const T* rows = src + (o * n + b * kPwordLanes) * inner;
      if (inner == 1) {  // the packed axis is the last: each block is a copy
        std::copy(rows, rows + lanes, blk);
        std::fill(blk + lanes, blk + kPwordLanes, pad);
        continue;
      }
      for (std::size_t i0 = 0; i0 < inner; i0 += kPwordLanes) {
        const std::size_t i1 = std::min(inner, i0 + kPwordLanes);
        for (std::size_t l = 0; l < lanes; ++l)
          for (std::size_t i = i0; i < i1; ++i) blk[i * kPwordLanes + l] = rows[l * inner + i];
      }
      for (std::size_t i = 0; lanes < kPwordLanes && i < inner; ++i)
        for (std::size_t l = lanes; l < kPwordLanes; ++l) blk[i * kPwordLanes + l] = pad;
    }
}

template <class T>
NDArray<T> pack_pwords(const NDArray<T>& a, int axis = -1, T pad = T{}) {
  const std::size_t ax = norm_axis(axis, a.rank());
  Shape out_shape = a.shape();
  out_shape[ax] = pword_blocks(a.dim(ax));
  out_shape.push_back(kPwordLanes);
  NDArray<T> out(out_shape, pad);
  if (a.size() != 0) pack_pwords_into(a.data().data(), a.shape(), ax, pad, out.data().data());
  return out;
}

// unpack_pwords walks the flat data in order (one pass, no per-element index arithmetic).
// Inverse of pack_pwords: `n` is the logical extent of `axis` (<= blocks * 64).
template <class T>
NDArray<T> unpack_pwords(const NDArray<T>& p, int axis, std::size_t n) {
  if (p.rank() < 2 || p.dim(p.rank() - 1) != kPwordLanes) {
    throw std::invalid_argument("unpack_pwords: the last axis of " + shape_str(p.shape()) + " must be 64 lanes");
  }
  const std::size_t rank = p.rank() - 1;
  const std::size_t ax = norm_axis(axis, rank);
  if (n > p.dim(ax) * kPwordLanes) {
    throw std::invalid_argument("unpack_pwords: extent " + std::to_string(n) + " exceeds " + std::to_string(p.dim(ax)) +
                                " blocks of 64");
  }
  Shape shape(p.shape().begin(), p.shape().end() - 1);
  shape[ax] = n;
  NDArray<T> out(shape);
  if (out.size() == 0) return out;
  const auto [outer, n_, inner] = detail::split_at(shape, ax);
  const std::size_t blocks = p.dim(ax);
  const T* src = p.data().data();
  T* dst = out.data().data();
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t j = 0; j < n_; ++j) {
      const T* row = src + ((o * blocks + j / kPwordLanes) * inner) * kPwordLanes + j % kPwordLanes;
      T* to = dst + (o * n_ + j) * inner;
      for (std::size_t i = 0; i < inner; ++i) to[i] = row[i * kPwordLanes];
    }
  return out;
}

}  // namespace axcore::ref
