#include "axcore/num/float16.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include "axcore/num/int_cast.hpp"

namespace axcore::num {

Float16 f16_from_double(double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return Float16{Float16::kCanonicalNan};
  const double a = std::fabs(v);
  if (std::isinf(a)) return Float16{static_cast<uint16_t>(sign | 0x7C00)};
  if (a == 0.0) return Float16{sign};
  int e = 0;
  (void)std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1): the leading bit has weight 2^(e-1)
  // Quantum of binary16 at this magnitude: 2^(E-10) for normals (E >= -14), 2^-24 below.
  const int q = std::max(e - 1, -14) - 10;
  const double n = round_half_even(std::ldexp(a, -q));  // exact scaling, one rounding
  const double r = std::ldexp(n, q);
  if (r >= 65536.0) return Float16{static_cast<uint16_t>(sign | 0x7C00)};
  if (r < std::ldexp(1.0, -14)) return Float16{static_cast<uint16_t>(sign | static_cast<uint16_t>(n))};
  int re = 0;
  (void)std::frexp(r, &re);
  const int exp = re - 1;  // r = 1.f * 2^exp
  const auto frac = static_cast<uint16_t>(std::ldexp(r, 10 - exp) - 1024.0);
  return Float16{static_cast<uint16_t>(sign | static_cast<uint16_t>((exp + 15) << 10) | frac)};
}

Float16 f16_from_float(float v) { return f16_from_double(static_cast<double>(v)); }

double to_double(Float16 v) {
  const double sign = (v.bits & 0x8000) != 0 ? -1.0 : 1.0;
  const int e = (v.bits >> 10) & 0x1F;
  const int f = v.bits & 0x3FF;
  if (e == 0x1F) {
    return f != 0 ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  }
  if (e == 0) return sign * std::ldexp(static_cast<double>(f), -24);
  return sign * std::ldexp(static_cast<double>(1024 + f), e - 25);
}

float to_float(Float16 v) { return static_cast<float>(to_double(v)); }

}  // namespace axcore::num
