// Faulty BDs end their task with an error token (never a hang) carrying the code common/ref
// raises for the same BD; the tile's error registers record the first one.
#include <axcore/ref/error.hpp>
#include <map>

#include "sys_fixture.hpp"

namespace axcore::rtl::test {
namespace {

using spec::ErrorCode;
using spec::MemSel;

// The code common/ref gives a task starting at `start` (NONE when it runs cleanly).
ErrorCode ref_code(const std::map<uint32_t, spec::DmaBd>& store, uint32_t start, const ref::DmaEngine& eng,
                   ref::DmaDir dir) {
  std::vector<spec::DmaBd> bds(eng.bds);
  for (const auto& [id, b] : store) bds.at(id) = b;
  try {
    for (uint32_t id : ref::dma_chain(bds, start, eng)) {
      const uint64_t size = bds[id].mem == MemSel::L2 ? P::l2_bytes : uint64_t{1} << P::ddr_addr_bits;
      for (const auto& w : ref::dma_walk(bds[id], eng, dir)) {
        if (!w.pad && w.byte_addr + 4 > size) return ErrorCode::ADDR_RANGE;
      }
    }
  } catch (const ref::RefError& e) { return e.code(); }
  return ErrorCode::NONE;
}

struct Case {
  const char* name;
  uint32_t row;
  bool mm2s;
  std::map<uint32_t, spec::DmaBd> bds;
  uint32_t start;
};

std::vector<Case> cases() {
  auto l2 = [](uint32_t a, uint32_t n) { return linear(MemSel::L2, a, n); };
  std::vector<Case> v;
  auto invalid = l2(0, 4);
  invalid.valid = 0;
  v.push_back({"invalid", kMem, true, {{0, invalid}}, 0});
  auto reserved = l2(0, 4);
  reserved.mem = MemSel::RESERVED;
  v.push_back({"reserved_mem", kMem, true, {{0, reserved}}, 0});
  v.push_back({"misaligned", kMem, true, {{0, l2(6, 4)}}, 0});
  auto len = l2(0, 4);
  len.length = 5;
  v.push_back({"length_mismatch", kMem, false, {{0, len}}, 0});
  auto pad = l2(0, 4);
  pad.d0_pad_before = 1;
  v.push_back({"pad_on_s2mm", kMem, false, {{0, pad}}, 0});
  auto sys_pad = linear(MemSel::DDR, 0, 4);
  sys_pad.d0_pad_after = 2;
  v.push_back({"pad_on_sysdma", kShim, true, {{0, sys_pad}}, 0});
  v.push_back({"l2_past_end", kMem, true, {{0, l2(P::l2_bytes - 8, 4)}}, 0});
  v.push_back({"negative_stride", kShim, true, {{0, bd(MemSel::L2, 16, {8}, {-1})}}, 0});
  v.push_back({"missing_bd", kShim, true, {}, P::sysdma_bds});
  auto last = l2(0, 1);
  last.use_next = 1;
  last.next_bd = 200;  // chains to a BD the engine does not have
  v.push_back({"chain_to_missing_bd", kMem, true, {{0, last}}, 0});
  return v;
}

TEST(RtlDmaErrors, ErrorTokensCarryTheRefCode) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    Sys s;
    for (const auto& [id, b] : c.bds) s.write_bd(c.row, id, b);
    s.push(c.row, c.mm2s, 0, c.start, 0, true, 9);
    const auto want = ref_code(c.bds, c.start, engine(c.row), c.mm2s ? ref::DmaDir::MM2S : ref::DmaDir::S2MM);
    ASSERT_NE(want, ErrorCode::NONE);
    const auto tok = s.token(c.row, c.mm2s, 0);
    EXPECT_EQ(tok.error, 1u);
    EXPECT_EQ(tok.code, want) << spec::to_string(tok.code) << " vs ref " << spec::to_string(want);
    EXPECT_EQ(tok.tag, 9u);
    s.dev.run_until_idle(kIdle);
    const uint32_t es = s.dev.read32(addr(c.row, spec::shim::ERROR_STATUS.offset));
    EXPECT_EQ(es & 0x3u, 0x3u);  // any + dma
    const auto info = spec::shim::ErrorInfo::decode_word(s.dev.read32(addr(c.row, spec::shim::ERROR_INFO.offset)));
    EXPECT_EQ(info.code, want);
    EXPECT_EQ(info.dir, c.mm2s ? 1u : 0u);
    EXPECT_EQ(info.channel, 0u);
    // The channel reports the error and keeps working after it.
    const uint32_t st =
        s.dev.read32(addr(c.row, (c.mm2s ? spec::shim::DMA_MM2S_STATUS : spec::shim::DMA_S2MM_STATUS).at(0)));
    EXPECT_EQ(st >> 6 & 1, 1u);
    s.dev.write32(addr(c.row, spec::shim::ERROR_STATUS.offset), 0xFFFFFFFF);  // w1c
    EXPECT_EQ(s.dev.read32(addr(c.row, spec::shim::ERROR_STATUS.offset)), 0u);
  }
}

