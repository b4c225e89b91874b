#include "axcore/runtime/buffer_image.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>
#include <random>

#include "axcore/num/float16.hpp"
#include "axcore/ref/layout.hpp"
#include "axcore/ref/op/common.hpp"

namespace axcore::runtime {
namespace {

template <class T>
std::vector<uint8_t> raw_bytes(const ref::NDArray<T>& a) {
  std::vector<uint8_t> out(a.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), a.data().data(), out.size());
  return out;
}

template <class T>
ref::NDArray<T> raw_array(const ref::Shape& shape, std::span<const uint8_t> bytes) {
  ref::NDArray<T> a(shape);
  if (bytes.size() < a.size() * sizeof(T))
    throw BundleError("buffer image: " + std::to_string(bytes.size()) + " bytes, the array needs " +
                      std::to_string(a.size() * sizeof(T)));
  if (a.size()) std::memcpy(a.data().data(), bytes.data(), a.size() * sizeof(T));
  return a;
}

ref::Shape to_shape(std::span<const uint64_t> s) {
  ref::Shape r;
  for (uint64_t d : s) r.push_back(static_cast<std::size_t>(d));
  return r;
}

// The pad element from its raw bits (the low bytes, little-endian).
template <class T>
T pad_value(uint32_t bits) {
  if constexpr (std::is_same_v<T, num::Float16>)
    return num::Float16::from_bits(static_cast<uint16_t>(bits));
  else if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<float>(bits);
  else
    return static_cast<T>(bits);
}

template <class F>
decltype(auto) with_dtype(spec::Dtype d, F&& f) {
  switch (d) {
    case spec::Dtype::INT8: return f(int8_t{});
    case spec::Dtype::INT32: return f(int32_t{});
    case spec::Dtype::FLOAT16: return f(num::Float16{});
    case spec::Dtype::FLOAT32: return f(float{});
    default: break;
  }
  throw BundleError("dtype " + std::string(spec::to_string(d)) + " has no host arrays");
}

}  // namespace

