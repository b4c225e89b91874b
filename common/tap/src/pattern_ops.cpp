// The walk algebra: indexing, permute, split, merge, coalesce, repeat, pad, tile, partition,
// inverse. Each follows the seed's tap.py, check for check and message for message.
#include <algorithm>
#include <numeric>

#include "axcore/tap/pattern.hpp"
#include "validate.hpp"

namespace axcore::tap {

namespace {

// A concrete negative index or bound counts from the end (NumPy); a staged one keeps its value:
// its sign is unknown until it is bound, so it cannot wrap, and its guards require it in range.
SymInt wrapped(const SymInt& v, const SymInt& n) { return v.is_concrete() && v.value() < 0 ? v + n : v; }

// A slice bound as Python's slice.indices resolves it for a positive step: wrapped, then clipped
// to [0, n]. Clipping needs both values concrete; otherwise the wrapped bound must already lie in
// [0, n] (a start only needs >= 0: past n it makes the slice empty, which the caller checks).
SymInt slice_bound(const SymInt& written, const SymInt& n, bool is_stop, const std::string& axis_of,
                   std::vector<Guard>& guards) {
  SymInt v = wrapped(written, n);
  if (v.is_concrete() && n.is_concrete()) return std::clamp(v.value(), int64_t{0}, n.value());
  std::string message = std::string(is_stop ? "slice stop " : "slice start ") + written.str() + axis_of;
  require(ge(v, 0), message, guards);
  if (is_stop) require(le(v, n), message, guards);
  return v;
}

}  // namespace

TensorAccessPattern TensorAccessPattern::at(const std::vector<Index>& index) const {
  if (static_cast<int>(index.size()) > rank()) {
    throw ValueError("too many indices for pattern: pattern is " + std::to_string(rank()) + "-dimensional, but " +
                     std::to_string(index.size()) + " were indexed");
  }
  std::vector<Guard> guards = guards_;
  SymInt offset = offset_;
  std::vector<SymInt> sizes, strides;
  for (std::size_t d = 0; d < sizes_.size(); ++d) {
    const SymInt& n = sizes_[d];
    const SymInt& s = strides_[d];
    std::string axis_of = " is out of bounds for axis " + std::to_string(d) + " with size " + n.str();
    if (d >= index.size()) {
      sizes.push_back(n);
      strides.push_back(s);
    } else if (const auto* i = std::get_if<SymInt>(&index[d])) {
      SymInt at = wrapped(*i, n);  // in [-n, n) for a concrete index, [0, n) for a staged one
      require(ge(at, 0), "index " + i->str() + axis_of, guards);
      require(lt(at, n), "index " + i->str() + axis_of, guards);
      offset = offset + at * s;
    } else {
      const Slice& sl = std::get<Slice>(index[d]);
      int64_t step = 1;
      if (sl.step) {
        if (!sl.step->is_concrete()) throw TypeError("slice steps must be compile-time ints");
        step = sl.step->value();
        if (step == 0) throw ValueError("slice step cannot be zero");
        if (step < 0) throw ValueError("slice step must be positive, got " + std::to_string(step));
      }
      SymInt written_start = sl.start.value_or(SymInt(0)), written_stop = sl.stop.value_or(n);
      SymInt start = slice_bound(written_start, n, false, axis_of, guards);
      SymInt stop = slice_bound(written_stop, n, true, axis_of, guards);
      require(lt(start, stop),
              "slice " + written_start.str() + ":" + written_stop.str() + " of axis " + std::to_string(d) + " (size " +
                  n.str() + ") is empty",
              guards);
      sizes.push_back(floordiv(stop - start + (step - 1), step));
      strides.push_back(s * step);
      offset = offset + start * s;
    }
  }
  if (sizes.empty()) {  // every dimension indexed: the one element
    sizes.emplace_back(1);
    strides.emplace_back(1);
  }
  return with(std::move(offset), std::move(sizes), std::move(strides), std::move(guards));
}

TensorAccessPattern TensorAccessPattern::permute(const std::vector<int>& axes) const {
  detail::validate_permutation(axes, rank(), "axes");
  std::vector<SymInt> sizes, strides;
  for (int a : axes) {
    sizes.push_back(sizes_[static_cast<std::size_t>(a)]);
    strides.push_back(strides_[static_cast<std::size_t>(a)]);
  }
  return with(offset_, std::move(sizes), std::move(strides));
}

TensorAccessPattern TensorAccessPattern::T() const {
  std::vector<int> axes(static_cast<std::size_t>(rank()));
  std::iota(axes.rbegin(), axes.rend(), 0);
  return permute(axes);
}

TensorAccessPattern TensorAccessPattern::split(int dim, const SymInt& inner) const {
  dim = axis(dim);
  auto d = static_cast<std::size_t>(dim);
  const SymInt n = sizes_[d], s = strides_[d];
  std::vector<Guard> guards = guards_;
  require(eq(mod(n, inner), 0),
          "dimension " + std::to_string(dim) + " of size " + n.str() + " is not divisible by " + inner.str(), guards);
  std::vector<SymInt> sizes = sizes_, strides = strides_;
  sizes[d] = floordiv(n, inner);
  sizes.insert(sizes.begin() + dim + 1, inner);
  strides[d] = s * inner;
  strides.insert(strides.begin() + dim + 1, s);
  return with(offset_, std::move(sizes), std::move(strides), std::move(guards));
}

TensorAccessPattern TensorAccessPattern::merge(int dim) const {
  dim = axis(dim);
  auto d = static_cast<std::size_t>(dim);
  if (dim + 1 >= rank()) { throw ValueError("dimension " + std::to_string(dim) + " has no successor to merge with"); }
  const SymInt &n0 = sizes_[d], &s0 = strides_[d], &n1 = sizes_[d + 1], &s1 = strides_[d + 1];
  if (!n0.is_concrete() || !s0.is_concrete() || !n1.is_concrete() || !s1.is_concrete()) {
    throw TypeError("merge() is a structural decision; it needs concrete sizes/strides");
  }
  int64_t a = n0.value(), sa = s0.value(), b = n1.value(), sb = s1.value();
  if (a != 1 && b != 1 && sa != checked_mul(b, sb)) {
    throw ValueError("dimensions " + std::to_string(dim) + " and " + std::to_string(dim + 1) +
                     " are not contiguous (stride " + std::to_string(sa) + " != " + std::to_string(b) + " * " +
                     std::to_string(sb) + "); cannot merge");
  }
  std::vector<SymInt> sizes = sizes_, strides = strides_;
  sizes[d] = checked_mul(a, b);
  strides[d] = b == 1 ? sa : sb;
  sizes.erase(sizes.begin() + dim + 1);
  strides.erase(strides.begin() + dim + 1);
  return with(offset_, std::move(sizes), std::move(strides));
}

TensorAccessPattern TensorAccessPattern::coalesce() const { return coalesced(true); }
TensorAccessPattern TensorAccessPattern::coalesce_unpadded_pairs() const { return coalesced(false); }

// Drops unit dimensions and merges contiguous pairs. A padded dimension is kept unless it is the
// outer of a pair whose inner carries no padding and `merge_padded` is set: its pad counts then
// scale by the inner size (b rows of n1 elements are b * n1 elements).
TensorAccessPattern TensorAccessPattern::coalesced(bool merge_padded) const {
  std::vector<PadPair> pads = padding_.value_or(std::vector<PadPair>(sizes_.size(), {0, 0}));
  std::vector<SymInt> sizes, strides;
  std::vector<PadPair> kept_pads;
  for (std::size_t i = 0; i < sizes_.size(); ++i) {
    bool unit = sizes_[i].constant() == 1 && pads[i] == PadPair{0, 0};
    if (unit && !(i + 1 == sizes_.size() && sizes.empty())) continue;
    sizes.push_back(sizes_[i]);
    strides.push_back(strides_[i]);
    kept_pads.push_back(pads[i]);
  }
  std::size_t i = 0;
  while (i + 1 < sizes.size()) {
    auto n0 = sizes[i].constant(), s0 = strides[i].constant();
    auto n1 = sizes[i + 1].constant(), s1 = strides[i + 1].constant();
    bool concrete = n0 && s0 && n1 && s1;
    bool inner_unpadded = kept_pads[i + 1] == PadPair{0, 0};
    bool outer_ok = kept_pads[i] == PadPair{0, 0} || merge_padded;
    if (concrete && inner_unpadded && outer_ok && (*n0 == 1 || *s0 == checked_mul(*n1, *s1))) {
      sizes[i] = checked_mul(*n0, *n1);
      strides[i] = *n1 == 1 ? *s0 : *s1;
      kept_pads[i] = {checked_mul(kept_pads[i].first, *n1), checked_mul(kept_pads[i].second, *n1)};
      sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      strides.erase(strides.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      kept_pads.erase(kept_pads.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    } else {
      ++i;
    }
  }
  detail::zero_leading_unit_strides(sizes, strides);
  std::optional<std::vector<PadPair>> padding;
  if (padding_) padding = std::move(kept_pads);
  return TensorAccessPattern(Raw{}, tensor_dims_, offset_, std::move(sizes), std::move(strides), std::move(padding),
                             guards_);
}

TensorAccessPattern TensorAccessPattern::repeat(const SymInt& count) const {
  std::vector<Guard> guards = guards_;
  require(ge(count, 1), "repeat count must be >= 1, got " + count.str(), guards);
  std::vector<SymInt> sizes = sizes_, strides = strides_;
  sizes.insert(sizes.begin(), count);
  strides.insert(strides.begin(), SymInt(0));
  return with(offset_, std::move(sizes), std::move(strides), std::move(guards));
}

TensorAccessPattern TensorAccessPattern::pad(const std::vector<std::vector<SymInt>>& padding) const {
  if (padding_) throw ValueError("this pattern is already padded");
  std::vector<PadPair> pads;
  for (const auto& entry : padding) {
    if (entry.size() != 2) throw ValueError("each padding entry is a (before, after) pair");
    if (!entry[0].is_concrete() || !entry[1].is_concrete()) {
      throw TypeError("padding counts must be compile-time ints");
    }
    int64_t before = entry[0].value(), after = entry[1].value();
    if (before < 0 || after < 0) {
      throw ValueError("padding counts must be >= 0, got (" + std::to_string(before) + ", " + std::to_string(after) +
                       ")");
    }
    pads.emplace_back(before, after);
  }
  if (static_cast<int>(pads.size()) != rank()) {
    throw ValueError("padding has " + std::to_string(pads.size()) + " entries for a pattern of rank " +
                     std::to_string(rank()));
  }
  if (std::all_of(pads.begin(), pads.end(), [](const PadPair& p) { return p == PadPair{0, 0}; })) { return *this; }
  return TensorAccessPattern(Raw{}, tensor_dims_, offset_, sizes_, strides_, std::move(pads), guards_);
}

TensorAccessPattern TensorAccessPattern::pad(const std::vector<PadPair>& padding) const {
  std::vector<std::vector<SymInt>> entries;
  for (auto [b, a] : padding) entries.push_back({b, a});
  return pad(entries);
}

TensorAccessPattern TensorAccessPattern::tile(const std::vector<SymInt>& tile_dims) const {
  if (static_cast<int>(tile_dims.size()) != rank()) {
    throw ValueError("tile_dims has " + std::to_string(tile_dims.size()) + " entries for a pattern of rank " +
                     std::to_string(rank()));
  }
  std::vector<Guard> guards = guards_;
  std::vector<SymInt> sizes, strides;
  for (std::size_t dim = 0; dim < tile_dims.size(); ++dim) {
    const SymInt &t = tile_dims[dim], &n = sizes_[dim], &s = strides_[dim];
    require(ge(t, 1), "tile_dims[" + std::to_string(dim) + "] must be >= 1", guards);
    require(eq(mod(n, t), 0),
            "dimension " + std::to_string(dim) + " of size " + n.str() + " is not divisible by tile size " + t.str(),
            guards);
    sizes.push_back(floordiv(n, t));
    strides.push_back(s * t);
  }
  sizes.insert(sizes.end(), tile_dims.begin(), tile_dims.end());
  strides.insert(strides.end(), strides_.begin(), strides_.end());
  return with(offset_, std::move(sizes), std::move(strides), std::move(guards));
}

TensorAccessPattern TensorAccessPattern::partition(const SymInt& parts, int dim) const {
  dim = axis(dim);
  auto d = static_cast<std::size_t>(dim);
  const SymInt n = sizes_[d], s = strides_[d];
  std::vector<Guard> guards = guards_;
  require(ge(parts, 1), "parts must be >= 1", guards);
  require(
      eq(mod(n, parts), 0),
      "dimension " + std::to_string(dim) + " of size " + n.str() + " is not divisible into " + parts.str() + " parts",
      guards);
  SymInt chunk = floordiv(n, parts);
  std::vector<SymInt> sizes = sizes_, strides = strides_;
  sizes[d] = chunk;
  sizes.insert(sizes.begin(), parts);
  strides.insert(strides.begin(), s * chunk);
  return with(offset_, std::move(sizes), std::move(strides), std::move(guards));
}

TensorAccessPattern TensorAccessPattern::inverse() const {
  require_concrete("inverse()");
  if (padding_) throw ValueError("a padded pattern has no inverse");
  std::vector<std::size_t> steps;
  for (std::size_t i = 0; i < sizes_.size(); ++i)
    if (sizes_[i].value() != 1) steps.push_back(i);
  std::stable_sort(steps.begin(), steps.end(),
                   [this](std::size_t a, std::size_t b) { return strides_[a].value() > strides_[b].value(); });
  int64_t covered = 1;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    if (strides_[*it].value() != covered) {
      covered = 0;
      break;
    }
    covered = checked_mul(covered, sizes_[*it].value());
  }
  if (offset_.value() != 0 || covered != concrete_numel()) {
    throw ValueError(str() + " does not visit every element exactly once, so it has no inverse");
  }
  if (steps.empty()) return full(tensor_dims_);
  std::vector<SymInt> stream_strides = row_major_strides(sizes_);
  std::vector<SymInt> sizes, strides;
  for (std::size_t i : steps) {
    sizes.push_back(sizes_[i]);
    strides.push_back(stream_strides[i]);
  }
  return TensorAccessPattern(Raw{}, tensor_dims_, 0, std::move(sizes), std::move(strides), std::nullopt, {});
}

}  // namespace axcore::tap
