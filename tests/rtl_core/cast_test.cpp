// ax_lane_cast against common/num convert(): every float16, float18 and int8 input, random and
// edge int32/float32 inputs, into every other dtype.
#include <gtest/gtest.h>

#include <axcore/num/pword.hpp>
#include <random>

#include "Vtb_cast.h"
#include "tb_util.hpp"

namespace {

using axcore::spec::Dtype;

uint32_t ref_cast(Dtype from, Dtype to, uint32_t raw) {
  const auto p = axcore::num::AnyPword::splat(from, raw);
  return axcore::num::convert(p, to).lanes[0];
}

class CastTest : public ::testing::Test {
 protected:
  std::unique_ptr<VerilatedContext> ctx = std::make_unique<VerilatedContext>();
  std::unique_ptr<Vtb_cast> m = std::make_unique<Vtb_cast>(ctx.get(), "TOP");
  ~CastTest() override { m->final(); }

  // Returns the number of mismatches (and prints the first few).
  int check(Dtype from, Dtype to, const std::vector<uint32_t>& inputs) {
    int bad = 0;
    m->from_i = static_cast<uint8_t>(from);
    m->to_i = static_cast<uint8_t>(to);
    for (uint32_t x : inputs) {
      m->in_i = x;
      m->eval();
      const uint32_t want = ref_cast(from, to, x);
      if (m->out_o != want && bad++ < 5) {
        ADD_FAILURE() << axcore::spec::to_string(from) << " -> " << axcore::spec::to_string(to) << " of 0x" << std::hex
                      << x << ": rtl 0x" << m->out_o << ", ref 0x" << want;
      }
    }
    return bad;
  }
};

std::vector<uint32_t> all(uint32_t n) {
  std::vector<uint32_t> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

std::vector<uint32_t> random32(uint32_t n, uint32_t seed, bool floaty) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v{0,           1,           0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0x7F800000u, 0xFF800000u,
                          0x7FC00001u, 0x00000001u, 0x807FFFFFu, 0x3F000000u, 0x3FC00000u, 0x40200000u, 0xBF400000u,
                          127,         128,         0xFFFFFF80u, 0xFFFFFF7Fu, 2049,        4097,        0x00FFFFFFu};
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t x = rng();
    if (floaty && (i & 1)) x = (x & 0x83FFFFFFu) | ((96u + (rng() % 64)) << 23);  // near 1.0 .. 2^32
    v.push_back(x);
  }
  return v;
}

const Dtype kAll[] = {Dtype::INT8, Dtype::INT32, Dtype::FLOAT16, Dtype::FLOAT32, Dtype::FLOAT18};

TEST_F(CastTest, EveryFloat16AndInt8Input) {
  for (Dtype to : kAll) {
    EXPECT_EQ(check(Dtype::FLOAT16, to, all(1u << 16)), 0);
    EXPECT_EQ(check(Dtype::INT8, to, all(1u << 8)), 0);
  }
}

TEST_F(CastTest, EveryFloat18Input) {
  for (Dtype to : kAll) EXPECT_EQ(check(Dtype::FLOAT18, to, all(1u << 18)), 0);
}

TEST_F(CastTest, Int32AndFloat32Inputs) {
  for (Dtype to : kAll) {
    EXPECT_EQ(check(Dtype::INT32, to, random32(100000, 7, false)), 0);
    EXPECT_EQ(check(Dtype::FLOAT32, to, random32(100000, 9, true)), 0);
  }
}

}  // namespace
