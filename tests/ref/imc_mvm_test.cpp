#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
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

// Every tile-op kernel this CPU runs (portable, AVX2, AVX-512 VNNI) against the plain
// definition, acc[n] += sum_k x[k] * tile[k][n] (int32, wrapping), on random data, on the
// extremes (every product -128 * -128 = 16384: lane sums of 2^20, pair sums of 2^15 in the AVX2
// kernel's int16 pairs; 127 against -128 where the VNNI kernel's unsigned tile bytes are 255
// and 0) and on accumulators at both ends of the int32 range, so the final add wraps.
TEST(Mvm, EveryKernelEqualsThePlainSum) {
  using detail::MvmKernel;
  auto plain = [](num::PwordI32 acc, const num::PwordI8& x, const Tile& t) {
    for (std::size_t n = 0; n < 64; ++n) {
      uint32_t s = static_cast<uint32_t>(acc[n]);
      for (std::size_t k = 0; k < 64; ++k) s += static_cast<uint32_t>(int32_t{x[k]} * int32_t{t[k * 64 + n]});
      acc[n] = static_cast<int32_t>(s);
    }
    return acc;
  };
  std::vector<MvmKernel> kernels;
  for (const MvmKernel k : {MvmKernel::portable, MvmKernel::avx2, MvmKernel::avx512_vnni})
    if (detail::mvm_kernel_supported(k)) kernels.push_back(k);
  std::printf("kernels checked:");
  for (const MvmKernel k : kernels) std::printf(" %s", std::string(detail::to_string(k)).c_str());
  std::printf(" (mvm_accumulate runs %s)\n", std::string(detail::to_string(detail::mvm_kernel())).c_str());
  std::mt19937 rng(7);
  const int8_t extremes[] = {-128, 127, -127, 0, 1, -1};
  auto pick = [&](int mode, bool is_x) {
    switch (mode) {
      case 1:  // every product -128 * -128
        return int8_t{-128};
      case 2:  // mixed extremes
        return extremes[rng() % 6];
      case 3:  // random x, extreme tile
        return is_x ? static_cast<int8_t>(rng()) : extremes[rng() % 6];
      case 4:  // x -128, tile 127: the most negative lane sum
        return is_x ? int8_t{-128} : int8_t{127};
      case 5:  // x 127, tile -128
        return is_x ? int8_t{127} : int8_t{-128};
      default: return static_cast<int8_t>(rng());
    }
  };
  for (int round = 0; round < 300; ++round) {
    Tile t;
    num::PwordI8 x;
    num::PwordI32 acc;
    const int mode = round % 6;
    for (auto& v : t) v = pick(mode, false);
    for (auto& v : x) v = pick(mode, true);
    const int ends = round % 4;  // 0 near INT32_MAX, 1 near INT32_MIN, 2 zero, 3 random
    for (auto& v : acc)
      v = ends == 0   ? INT32_MAX - static_cast<int32_t>(rng() % 1000)
          : ends == 1 ? INT32_MIN + static_cast<int32_t>(rng() % 1000)
          : ends == 2 ? 0
                      : static_cast<int32_t>(rng());
    const num::PwordI32 want = plain(acc, x, t);
    for (const MvmKernel k : kernels) {
      num::PwordI32 got = acc;
      detail::mvm_accumulate_with(k, got, x, t);
      ASSERT_EQ(got, want) << detail::to_string(k) << " kernel, round " << round;
    }
    num::PwordI32 got = acc;
    mvm_accumulate(got, x, t);
    ASSERT_EQ(got, want) << "mvm_accumulate, round " << round;
  }
}

