#include "oracle.hpp"

#include <bit>
#include <cstring>

namespace axcore::num::oracle {

bool Big::is_zero() const {
  for (uint64_t x : w)
    if (x != 0) return false;
  return true;
}
int Big::top_bit() const {
  for (int i = 5; i >= 0; --i) {
    if (w[static_cast<std::size_t>(i)] != 0) return i * 64 + 63 - std::countl_zero(w[static_cast<std::size_t>(i)]);
  }
  return -1;
}
bool Big::bit(int i) const {
  if (i < 0 || i >= 384) return false;
  return ((w[static_cast<std::size_t>(i / 64)] >> (i % 64)) & 1) != 0;
}
Big Big::shl(int n) const {
  Big r;
  const int limbs = n / 64, bits = n % 64;
  for (int i = 5; i >= limbs; --i) {
    const auto dst = static_cast<std::size_t>(i), src = static_cast<std::size_t>(i - limbs);
    r.w[dst] = w[src] << bits;
    if (bits != 0 && src > 0) r.w[dst] |= w[src - 1] >> (64 - bits);
  }
  return r;
}
Big Big::shr(int n) const {
  Big r;
  const int limbs = n / 64, bits = n % 64;
  for (int i = 0; i + limbs < 6; ++i) {
    const auto dst = static_cast<std::size_t>(i), src = static_cast<std::size_t>(i + limbs);
    r.w[dst] = w[src] >> bits;
    if (bits != 0 && src + 1 < 6) r.w[dst] |= w[src + 1] << (64 - bits);
  }
  return r;
}
bool Big::any_below(int n) const {
  if (n <= 0) return false;
  if (n >= 384) return !is_zero();
  return !shl(384 - n).is_zero();
}
Big operator+(const Big& a, const Big& b) {
  Big r;
  uint64_t carry = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    const uint64_t s1 = a.w[i] + b.w[i];
    const uint64_t c1 = s1 < a.w[i] ? 1 : 0;
    r.w[i] = s1 + carry;
    carry = c1 + (r.w[i] < s1 ? 1 : 0);
  }
  return r;
}
Big operator-(const Big& a, const Big& b) {
  Big r;
  uint64_t borrow = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    const uint64_t d1 = a.w[i] - b.w[i];
    const uint64_t b1 = a.w[i] < b.w[i] ? 1 : 0;
    r.w[i] = d1 - borrow;
    borrow = b1 + (d1 < borrow ? 1 : 0);
  }
  return r;
}
bool operator<(const Big& a, const Big& b) {
  for (int i = 5; i >= 0; --i) {
    const auto k = static_cast<std::size_t>(i);
    if (a.w[k] != b.w[k]) return a.w[k] < b.w[k];
  }
  return false;
}

F18 decode(uint32_t bits) {
  const bool neg = ((bits >> 17) & 1) != 0;
  const uint32_t e = (bits >> 10) & 0x7F;
  const uint32_t f = bits & 0x3FF;
  if (e == 0x7F) return {f != 0 ? Kind::NaN : Kind::Inf, neg, {}};
  if (e == 0) return {Kind::Zero, neg, {neg, Big{}, 0}};
  // (1024 + f) * 2^(e - 63 - 10)
  return {Kind::Finite, neg, {neg, Big::of(1024 + f), static_cast<int>(e) - 73}};
}

uint32_t round_exact(const Exact& v, bool zero_neg) {
  if (v.mag.is_zero()) return zero_neg ? 0x20000u : 0u;
  const uint32_t sign = v.neg ? 0x20000u : 0u;
  const int h = v.mag.top_bit();
  uint64_t keep = 0;
  int exp = h + v.exp;  // value = 1.xxx * 2^exp
  if (h >= 10) {
    const int drop = h - 10;
    keep = v.mag.shr(drop).w[0];
    const bool half = v.mag.bit(drop - 1);
    const bool sticky = v.mag.any_below(drop - 1);
    if (half && (sticky || (keep & 1) != 0)) ++keep;
  } else {
    keep = v.mag.shl(10 - h).w[0];
  }
  if (keep == 2048) {
    keep = 1024;
    ++exp;
  }
  if (exp > 63) return sign | 0x1FC00u;
  if (exp < -62) return sign;
  return sign | static_cast<uint32_t>(exp + 63) << 10 | static_cast<uint32_t>(keep - 1024);
}

