// Construction, properties, printing, equality and binding of TensorAccessPattern.
#include <functional>

#include "axcore/tap/pattern.hpp"
#include "validate.hpp"

namespace axcore::tap {

TensorAccessPattern::TensorAccessPattern(std::vector<SymInt> tensor_dims, SymInt offset, std::vector<SymInt> sizes,
                                         std::vector<SymInt> strides)
    : tensor_dims_(std::move(tensor_dims)),
      offset_(std::move(offset)),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)) {
  detail::validate_tensor_dims(tensor_dims_, guards_);
  detail::validate_offset(offset_, tensor_dims_, guards_);
  detail::validate_and_clean_sizes_strides(sizes_, strides_, guards_);
}

TensorAccessPattern::TensorAccessPattern(Raw, std::vector<SymInt> tensor_dims, SymInt offset, std::vector<SymInt> sizes,
                                         std::vector<SymInt> strides, std::optional<std::vector<PadPair>> padding,
                                         std::vector<Guard> guards)
    : tensor_dims_(std::move(tensor_dims)),
      offset_(std::move(offset)),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      padding_(std::move(padding)),
      guards_(std::move(guards)) {}

TensorAccessPattern TensorAccessPattern::full(std::vector<SymInt> tensor_dims) {
  std::vector<SymInt> strides = row_major_strides(tensor_dims);
  std::vector<SymInt> sizes = tensor_dims;
  return TensorAccessPattern(std::move(tensor_dims), 0, std::move(sizes), std::move(strides));
}

TensorAccessPattern TensorAccessPattern::with(SymInt offset, std::vector<SymInt> sizes, std::vector<SymInt> strides,
                                              std::vector<Guard> guards) const {
  if (padding_) { throw ValueError("Padding is applied last: a padded pattern cannot be reshaped further"); }
  detail::validate_offset(offset, tensor_dims_, guards);
  detail::validate_and_clean_sizes_strides(sizes, strides, guards);
  return TensorAccessPattern(Raw{}, tensor_dims_, std::move(offset), std::move(sizes), std::move(strides), std::nullopt,
                             std::move(guards));
}

int TensorAccessPattern::axis(int dim) const {
  int r = rank();
  if (dim < -r || dim >= r) {
    throw ValueError("dimension " + std::to_string(dim) + " is out of range for a pattern of rank " +
                     std::to_string(r));
  }
  return dim < 0 ? dim + r : dim;
}

void TensorAccessPattern::require_concrete(const char* what) const {
  if (is_symbolic()) {
    throw TypeError(std::string(what) + " needs a concrete pattern, but " + str() +
                    " has dispatch-time values; bind() them first");
  }
}

int64_t TensorAccessPattern::concrete_numel() const {
  return detail::product(tensor_dims_).value("the tensor's element count");
}

std::vector<std::pair<SymInt, SymInt>> TensorAccessPattern::transformation_dims() const {
  std::vector<std::pair<SymInt, SymInt>> out;
  for (std::size_t i = 0; i < sizes_.size(); ++i) out.emplace_back(sizes_[i], strides_[i]);
  return out;
}

std::vector<SymInt> TensorAccessPattern::padded_sizes() const {
  std::vector<SymInt> out = sizes_;
  if (padding_) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = out[i] + (*padding_)[i].first + (*padding_)[i].second;
  }
  return out;
}

SymInt TensorAccessPattern::numel() const { return detail::product(sizes_); }

bool TensorAccessPattern::is_symbolic() const {
  auto staged = [](const std::vector<SymInt>& v) {
    for (const auto& x : v)
      if (!x.is_concrete()) return true;
    return false;
  };
  return !offset_.is_concrete() || staged(tensor_dims_) || staged(sizes_) || staged(strides_);
}

std::string TensorAccessPattern::str() const {
  std::string out = "TensorAccessPattern(" + show(tensor_dims_) + ", offset=" + offset_.str() +
                    ", sizes=" + show(sizes_) + ", strides=" + show(strides_);
  if (padding_) {
    out += ", padding=[";
    for (std::size_t i = 0; i < padding_->size(); ++i) {
      out +=
          (i ? ", (" : "(") + std::to_string((*padding_)[i].first) + ", " + std::to_string((*padding_)[i].second) + ")";
    }
    out += "]";
  }
  return out + ")";
}

std::ostream& operator<<(std::ostream& os, const TensorAccessPattern& p) { return os << p.str(); }

std::string TensorAccessPattern::equality_key() const {
  auto keys = [](const std::vector<SymInt>& v) {
    std::string k;
    for (const auto& x : v) k += x.key() + ",";
    return k;
  };
  auto pads = [](const std::optional<std::vector<PadPair>>& p) {
    std::string k = p ? "P" : "-";
    if (p)
      for (auto [b, a] : *p) k += std::to_string(b) + ":" + std::to_string(a) + ",";
    return k;
  };
  if (is_symbolic()) {
    std::string k = "S|" + keys(tensor_dims_) + "|" + offset_.key() + "|" + keys(sizes_) + "|" + keys(strides_) + "|" +
                    pads(padding_);
    for (const auto& g : guards_) {
      k += "|" + std::to_string(static_cast<int>(g.cond.rel)) + g.cond.expr.key() + "#" + g.message;
    }
    return k;
  }
  TensorAccessPattern c = coalesce();
  // A unit dimension never steps, so its stride says nothing about the walk.
  std::vector<SymInt> strides = c.strides_;
  for (std::size_t i = 0; i < strides.size(); ++i)
    if (c.sizes_[i].constant() == 1) strides[i] = 0;
  return "C|" + keys(tensor_dims_) + "|" + c.offset_.key() + "|" + keys(c.sizes_) + "|" + keys(strides) + "|" +
         pads(c.padding_);
}

std::size_t TensorAccessPattern::hash() const { return std::hash<std::string>{}(equality_key()); }

TensorAccessPattern TensorAccessPattern::bind(const Bindings& params) const {
  for (const auto& g : guards_)
    if (!g.cond.holds(params)) throw GuardError(g.message);
  auto eval_all = [&params](const std::vector<SymInt>& v) {
    std::vector<SymInt> out;
    for (const auto& x : v) out.emplace_back(x.eval(params));
    return out;
  };
  std::vector<SymInt> dims = eval_all(tensor_dims_), sizes = eval_all(sizes_), strides = eval_all(strides_);
  SymInt offset = offset_.eval(params);
  // The concrete checks again: they pass when the guards did, and catch a value no guard covers.
  std::vector<Guard> none;
  detail::validate_tensor_dims(dims, none);
  detail::validate_offset(offset, dims, none);
  detail::validate_and_clean_sizes_strides(sizes, strides, none);
  return TensorAccessPattern(Raw{}, std::move(dims), std::move(offset), std::move(sizes), std::move(strides), padding_,
                             {});
}

std::vector<SymInt> row_major_strides(const std::vector<SymInt>& dims) {
  std::vector<SymInt> strides(dims.size(), SymInt(1));
  for (std::size_t axis = dims.size(); axis-- > 1;) strides[axis - 1] = strides[axis] * dims[axis];
  return strides;
}

}  // namespace axcore::tap
