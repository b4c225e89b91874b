// Data-movement operators: transpose / permute, slice, reshape, concat. They run IFD -> ODR
// with no compute unit (guide §6.4), so they are exact for every dtype.
#pragma once

#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "axcore/ref/ndarray.hpp"

namespace axcore::ref {

// out.shape[k] = a.shape[dims[k]]; dims must be a permutation of 0..rank-1.
template <class T>
NDArray<T> permute(const NDArray<T>& a, const std::vector<std::size_t>& dims) {
  if (dims.size() != a.rank()) {
    throw std::invalid_argument("permute: " + std::to_string(dims.size()) + " dims for rank " +
                                std::to_string(a.rank()));
  }
  std::vector<bool> seen(a.rank(), false);
  Shape shape(a.rank());
  for (std::size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] >= a.rank() || seen[dims[k]]) throw std::invalid_argument("permute: dims are not a permutation");
    seen[dims[k]] = true;
    shape[k] = a.dim(dims[k]);
  }
  NDArray<T> out(shape);
  if (out.size() == 0) return out;
  std::vector<std::size_t> idx(a.rank(), 0), src(a.rank());
  do {
    for (std::size_t k = 0; k < dims.size(); ++k) src[dims[k]] = idx[k];
    out.at(idx) = a.at(src);
  } while (next_index(idx, shape));
  return out;
}

template <class T>
NDArray<T> transpose(const NDArray<T>& a, int axis0 = -2, int axis1 = -1) {
  std::vector<std::size_t> dims(a.rank());
  std::iota(dims.begin(), dims.end(), std::size_t{0});
  std::swap(dims[norm_axis(axis0, a.rank())], dims[norm_axis(axis1, a.rank())]);
  return permute(a, dims);
}

// Elements start, start + step, ... < end along `axis` (end clipped to the extent).
template <class T>
NDArray<T> slice(const NDArray<T>& a, int axis, std::size_t start, std::size_t end, std::size_t step = 1) {
  const std::size_t ax = norm_axis(axis, a.rank());
  if (step == 0) throw std::invalid_argument("slice: step 0");
  end = std::min(end, a.dim(ax));
  Shape shape = a.shape();
  shape[ax] = start >= end ? 0 : (end - start + step - 1) / step;
  NDArray<T> out(shape);
  if (out.size() == 0) return out;
  std::vector<std::size_t> idx(a.rank(), 0), src(a.rank());
  do {
    src = idx;
    src[ax] = start + idx[ax] * step;
    out.at(idx) = a.at(src);
  } while (next_index(idx, shape));
  return out;
}

template <class T>
NDArray<T> reshape(const NDArray<T>& a, const Shape& shape) {
  if (shape_numel(shape) != a.size()) {
    throw std::invalid_argument("reshape: " + shape_str(a.shape()) + " has " + std::to_string(a.size()) +
                                " elements, " + shape_str(shape) + " needs " + std::to_string(shape_numel(shape)));
  }
  return NDArray<T>(shape, a.data());
}

template <class T>
NDArray<T> concat(const std::vector<NDArray<T>>& parts, int axis) {
  if (parts.empty()) throw std::invalid_argument("concat: no arrays");
  const std::size_t ax = norm_axis(axis, parts[0].rank());
  Shape shape = parts[0].shape();
  shape[ax] = 0;
  for (const auto& p : parts) {
    Shape s = p.shape();
    if (s.size() != shape.size()) throw std::invalid_argument("concat: ranks differ");
    for (std::size_t k = 0; k < s.size(); ++k) {
      if (k != ax && s[k] != shape[k]) {
        throw std::invalid_argument("concat: " + shape_str(s) + " does not match " + shape_str(parts[0].shape()) +
                                    " off axis " + std::to_string(ax));
      }
    }
    shape[ax] += s[ax];
  }
  NDArray<T> out(shape);
  std::size_t base = 0;
  for (const auto& p : parts) {
    if (p.size() != 0) {
      std::vector<std::size_t> idx(p.rank(), 0), dst(p.rank());
      do {
        dst = idx;
        dst[ax] += base;
        out.at(dst) = p.at(idx);
      } while (next_index(idx, p.shape()));
    }
    base += p.dim(ax);
  }
  return out;
}

}  // namespace axcore::ref