namespace {
// Exact sum of two exact values.
Exact exact_add(const Exact& a, const Exact& b) {
  if (a.mag.is_zero()) return b;
  if (b.mag.is_zero()) return a;
  const int e = a.exp < b.exp ? a.exp : b.exp;
  const Big ma = a.mag.shl(a.exp - e), mb = b.mag.shl(b.exp - e);
  if (a.neg == b.neg) return {a.neg, ma + mb, e};
  if (mb < ma) return {a.neg, ma - mb, e};
  return {b.neg, mb - ma, e};
}
}  // namespace

uint32_t add(uint32_t a, uint32_t b) {
  const F18 x = decode(a), y = decode(b);
  if (x.kind == Kind::NaN || y.kind == Kind::NaN) return kNan;
  if (x.kind == Kind::Inf && y.kind == Kind::Inf) return x.neg == y.neg ? (a & 0x3FC00u) : kNan;
  if (x.kind == Kind::Inf) return x.neg ? 0x3FC00u : 0x1FC00u;
  if (y.kind == Kind::Inf) return y.neg ? 0x3FC00u : 0x1FC00u;
  const Exact s = exact_add(x.value, y.value);
  // IEEE RNE: an exact zero sum is -0 only when both addends are negative (zeros included).
  return round_exact(s, x.neg && y.neg);
}

uint32_t sub(uint32_t a, uint32_t b) { return add(a, b ^ 0x20000u); }

uint32_t mul(uint32_t a, uint32_t b) {
  const F18 x = decode(a), y = decode(b);
  const bool neg = x.neg != y.neg;
  if (x.kind == Kind::NaN || y.kind == Kind::NaN) return kNan;
  if ((x.kind == Kind::Inf && y.kind == Kind::Zero) || (x.kind == Kind::Zero && y.kind == Kind::Inf)) return kNan;
  if (x.kind == Kind::Inf || y.kind == Kind::Inf) return neg ? 0x3FC00u : 0x1FC00u;
  if (x.kind == Kind::Zero || y.kind == Kind::Zero) return neg ? 0x20000u : 0u;
  Exact p{neg, Big::of(x.value.mag.w[0] * y.value.mag.w[0]), x.value.exp + y.value.exp};
  return round_exact(p, neg);
}

uint32_t fma2(uint32_t a, uint32_t b, uint32_t c) { return add(mul(a, b), c); }

namespace {
// Order key of a non-NaN float18 on the flushed value: negative values below, -0 below +0.
int64_t order(uint32_t bits) {
  const F18 d = decode(bits);
  int64_t mag = 0;
  if (d.kind == Kind::Inf)
    mag = int64_t{1} << 40;
  else if (d.kind == Kind::Finite)
    mag = (int64_t{(bits >> 10) & 0x7F} << 10 | (bits & 0x3FF)) + 1;
  // zero: mag 0; -0 sits just below +0
  return d.neg ? -mag * 2 - 1 : mag * 2;
}
uint32_t canon(uint32_t bits) {
  const F18 d = decode(bits);
  if (d.kind == Kind::NaN) return kNan;
  if (d.kind == Kind::Zero) return bits & 0x20000u;
  return bits;
}
}  // namespace

uint32_t min(uint32_t a, uint32_t b) {
  if (decode(a).kind == Kind::NaN || decode(b).kind == Kind::NaN) return kNan;
  return order(a) <= order(b) ? canon(a) : canon(b);
}
uint32_t max(uint32_t a, uint32_t b) {
  if (decode(a).kind == Kind::NaN || decode(b).kind == Kind::NaN) return kNan;
  return order(a) >= order(b) ? canon(a) : canon(b);
}
uint32_t prelu(uint32_t a, uint32_t b) {
  const F18 x = decode(a);
  if (x.kind == Kind::NaN) return kNan;
  if (!x.neg || x.kind == Kind::Zero) return canon(a);
  return mul(a, b);
}

uint32_t from_double(double v) {
  uint64_t u = 0;
  std::memcpy(&u, &v, sizeof u);
  const bool neg = (u >> 63) != 0;
  const int e = static_cast<int>((u >> 52) & 0x7FF);
  const uint64_t f = u & ((uint64_t{1} << 52) - 1);
  if (e == 0x7FF) return f != 0 ? kNan : (neg ? 0x3FC00u : 0x1FC00u);
  Exact x{neg, Big::of(e == 0 ? f : (f | uint64_t{1} << 52)), (e == 0 ? 1 : e) - 1075};
  return round_exact(x, neg);
}

}  // namespace axcore::num::oracle
