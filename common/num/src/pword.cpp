#include "axcore/num/pword.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

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

double decode_lane(Dtype d, uint32_t raw) {
  switch (d) {
    case Dtype::INT8: return static_cast<double>(static_cast<int8_t>(static_cast<uint8_t>(raw)));
    case Dtype::INT32: return static_cast<double>(static_cast<int32_t>(raw));
    case Dtype::FLOAT16: return to_double(Float16{static_cast<uint16_t>(raw)});
    case Dtype::FLOAT32: return static_cast<double>(std::bit_cast<float>(raw));
    case Dtype::FLOAT18: return to_double(Float18::from_bits(raw));
  }
  throw std::invalid_argument("decode_lane: unknown dtype " + std::to_string(static_cast<uint32_t>(d)));
}

uint32_t encode_lane(Dtype d, double v) {
  switch (d) {
    case Dtype::INT8: return static_cast<uint8_t>(saturate_to_int8(v));
    case Dtype::INT32: return static_cast<uint32_t>(saturate_to_int32(v));
    case Dtype::FLOAT16: return f16_from_double(v).bits;
    case Dtype::FLOAT32:
      if (std::isnan(v)) return 0x7FC00000u;
      return std::bit_cast<uint32_t>(static_cast<float>(v));  // IEEE RNE (default rounding mode)
    case Dtype::FLOAT18: return f18_from_double(v).bits();
  }
  throw std::invalid_argument("encode_lane: unknown dtype " + std::to_string(static_cast<uint32_t>(d)));
}

namespace {
template <class T, class F>
AnyPword make(Dtype d, const Pword<T>& p, F&& raw) {
  AnyPword r;
  r.dtype = d;
  for (std::size_t i = 0; i < kLanes; ++i) r.lanes[i] = raw(p[i]);
  return r;
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
  AnyPword r;
  r.dtype = d;
  r.lanes.fill(raw & lane_mask(d));
  return r;
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
  AnyPword r;
  r.dtype = to;
  for (std::size_t i = 0; i < kLanes; ++i) r.lanes[i] = encode_lane(to, decode_lane(p.dtype, p.lanes[i]));
  return r;
}

PwordF18 to_f18(const AnyPword& p) {
  PwordF18 r;
  for (std::size_t i = 0; i < kLanes; ++i) r[i] = f18_from_double(decode_lane(p.dtype, p.lanes[i]));
  return r;
}

AnyPword from_f18(const PwordF18& p, Dtype to) { return convert(AnyPword::of(p), to); }

namespace {
// Little-endian lanes of `LB` bytes each (raw bits, zero-extended into the 32-bit lane).
template <std::size_t LB>
void load_lanes(const uint8_t* src, std::array<uint32_t, kLanes>& lanes) {
  for (std::size_t i = 0; i < kLanes; ++i) {
    uint32_t v = 0;
    for (std::size_t b = 0; b < LB; ++b) v |= uint32_t{src[i * LB + b]} << (8 * b);
    lanes[i] = v;
  }
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
  AnyPword r;
  r.dtype = d;
  // A loop per lane width with the width a constant: each unrolls and vectorises (the TLM loads
  // every streamed element through here; a run-time width cost ~1,100 instructions per PWORD).
  switch (lb) {
    case 1: load_lanes<1>(bytes.data(), r.lanes); break;
    case 2: load_lanes<2>(bytes.data(), r.lanes); break;
    default: load_lanes<4>(bytes.data(), r.lanes); break;  // lane_bytes is 1, 2 or 4
  }
  return r;
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
