// Every float18 operation against the correctly rounded exact result (oracle.cpp), on 10^6
// random operand pairs per op plus the edge cases.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <vector>

#include "axcore/num/float18.hpp"
#include "oracle.hpp"

namespace axcore::num {
namespace {

constexpr int kPairs = 1'000'000;

// Operands: half uniformly random encodings (every kind, any exponent), half pairs with nearby
// exponents so that sums cancel and round in every way.
struct OperandGen {
  std::mt19937 rng{2024};
  std::pair<uint32_t, uint32_t> next(int i) {
    const uint32_t a = rng() & 0x3FFFF;
    uint32_t b = rng() & 0x3FFFF;
    if (i % 2 == 1) {
      const int ea = static_cast<int>((a >> 10) & 0x7F);
      int eb = ea + static_cast<int>(rng() % 25) - 12;
      eb = eb < 1 ? 1 : (eb > 126 ? 126 : eb);
      b = (b & 0x203FF) | static_cast<uint32_t>(eb) << 10;
    }
    return {a, b};
  }
};

const std::vector<uint32_t>& edges() {
  static const std::vector<uint32_t> v = {
      0x00000, 0x20000,           // +-0
      0x00001, 0x203FF,           // subnormal encodings (read as zero)
      0x00400, 0x20400, 0x00401,  // smallest normals
      0x1FBFF, 0x3FBFF, 0x1FBFE,  // largest finite
      0x1FC00, 0x3FC00,           // +-inf
      0x1FE00, 0x3FE01, 0x1FC01,  // NaNs
      0x0FC00, 0x2FC00, 0x0FC01,  // +-1, 1 + ulp
      0x10000, 0x0F800, 0x3F000,  // 2, 0.5, large negative
      0x01000, 0x1F000,           // small, large
  };
  return v;
}

using Op2 = std::function<Float18(Float18, Float18)>;
using Ref2 = std::function<uint32_t(uint32_t, uint32_t)>;

void check_binary(const char* name, const Op2& op, const Ref2& ref) {
  OperandGen gen;
  for (int i = 0; i < kPairs; ++i) {
    const auto [a, b] = gen.next(i);
    const uint32_t got = op(Float18::from_bits(a), Float18::from_bits(b)).bits();
    ASSERT_EQ(got, ref(a, b)) << name << std::hex << " a=0x" << a << " b=0x" << b;
  }
  for (uint32_t a : edges()) {
    for (uint32_t b : edges()) {
      const uint32_t got = op(Float18::from_bits(a), Float18::from_bits(b)).bits();
      ASSERT_EQ(got, ref(a, b)) << name << std::hex << " a=0x" << a << " b=0x" << b;
    }
  }
}

TEST(Float18Ops, Add) { check_binary("add", add, oracle::add); }
TEST(Float18Ops, Sub) { check_binary("sub", sub, oracle::sub); }
TEST(Float18Ops, Mul) { check_binary("mul", mul, oracle::mul); }
TEST(Float18Ops, Min) {
  check_binary(
      "min", [](Float18 a, Float18 b) { return min(a, b); }, oracle::min);
}
TEST(Float18Ops, Max) {
  check_binary(
      "max", [](Float18 a, Float18 b) { return max(a, b); }, oracle::max);
}
TEST(Float18Ops, Prelu) { check_binary("prelu", prelu, oracle::prelu); }

TEST(Float18Ops, FmaRoundsTwice) {
  OperandGen gen;
  std::mt19937 rng(5);
  for (int i = 0; i < kPairs; ++i) {
    const auto [a, b] = gen.next(i);
    // c near the product's magnitude half of the time, so the second rounding matters.
    uint32_t c = rng() & 0x3FFFF;
    if (i % 2 == 1) {
      const int e = static_cast<int>(((a >> 10) & 0x7F) + ((b >> 10) & 0x7F)) - 63 + static_cast<int>(rng() % 9) - 4;
      c = (c & 0x203FF) | static_cast<uint32_t>(e < 1 ? 1 : (e > 126 ? 126 : e)) << 10;
    }
    const uint32_t got = fma(Float18::from_bits(a), Float18::from_bits(b), Float18::from_bits(c)).bits();
    ASSERT_EQ(got, oracle::fma2(a, b, c)) << std::hex << a << " " << b << " " << c;
  }
  for (uint32_t a : edges())
    for (uint32_t b : edges())
      for (uint32_t c : edges())
        ASSERT_EQ(fma(Float18::from_bits(a), Float18::from_bits(b), Float18::from_bits(c)).bits(),
                  oracle::fma2(a, b, c));
}

// NaN / inf / flush rules exhaustively: every one of the 2^18 encodings against every special
// operand (both zeros, subnormal encodings, the smallest normals, the largest finite, +-inf and
// NaN encodings), in both operand orders, for every binary op.
TEST(Float18Ops, EveryEncodingAgainstEverySpecial) {
  const std::vector<uint32_t> specials = {0x00000, 0x20000, 0x00001, 0x203FF, 0x00400, 0x20400,
                                          0x1FBFF, 0x3FBFF, 0x1FC00, 0x3FC00, 0x1FE00, 0x3FC01};
  struct Named {
    const char* name;
    Op2 op;
    Ref2 ref;
  };
  const std::vector<Named> ops = {
      {"add", add, oracle::add},
      {"sub", sub, oracle::sub},
      {"mul", mul, oracle::mul},
      {"min", [](Float18 a, Float18 b) { return min(a, b); }, oracle::min},
      {"max", [](Float18 a, Float18 b) { return max(a, b); }, oracle::max},
      {"prelu", prelu, oracle::prelu},
  };
  for (const Named& o : ops) {
    for (uint32_t a = 0; a < (1u << 18); ++a) {
      for (uint32_t b : specials) {
        ASSERT_EQ(o.op(Float18::from_bits(a), Float18::from_bits(b)).bits(), o.ref(a, b))
            << o.name << std::hex << " a=0x" << a << " b=0x" << b;
        ASSERT_EQ(o.op(Float18::from_bits(b), Float18::from_bits(a)).bits(), o.ref(b, a))
            << o.name << std::hex << " a=0x" << b << " b=0x" << a;
      }
    }
  }
}

TEST(Float18Ops, FmaIsNotFused) {
  // a = 1 + 2^-10, a*a = 1 + 2^-9 + 2^-20: the product rounds to 1 + 2^-9 first, so
  // a*a - (1 + 2^-9) is exactly 0, where a fused FMA would give 2^-20.
  const Float18 a = f18_from_double(1.0 + std::ldexp(1.0, -10));
  const Float18 c = f18_from_double(-(1.0 + std::ldexp(1.0, -9)));
  EXPECT_EQ(to_double(fma(a, a, c)), 0.0);
}

TEST(Float18Ops, HandCases) {
  auto f = [](double v) { return f18_from_double(v); };
  EXPECT_EQ(to_double(add(f(1.0), f(std::ldexp(1.0, -11)))), 1.0);  // tie -> even
  EXPECT_EQ(to_double(add(f(1.0), f(std::ldexp(3.0, -11)))), 1.0 + std::ldexp(1.0, -9));
  EXPECT_EQ(add(f(1.0), f(-1.0)).bits(), 0u);  // x - x = +0
  EXPECT_EQ(add(f(-0.0), f(-0.0)).bits(), 0x20000u);
  EXPECT_EQ(mul(f(-1.0), f(0.0)).bits(), 0x20000u);
  EXPECT_EQ(mul(f(std::ldexp(1.0, 40)), f(std::ldexp(1.0, 40))).bits(), Float18::kPosInf);
  EXPECT_EQ(mul(f(std::ldexp(1.0, -40)), f(-std::ldexp(1.0, -40))).bits(), 0x20000u);  // FTZ
  EXPECT_EQ(add(Float18::from_bits(Float18::kPosInf), Float18::from_bits(Float18::kNegInf)).bits(),
            Float18::kCanonicalNan);
  EXPECT_EQ(max(f(-0.0), f(0.0)).bits(), 0u);
  EXPECT_EQ(min(f(0.0), f(-0.0)).bits(), 0x20000u);
  EXPECT_EQ(max(f(1.0), Float18::from_bits(0x1FC01)).bits(), Float18::kCanonicalNan);
  EXPECT_EQ(prelu(f(-2.0), f(0.25)).bits(), f(-0.5).bits());
  EXPECT_EQ(prelu(f(3.0), f(0.25)).bits(), f(3.0).bits());
  EXPECT_EQ(prelu(f(-0.0), f(5.0)).bits(), 0x20000u);
  EXPECT_EQ(neg(f(2.0)).bits(), f(-2.0).bits());
  EXPECT_EQ(neg(Float18::from_bits(0x3FE01)).bits(), Float18::kCanonicalNan);
  EXPECT_EQ(rf18(1.0f + std::ldexp(1.0f, -12)), 1.0f);
}

}  // namespace
}  // namespace axcore::num
