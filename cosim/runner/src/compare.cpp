#include "axcore/regress/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "axcore/ref/npy.hpp"

namespace axcore::regress {
namespace {

std::set<std::string> npy_files(const std::filesystem::path& dir) {
  std::set<std::string> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".npy") out.insert(e.path().filename().string());
  }
  return out;
}

std::string index_str(const ref::Shape& shape, std::size_t flat) {
  std::vector<std::size_t> idx(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) {
    idx[k] = flat % shape[k];
    flat /= shape[k];
  }
  return fmt::format("[{}]", fmt::join(idx, ","));
}

double as_double(float v) { return v; }
double as_double(int8_t v) { return v; }
double as_double(int32_t v) { return v; }
double as_double(num::Float16 v) { return num::to_double(v); }

template <class T>
bool bits_equal(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace

OutputComparison compare_outputs(const std::filesystem::path& reference, const std::filesystem::path& other, Mode mode,
                                 double atol, double rtol) {
  OutputComparison r;
  const auto a = npy_files(reference), b = npy_files(other);
  if (a.empty()) {
    r.message = fmt::format("no .npy outputs in {}", reference.string());
    return r;
  }
  for (const auto& f : a) {
    if (!b.count(f)) {
      r.message = fmt::format("{} is missing from {}", f, other.string());
      return r;
    }
  }
  for (const auto& f : b) {
    if (!a.count(f)) {
      r.message = fmt::format("{} is not an output of the reference", f);
      return r;
    }
  }
  for (const auto& f : a) {
    ref::AnyArray x, y;
    try {
      x = ref::load_npy((reference / f).string());
      y = ref::load_npy((other / f).string());
    } catch (const std::exception& e) {
      r.message = e.what();
      return r;
    }
    if (x.index() != y.index()) {
      r.message = fmt::format("{}: dtype differs from the reference's", f);
      return r;
    }
    bool ok = true;
    std::visit(
        [&](const auto& xa) {
          using A = std::decay_t<decltype(xa)>;
          const auto& ya = std::get<A>(y);
          if (xa.shape() != ya.shape()) {
            r.message =
                fmt::format("{}: shape {} vs reference {}", f, ref::shape_str(ya.shape()), ref::shape_str(xa.shape()));
            ok = false;
            return;
          }
          for (std::size_t i = 0; i < xa.size(); ++i) {
            const double rv = as_double(xa.data()[i]), ov = as_double(ya.data()[i]);
            const double err = std::isnan(rv) && std::isnan(ov) ? 0.0 : std::fabs(rv - ov);
            r.max_abs_error = std::max(r.max_abs_error, std::isnan(err) ? INFINITY : err);
            const bool same = mode == Mode::TOLERANCE ? (err <= atol + rtol * std::fabs(rv) || (rv == ov))
                                                      : bits_equal(xa.data()[i], ya.data()[i]);
            if (!same && ok) {
              r.message = fmt::format("{}{}: {} vs reference {}", f, index_str(xa.shape(), i), ov, rv);
              ok = false;
            }
          }
          r.elements += xa.size();
        },
        x);
    if (!ok) return r;
    ++r.files;
  }
  r.equal = true;
  r.message = fmt::format("{} files, {} elements equal", r.files, r.elements);
  return r;
}

}  // namespace axcore::regress
