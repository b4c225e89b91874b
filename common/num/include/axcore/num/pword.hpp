// PWORD: 64 lanes, always. Typed PWORDs (Pword<T>) for computing, and AnyPword, a PWORD of
// any dtype as raw lane encodings, for streams and memories. Casts between dtypes are exact
// where the target holds the value and rounded once (RNE) otherwise; see docs/numerics.md.
#pragma once

#include <array>
#include <axcore/spec.hpp>
#include <cstddef>
#include <cstdint>
#include <span>

#include "axcore/num/float16.hpp"
#include "axcore/num/float18.hpp"

namespace axcore::num {

inline constexpr std::size_t kLanes = spec::param::pword_lanes;

template <class T>
using Pword = std::array<T, kLanes>;
using PwordI8 = Pword<int8_t>;
using PwordI32 = Pword<int32_t>;
using PwordF16 = Pword<Float16>;
using PwordF32 = Pword<float>;
using PwordF18 = Pword<Float18>;

// True for the dtypes a stream or an L1 element may have (not FLOAT18, not out-of-enum values).
bool is_memory_dtype(spec::Dtype d);
bool is_valid_dtype(spec::Dtype d);
// Bytes of one lane / one PWORD in memory: int8 1/64, float16 2/128, int32 and float32 4/256.
// Throws std::invalid_argument for FLOAT18 (it exists only inside the DPU) and unknown values.
std::size_t lane_bytes(spec::Dtype d);
std::size_t element_bytes(spec::Dtype d);
// L1 rows (64 bytes) an element spans: 1, 2 or 4.
std::size_t element_rows(spec::Dtype d);

// A PWORD of any dtype. Lane n holds the encoding of its value in the low bits: int8 8 bits,
// float16 16, float18 18, int32 and float32 32. Bits above the width are zero.
struct AnyPword {
  spec::Dtype dtype = spec::Dtype::INT8;
  std::array<uint32_t, kLanes> lanes{};

  static AnyPword of(const PwordI8& p);
  static AnyPword of(const PwordI32& p);
  static AnyPword of(const PwordF16& p);
  static AnyPword of(const PwordF32& p);
  static AnyPword of(const PwordF18& p);
  // Every lane = `raw` (masked to the dtype's width): the IFD pad value, a DMA pad word.
  static AnyPword splat(spec::Dtype d, uint32_t raw);

  // Typed views; throw std::invalid_argument if dtype differs.
  PwordI8 as_i8() const;
  PwordI32 as_i32() const;
  PwordF16 as_f16() const;
  PwordF32 as_f32() const;
  PwordF18 as_f18() const;
  // The exact value of lane n (every dtype's values are doubles).
  double value(std::size_t n) const;

  friend bool operator==(const AnyPword&, const AnyPword&) = default;
};

// Raw encoding mask of a lane of dtype d.
uint32_t lane_mask(spec::Dtype d);
// Exact value of one lane encoding.
double decode_lane(spec::Dtype d, uint32_t raw);
// The encoding in dtype d of the correctly rounded v: floats RNE (float18 with FTZ, float16 with
// subnormals, float32 IEEE), overflow to +-inf, NaN canonical; int8/int32 RNE then saturate,
// NaN -> 0.
uint32_t encode_lane(spec::Dtype d, double v);

// Direct cast of every lane to `to` (one rounding). This is the ODR cast and every stream cast.
AnyPword convert(const AnyPword& p, spec::Dtype to);
// The DPU's POP cast (in dtype -> float18) and PUSH cast (float18 -> out dtype).
PwordF18 to_f18(const AnyPword& p);
AnyPword from_f18(const PwordF18& p, spec::Dtype to);

// Little-endian element image: lane n at bytes [n * lane_bytes, (n + 1) * lane_bytes).
// `bytes` must hold exactly element_bytes(d) bytes (std::invalid_argument otherwise).
AnyPword load_element(spec::Dtype d, std::span<const uint8_t> bytes);
void store_element(const AnyPword& p, std::span<uint8_t> bytes);

}  // namespace axcore::num
