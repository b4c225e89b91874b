// Helpers for the system RTL tests: an RtlDevice on ax_sys_tb_top, BD/queue programming through
// the host port, L2 access through DBG_MEM, and the common/ref expectation of a DMA copy.
#pragma once

#include <gtest/gtest.h>

#include <axcore/ref/dma.hpp>
#include <axcore/rtl/rtl_device.hpp>
#include <axcore/spec.hpp>
#include <cstdint>
#include <random>
#include <vector>

namespace axcore::rtl::test {

namespace P = spec::param;
constexpr uint32_t kShim = P::shim_row, kMem = P::mem_row;
constexpr uint64_t kIdle = 2'000'000;  // run_until_idle timeout (cycles)

inline uint32_t addr(uint32_t row, uint32_t off) { return spec::tile_addr(0, row, off); }

inline RtlOptions sys_options(uint32_t ddr_latency = 4) {
  RtlOptions o;
  o.cores = 0;
  o.ddr_latency_cycles = ddr_latency;
  return o;
}

// A word-granular BD: d0..d3 sizes/strides (words), innermost first.
inline spec::DmaBd bd(spec::MemSel mem, uint64_t byte_addr, std::vector<uint32_t> sizes, std::vector<int32_t> strides) {
  spec::DmaBd b;
  b.mem = mem;
  b.valid = 1;
  b.addr_lo = static_cast<uint32_t>(byte_addr);
  b.addr_hi = static_cast<uint32_t>(byte_addr >> 32);
  uint32_t len = 1;
  uint32_t* sz[4] = {&b.d0_size, &b.d1_size, &b.d2_size, &b.d3_size};
  int32_t* st[4] = {&b.d0_stride, &b.d1_stride, &b.d2_stride, &b.d3_stride};
  for (size_t k = 0; k < sizes.size(); ++k) {
    *sz[k] = sizes[k];
    *st[k] = strides[k];
    len *= sizes[k] == 0 ? 1 : sizes[k];
  }
  b.length = len;
  return b;
}
inline spec::DmaBd linear(spec::MemSel mem, uint64_t byte_addr, uint32_t words) {
  return bd(mem, byte_addr, {words}, {1});
}

inline ref::DmaEngine engine(uint32_t row) {
  return row == kShim ? ref::DmaEngine::sysdma() : ref::DmaEngine::memdma();
}

class Sys {
 public:
  explicit Sys(uint32_t ddr_latency = 4) : dev(sys_options(ddr_latency)) {
    dev.set_trace_sink([this](const trace::Record& r) { trace.push_back(r); });
  }

  void write_bd(uint32_t row, uint32_t id, const spec::DmaBd& b) {
    const auto w = b.encode();
    dev.block_write(addr(row, spec::shim::DMA_BD.at(id)), w);
  }
  void push(uint32_t row, bool mm2s, uint32_t ch, uint32_t start, uint32_t repeat = 0, bool token = true,
            uint32_t tag = 0) {
    spec::QueuePush q;
    q.start = start;
    q.repeat = repeat;
    q.token = token ? 1 : 0;
    q.tag = tag;
    const spec::Reg& r = mm2s ? spec::shim::DMA_MM2S_QUEUE : spec::shim::DMA_S2MM_QUEUE;
    dev.write32(addr(row, r.at(ch)), q.encode_word());
  }
  spec::Token token(uint32_t row, bool mm2s, uint32_t ch) {
    return spec::Token::decode_word(dev.wait_token(0, row, mm2s ? 1 : 0, ch, kIdle));
  }

  void l2_write(uint32_t byte_addr, const std::vector<uint32_t>& words) {
    dev.write32(addr(kMem, spec::mem::DBG_MEM_ADDR.offset), byte_addr);
    for (uint32_t w : words) dev.write32(addr(kMem, spec::mem::DBG_MEM_DATA.offset), w);
  }
  std::vector<uint32_t> l2_read(uint32_t byte_addr, size_t n) {
    dev.write32(addr(kMem, spec::mem::DBG_MEM_ADDR.offset), byte_addr);
    std::vector<uint32_t> out(n);
    for (auto& w : out) w = dev.read32(addr(kMem, spec::mem::DBG_MEM_DATA.offset));
    return out;
  }
  void ddr_words(uint64_t byte_addr, const std::vector<uint32_t>& words) {
    std::vector<uint8_t> b(words.size() * 4);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(words[i / 4] >> 8 * (i % 4));
    dev.ddr_write(byte_addr, b);
  }
  std::vector<uint32_t> ddr_words(uint64_t byte_addr, size_t n) {
    std::vector<uint8_t> b(n * 4);
    dev.ddr_read(byte_addr, b);
    std::vector<uint32_t> out(n);
    for (size_t i = 0; i < b.size(); ++i) out[i / 4] |= uint32_t{b[i]} << 8 * (i % 4);
    return out;
  }
  std::vector<trace::Record> of(uint32_t row, trace::Unit u, trace::Kind k) const {
    std::vector<trace::Record> out;
    for (const auto& r : trace)
      if (r.row == row && r.unit == u && r.kind == k) out.push_back(r);
    return out;
  }

  RtlDevice dev;
  std::vector<trace::Record> trace;
};

inline std::vector<uint32_t> random_words(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (auto& w : v) w = rng();
  return v;
}

// common/ref's result of moving `src` (read through the MM2S BD from a window at src_base) into
// `dst` (written through the S2MM BD into a window at dst_base), run `run` of the task.
inline void ref_copy(const spec::DmaBd& s, const ref::DmaEngine& se, const std::vector<uint32_t>& src,
                     uint64_t src_base, const spec::DmaBd& d, const ref::DmaEngine& de, std::vector<uint32_t>& dst,
                     uint64_t dst_base, uint32_t run = 0) {
  std::vector<uint8_t> sb(src.size() * 4), db(dst.size() * 4);
  for (size_t i = 0; i < sb.size(); ++i) sb[i] = static_cast<uint8_t>(src[i / 4] >> 8 * (i % 4));
  for (size_t i = 0; i < db.size(); ++i) db[i] = static_cast<uint8_t>(dst[i / 4] >> 8 * (i % 4));
  const auto words = ref::mm2s_read(s, ref::dma_walk(s, se, ref::DmaDir::MM2S, run), {sb, src_base});
  ref::s2mm_write(ref::dma_walk(d, de, ref::DmaDir::S2MM, run), words, {db, dst_base});
  for (size_t i = 0; i < dst.size(); ++i) dst[i] = 0;
  for (size_t i = 0; i < db.size(); ++i) dst[i / 4] |= uint32_t{db[i]} << 8 * (i % 4);
}

}  // namespace axcore::rtl::test
