// TensorAccessPattern: a strided walk over a tensor (the seed's taplib, in C++).
//
// An element offset plus outermost-first sizes and strides, over a tensor of known shape, with
// optional per-dimension padding of the emitted stream. Immutable: every operation returns a new
// pattern. Values may be dispatch-time SymInts; a check on one becomes a Guard, evaluated by
// bind(). Structure (rank, slice steps, padding, merge decisions) is always concrete.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "axcore/tap/errors.hpp"
#include "axcore/tap/int_array.hpp"
#include "axcore/tap/sym_int.hpp"

namespace axcore::tap {

// `start:stop:step`; an unset bound takes NumPy's default (0, the size, 1).
struct Slice {
  Slice() = default;
  Slice(std::optional<SymInt> start_, std::optional<SymInt> stop_, std::optional<SymInt> step_ = std::nullopt)
      : start(std::move(start_)), stop(std::move(stop_)), step(std::move(step_)) {}
  std::optional<SymInt> start, stop, step;
};
// One entry of an index: an integer or a slice.
using Index = std::variant<SymInt, Slice>;

// (before, after) padding of one dimension.
using PadPair = std::pair<int64_t, int64_t>;

struct Accesses {
  IntArray order;  // number of each element's last access, -1 where the walk never goes
  IntArray count;  // how many times the walk accesses each element
};

class TensorAccessPattern {
 public:
  TensorAccessPattern(std::vector<SymInt> tensor_dims, SymInt offset, std::vector<SymInt> sizes,
                      std::vector<SymInt> strides);
  // The row-major walk over a whole tensor.
  static TensorAccessPattern full(std::vector<SymInt> tensor_dims);

  const std::vector<SymInt>& tensor_dims() const { return tensor_dims_; }
  const SymInt& offset() const { return offset_; }
  const std::vector<SymInt>& sizes() const { return sizes_; }
  const std::vector<SymInt>& strides() const { return strides_; }
  std::vector<std::pair<SymInt, SymInt>> transformation_dims() const;
  const std::optional<std::vector<PadPair>>& padding() const { return padding_; }
  std::vector<SymInt> padded_sizes() const;
  int rank() const { return static_cast<int>(sizes_.size()); }
  // Tensor elements the walk visits, repeats counted, padding not.
  SymInt numel() const;
  bool is_symbolic() const;
  // The checks on staged values, in the order the operations made them.
  const std::vector<Guard>& guards() const { return guards_; }

  // Indexing with NumPy semantics on the leading dimensions: an integer index in [-n, n) (negative
  // counts from the end), slice bounds wrapped and clipped to [0, n] as Python's slice.indices
  // does, a positive step; an empty slice is an error. A dispatch-time index or bound cannot wrap
  // (its sign is unknown until bound): it must lie in range, a guard checked by bind(). Over a
  // dispatch-time size a concrete bound wraps but cannot clip, so it must lie in range too.
  TensorAccessPattern operator[](const Index& index) const { return at({index}); }
  TensorAccessPattern at(const std::vector<Index>& index) const;

  TensorAccessPattern permute(const std::vector<int>& axes) const;
  TensorAccessPattern T() const;
  TensorAccessPattern split(int dim, const SymInt& inner) const;
  TensorAccessPattern merge(int dim) const;
  TensorAccessPattern coalesce() const;
  TensorAccessPattern repeat(const SymInt& count) const;
  // One (before, after) entry per dimension; each entry must have two compile-time counts.
  TensorAccessPattern pad(const std::vector<std::vector<SymInt>>& padding) const;
  TensorAccessPattern pad(const std::vector<PadPair>& padding) const;
  TensorAccessPattern tile(const std::vector<SymInt>& tile_dims) const;
  TensorAccessPattern partition(const SymInt& parts, int dim = 0) const;
  TensorAccessPattern inverse() const;

  // Evaluates every guard in order (GuardError with the first failing one's message), then
  // returns the concrete pattern.
  TensorAccessPattern bind(const Bindings& params) const;

  // The stream as element indices into the flat tensor, -1 at padded positions.
  std::vector<int64_t> walk() const;

