// The PWORD layout helper: packing one axis of a logical array into 64-lane PWORDs.
//
// pack_pwords(a, axis, pad): the axis of extent n becomes ceil(n / 64) blocks and a new
// trailing lane axis of 64 is appended: out[..., b, ..., l] = a[..., b * 64 + l, ...], and
// lanes with b * 64 + l >= n hold `pad`. With axis = -1 this is the guide's "(..., C) ->
// (..., C // 64) x64" buffer as emulate() sees it (the lane axis last). unpack_pwords inverts it.
#pragma once

#include "axcore/num/pword.hpp"
#include "axcore/ref/ndarray.hpp"

namespace axcore::ref {

inline constexpr std::size_t kPwordLanes = num::kLanes;

inline std::size_t pword_blocks(std::size_t n) { return (n + kPwordLanes - 1) / kPwordLanes; }

template <class T>
NDArray<T> pack_pwords(const NDArray<T>& a, int axis = -1, T pad = T{}) {
  const std::size_t ax = norm_axis(axis, a.rank());
  Shape out_shape = a.shape();
  out_shape[ax] = pword_blocks(a.dim(ax));
  out_shape.push_back(kPwordLanes);
  NDArray<T> out(out_shape, pad);
  if (a.size() == 0) return out;
  std::vector<std::size_t> idx(a.rank(), 0), o(a.rank() + 1, 0);
  do {
    for (std::size_t k = 0; k < a.rank(); ++k) o[k] = idx[k];
    o[ax] = idx[ax] / kPwordLanes;
    o[a.rank()] = idx[ax] % kPwordLanes;
    out.at(o) = a.at(idx);
  } while (next_index(idx, a.shape()));
  return out;
}

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
  std::vector<std::size_t> idx(rank, 0), o(rank + 1, 0);
  do {
    for (std::size_t k = 0; k < rank; ++k) o[k] = idx[k];
    o[ax] = idx[ax] / kPwordLanes;
    o[rank] = idx[ax] % kPwordLanes;
    out.at(idx) = p.at(o);
  } while (next_index(idx, shape));
  return out;
}

}  // namespace axcore::ref
