// Test-side AIE2 BD packing, written from the bit tables of docs/txn.md (the AIE2 / AIE2p layouts) and not
// from the library, so that the tracer's decoding is checked against an independent encoding.
#pragma once

#include <array>
#include <cstdint>

namespace aie2 {

constexpr uint32_t tile(uint32_t col, uint32_t row) { return col << 25 | row << 20; }
constexpr uint32_t kShimBd = 0x1D000, kMemBd = 0xA0000, kCoreBd = 0x1D000;
constexpr uint32_t bd_addr(uint32_t base, uint32_t k) { return base + 0x20 * k; }
// Queue register of channel ch: ctrl_base + delta + 8 ch + 4.
constexpr uint32_t shim_queue(bool mm2s, uint32_t ch) { return 0x1D200 + (mm2s ? 0x10 : 0) + 8 * ch + 4; }
constexpr uint32_t mem_queue(bool mm2s, uint32_t ch) { return 0xA0600 + (mm2s ? 0x30 : 0) + 8 * ch + 4; }
constexpr uint32_t core_queue(bool mm2s, uint32_t ch) { return 0x1DE00 + (mm2s ? 0x10 : 0) + 8 * ch + 4; }
constexpr uint32_t push_word(uint32_t bd, uint32_t repeat = 0, bool token = false) {
  return bd | repeat << 16 | (token ? 1u << 31 : 0);
}

struct Locks {
  uint32_t acq_id = 0, acq_value = 0, acq_enable = 0, rel_id = 0, rel_value = 0;
};

// Shim w7 / core w5.
constexpr uint32_t lock_word(const Locks& l, bool valid, bool use_next, uint32_t next, bool tlast) {
  return l.acq_id | l.acq_value << 5 | l.acq_enable << 12 | l.rel_id << 13 | l.rel_value << 18 | uint32_t{valid} << 25 |
         uint32_t{use_next} << 26 | next << 27 | uint32_t{tlast} << 31;
}

struct ShimBd {
  uint32_t length = 0;
  uint64_t addr = 0;  // byte address
  uint32_t d0_wrap = 0, d0_step = 0, d1_wrap = 0, d1_step = 0, d2_step = 0;
  uint32_t iter_wrap = 0, iter_step = 0, iter_current = 0;
  uint32_t packet_type = 0, packet_id = 0, ooo_bd = 0, enable_packet = 0;
  uint32_t burst = 0, axqos = 0, axcache = 0, smid = 0, secure = 0;
  Locks locks{};
  bool valid = true, use_next = false, tlast = false;
  uint32_t next = 0;

  std::array<uint32_t, 8> words() const {
    return {length,
            static_cast<uint32_t>(addr) & ~3u,
            static_cast<uint32_t>(addr >> 32 & 0xFFFF) | packet_type << 16 | packet_id << 19 | ooo_bd << 24 |
                enable_packet << 30,
            d0_step | d0_wrap << 20 | secure << 30,
            d1_step | d1_wrap << 20 | burst << 30,
            d2_step | axqos << 20 | axcache << 24 | smid << 28,
            iter_step | iter_wrap << 20 | iter_current << 26,
            lock_word(locks, valid, use_next, next, tlast)};
  }
};

struct MemBd {
  uint32_t length = 0, addr = 0;  // byte address
  uint32_t d0_wrap = 0, d0_step = 0, d1_wrap = 0, d1_step = 0, d2_wrap = 0, d2_step = 0, d3_step = 0;
  uint32_t d0_before = 0, d0_after = 0, d1_before = 0, d1_after = 0, d2_before = 0, d2_after = 0;
  uint32_t iter_wrap = 0, iter_step = 0, iter_current = 0;
  uint32_t lock_acq_id = 0, lock_rel_id = 0;
  bool valid = true, use_next = false;
  uint32_t next = 0;

  std::array<uint32_t, 8> words() const {
    return {length,
            addr >> 2 | uint32_t{use_next} << 19 | next << 20 | d0_before << 26,
            d0_step | d0_wrap << 17,
            d1_step | d1_wrap << 17 | d1_before << 27,
            d2_step | d2_wrap << 17 | d2_before << 27,
            d3_step | d0_after << 17 | d1_after << 23 | d2_after << 28,
            iter_step | iter_wrap << 17 | iter_current << 23,
            lock_acq_id | lock_rel_id << 16 | uint32_t{valid} << 31};
  }
};

struct CoreBd {
  uint32_t length = 0, addr = 0;  // byte address
  uint32_t d0_wrap = 0, d0_step = 0, d1_wrap = 0, d1_step = 0, d2_step = 0;
  uint32_t iter_wrap = 0, iter_step = 0;
  Locks locks{};
  bool valid = true, use_next = false;
  uint32_t next = 0;

  std::array<uint32_t, 6> words() const {
    return {length | (addr >> 2) << 14,  0,
            d0_step | d1_step << 13,     d2_step | d0_wrap << 13 | d1_wrap << 21,
            iter_step | iter_wrap << 13, lock_word(locks, valid, use_next, next, false)};
  }
};

}  // namespace aie2
