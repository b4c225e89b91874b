#include "axcore/num/pword.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "axcore/num/int_cast.hpp"

namespace axcore::num {

using spec::Dtype;

bool is_valid_dtype(Dtype d) { return static_cast<uint32_t>(d) <= static_cast<uint32_t>(Dtype::FLOAT18); }
bool is_memory_dtype(Dtype d) { return is_valid_dtype(d) && d != Dtype::FLOAT18; }

namespace {
[[noreturn]] void bad_dtype(Dtype d, const char* what) {
  throw std::invalid_argument(
      std::string(what) + ": dtype " +
      (is_valid_dtype(d) ? std::string(spec::to_string(d)) : std::to_string(static_cast<uint32_t>(d))) +
      " has no memory layout (float18 exists only inside the DPU)");
}
}  // namespace

std::size_t lane_bytes(Dtype d) {
  switch (d) {
    case Dtype::INT8: return 1;
    case Dtype::FLOAT16: return 2;
    case Dtype::INT32:
    case Dtype::FLOAT32: return 4;
    case Dtype::FLOAT18: break;
  }
  bad_dtype(d, "lane_bytes");
}
std::size_t element_bytes(Dtype d) { return lane_bytes(d) * kLanes; }
std::size_t element_rows(Dtype d) { return lane_bytes(d); }

uint32_t lane_mask(Dtype d) {
  switch (d) {
    case Dtype::INT8: return 0xFF;
    case Dtype::FLOAT16: return 0xFFFF;
    case Dtype::FLOAT18: return Float18::kMask;
    case Dtype::INT32:
    case Dtype::FLOAT32: return 0xFFFFFFFFu;
  }
  throw std::invalid_argument("lane_mask: unknown dtype " + std::to_string(static_cast<uint32_t>(d)));
}

namespace {
// One lane's decode and encode with the dtype a constant: the casts below pick the pair once per
// PWORD, not once per lane (the DPU's POP and PUSH casts run on every element it streams).
template <Dtype D>
double decode_as(uint32_t raw) {
  if constexpr (D == Dtype::INT8) return static_cast<double>(static_cast<int8_t>(static_cast<uint8_t>(raw)));
  if constexpr (D == Dtype::INT32) return static_cast<double>(static_cast<int32_t>(raw));
  if constexpr (D == Dtype::FLOAT16) return to_double(Float16{static_cast<uint16_t>(raw)});
  if constexpr (D == Dtype::FLOAT32) return static_cast<double>(std::bit_cast<float>(raw));
  if constexpr (D == Dtype::FLOAT18) return to_double(Float18::from_bits(raw));
}
template <Dtype D>
uint32_t encode_as(double v) {
  if constexpr (D == Dtype::INT8) return static_cast<uint8_t>(saturate_to_int8(v));
  if constexpr (D == Dtype::INT32) return static_cast<uint32_t>(saturate_to_int32(v));
  if constexpr (D == Dtype::FLOAT16) return f16_from_double(v).bits;
  if constexpr (D == Dtype::FLOAT32) {
    if (std::isnan(v)) return 0x7FC00000u;
    return std::bit_cast<uint32_t>(static_cast<float>(v));  // IEEE RNE (default rounding mode)
  }
  if constexpr (D == Dtype::FLOAT18) return f18_from_double(v).bits();
}
// f(std::integral_constant<Dtype, d>{}); `what` names the caller for an unknown d.
template <class F>
decltype(auto) with_dtype(Dtype d, const char* what, F&& f) {
  switch (d) {
    case Dtype::INT8: return f(std::integral_constant<Dtype, Dtype::INT8>{});
    case Dtype::INT32: return f(std::integral_constant<Dtype, Dtype::INT32>{});
    case Dtype::FLOAT16: return f(std::integral_constant<Dtype, Dtype::FLOAT16>{});
    case Dtype::FLOAT32: return f(std::integral_constant<Dtype, Dtype::FLOAT32>{});
    case Dtype::FLOAT18: return f(std::integral_constant<Dtype, Dtype::FLOAT18>{});
  }
  throw std::invalid_argument(std::string(what) + ": unknown dtype " + std::to_string(static_cast<uint32_t>(d)));
}
}  // namespace

double decode_lane(Dtype d, uint32_t raw) {
  return with_dtype(d, "decode_lane", [raw](auto c) { return decode_as<c.value>(raw); });
}

uint32_t encode_lane(Dtype d, double v) {
  return with_dtype(d, "encode_lane", [v](auto c) { return encode_as<c.value>(v); });
}

namespace {
using Lanes = std::array<uint32_t, kLanes>;
// Lanes i = f(i). An AnyPword built as AnyPword{d, lanes_from(f)} is written once: `AnyPword r;`
// zero-fills its 256 bytes first (a `rep stos`, slow to start on some x86 cores: 5 % of a
// matmul's TLM time in load_element alone).
template <class F>
Lanes lanes_from(F&& f) {
  Lanes r;  // every lane written below
  for (std::size_t i = 0; i < kLanes; ++i) r[i] = f(i);
  return r;
}
template <class T, class F>
AnyPword make(Dtype d, const Pword<T>& p, F&& raw) {
  return AnyPword{d, lanes_from([&](std::size_t i) { return raw(p[i]); })};
}
void expect(const AnyPword& p, Dtype d) {
  if (p.dtype != d) {
    throw std::invalid_argument(std::string("AnyPword holds ") + std::string(spec::to_string(p.dtype)) + ", not " +
                                std::string(spec::to_string(d)));
  }
}
}  // namespace

AnyPword AnyPword::of(const PwordI8& p) {
  return make(Dtype::INT8, p, [](int8_t v) { return uint32_t{static_cast<uint8_t>(v)}; });
}
AnyPword AnyPword::of(const PwordI32& p) {
  return make(Dtype::INT32, p, [](int32_t v) { return static_cast<uint32_t>(v); });
}
AnyPword AnyPword::of(const PwordF16& p) {
  return make(Dtype::FLOAT16, p, [](Float16 v) { return uint32_t{v.bits}; });
}
AnyPword AnyPword::of(const PwordF32& p) {
  return make(Dtype::FLOAT32, p, [](float v) { return std::bit_cast<uint32_t>(v); });
}
AnyPword AnyPword::of(const PwordF18& p) {
  return make(Dtype::FLOAT18, p, [](Float18 v) { return v.bits(); });
}
AnyPword AnyPword::splat(Dtype d, uint32_t raw) {
  const uint32_t v = raw & lane_mask(d);
  return AnyPword{d, lanes_from([v](std::size_t) { return v; })};
}

PwordI8 AnyPword::as_i8() const {
  expect(*this, Dtype::INT8);
  PwordI8 r;
  for (std::size_t i = 0; i < kLanes; ++i) r[i] = static_cast<int8_t>(static_cast<uint8_t>(lanes[i]));
  return r;
}
PwordI32 AnyPword::as_i32() const {
  expect(*this, Dtype::INT32);
  PwordI32 r;
  for (std::size_t i = 0; i < kLanes; ++i) r[i] = static_cast<int32_t>(lanes[i]);
  return r;
}
PwordF16 AnyPword::as_f16() const {
  expect(*this, Dtype::FLOAT16);
  PwordF16 r;
  for (std::size_t i = 0; i < kLanes; ++i) r[i] = Float16{static_cast<uint16_t>(lanes[i])};
  return r;
}
PwordF32 AnyPword::as_f32() const {
  expect(*this, Dtype::FLOAT32);
  PwordF32 r;
  for (std::size_t i = 0; i < kLanes; ++i) r[i] = std::bit_cast<float>(lanes[i]);
  return r;
}
PwordF18 AnyPword::as_f18() const {
  expect(*this, Dtype::FLOAT18);
  PwordF18 r;
  for (std::size_t i = 0; i < kLanes; ++i) r[i] = Float18::from_bits(lanes[i]);
  return r;
}
double AnyPword::value(std::size_t n) const { return decode_lane(dtype, lanes.at(n)); }

AnyPword convert(const AnyPword& p, Dtype to) {
  if (!is_valid_dtype(to)) bad_dtype(to, "convert");
  if (p.dtype == to) return p;
  // Between the integer dtypes the double round trip is a clip (int32 -> int8) or a sign
  // extension (int8 -> int32); done in integers it vectorises (the ODR casts every matmul output
  // here: through doubles it was 13 % of a matmul's TLM time). Equal to the generic path for
  // every value (tests/num AnyPword.IntegerCastsEqualTheDoubleRoundTrip).
  if (p.dtype == Dtype::INT32 && to == Dtype::INT8)
    return AnyPword{to, lanes_from([&](std::size_t i) {
                      return uint32_t{static_cast<uint8_t>(std::clamp(static_cast<int32_t>(p.lanes[i]), -128, 127))};
                    })};
  if (p.dtype == Dtype::INT8 && to == Dtype::INT32)
    return AnyPword{to, lanes_from([&](std::size_t i) {
                      return static_cast<uint32_t>(int32_t{static_cast<int8_t>(static_cast<uint8_t>(p.lanes[i]))});
                    })};
  return with_dtype(p.dtype, "decode_lane", [&](auto from) {
    return with_dtype(to, "encode_lane", [&](auto into) {
      return AnyPword{
          to, lanes_from([&](std::size_t i) { return encode_as<into.value>(decode_as<from.value>(p.lanes[i])); })};
    });
  });
}

PwordF18 to_f18(const AnyPword& p) {
  if (p.dtype == Dtype::INT8 || p.dtype == Dtype::INT32) {
    // Integers below 2^24 in magnitude are float32s, so their float18 is f18_from_f32's (one
    // rounding, branch-free: the DPU's POP of every MVM output); larger int32s take the double.
    std::array<int32_t, kLanes> v;
    if (p.dtype == Dtype::INT8)
      for (std::size_t i = 0; i < kLanes; ++i) v[i] = static_cast<int8_t>(static_cast<uint8_t>(p.lanes[i]));
    else
      for (std::size_t i = 0; i < kLanes; ++i) v[i] = static_cast<int32_t>(p.lanes[i]);
    bool small = true;
    for (int32_t x : v) small = small && x > -(1 << 24) && x < (1 << 24);
    if (small) {
      PwordF18 r;
      for (std::size_t i = 0; i < kLanes; ++i) r[i] = detail::f18_from_f32(static_cast<float>(v[i]));
      return r;
    }
  }
  return with_dtype(p.dtype, "decode_lane", [&](auto from) {
    PwordF18 r;
    for (std::size_t i = 0; i < kLanes; ++i) r[i] = f18_from_double(decode_as<from.value>(p.lanes[i]));
    return r;
  });
}

AnyPword from_f18(const PwordF18& p, Dtype to) { return convert(AnyPword::of(p), to); }

namespace {
// Little-endian lanes of `LB` bytes each (raw bits, zero-extended into the 32-bit lane).
template <std::size_t LB>
Lanes load_lanes(const uint8_t* src) {
  return lanes_from([src](std::size_t i) {
    uint32_t v = 0;
    for (std::size_t b = 0; b < LB; ++b) v |= uint32_t{src[i * LB + b]} << (8 * b);
    return v;
  });
}
template <std::size_t LB>
void store_lanes(const std::array<uint32_t, kLanes>& lanes, uint8_t* dst) {
  for (std::size_t i = 0; i < kLanes; ++i) {
    for (std::size_t b = 0; b < LB; ++b) dst[i * LB + b] = static_cast<uint8_t>(lanes[i] >> (8 * b));
  }
}
}  // namespace

AnyPword load_element(Dtype d, std::span<const uint8_t> bytes) {
  const std::size_t lb = lane_bytes(d);
  if (bytes.size() != lb * kLanes) {
    throw std::invalid_argument("load_element: " + std::to_string(bytes.size()) + " bytes for a " +
                                std::string(spec::to_string(d)) + " PWORD of " + std::to_string(lb * kLanes));
  }
  // A loop per lane width with the width a constant: each unrolls and vectorises (the TLM loads
  // every streamed element through here; a run-time width cost ~1,100 instructions per PWORD).
  switch (lb) {
    case 1: return AnyPword{d, load_lanes<1>(bytes.data())};
    case 2: return AnyPword{d, load_lanes<2>(bytes.data())};
    default: return AnyPword{d, load_lanes<4>(bytes.data())};  // lane_bytes is 1, 2 or 4
  }
}

void store_element(const AnyPword& p, std::span<uint8_t> bytes) {
  const std::size_t lb = lane_bytes(p.dtype);
  if (bytes.size() != lb * kLanes) {
    throw std::invalid_argument("store_element: " + std::to_string(bytes.size()) + " bytes for a PWORD of " +
                                std::to_string(lb * kLanes));
  }
  switch (lb) {
    case 1: store_lanes<1>(p.lanes, bytes.data()); break;
    case 2: store_lanes<2>(p.lanes, bytes.data()); break;
    default: store_lanes<4>(p.lanes, bytes.data()); break;  // lane_bytes is 1, 2 or 4
  }
}

}  // namespace axcore::num
