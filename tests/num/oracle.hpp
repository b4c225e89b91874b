// An independent float18 oracle for the tests: exact values as big integers times a power of
// two, and a hand-rolled round-to-nearest-even. It shares no code with axcore_num (it decodes
// the bit fields itself and never calls the library), so the tests compare two implementations.
#pragma once

#include <array>
#include <cstdint>

namespace axcore::num::oracle {

// An unsigned 384-bit integer, little-endian 64-bit limbs.
struct Big {
  std::array<uint64_t, 6> w{};
  static Big of(uint64_t v) {
    Big b;
    b.w[0] = v;
    return b;
  }
  bool is_zero() const;
  int top_bit() const;  // index of the highest set bit, -1 for zero
  bool bit(int i) const;
  Big shl(int n) const;
  // True if any bit below position n is set.
  bool any_below(int n) const;
  Big shr(int n) const;
  friend Big operator+(const Big& a, const Big& b);
  friend Big operator-(const Big& a, const Big& b);  // requires a >= b
  friend bool operator<(const Big& a, const Big& b);
  friend bool operator==(const Big& a, const Big& b) = default;
};

// An exact finite value (-1)^neg * mag * 2^exp.
struct Exact {
  bool neg = false;
  Big mag;
  int exp = 0;
};

// Decoded float18 operand: kind and exact value (subnormal encodings read as zero).
enum class Kind { Zero, Finite, Inf, NaN };
struct F18 {
  Kind kind;
  bool neg;
  Exact value;  // valid for Zero/Finite
};
F18 decode(uint32_t bits);

// Correctly rounded float18 encoding of an exact nonzero or zero value: RNE to 11 significant
// bits with unbounded exponent, then overflow -> inf, below 2^-62 -> signed zero.
// `zero_neg` is the sign to give an exact zero result.
uint32_t round_exact(const Exact& v, bool zero_neg);

uint32_t add(uint32_t a, uint32_t b);
uint32_t sub(uint32_t a, uint32_t b);
uint32_t mul(uint32_t a, uint32_t b);
uint32_t fma2(uint32_t a, uint32_t b, uint32_t c);  // rounded product, then rounded sum
uint32_t min(uint32_t a, uint32_t b);
uint32_t max(uint32_t a, uint32_t b);
uint32_t prelu(uint32_t a, uint32_t b);

// Correctly rounded float18 of a double, by the same exact path (double -> Exact -> round).
uint32_t from_double(double v);

inline constexpr uint32_t kNan = 0x1FE00;

}  // namespace axcore::num::oracle