spec::Dtype dtype_of(const ref::AnyArray& a) {
  return std::visit([](const auto& x) { return ref::dtype_of<typename std::decay_t<decltype(x)>::value_type>(); }, a);
}
std::vector<uint64_t> shape_of(const ref::AnyArray& a) {
  return std::visit([](const auto& x) { return std::vector<uint64_t>(x.shape().begin(), x.shape().end()); }, a);
}
std::string shape_text(std::span<const uint64_t> s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

std::string mismatch(const BufferDesc& b, const ref::AnyArray& a) {
  const spec::Dtype d = dtype_of(a);
  const auto s = shape_of(a);
  if (d == b.dtype && s == b.shape) return "";
  return std::string(to_string(b.role)) + " '" + b.name + "': expected " + std::string(spec::to_string(b.dtype)) + " " +
         shape_text(b.shape) + ", got " + std::string(spec::to_string(d)) + " " + shape_text(s);
}

std::vector<uint8_t> array_bytes(const ref::AnyArray& a) {
  return std::visit([](const auto& x) { return raw_bytes(x); }, a);
}

ref::AnyArray array_from_bytes(spec::Dtype d, std::span<const uint64_t> shape, std::span<const uint8_t> bytes) {
  return with_dtype(d, [&](auto tag) -> ref::AnyArray { return raw_array<decltype(tag)>(to_shape(shape), bytes); });
}

namespace {
// The image from the layout's bytes: cut at device_bytes(b), then its zeros (one piece).
void put_image(const BufferDesc& b, std::span<const uint8_t> bytes, const ImageSink& write) {
  const uint64_t total = device_bytes(b);
  const uint64_t n = std::min<uint64_t>(bytes.size(), total);
  if (n) write(0, bytes.first(static_cast<std::size_t>(n)));
  if (n < total) write(n, std::vector<uint8_t>(static_cast<std::size_t>(total - n)));
}
template <class T>
std::span<const uint8_t> bytes_of(const ref::NDArray<T>& a) {
  return {reinterpret_cast<const uint8_t*>(a.data().data()), a.size() * sizeof(T)};
}
}  // namespace

void write_device_image(const BufferDesc& b, const ref::AnyArray& a, const ImageSink& write) {
  if (auto m = mismatch(b, a); !m.empty()) throw BundleError(m);
  std::visit(
      [&](const auto& x) {
        using T = typename std::decay_t<decltype(x)>::value_type;
        if (b.layout.kind == LayoutKind::PWORDS)
          put_image(b, bytes_of(ref::pack_pwords(x, b.layout.axis, pad_value<T>(b.layout.pad_bits))), write);
        else
          put_image(b, bytes_of(x), write);
      },
      a);
}

void write_constant_image(const Bundle& bundle, const BufferDesc& b, const ImageSink& write) {
  if (b.dtype != spec::Dtype::INT8) return write_device_image(b, constant_array(bundle, b), write);
  // int8: packed straight from the blob (no array copy of it first)
  if (!b.constant || *b.constant >= bundle.constants.size())
    throw BundleError("buffer '" + b.name + "' has no constant blob");
  const std::span<const uint8_t> blob = bundle.constants[*b.constant].bytes;
  const ref::Shape shape = to_shape(b.shape);
  const std::size_t n = ref::shape_numel(shape);
  if (blob.size() < n)
    throw BundleError("buffer image: " + std::to_string(blob.size()) + " bytes, the array needs " + std::to_string(n));
  if (b.layout.kind != LayoutKind::PWORDS) return put_image(b, blob.first(n), write);
  const std::size_t ax = ref::norm_axis(b.layout.axis, shape.size());
  ref::Shape packed = shape;
  packed[ax] = ref::pword_blocks(shape[ax]);
  packed.push_back(ref::kPwordLanes);
  const auto pad = pad_value<int8_t>(b.layout.pad_bits);
  ref::NDArray<int8_t> out(packed, pad);
  if (n) ref::pack_pwords_into(reinterpret_cast<const int8_t*>(blob.data()), shape, ax, pad, out.data().data());
  put_image(b, bytes_of(out), write);
}

std::vector<uint8_t> to_device_image(const BufferDesc& b, const ref::AnyArray& a) {
  std::vector<uint8_t> img;
  img.reserve(device_bytes(b));
  write_device_image(
      b, a, [&](uint64_t, std::span<const uint8_t> bytes) { img.insert(img.end(), bytes.begin(), bytes.end()); });
  return img;
}

ref::AnyArray from_device_image(const BufferDesc& b, std::span<const uint8_t> image) {
  if (image.size() < layout_image_bytes(b))
    throw BundleError("buffer '" + b.name + "': device image of " + std::to_string(image.size()) +
                      " bytes, its layout needs " + std::to_string(layout_image_bytes(b)));
  return with_dtype(b.dtype, [&](auto tag) -> ref::AnyArray {
    using T = decltype(tag);
    if (b.layout.kind != LayoutKind::PWORDS) return raw_array<T>(to_shape(b.shape), image);
    ref::Shape packed = to_shape(b.shape);
    const int64_t rank = static_cast<int64_t>(packed.size());
    const auto ax = static_cast<size_t>(b.layout.axis < 0 ? b.layout.axis + rank : b.layout.axis);
    packed[ax] = ref::pword_blocks(packed[ax]);
    packed.push_back(ref::kPwordLanes);
    return ref::unpack_pwords(raw_array<T>(packed, image), static_cast<int>(ax), static_cast<std::size_t>(b.shape[ax]));
  });
}

ref::AnyArray constant_array(const Bundle& bundle, const BufferDesc& b) {
  if (!b.constant || *b.constant >= bundle.constants.size())
    throw BundleError("buffer '" + b.name + "' has no constant blob");
  return array_from_bytes(b.dtype, b.shape, bundle.constants[*b.constant].bytes);
}

RandomInputs random_inputs(const Bundle& b, uint64_t seed) {
  std::mt19937_64 r(seed * 0x9E3779B97F4A7C15ull + 17);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(r); };
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(r); };
  auto fill = [](auto a, auto next) {
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = next();
    return ref::AnyArray(std::move(a));
  };
  RandomInputs out;
  for (const auto& d : b.buffers) {
    if (d.role != BufferRole::INPUT) continue;
    const ref::Shape shape(d.shape.begin(), d.shape.end());
    switch (d.dtype) {
      case spec::Dtype::INT8:
        out.emplace(d.name, fill(ref::NDArray<int8_t>(shape), [&] { return static_cast<int8_t>(pick(-128, 127)); }));
        break;
      case spec::Dtype::INT32:
        out.emplace(d.name, fill(ref::NDArray<int32_t>(shape),
                                 [&] { return static_cast<int32_t>(pick(INT32_MIN, INT32_MAX)); }));
        break;
      case spec::Dtype::FLOAT16:
        out.emplace(d.name,
                    fill(ref::NDArray<num::Float16>(shape), [&] { return num::f16_from_double(uniform(-4, 4)); }));
        break;
      case spec::Dtype::FLOAT32:
        out.emplace(d.name, fill(ref::NDArray<float>(shape), [&] { return static_cast<float>(uniform(-4, 4)); }));
        break;
      default: throw BundleError("input '" + d.name + "': no random data for its dtype");
    }
  }
  return out;
}

std::string random_input_range(spec::Dtype dtype) {
  switch (dtype) {
    case spec::Dtype::INT8: return "uniform over -128..127";
    case spec::Dtype::INT32: return "uniform over the int32 range";
    default: return "uniform in [-4, 4)";
  }
}

}  // namespace axcore::runtime
