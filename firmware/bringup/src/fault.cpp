#include <stdexcept>

#include "ops.hpp"

namespace axcore::bringup {
namespace {
namespace S = spec;
struct Named {
  Fault f;
  const char* name;
};
const Named kNames[] = {{Fault::NONE, "none"},
                        {Fault::SPEC_HASH, "spec-hash"},
                        {Fault::RESET_VALUE, "reset-value"},
                        {Fault::SCRATCH_BIT, "scratch-bit"},
                        {Fault::STUCK_DDR_BIT, "stuck-ddr-bit"},
                        {Fault::DMA_DROP, "dma-drop"},
                        {Fault::TOKEN_TAG, "token-tag"},
                        {Fault::COPY_BIT, "copy-bit"},
                        {Fault::MVM_BIT, "mvm-bit"},
                        {Fault::DPU_BIT, "dpu-bit"},
                        {Fault::DWPU_BIT, "dwpu-bit"},
                        {Fault::PERF_TIMER, "perf-timer"},
                        {Fault::NO_DWPU, "no-dwpu"}};
}  // namespace

std::string to_string(Fault f) {
  for (const auto& n : kNames)
    if (n.f == f) return n.name;
  return "?";
}
Fault parse_fault(const std::string& s) {
  std::string all;
  for (const auto& n : kNames) {
    if (s == n.name) return n.f;
    all += std::string(all.empty() ? "" : ", ") + n.name;
  }
  throw std::invalid_argument("unknown fault '" + s + "' (faults: " + all + ")");
}
std::vector<Fault> all_faults() {
  std::vector<Fault> v;
  for (const auto& n : kNames)
    if (n.f != Fault::NONE && n.f != Fault::NO_DWPU) v.push_back(n.f);
  return v;
}

uint32_t FaultyDevice::read32(uint64_t addr) {
  uint32_t v = d_.read32(addr);
  switch (f_) {
    case Fault::SPEC_HASH:
      if (addr == S::tile_addr(0, 0, S::shim::SPEC_HASH_LO.offset)) v ^= 0x100;
      break;
    case Fault::RESET_VALUE:  // mem tile ERROR_ADDR resets to 1
      if (addr == S::tile_addr(0, S::param::mem_row, S::mem::ERROR_ADDR.offset)) v |= 1;
      break;
    case Fault::SCRATCH_BIT:  // SCRATCH bit 7 stuck at 0
      if (addr == S::tile_addr(0, 0, S::shim::SCRATCH.offset)) v &= ~0x80u;
      break;
    case Fault::TOKEN_TAG:  // the token unit drops tag bit 0
      if (addr == S::tile_addr(0, 0, S::shim::TOKEN_POP.offset)) {
        S::Token t = S::Token::decode_word(v);
        t.tag &= ~1u;
        v = t.encode_word();
      }
      break;
    case Fault::NO_DWPU:  // core 0's DWPU queue answers every task with DESC_UNITS
      if (addr == S::tile_addr(0, 0, S::shim::TOKEN_POP.offset) && v) {
        auto t = S::Token::decode_word(v);
        if (t.row == S::core_row(0) &&
            t.channel == S::param::core_queue_channel_base + static_cast<uint32_t>(S::Queue::DWPU)) {
          t.error = 1;
          t.code = S::ErrorCode::DESC_UNITS;
          v = t.encode_word();
        }
      }
      break;
    case Fault::PERF_TIMER:  // the cycle counter is frozen
      if (addr == S::tile_addr(0, 0, S::shim::CYCLE_LO.offset)) v = 0x1000;
      if (addr == S::tile_addr(0, 0, S::shim::CYCLE_HI.offset)) v = 0;
      break;
    default: break;
  }
  return v;
}

void FaultyDevice::write32(uint64_t addr, uint32_t value) {
  // The mem tile's MM2S queue ignores pushes: its tasks never run.
  if (f_ == Fault::DMA_DROP && addr == S::tile_addr(0, S::param::mem_row, S::mem::DMA_MM2S_QUEUE.at(0))) return;
  d_.write32(addr, value);
}

void FaultyDevice::ddr_read(uint64_t a, std::span<uint8_t> b) {
  d_.ddr_read(a, b);
  if (f_ == Fault::COPY_BIT || f_ == Fault::MVM_BIT || f_ == Fault::DPU_BIT || f_ == Fault::DWPU_BIT) {
    // bit 0 of lane 3 of the kernel's first output element (element bytes / 64 per lane)
    const unsigned k = static_cast<unsigned>(f_) - static_cast<unsigned>(Fault::COPY_BIT);
    const uint64_t lane_bytes = f_ == Fault::DPU_BIT ? 2 : 4;
    const uint64_t at = detail::kernel_out(d_, k) + 3 * lane_bytes;
    if (at >= a && at < a + b.size()) b[at - a] ^= 0x01;
    return;
  }
  if (f_ != Fault::STUCK_DDR_BIT) return;
  for (size_t i = 0; i < b.size(); ++i)  // data bit 4 of every word stuck at 1 (as the host reads it)
    if ((a + i) % 4 == 0) b[i] |= 0x10;
}

}  // namespace axcore::bringup