// mvm_accumulate_each (one tile, several elements: the VNNI kernel's 3- and 2-element forms and
// the one-element rest) gives every element the sums of its own call, with every kernel.
TEST(Mvm, EachEqualsOneCallPerElement) {
  using detail::MvmKernel;
  const MvmKernel start = detail::mvm_kernel();
  std::mt19937 rng(9);
  for (const MvmKernel k : {MvmKernel::portable, MvmKernel::avx2, MvmKernel::avx512_vnni}) {
    if (!detail::mvm_kernel_supported(k)) continue;
    detail::set_mvm_kernel(k);
    for (std::size_t n = 1; n <= 7; ++n)
      for (int round = 0; round < 20; ++round) {
        Tile t;
        for (auto& v : t) v = round % 4 == 0 ? int8_t{-128} : static_cast<int8_t>(rng());
        std::vector<num::PwordI8> x(n);
        std::vector<num::PwordI32> acc(n), want(n);
        for (std::size_t i = 0; i < n; ++i) {
          for (auto& v : x[i]) v = round % 4 == 0 ? int8_t{-128} : static_cast<int8_t>(rng());
          for (auto& v : acc[i]) v = round % 4 == 1 ? INT32_MAX - static_cast<int32_t>(rng() % 1000) : int32_t(rng());
          want[i] = acc[i];
          detail::mvm_accumulate_portable(want[i], x[i], t);
        }
        std::vector<num::PwordI32*> ap;
        std::vector<const num::PwordI8*> xp;
        for (std::size_t i = 0; i < n; ++i) ap.push_back(&acc[i]), xp.push_back(&x[i]);
        mvm_accumulate_each(ap, xp, t);
        ASSERT_EQ(acc, want) << detail::to_string(k) << ", " << n << " elements, round " << round;
      }
  }
  detail::set_mvm_kernel(start);
  std::vector<num::PwordI32*> one(1);
  EXPECT_THROW(mvm_accumulate_each(one, {}, Tile{}), std::invalid_argument);
}

// MvmRun with a lookahead (blocks of rows computed ahead, checked against the popped elements)
// gives the outputs of the plain run: read-ahead elements right, wrong (one byte off), missing,
// and tiles changed in the middle of a block (as a host debug write or a LoadIMC would); each
// also with the elements equal to their copies marked and stripped of their lanes (strip).
// (strip: the producer marks an element equal to its read-ahead copy and hands it over without
// its lanes, as the TLM's IFD does)
struct StreamAhead final : MvmLookahead {
  const std::vector<Element>* s = nullptr;
  uint64_t fail_from = UINT64_MAX, wrong_every = 0;
  bool strip = false;
  std::vector<std::pair<uint64_t, num::PwordI8>> copies;  // the last fetch's
  uint64_t fetch(uint64_t first, std::span<num::PwordI8> xs) override {
    copies.clear();
    uint64_t n = 0;
    for (; n < xs.size(); ++n) {
      const uint64_t i = first + n;
      if (i >= s->size() || i >= fail_from) break;
      xs[n] = (*s)[i].value.as_i8();
      if (wrong_every && i % wrong_every == 0) xs[n][i % 64] = static_cast<int8_t>(xs[n][i % 64] ^ 0x5A);
      copies.emplace_back(i, xs[n]);
    }
    return n;
  }
  void release() override { copies.clear(); }
  // The element the run pops as i: marked and without lanes when it equals its copy.
  Element build(uint64_t i) {
    Element e = (*s)[i];
    bool same = false;
    for (const auto& [j, x] : copies) same = same || (j == i && x == e.value.as_i8());
    mark(i, strip && same);
    if (strip && same) e.value.lanes.fill(0xA5);
    return e;
  }
};

std::vector<Element> stepped_run(const spec::MvmDesc& d, Imc& imc, const std::vector<Element>& in, StreamAhead* ahead,
                                 std::size_t change_at, uint64_t* block_ops) {
  std::vector<Element> out;
  MvmRun run(d, imc, ahead);
  for (std::size_t i = 0; !run.done(); ++i) {
    if (i == change_at || i == change_at + 7) {  // two changes: one tile, then another
      Tile& t = imc.tile(i == change_at ? 1 : 2);
      for (std::size_t b = 0; b < t.size(); b += 3) t[b] = static_cast<int8_t>(t[b] + 1 + i);
    }
    if (const Element* y = run.take(ahead ? ahead->build(i) : in.at(i))) out.push_back(*y);
  }
  *block_ops = run.block_ops();
  return out;
}

