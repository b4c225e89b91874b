#include "axcore/num/float18.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include "axcore/num/int_cast.hpp"

namespace axcore::num {

Float18 f18_from_float(float v) { return f18_from_double(static_cast<double>(v)); }
Float18 f18_from_int32(int32_t v) { return f18_from_double(static_cast<double>(v)); }
Float18 f18_from_int8(int8_t v) { return f18_from_double(static_cast<double>(v)); }
Float18 f18_from_f16(Float16 v) { return f18_from_double(to_double(v)); }
Float16 to_f16(Float18 v) { return f16_from_double(to_double(v)); }

float to_float(Float18 v) { return static_cast<float>(to_double(v)); }
int32_t to_int32(Float18 v) { return saturate_to_int32(to_double(v)); }
int8_t to_int8(Float18 v) { return saturate_to_int8(to_double(v)); }

Float18 fma(Float18 a, Float18 b, Float18 c) { return add(mul(a, b), c); }

Float18 neg(Float18 a) {
  a = a.canonical();
  if (a.is_nan()) return a;
  return Float18::from_bits(a.bits() ^ Float18::kSignBit);
}

float rf18(float v) { return to_float(f18_from_float(v)); }

}  // namespace axcore::num
