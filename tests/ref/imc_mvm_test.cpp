#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "axcore/ref/imc.hpp"
#include "ref_test_util.hpp"

namespace axcore::ref {
namespace {

using spec::Dtype;
using spec::ErrorCode;
using testing::expect_error;

// Weights W (K x N) stored as the guide's (K, N_BLOCKS) int8x64 buffer: row k * NB + nb.
struct Problem {
  std::size_t M, KB, NB;
  std::vector<int8_t> x, w;  // x[m][k], w[k][n]
  std::vector<uint8_t> l1;
};

Problem make_problem(std::size_t M, std::size_t KB, std::size_t NB, uint32_t seed) {
  Problem p{M, KB, NB, {}, {}, {}};
  std::mt19937 rng(seed);
  p.x.resize(M * KB * 64);
  p.w.resize(KB * 64 * NB * 64);
  for (auto& v : p.x) v = static_cast<int8_t>(rng());
  for (auto& v : p.w) v = static_cast<int8_t>(rng());
  p.l1.assign(KB * 64 * NB * 64, 0);
  for (std::size_t k = 0; k < KB * 64; ++k)
    for (std::size_t n = 0; n < NB * 64; ++n)
      p.l1[(k * NB + n / 64) * 64 + n % 64] = static_cast<uint8_t>(p.w[k * NB * 64 + n]);
  return p;
}

// Tile (kb, nb) -> index kb * NB + nb; rows of the tile are L1 rows (kb*64 + r) * NB + nb.
spec::LoadimcDesc load_desc(const Problem& p, uint32_t matrix_id) {
  spec::LoadimcDesc d{};
  d.magic = 0x1C;
  d.matrix_id = matrix_id;
  d.d0_size = static_cast<uint32_t>(p.NB);  // nb
  d.d1_size = static_cast<uint32_t>(p.KB);  // kb
  d.base_row = 0;
  d.row_stride = static_cast<uint32_t>(p.NB);
  d.d0_astride = 1;
  d.d1_astride = static_cast<int32_t>(64 * p.NB);
  d.tile_base = 0;
  d.d0_tstride = 1;
  d.d1_tstride = static_cast<int32_t>(p.NB);
  return d;
}

spec::MvmDesc mvm_desc(const Problem& p, uint32_t matrix_id) {
  spec::MvmDesc d{};
  d.k_blocks = static_cast<uint32_t>(p.KB);
  d.matrix_id = matrix_id;
  d.ndims = 2;
  d.tile_base = 0;
  d.k_stride = static_cast<int32_t>(p.NB);
  d.o0_size = static_cast<uint32_t>(p.NB);  // nb innermost
  d.o0_tstride = 1;
  d.o1_size = static_cast<uint32_t>(p.M);  // m
  d.o1_tstride = 0;
  return d;
}

// The IFD stream: for m, nb: for kb: x[m, kb].
std::vector<Element> x_stream(const Problem& p) {
  std::vector<Element> s;
  for (std::size_t m = 0; m < p.M; ++m)
    for (std::size_t nb = 0; nb < p.NB; ++nb)
      for (std::size_t kb = 0; kb < p.KB; ++kb) {
        num::PwordI8 v;
        for (std::size_t l = 0; l < 64; ++l) v[l] = p.x[m * p.KB * 64 + kb * 64 + l];
        s.push_back(Element{num::AnyPword::of(v), false});
      }
  return s;
}

TEST(Mvm, RandomMatmulMatchesPlainLoop) {
  const Problem p = make_problem(5, 3, 2, 11);
  Imc imc;
  run_loadimc(load_desc(p, 7), p.l1, imc);
  EXPECT_EQ(imc.matrix_id(), 7u);
  EXPECT_EQ(imc.valid_tiles(), 6u);
  VectorSource src(x_stream(p));
  VectorSink out;
  run_mvm(mvm_desc(p, 7), imc, src.fn(), out.fn());
  ASSERT_EQ(out.elems.size(), p.M * p.NB);
  EXPECT_EQ(src.remaining(), 0u);
  EXPECT_EQ(imc.stale_reads, 0u);
  for (std::size_t m = 0; m < p.M; ++m)
    for (std::size_t nb = 0; nb < p.NB; ++nb) {
      const num::PwordI32 got = out.elems[m * p.NB + nb].value.as_i32();
      for (std::size_t l = 0; l < 64; ++l) {
        int64_t want = 0;
        for (std::size_t k = 0; k < p.KB * 64; ++k)
          want += int64_t{p.x[m * p.KB * 64 + k]} * p.w[k * p.NB * 64 + nb * 64 + l];
        ASSERT_EQ(got[l], want) << m << "," << nb << "," << l;
      }
    }
}

TEST(Mvm, LaneMeaning) {
  // Lane n of the result is sum_k x[k] * tile[k][n]: put a single 1 in x at k = 3 and check that
  // the result is row 3 of the tile (not column 3).
  Imc imc(8);
  Tile& t = imc.tile(0);
  for (std::size_t k = 0; k < 64; ++k)
    for (std::size_t n = 0; n < 64; ++n) t[k * 64 + n] = static_cast<int8_t>(k * 2 - n);
  imc.set_valid(0);
  num::PwordI8 x{};
  x[3] = 1;
  num::PwordI32 acc{};
  mvm_accumulate(acc, x, t);
  for (std::size_t n = 0; n < 64; ++n) EXPECT_EQ(acc[n], static_cast<int8_t>(6 - static_cast<int>(n)));
}

TEST(Mvm, AccumulatorWraps) {
  Imc imc(8);
  imc.tile(0).fill(-128);
  num::PwordI8 x;
  x.fill(-128);
  num::PwordI32 acc;
  acc.fill(INT32_MAX - 100);
  mvm_accumulate(acc, x, imc.tile(0));  // + 64 * 16384 = 2^20
  EXPECT_EQ(acc[0], static_cast<int32_t>(static_cast<uint32_t>(INT32_MAX - 100) + (1u << 20)));
  EXPECT_LT(acc[0], 0);
}

// The fast tile-op kernel(s) against the plain definition, acc[n] += sum_k x[k] * tile[k][n]
// (int32, wrapping), on random data, on the extremes (every product -128 * -128 = 16384, pair
// sums of 2^15 in the SIMD kernel's int16 pairs) and on accumulators near the wrap.
TEST(Mvm, FastKernelsEqualThePlainSum) {
  auto plain = [](num::PwordI32 acc, const num::PwordI8& x, const Tile& t) {
    for (std::size_t n = 0; n < 64; ++n) {
      uint32_t s = static_cast<uint32_t>(acc[n]);
      for (std::size_t k = 0; k < 64; ++k) s += static_cast<uint32_t>(int32_t{x[k]} * int32_t{t[k * 64 + n]});
      acc[n] = static_cast<int32_t>(s);
    }
    return acc;
  };
  std::mt19937 rng(7);
  const int8_t extremes[] = {-128, 127, -127, 0, 1, -1};
  for (int round = 0; round < 200; ++round) {
    Tile t;
    num::PwordI8 x;
    num::PwordI32 acc;
    const int mode = round % 4;  // 0 random, 1 all -128, 2 mixed extremes, 3 random x with extreme tile
    for (auto& v : t) v = mode == 1 ? int8_t{-128} : mode >= 2 ? extremes[rng() % 6] : static_cast<int8_t>(rng());
    for (auto& v : x) v = mode == 1 ? int8_t{-128} : mode == 2 ? extremes[rng() % 6] : static_cast<int8_t>(rng());
    for (auto& v : acc)
      v = round % 3 == 0 ? INT32_MAX - static_cast<int32_t>(rng() % 1000) : static_cast<int32_t>(rng());
    const num::PwordI32 want = plain(acc, x, t);
    num::PwordI32 got = acc;
    mvm_accumulate(got, x, t);
    ASSERT_EQ(got, want) << "round " << round << (detail::mvm_accumulate_has_simd() ? " (SIMD kernel)" : "");
    got = acc;
    detail::mvm_accumulate_portable(got, x, t);
    ASSERT_EQ(got, want) << "portable kernel, round " << round;
  }
}

TEST(Mvm, NewMatrixIdInvalidatesEveryTileButKeepsData) {
  const Problem a = make_problem(1, 1, 2, 1);  // matrix 1: tiles 0, 1
  Imc imc;
  run_loadimc(load_desc(a, 1), a.l1, imc);
  ASSERT_EQ(imc.valid_tiles(), 2u);
  const Tile kept = imc.tile(1);
  const Problem b = make_problem(1, 1, 1, 2);  // matrix 2: tile 0 only
  run_loadimc(load_desc(b, 2), b.l1, imc);
  EXPECT_EQ(imc.matrix_id(), 2u);
  EXPECT_TRUE(imc.valid(0));
  EXPECT_FALSE(imc.valid(1));
  EXPECT_EQ(imc.tile(1), kept);
  // Reloading the same matrix_id adds tiles to the residency.
  run_loadimc(load_desc(b, 2), b.l1, imc);
  EXPECT_TRUE(imc.valid(0));
  // An MVM expecting matrix 1 reads stale tiles: computed anyway, and counted.
  VectorSource src(x_stream(a));
  VectorSink out;
  run_mvm(mvm_desc(a, 1), imc, src.fn(), out.fn());
  EXPECT_EQ(imc.stale_reads, 2u);
  num::PwordI32 want{};
  mvm_accumulate(want, x_stream(a)[1].value.as_i8(), kept);
  EXPECT_EQ(out.elems[1].value.as_i32(), want);  // tile 1 still holds matrix 1's data
}

TEST(Mvm, Faults) {
  const Problem p = make_problem(1, 1, 1, 3);
  Imc imc(8);
  spec::LoadimcDesc d = load_desc(p, 1);
  d.magic = 0xD9;
  expect_error([&] { run_loadimc(d, p.l1, imc); }, ErrorCode::DESC_MAGIC, "not 0x1C");
  d = load_desc(p, 1);
  d.tile_base = 8;
  expect_error([&] { run_loadimc(d, p.l1, imc); }, ErrorCode::IMC_RANGE, "tile 8");
  d = load_desc(p, 1);
  d.base_row = 1;  // rows 1..64 of a 64-row L1
  expect_error([&] { run_loadimc(d, p.l1, imc); }, ErrorCode::L1_RANGE, "rows 1..64");
  EXPECT_FALSE(imc.valid(0));
  d = load_desc(p, 1);
  d.d0_size = 0;
  expect_error([&] { run_loadimc(d, p.l1, imc); }, ErrorCode::DESC_RANGE, "d0_size");
  spec::MvmDesc m = mvm_desc(p, 1);
  m.k_blocks = 0;
  VectorSource src(x_stream(p));
  VectorSink out;
  expect_error([&] { run_mvm(m, imc, src.fn(), out.fn()); }, ErrorCode::DESC_RANGE, "k_blocks");
  m = mvm_desc(p, 1);
  m.tile_base = 9;
  expect_error([&] { run_mvm(m, imc, src.fn(), out.fn()); }, ErrorCode::IMC_RANGE, "tile 9");
  m = mvm_desc(p, 1);
  VectorSource bad({Element{num::AnyPword::splat(Dtype::INT32, 1), false}});
  expect_error([&] { run_mvm(m, imc, bad.fn(), out.fn()); }, ErrorCode::STREAM_DTYPE, "takes INT8");
}

}  // namespace
}  // namespace axcore::ref
