// BD lowering round trips: every legal random walk, lowered for a random engine and element
// width, runs (by an independent word-level BD walker written from the spec's dma_bd text) the
// same word stream as the walk, and decodes back to the same walk.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <numeric>

#include "axcore/tap/bd.hpp"
#include "random_patterns.hpp"

namespace axcore::tap {
namespace {

using P = TensorAccessPattern;
using namespace testing;

// Word addresses a task reads, -1 for an emitted pad word (spec `dma_bd`, `queue_push`).
std::vector<int64_t> run_task(const BdTask& task) {
  std::vector<int64_t> out;
  for (uint32_t run = 0; run <= task.repeat; ++run) {
    for (const spec::DmaBd& bd : task.bds) {
      const int64_t size[] = {bd.d0_size, bd.d1_size, bd.d2_size, bd.d3_size};
      const int64_t stride[] = {bd.d0_stride, bd.d1_stride, bd.d2_stride, bd.d3_stride};
      const int64_t before[] = {bd.d0_pad_before, bd.d1_pad_before, bd.d2_pad_before, bd.d3_pad_before};
      const int64_t after[] = {bd.d0_pad_after, bd.d1_pad_after, bd.d2_pad_after, bd.d3_pad_after};
      auto n = [&](int h) { return size[h] == 0 ? 1 : size[h]; };
      auto padded_block = [&](int h) {  // words of one padded run of dimension h
        int64_t w = 1;
        for (int i = 0; i <= h; ++i) w *= before[i] + n(i) + after[i];
        return w;
      };
      auto emit = [&](auto&& self, int h, int64_t addr) -> void {
        if (h < 0) {
          out.push_back(addr);
          return;
        }
        int64_t pad_words = h > 0 ? padded_block(h - 1) : 1;
        for (int64_t j = 0; j < before[h] * pad_words; ++j) out.push_back(-1);
        for (int64_t j = 0; j < n(h); ++j) self(self, h - 1, addr + j * stride[h]);
        for (int64_t j = 0; j < after[h] * pad_words; ++j) out.push_back(-1);
      };
      int64_t wrap = bd.iter_size > 1 ? bd.iter_size : 1;
      int64_t base = static_cast<int64_t>(((uint64_t{bd.addr_hi} << 32) | bd.addr_lo) / 4) +
                     ((bd.iter_current + run) % wrap) * bd.iter_stride;
      std::size_t before_len = out.size();
      emit(emit, 3, base);
      int64_t real = 0;
      for (std::size_t k = before_len; k < out.size(); ++k) real += out[k] >= 0;
      EXPECT_EQ(real, bd.length) << "length = product of sizes";
    }
  }
  return out;
}

// The word stream an element walk is, or nothing if it does not move whole words.
std::optional<std::vector<int64_t>> words_of(const std::vector<int64_t>& walk, int64_t bytes, int64_t base) {
  int64_t e = 4 / bytes;
  if (static_cast<int64_t>(walk.size()) % e) return std::nullopt;
  std::vector<int64_t> out;
  for (std::size_t k = 0; k < walk.size(); k += static_cast<std::size_t>(e)) {
    int64_t first = walk[k];
    for (int64_t j = 1; j < e; ++j) {
      int64_t x = walk[k + static_cast<std::size_t>(j)];
      if ((first < 0) != (x < 0) || (first >= 0 && x != first + j)) return std::nullopt;
    }
    if (first >= 0 && (base + first * bytes) % 4) return std::nullopt;
    out.push_back(first < 0 ? -1 : (base + first * bytes) / 4);
  }
  return out;
}

TEST(TapBdProperty, LegalWalksRoundTrip) {
  Rng rng(11);
  static const unsigned kBits[] = {8, 16, 32, 32};
  static const Engine kEngines[] = {Engine::kSysDma, Engine::kMemDma, Engine::kCoreDma};
  int legal = 0, illegal = 0, granule_refusals = 0, chains = 0, repeats = 0, padded = 0;
  std::map<std::string, int> refusals;
  for (int c = 0; c < 3000; ++c) {
    P p = random_pattern(rng, 2048);
    if (c % 4 == 0) {  // deep walks: a shuffled many-dimensional tensor, for chains
      std::vector<SymInt> dims;
      for (int64_t r = pick(rng, 4, 7); r > 0; --r) dims.emplace_back(pick(rng, 2, 4));
      std::vector<int> axes(dims.size());
      std::iota(axes.begin(), axes.end(), 0);
      std::shuffle(axes.begin(), axes.end(), rng);
      p = P::full(dims).permute(axes);
    }
    unsigned bits = kBits[pick(rng, 0, 3)];
    Engine engine = kEngines[pick(rng, 0, 2)];
    int64_t bytes = bits / 8, e = 4 / bytes;
    if (engine != Engine::kSysDma && pick(rng, 0, 3) == 0) {
      std::vector<PadPair> pads;
      for (int i = 0; i < p.rank(); ++i) {
        int64_t unit = i + 1 == p.rank() ? e : 1;
        pads.emplace_back(pick(rng, 0, 2) * unit, pick(rng, 0, 1) * unit);
      }
      p = p.pad(pads);
    }
    LowerOptions o;
    o.base_address = static_cast<uint64_t>(pick(rng, 0, 3)) * 4096;
    o.first_bd = static_cast<uint32_t>(pick(rng, 0, 2));
    BdTask task;
    try {
      task = lower_to_bds(p, bits, engine, o);
    } catch (const ValueError& err) {
      ++illegal;
      std::string m = err.what();
      ++refusals[m.substr(0, m.find(' ', 9))];
      // A refusal by the word rules on a stride, a size or the offset is right: the walk is not a
      // stream of whole, aligned words. (Pad counts must be whole words per dimension, which a
      // stream can miss and still be words overall: 2 + 8 + 1 bf16 elements twice over.)
      bool pad_rule = m.rfind("dma_bd: Padding", 0) == 0;
      if (!pad_rule && (m.find("which is not divisible by 4") != std::string::npos ||
                        m.find("inner-most dim stride must be 1") != std::string::npos)) {
        ++granule_refusals;
        ASSERT_FALSE(words_of(brute_walk(p), bytes, static_cast<int64_t>(o.base_address)))
            << p << " bits " << bits << " refused (" << m << ") but moves whole words";
      }
      continue;
    }
    ++legal;
    chains += task.bds.size() > 1;
    repeats += task.repeat > 0;
    padded += p.padding().has_value();
    std::vector<int64_t> walk = brute_walk(p);
    std::optional<std::vector<int64_t>> words = words_of(walk, bytes, static_cast<int64_t>(o.base_address));
    ASSERT_TRUE(words) << p << " was lowered but does not move whole words";
    ASSERT_EQ(run_task(task), *words) << p << " bits " << bits;
    for (const auto& bd : task.bds) ASSERT_NO_THROW(spec::DmaBd::decode(bd.encode()));
    DecodeOptions d{ints(p.tensor_dims()), bits, o.base_address};
    std::vector<P> back = decode_task(task, d);
    ASSERT_EQ(task_walk(back), walk) << p;
    if (back.size() == 1) { ASSERT_EQ(back[0], p) << back[0]; }
  }
  EXPECT_GT(legal, 800);
  EXPECT_GT(illegal, 300);
  EXPECT_GT(granule_refusals, 200);
  EXPECT_GT(chains, 10);
  EXPECT_GT(repeats, 10);
  EXPECT_GT(padded, 100);
  std::cout << "lowered " << legal << " (" << chains << " chains, " << repeats << " repeats, " << padded
            << " padded), refused " << illegal << " (" << granule_refusals << " by the word rules)\n";
  for (const auto& [m, n] : refusals) std::cout << "refused " << n << " x " << m << "\n";
}

}  // namespace
}  // namespace axcore::tap