  // The stream a DMA walking `tensor` with this pattern emits (padding included).
  template <class T>
  std::vector<T> gather(std::span<const T> tensor, T pad_value = T{}) const {
    std::vector<int64_t> idx = checked_walk();
    check_numel(tensor.size(), "tensor");
    std::vector<T> out;
    out.reserve(idx.size());
    for (int64_t i : idx) out.push_back(i < 0 ? pad_value : tensor[static_cast<std::size_t>(i)]);
    return out;
  }
  template <class T>
  std::vector<T> gather(const std::vector<T>& tensor, T pad_value = T{}) const {
    return gather(std::span<const T>(tensor), pad_value);
  }

  // Writes `stream` the way a DMA walking this pattern does: stream element k lands at the k-th
  // position of the walk. `out` (if not empty) is the tensor to write into; by default a zero
  // tensor.
  template <class T>
  std::vector<T> scatter(std::span<const T> stream, std::vector<T> out = {}) const {
    if (padding_) throw ValueError("only a to_stream pattern can pad");
    std::vector<int64_t> idx = checked_walk();
    if (stream.size() != idx.size()) {
      throw ValueError("stream has " + std::to_string(stream.size()) + " elements for a walk of " +
                       std::to_string(idx.size()));
    }
    if (out.empty()) out.assign(static_cast<std::size_t>(concrete_numel()), T{});
    check_numel(out.size(), "out");
    for (std::size_t k = 0; k < idx.size(); ++k) out[static_cast<std::size_t>(idx[k])] = stream[k];
    return out;
  }
  template <class T>
  std::vector<T> scatter(const std::vector<T>& stream, std::vector<T> out = {}) const {
    return scatter(std::span<const T>(stream), std::move(out));
  }

  Accesses accesses() const;
  IntArray access_order() const { return accesses().order; }
  IntArray access_count() const { return accesses().count; }
  // Whether the two walks visit the same elements in the same order, padding included.
  bool compare_access_orders(const TensorAccessPattern& other) const;

  // `TensorAccessPattern([16, 16], offset=72, sizes=[4, 4], strides=[16, 1])`.
  std::string str() const;

  // Equal when they walk the same tensor the same way: same tensor_dims and coalesce() forms.
  // Staged patterns are equal only to a structurally identical pattern (same guards too).
  bool operator==(const TensorAccessPattern& o) const { return equality_key() == o.equality_key(); }
  std::size_t hash() const;

  // The same walk in the fewest dimensions, merging only dimension pairs that carry no padding
  // (what a BD, with its per-dimension pad counts, can take). Equal to coalesce() when unpadded.
  TensorAccessPattern coalesce_unpadded_pairs() const;

 private:
  struct Raw {};
  TensorAccessPattern(Raw, std::vector<SymInt> tensor_dims, SymInt offset, std::vector<SymInt> sizes,
                      std::vector<SymInt> strides, std::optional<std::vector<PadPair>> padding,
                      std::vector<Guard> guards);
  // A reshaped copy, validated like a freshly constructed one; refused for a padded pattern.
  TensorAccessPattern with(SymInt offset, std::vector<SymInt> sizes, std::vector<SymInt> strides) const {
    return with(std::move(offset), std::move(sizes), std::move(strides), guards_);
  }
  TensorAccessPattern with(SymInt offset, std::vector<SymInt> sizes, std::vector<SymInt> strides,
                           std::vector<Guard> guards) const;
  int axis(int dim) const;
  void require_concrete(const char* what) const;
  int64_t concrete_numel() const;
  std::vector<int64_t> checked_walk() const;
  void check_numel(std::size_t n, const char* what) const;
  TensorAccessPattern coalesced(bool merge_padded) const;
  std::string equality_key() const;

  std::vector<SymInt> tensor_dims_;
  SymInt offset_;
  std::vector<SymInt> sizes_;
  std::vector<SymInt> strides_;
  std::optional<std::vector<PadPair>> padding_;
  std::vector<Guard> guards_;
};

std::ostream& operator<<(std::ostream& os, const TensorAccessPattern& p);

// Row-major (C-order) element strides for a tensor of shape `dims`.
std::vector<SymInt> row_major_strides(const std::vector<SymInt>& dims);

}  // namespace axcore::tap

template <>
struct std::hash<axcore::tap::TensorAccessPattern> {
  std::size_t operator()(const axcore::tap::TensorAccessPattern& p) const { return p.hash(); }
};
