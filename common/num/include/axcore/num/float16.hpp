// IEEE 754 binary16 (float16), held as its 16-bit encoding. Conversions into it round to
// nearest, ties to even, with gradual underflow (binary16 subnormals are produced and read as
// IEEE defines them; only float18 flushes), overflow to +-inf and the quiet NaN 0x7E00.
#pragma once

#include <cstdint>

namespace axcore::num {

struct Float16 {
  static constexpr uint16_t kCanonicalNan = 0x7E00;
  uint16_t bits = 0;

  static constexpr Float16 from_bits(uint16_t b) { return Float16{b}; }
  constexpr bool is_nan() const { return (bits & 0x7C00) == 0x7C00 && (bits & 0x3FF) != 0; }
  friend constexpr bool operator==(Float16 a, Float16 b) { return a.bits == b.bits; }
};

Float16 f16_from_double(double v);  // one rounding, RNE, subnormals kept
Float16 f16_from_float(float v);
double to_double(Float16 v);  // exact
float to_float(Float16 v);    // exact

}  // namespace axcore::num