TEST(RtlDmaErrors, L1WithoutCoresIsOutOfRange) {
  Sys s;
  auto b = linear(MemSel::L1, 0, 4);
  s.write_bd(kShim, 0, b);
  s.push(kShim, true, 1, 0);
  const auto tok = s.token(kShim, true, 1);
  EXPECT_EQ(tok.code, ErrorCode::ADDR_RANGE);
  const auto info = spec::shim::ErrorInfo::decode_word(s.dev.read32(addr(kShim, spec::shim::ERROR_INFO.offset)));
  EXPECT_EQ(info.channel, 1u);
}

// A chain that loops runs eng.bds BDs and fails with BD_CHAIN_LOOP; the partner S2MM task that
// was receiving its words ends with the same code.
TEST(RtlDmaErrors, ChainLoopAbortsBothChannels) {
  Sys s;
  auto a = linear(MemSel::L2, 0, 1), b = linear(MemSel::L2, 4, 1);
  a.use_next = 1;
  a.next_bd = 1;
  b.use_next = 1;
  b.next_bd = 0;
  s.write_bd(kMem, 0, a);
  s.write_bd(kMem, 1, b);
  s.write_bd(kMem, 2, bd(MemSel::L2, 0x1000, {1, 64}, {1, 1}));  // one MEM_WRITE per word
  EXPECT_EQ(ref_code({{0, a}, {1, b}}, 0, engine(kMem), ref::DmaDir::MM2S), ErrorCode::BD_CHAIN_LOOP);
  s.push(kMem, false, 0, 2);
  s.push(kMem, true, 0, 0);
  EXPECT_EQ(s.token(kMem, true, 0).code, ErrorCode::BD_CHAIN_LOOP);
  EXPECT_EQ(s.token(kMem, false, 0).code, ErrorCode::BD_CHAIN_LOOP);
  s.dev.run_until_idle(kIdle);
  // P::memdma_bds BDs ran; the abort flushes the words still in the pair FIFO, so L2 received a
  // prefix of them, in order.
  const auto mw = s.of(kMem, trace::dma_unit(false, 0), trace::Kind::MEM_WRITE);
  EXPECT_LE(mw.size(), 1u * P::memdma_bds);
  EXPECT_GE(mw.size() + P::dma_stream_depth, 1u * P::memdma_bds);
  for (size_t i = 0; i < mw.size(); ++i) EXPECT_EQ(mw[i].addr, 0x1000u + 4 * i);
}

// A push to a full queue is dropped (QUEUE_OVERFLOW); a channel reset drops the queued tasks
// and ends the running one without a token.
TEST(RtlDmaErrors, QueueOverflowAndChannelReset) {
  Sys s;
  s.write_bd(kMem, 0, linear(MemSel::L2, 0, 16));
  for (uint32_t i = 0; i < P::queue_depth + 1; ++i) s.push(kMem, false, 0, 0);  // no data ever comes
  const auto info = spec::shim::ErrorInfo::decode_word(s.dev.read32(addr(kMem, spec::shim::ERROR_INFO.offset)));
  EXPECT_EQ(info.code, ErrorCode::QUEUE_OVERFLOW);
  const uint32_t st = s.dev.read32(addr(kMem, spec::shim::DMA_S2MM_STATUS.at(0)));
  EXPECT_EQ(spec::shim::DmaS2mmStatus::decode_word(st).pending, P::queue_depth);
  EXPECT_TRUE(s.dev.busy());
  EXPECT_THROW(s.dev.run_until_idle(500), device::TimeoutError);
  spec::shim::DmaS2mmCtrl reset;
  reset.reset = 1;
  s.dev.write32(addr(kMem, spec::shim::DMA_S2MM_CTRL.at(0)), reset.encode_word());
  s.dev.run_until_idle(1000);
  const auto after =
      spec::shim::DmaS2mmStatus::decode_word(s.dev.read32(addr(kMem, spec::shim::DMA_S2MM_STATUS.at(0))));
  EXPECT_EQ(after.pending, 0u);
  EXPECT_EQ(after.busy, 0u);
  EXPECT_EQ(s.dev.read32(addr(kShim, spec::shim::TOKEN_POP.offset)), 0u);  // no tokens
}

}  // namespace
}  // namespace axcore::rtl::test
