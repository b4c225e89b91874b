// DMA engines against common/ref: a DDR -> L2 -> DDR copy (SysDMA), and MemDMA padding, repeat
// with iteration and BD chaining, checked against ref::dma_walk / mm2s_read / s2mm_write.
#include <gtest/gtest.h>

#include <numeric>

#include "axcore/cosim/stimulus.hpp"
#include "axcore/ref/dma.hpp"
#include "axcore/tlm/tlm_device.hpp"

namespace axcore {
namespace {

using spec::MemSel;

std::vector<uint8_t> pattern(std::size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 7 + seed + (i >> 8));
  return v;
}

TEST(TlmDma, SysDmaCopiesDdrToL2AndBack) {
  tlm::TlmDevice d;
  std::vector<trace::Record> recs;
  d.set_trace_sink([&](const trace::Record& r) { recs.push_back(r); });
  constexpr uint32_t kWords = 1024;
  const auto src = pattern(4 * kWords, 3);
  d.ddr_write(0x1000, src);
  const uint32_t shim = spec::param::shim_row;
  stim::write_bd(d, shim, 0, stim::linear_bd(MemSel::DDR, 0x1000, kWords));
  stim::write_bd(d, shim, 1, stim::linear_bd(MemSel::L2, 0x800, kWords));
  stim::push_dma(d, shim, false, 0, stim::push_word(1, 5));
  stim::push_dma(d, shim, true, 0, stim::push_word(0, 6));
  const auto t = stim::wait_dma_token(d, shim, false, 0);
  EXPECT_EQ(t.error, 0u);
  EXPECT_EQ(t.tag, 5u);
  EXPECT_EQ(std::vector<uint8_t>(d.l2().begin() + 0x800, d.l2().begin() + 0x800 + 4 * kWords), src);
  EXPECT_EQ(d.read32(stim::addr(shim, spec::shim::DMA_S2MM_BYTES.at(0))), 4 * kWords);
  // Back to DDR at another address.
  stim::write_bd(d, shim, 2, stim::linear_bd(MemSel::L2, 0x800, kWords));
  stim::write_bd(d, shim, 3, stim::linear_bd(MemSel::DDR, 0x90000, kWords));
  stim::push_dma(d, shim, true, 1, stim::push_word(2, 1));
  stim::push_dma(d, shim, false, 1, stim::push_word(3, 2));
  EXPECT_EQ(stim::wait_dma_token(d, shim, false, 1).error, 0u);
  std::vector<uint8_t> back(4 * kWords);
  d.ddr_read(0x90000, back);
  EXPECT_EQ(back, src);
  // Trace: one MEM_WRITE per d0 run of each S2MM BD, TASK_START/DONE per task.
  int writes = 0, starts = 0;
  for (const auto& r : recs) {
    writes += r.kind == trace::Kind::MEM_WRITE;
    starts += r.kind == trace::Kind::TASK_START;
  }
  EXPECT_EQ(writes, 2);
  EXPECT_EQ(starts, 4);
  // DDR-reading channel: the latency once, then a row (16 words) per cycle at most.
  EXPECT_GE(d.cycle(), spec::param::ddr_latency_cycles + uint64_t{kWords} / 16);
}

TEST(TlmDma, MemDmaPaddingRepeatAndChainMatchReference) {
  tlm::TlmDevice d;
  const uint32_t row = spec::param::mem_row;
  const auto img = pattern(1 << 16, 11);
  std::copy(img.begin(), img.end(), d.l2().begin());
  const auto eng = ref::DmaEngine::memdma();
  // MM2S: a 2-D 6x5 block out of a 16-word-wide matrix, padded 1 before / 2 after each row and
  // one padded row after; iterates over 3 column offsets; chained to a plain 8-word BD.
  spec::DmaBd a;
  a.valid = 1;
  a.mem = MemSel::L2;
  a.addr_lo = 0x400;
  a.d0_size = 6;
  a.d0_stride = 1;
  a.d1_size = 5;
  a.d1_stride = 16;
  a.length = 30;
  a.d0_pad_before = 1;
  a.d0_pad_after = 2;
  a.d1_pad_after = 1;
  a.pad_value = 0xEEEEEEEE;
  a.iter_size = 3;
  a.iter_stride = 6;
  a.use_next = 1;
  a.next_bd = 1;
  const spec::DmaBd b = stim::linear_bd(MemSel::L2, 0x3000, 8);
  stim::write_bd(d, row, 0, a);
  stim::write_bd(d, row, 1, b);
  // Expected stream: two runs (repeat 1) of the chain a -> b.
  std::vector<uint32_t> words;
  const ref::ConstMemView view{std::span<const uint8_t>(d.l2()), 0};
  for (uint32_t run = 0; run < 2; ++run)
    for (const spec::DmaBd* bd : std::array<const spec::DmaBd*, 2>{&a, &b}) {
      const auto w = ref::mm2s_read(*bd, ref::dma_walk(*bd, eng, ref::DmaDir::MM2S, bd == &a ? run : 0), view);
      words.insert(words.end(), w.begin(), w.end());
    }
  const auto total = static_cast<uint32_t>(words.size());
  ASSERT_EQ(total, 2u * (6 * 9 + 8));
  // S2MM: one linear BD receiving everything, in L2 at 0x20000.
  stim::write_bd(d, row, 2, stim::linear_bd(MemSel::L2, 0x20000, total));
  stim::push_dma(d, row, false, 0, stim::push_word(2, 9));
  stim::push_dma(d, row, true, 0, stim::push_word(0, 8, true, 1));
  EXPECT_EQ(stim::wait_dma_token(d, row, true, 0).error, 0u);
  EXPECT_EQ(stim::wait_dma_token(d, row, false, 0).error, 0u);
  std::vector<uint8_t> expect(4 * total);
  std::vector<ref::DmaWord> walk;
  for (uint32_t i = 0; i < total; ++i) walk.push_back({false, uint64_t{4} * i});
  ref::s2mm_write(walk, words, {expect, 0});
  EXPECT_EQ(std::vector<uint8_t>(d.l2().begin() + 0x20000, d.l2().begin() + 0x20000 + 4 * total), expect);
  // iter_current was written back: two runs of a 3-iteration BD leave it at 2.
  std::array<uint32_t, spec::DmaBd::kWords> bd{};
  bd[3] = d.read32(stim::addr(row, spec::mem::DMA_BD.at(0) + 12));  // the word holding iter_current
  EXPECT_EQ(spec::DmaBd::decode(bd).iter_current, 2u);
}

TEST(TlmDma, CoreDmaFillsL1FromL2) {
  tlm::TlmDevice d({.cores = 2});
  const auto img = pattern(4096, 1);
  std::copy(img.begin(), img.end(), d.l2().begin() + 0x100);
  const uint32_t row = spec::core_row(1);
  stim::write_bd(d, row, 0, stim::linear_bd(MemSel::L2, 0x100, 1024));
  stim::write_bd(d, row, 1, stim::linear_bd(MemSel::L1, 0x40, 1024, 1));
  stim::push_dma(d, row, false, 1, stim::push_word(1, 3));
  stim::push_dma(d, row, true, 1, stim::push_word(0, 4, false));
  EXPECT_EQ(stim::wait_dma_token(d, row, false, 1).error, 0u);
  EXPECT_EQ(std::vector<uint8_t>(d.l1(1).begin() + 0x40, d.l1(1).begin() + 0x40 + 4096), img);
}

}  // namespace
}  // namespace axcore
