#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "axcore/ref/dma.hpp"
#include "ref_test_util.hpp"

namespace axcore::ref {
namespace {

using spec::ErrorCode;
using testing::expect_error;

spec::DmaBd bd2d(uint32_t addr, uint32_t s0, int32_t st0, uint32_t s1, int32_t st1) {
  spec::DmaBd b{};
  b.valid = 1;
  b.mem = spec::MemSel::L2;
  b.addr_lo = addr;
  b.d0_size = s0;
  b.d0_stride = st0;
  b.d1_size = s1;
  b.d1_stride = st1;
  b.length = (s0 == 0 ? 1 : s0) * (s1 == 0 ? 1 : s1);
  return b;
}

std::vector<uint64_t> addrs(const std::vector<DmaWord>& w) {
  std::vector<uint64_t> r;
  for (const auto& x : w) r.push_back(x.pad ? 0xFFFF : x.byte_addr);
  return r;
}

TEST(DmaWalk, StridedTwoDimensional) {
  // 3 x 2 words, transposing: d0 steps 4 words, d1 steps 1 word.
  const auto w = dma_walk(bd2d(16, 3, 4, 2, 1), DmaEngine::memdma(), DmaDir::MM2S);
  EXPECT_EQ(addrs(w), (std::vector<uint64_t>{16, 32, 48, 20, 36, 52}));
}

TEST(DmaWalk, PaddingPerDimension) {
  // d0: 2 data words with 1 before / 1 after; d1: 2 runs with 1 padded run before.
  spec::DmaBd b = bd2d(0, 2, 1, 2, 10);
  b.d0_pad_before = 1;
  b.d0_pad_after = 1;
  b.d1_pad_before = 1;
  b.pad_value = 0xDEADBEEF;
  const auto w = dma_walk(b, DmaEngine::memdma(), DmaDir::MM2S);
  const uint64_t P = 0xFFFF;
  EXPECT_EQ(addrs(w), (std::vector<uint64_t>{P, P, P, P, P, 0, 4, P, P, 40, 44, P}));
  std::vector<uint8_t> mem(64);
  for (std::size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<uint8_t>(i);
  const auto words = mm2s_read(b, w, ConstMemView{mem, 0});
  ASSERT_EQ(words.size(), 12u);
  EXPECT_EQ(words[0], 0xDEADBEEFu);
  EXPECT_EQ(words[5], 0x03020100u);
  EXPECT_EQ(words[10], 0x2F2E2D2Cu);
}

TEST(DmaWalk, UnitDimensionsAndIteration) {
  spec::DmaBd b = bd2d(100, 2, 1, 0, 0);  // size 0 is a unit dimension
  b.length = 2;
  b.iter_size = 3;
  b.iter_current = 1;
  b.iter_stride = 10;
  // Run r adds ((1 + r) mod 3) * 10 words.
  const uint64_t want_base[] = {140, 180, 100, 140, 180};
  for (uint32_t r = 0; r < 5; ++r) {
    const auto w = dma_walk(b, DmaEngine::coredma(), DmaDir::S2MM, r);
    EXPECT_EQ(addrs(w), (std::vector<uint64_t>{want_base[r], want_base[r] + 4})) << r;
  }
  b.iter_size = 1;  // no iteration
  EXPECT_EQ(dma_walk(b, DmaEngine::coredma(), DmaDir::S2MM, 7)[0].byte_addr, 100u);
}

TEST(DmaWalk, MoveRoundTrip) {
  // MM2S reads a 4 x 3 block with a row pitch of 8 words; S2MM writes it densely.
  std::vector<uint8_t> src(256), dst(64, 0);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7);
  const auto rd = dma_walk(bd2d(8, 4, 1, 3, 8), DmaEngine::memdma(), DmaDir::MM2S);
  const auto words = mm2s_read(bd2d(8, 4, 1, 3, 8), rd, ConstMemView{src, 0});
  const auto wr = dma_walk(bd2d(0x1000, 12, 1, 1, 0), DmaEngine::memdma(), DmaDir::S2MM);
  s2mm_write(wr, words, MemView{dst, 0x1000});
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t c = 0; c < 16; ++c) EXPECT_EQ(dst[r * 16 + c], src[8 + r * 32 + c]);
}

TEST(DmaWalk, Faults) {
  const auto mem = DmaEngine::memdma();
  spec::DmaBd b = bd2d(0, 2, 1, 2, 2);
  b.valid = 0;
  expect_error([&] { dma_walk(b, mem, DmaDir::MM2S); }, ErrorCode::BD_INVALID, "not valid");
  b = bd2d(0, 2, 1, 2, 2);
  b.mem = spec::MemSel::RESERVED;
  expect_error([&] { dma_walk(b, mem, DmaDir::MM2S); }, ErrorCode::BD_INVALID, "reserved");
  b = bd2d(6, 2, 1, 2, 2);
  expect_error([&] { dma_walk(b, mem, DmaDir::MM2S); }, ErrorCode::BD_MISALIGNED, "multiple of 4");
  b = bd2d(0, 2, 1, 2, 2);
  b.length = 5;
  expect_error([&] { dma_walk(b, mem, DmaDir::MM2S); }, ErrorCode::BD_INVALID, "length 5 != product of sizes 4");
  b = bd2d(0, 2, 1, 2, 2);
  b.d1_pad_after = 1;
  expect_error([&] { dma_walk(b, mem, DmaDir::S2MM); }, ErrorCode::PAD_ON_S2MM, "receiving");
  expect_error([&] { dma_walk(b, DmaEngine::sysdma(), DmaDir::MM2S); }, ErrorCode::PAD_ON_S2MM, "cannot pad");
  b = bd2d(0, 2, 1, 2, 2);
  b.d3_size = 2;
  b.length = 8;
  expect_error([&] { dma_walk(b, DmaEngine::coredma(), DmaDir::MM2S); }, ErrorCode::BD_INVALID, "dimension 3");
  EXPECT_NO_THROW(dma_walk(b, mem, DmaDir::MM2S));
  b = bd2d(0, 4096, 1, 1, 0);
  expect_error([&] { dma_walk(b, DmaEngine::coredma(), DmaDir::MM2S); }, ErrorCode::BD_INVALID, "12-bit sizes");
  b = bd2d(0, 2, 1 << 19, 1, 0);
  expect_error([&] { dma_walk(b, DmaEngine::coredma(), DmaDir::MM2S); }, ErrorCode::BD_INVALID, "20-bit strides");
  b = bd2d(0, 2, -1, 1, 0);
  expect_error([&] { dma_walk(b, mem, DmaDir::MM2S); }, ErrorCode::ADDR_RANGE, "negative address");
  std::vector<uint8_t> small(8);
  b = bd2d(4, 2, 1, 1, 0);
  const auto w = dma_walk(b, mem, DmaDir::MM2S);
  expect_error([&] { mm2s_read(b, w, ConstMemView{small, 0}); }, ErrorCode::ADDR_RANGE, "byte address 8");
  expect_error([&] { mm2s_read(b, w, ConstMemView{small, 8}); }, ErrorCode::ADDR_RANGE, "byte address 4");
}

// The walk by its definition (dma.hpp): every padded position, innermost first, data where each
// index is inside its dimension's data, at base + iter_offset + sum((j_k - before_k) * stride_k).
std::vector<DmaWord> oracle_walk(const spec::DmaBd& b, uint32_t run) {
  const uint32_t size[4] = {b.d0_size, b.d1_size, b.d2_size, b.d3_size};
  const uint32_t before[4] = {b.d0_pad_before, b.d1_pad_before, b.d2_pad_before, b.d3_pad_before};
  const uint32_t after[4] = {b.d0_pad_after, b.d1_pad_after, b.d2_pad_after, b.d3_pad_after};
  const int32_t stride[4] = {b.d0_stride, b.d1_stride, b.d2_stride, b.d3_stride};
  uint32_t ext[4], unit[4];
  for (int k = 0; k < 4; ++k) {
    unit[k] = size[k] == 0 ? 1 : size[k];
    ext[k] = before[k] + unit[k] + after[k];
  }
  const uint32_t iters = b.iter_size <= 1 ? 1 : b.iter_size;
  const int64_t base = int64_t{b.addr_lo} + 4 * int64_t{(b.iter_current + run) % iters} * b.iter_stride;
  std::vector<DmaWord> out;
  for (uint32_t j3 = 0; j3 < ext[3]; ++j3)
    for (uint32_t j2 = 0; j2 < ext[2]; ++j2)
      for (uint32_t j1 = 0; j1 < ext[1]; ++j1)
        for (uint32_t j0 = 0; j0 < ext[0]; ++j0) {
          const uint32_t j[4] = {j0, j1, j2, j3};
          bool data = true;
          int64_t words = 0;
          for (int k = 0; k < 4; ++k) {
            data = data && j[k] >= before[k] && j[k] < before[k] + unit[k];
            words += (int64_t{j[k]} - before[k]) * stride[k];
          }
          out.push_back(data ? DmaWord{false, static_cast<uint64_t>(base + 4 * words)} : DmaWord{true, 0});
        }
  return out;
}

TEST(DmaRuns, EqualTheDefinitionOnRandomWalks) {
  std::mt19937 rng(27);
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  int negatives = 0;
  for (int i = 0; i < 400; ++i) {
    spec::DmaBd b{};
    b.valid = 1;
    b.mem = spec::MemSel::L2;
    b.addr_lo = 4 * pick(0, i % 3 == 0 ? 16 : 4096);  // near 0: negative strides reach below it
    uint32_t* size[4] = {&b.d0_size, &b.d1_size, &b.d2_size, &b.d3_size};
    int32_t* stride[4] = {&b.d0_stride, &b.d1_stride, &b.d2_stride, &b.d3_stride};
    uint32_t* before[4] = {&b.d0_pad_before, &b.d1_pad_before, &b.d2_pad_before, &b.d3_pad_before};
    uint32_t* after[4] = {&b.d0_pad_after, &b.d1_pad_after, &b.d2_pad_after, &b.d3_pad_after};
    b.length = 1;
    const bool pads = i % 2 == 0;
    for (int k = 0; k < 4; ++k) {
      *size[k] = pick(0, k == 0 ? 40 : 4);
      *stride[k] = static_cast<int32_t>(pick(0, 80)) - 16;
      if (pads) {
        *before[k] = pick(0, 2);
        *after[k] = pick(0, 2);
      }
      b.length *= *size[k] == 0 ? 1 : *size[k];
    }
    b.iter_size = pick(0, 3);
    b.iter_current = pick(0, 2);
    b.iter_stride = static_cast<int32_t>(pick(0, 64)) - 8;
    const uint32_t run = pick(0, 4);
    const auto want = oracle_walk(b, run);
    const auto neg = std::find_if(want.begin(), want.end(),
                                  [](const DmaWord& w) { return !w.pad && static_cast<int64_t>(w.byte_addr) < 0; });
    const auto dir = pads ? DmaDir::MM2S : DmaDir::S2MM;
    if (neg != want.end()) {  // the first data word below 0 in walk order is the one reported
      ++negatives;
      expect_error([&] { dma_runs(b, DmaEngine::memdma(), dir, run); }, ErrorCode::ADDR_RANGE,
                   "negative address " + std::to_string(static_cast<int64_t>(neg->byte_addr)));
      continue;
    }
    const DmaRuns runs = dma_runs(b, DmaEngine::memdma(), dir, run);
    ASSERT_EQ(runs.size(), want.size()) << i;
    for (uint64_t k = 0; k < want.size(); ++k) {
      const DmaWord got = runs.at(k);
      ASSERT_EQ(got.pad, want[k].pad) << i << " word " << k;
      if (!got.pad) { ASSERT_EQ(got.byte_addr, want[k].byte_addr) << i << " word " << k; }
    }
    EXPECT_EQ(addrs(dma_walk(b, DmaEngine::memdma(), dir, run)), addrs(want)) << i;
  }
  EXPECT_GT(negatives, 10);  // the error path was exercised
}

TEST(DmaChain, FollowsNextAndDetectsLoops) {
  std::vector<spec::DmaBd> bds(16, bd2d(0, 1, 0, 1, 0));
  bds[2].use_next = 1;
  bds[2].next_bd = 5;
  bds[5].use_next = 1;
  bds[5].next_bd = 9;
  EXPECT_EQ(dma_chain(bds, 2, DmaEngine::coredma()), (std::vector<uint32_t>{2, 5, 9}));
  bds[9].use_next = 1;
  bds[9].next_bd = 2;
  expect_error([&] { dma_chain(bds, 2, DmaEngine::coredma()); }, ErrorCode::BD_CHAIN_LOOP, "more than 16 BDs");
  expect_error([&] { dma_chain(bds, 16, DmaEngine::coredma()); }, ErrorCode::BD_INVALID, "BD 16 does not exist");
}

}  // namespace
}  // namespace axcore::ref
