// NDArray: a dense N-dimensional array in C (row-major) order, the operand type of the
// operator references. Element types used: float, num::Float16, int8_t, int32_t.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "axcore/num/float16.hpp"

namespace axcore::ref {

using Shape = std::vector<std::size_t>;

std::string shape_str(const Shape& s);
std::size_t shape_numel(const Shape& s);  // throws std::overflow_error past SIZE_MAX

template <class T>
class NDArray {
 public:
  using value_type = T;
  NDArray() = default;
  explicit NDArray(Shape shape, T fill = T{}) : shape_(std::move(shape)), data_(shape_numel(shape_), fill) {}
  NDArray(Shape shape, std::vector<T> data) : shape_(std::move(shape)), data_(std::move(data)) {
    if (data_.size() != shape_numel(shape_)) {
      throw std::invalid_argument("NDArray: " + std::to_string(data_.size()) + " values for shape " +
                                  shape_str(shape_));
    }
  }

  const Shape& shape() const { return shape_; }
  std::size_t rank() const { return shape_.size(); }
  std::size_t size() const { return data_.size(); }
  std::size_t dim(std::size_t axis) const { return shape_.at(axis); }
  std::vector<T>& data() { return data_; }
  const std::vector<T>& data() const { return data_; }

  // Flat offset of an index, bounds checked (std::out_of_range).
  std::size_t offset(std::span<const std::size_t> idx) const {
    if (idx.size() != shape_.size()) {
      throw std::out_of_range("NDArray: index of rank " + std::to_string(idx.size()) + " for shape " +
                              shape_str(shape_));
    }
    std::size_t off = 0;
    for (std::size_t k = 0; k < idx.size(); ++k) {
      if (idx[k] >= shape_[k]) {
        throw std::out_of_range("NDArray: index " + std::to_string(idx[k]) + " on axis " + std::to_string(k) +
                                " of shape " + shape_str(shape_));
      }
      off = off * shape_[k] + idx[k];
    }
    return off;
  }
  T& at(std::span<const std::size_t> idx) { return data_[offset(idx)]; }
  const T& at(std::span<const std::size_t> idx) const { return data_[offset(idx)]; }
  T& operator()(std::initializer_list<std::size_t> idx) {
    return at(std::span<const std::size_t>(idx.begin(), idx.size()));
  }
  const T& operator()(std::initializer_list<std::size_t> idx) const {
    return at(std::span<const std::size_t>(idx.begin(), idx.size()));
  }

 private:
  Shape shape_;
  std::vector<T> data_;
};

// Advances a C-order multi-index over `shape`; returns false after the last one.
bool next_index(std::vector<std::size_t>& idx, const Shape& shape);
// Normalises a possibly negative axis against `rank` (std::invalid_argument if outside).
std::size_t norm_axis(int axis, std::size_t rank);

}  // namespace axcore::ref