TEST(Mvm, RunWithLookaheadEqualsThePlainRun) {
  struct Case {
    const char* what;
    uint32_t kb, ndims;
    int32_t k_stride;
    std::array<uint32_t, 4> size;
    std::array<int32_t, 4> tstride;
    bool blocks;
  };
  const Case cases[] = {
      {"matmul rows (dim 1)", 3, 2, 2, {2, 7, 1, 1}, {1, 0, 0, 0}, true},
      {"dim 0", 2, 2, 1, {5, 3, 1, 1}, {0, 2, 0, 0}, true},
      {"dim 2 of 4", 2, 4, 7, {2, 2, 4, 2}, {3, 1, 0, 6}, true},
      {"no dim with tstride 0", 2, 2, 1, {3, 2, 1, 1}, {2, 7, 0, 0}, false},
  };
  std::mt19937 rng(5);
  for (const Case& c : cases) {
    spec::MvmDesc d{};
    d.k_blocks = c.kb, d.ndims = c.ndims, d.k_stride = c.k_stride, d.matrix_id = 0;
    d.o0_size = c.size[0], d.o1_size = c.size[1], d.o2_size = c.size[2], d.o3_size = c.size[3];
    d.o0_tstride = c.tstride[0], d.o1_tstride = c.tstride[1], d.o2_tstride = c.tstride[2], d.o3_tstride = c.tstride[3];
    Imc base(32);
    for (std::size_t t = 0; t < 32; ++t)
      for (auto& v : base.tile(t)) v = t == 3 ? int8_t{-128} : static_cast<int8_t>(rng());
    std::vector<Element> in(mvm_outputs(d) * d.k_blocks);
    for (std::size_t i = 0; i < in.size(); ++i) {
      num::PwordI8 v;
      for (auto& b : v) b = i % 5 == 0 ? int8_t{-128} : static_cast<int8_t>(rng());
      in[i] = Element{num::AnyPword::of(v), false};
    }
    for (int variant = 0; variant < 8; ++variant) {
      StreamAhead ahead;
      ahead.s = &in;
      ahead.strip = variant >= 4;
      if (variant % 4 == 1) ahead.wrong_every = 5;
      if (variant % 4 == 2) ahead.fail_from = in.size() / 2;
      const std::size_t change_at = variant % 4 == 3 ? d.k_blocks + 1 : SIZE_MAX;  // inside the first block
      Imc plain_imc = base, imc = base;
      uint64_t plain_ops = 0, ops = 0;
      const auto want = stepped_run(d, plain_imc, in, nullptr, change_at, &plain_ops);
      const auto got = stepped_run(d, imc, in, &ahead, change_at, &ops);
      ASSERT_EQ(got.size(), want.size()) << c.what;
      for (std::size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(got[i].value, want[i].value) << c.what << ", variant " << variant << ", output " << i;
      EXPECT_EQ(plain_ops, 0u);
      EXPECT_EQ(ops > 0, c.blocks) << c.what << ", variant " << variant;
      EXPECT_EQ(imc.stale_reads, plain_imc.stale_reads);
    }
  }
}

// The kernel is chosen once; set_mvm_kernel switches it and mvm_accumulate follows. Without
// AXCORE_MVM_KERNEL the choice is the fastest the CPU runs.
TEST(Mvm, KernelChoice) {
  using detail::MvmKernel;
  const MvmKernel start = detail::mvm_kernel();
  if (std::getenv("AXCORE_MVM_KERNEL") == nullptr) {
    const MvmKernel best = detail::mvm_kernel_supported(MvmKernel::avx512_vnni) ? MvmKernel::avx512_vnni
                           : detail::mvm_kernel_supported(MvmKernel::avx2)      ? MvmKernel::avx2
                                                                                : MvmKernel::portable;
    EXPECT_EQ(start, best);
  }
  Tile t;
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<int8_t>(i * 37 + 11);
  num::PwordI8 x;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int8_t>(100 - 3 * static_cast<int>(i));
  num::PwordI32 want{};
  detail::mvm_accumulate_portable(want, x, t);
  for (const MvmKernel k : {MvmKernel::portable, MvmKernel::avx2, MvmKernel::avx512_vnni}) {
    if (!detail::mvm_kernel_supported(k)) {
      EXPECT_THROW(detail::set_mvm_kernel(k), std::invalid_argument);
      continue;
    }
    detail::set_mvm_kernel(k);
    EXPECT_EQ(detail::mvm_kernel(), k);
    num::PwordI32 got{};
    mvm_accumulate(got, x, t);
    EXPECT_EQ(got, want) << detail::to_string(k);
  }
  detail::set_mvm_kernel(start);
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
