// Enumerating the walk: walk(), gather/scatter support, accesses(), compare_access_orders().
#include <algorithm>

#include "axcore/tap/pattern.hpp"
#include "validate.hpp"

namespace axcore::tap {

namespace {

// Largest stream walk() enumerates; a bigger one is refused rather than exhausting memory.
constexpr int64_t kMaxWalk = int64_t{1} << 30;

struct Walker {
  std::vector<int64_t> padded, before, sizes, strides;
  std::vector<int64_t>* out;

  void emit(std::size_t dim, int64_t base, bool in_pad) const {
    bool last = dim + 1 == padded.size();
    for (int64_t j = 0; j < padded[dim]; ++j) {
      bool pad = in_pad || j < before[dim] || j >= before[dim] + sizes[dim];
      int64_t next = pad ? -1 : base + (j - before[dim]) * strides[dim];
      if (last) {
        out->push_back(next);
      } else {
        emit(dim + 1, next, pad);
      }
    }
  }
};

}  // namespace

std::vector<int64_t> TensorAccessPattern::walk() const {
  require_concrete("walk()");
  Walker w;
  int64_t total = 1;
  for (std::size_t i = 0; i < sizes_.size(); ++i) {
    PadPair p = padding_ ? (*padding_)[i] : PadPair{0, 0};
    w.sizes.push_back(sizes_[i].value());
    w.strides.push_back(strides_[i].value());
    w.before.push_back(p.first);
    w.padded.push_back(checked_add(checked_add(w.sizes.back(), p.first), p.second));
    total = checked_mul(total, w.padded.back());
  }
  if (total > kMaxWalk) {
    throw ValueError(str() + " walks " + std::to_string(total) + " elements, more than the " +
                     std::to_string(kMaxWalk) + " a host-side walk enumerates");
  }
  std::vector<int64_t> out;
  out.reserve(static_cast<std::size_t>(total));
  w.out = &out;
  w.emit(0, offset_.value(), false);
  return out;
}

std::vector<int64_t> TensorAccessPattern::checked_walk() const {
  std::vector<int64_t> idx = walk();
  int64_t numel = concrete_numel();
  int64_t top = idx.empty() ? -1 : *std::max_element(idx.begin(), idx.end());
  if (top >= numel) {
    throw ValueError(str() + " leaves its tensor: it reaches element " + std::to_string(top) + " of a tensor of " +
                     std::to_string(numel) + " elements");
  }
  return idx;
}

void TensorAccessPattern::check_numel(std::size_t n, const char* what) const {
  int64_t numel = concrete_numel();
  if (static_cast<int64_t>(n) != numel) {
    throw ValueError(std::string(what) + " has " + std::to_string(n) + " elements, but the pattern's tensor " +
                     show(tensor_dims_) + " has " + std::to_string(numel));
  }
}

Accesses TensorAccessPattern::accesses() const {
  std::vector<int64_t> idx = checked_walk();
  auto numel = static_cast<std::size_t>(concrete_numel());
  std::vector<int64_t> shape;
  for (const auto& d : tensor_dims_) shape.push_back(d.value());
  Accesses a{{shape, std::vector<int64_t>(numel, -1)}, {shape, std::vector<int64_t>(numel, 0)}};
  int64_t k = 0;
  for (int64_t i : idx) {
    if (i < 0) continue;
    a.order.data[static_cast<std::size_t>(i)] = k++;
    ++a.count.data[static_cast<std::size_t>(i)];
  }
  return a;
}

bool TensorAccessPattern::compare_access_orders(const TensorAccessPattern& other) const {
  return walk() == other.walk();
}

}  // namespace axcore::tap
