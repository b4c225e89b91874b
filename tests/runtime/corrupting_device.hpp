// A test harness device: forwards everything to another device and, the first time the player
// pops a chosen completion token, corrupts one word of a core's L1 through DBG_MEM — an effect
// the RTL sees like a bit flip in its SRAM. The harness's own DBG_MEM register writes are kept
// out of the trace, so the first divergence a comparison finds is the first transaction that
// carries the corrupted word.
#pragma once

#include <functional>

#include "axcore/device/device.hpp"

namespace axcore::runtime::testing_support {

class CorruptingDevice : public device::Device {
 public:
  struct Fault {
    std::function<bool(const spec::Token&)> when;  // the token after which the word is corrupted
    unsigned core = 0;
    uint32_t l1_addr = 0;  // word-aligned byte address in that core's L1
    uint32_t xor_mask = 0;
  };
  CorruptingDevice(device::Device& inner, Fault f) : in_(inner), fault_(std::move(f)) {}

  bool fired() const { return fired_; }
  uint32_t original() const { return original_; }

  std::string_view backend() const override { return in_.backend(); }
  unsigned cores() const override { return in_.cores(); }
  uint32_t read32(uint64_t addr) override {
    const uint32_t v = in_.read32(addr);
    if (!fired_ && addr == spec::tile_addr(0, spec::param::shim_row, spec::shim::TOKEN_POP.offset) &&
        spec::Token::decode_word(v).valid && fault_.when(spec::Token::decode_word(v)))
      corrupt();
    return v;
  }
  void write32(uint64_t addr, uint32_t value) override { in_.write32(addr, value); }
  void block_write(uint64_t addr, std::span<const uint32_t> words) override { in_.block_write(addr, words); }
  uint64_t cycle() const override { return in_.cycle(); }
  void advance(uint64_t cycles) override { in_.advance(cycles); }
  void run_until_idle(uint64_t timeout_cycles) override { in_.run_until_idle(timeout_cycles); }
  uint64_t ddr_size() const override { return in_.ddr_size(); }
  uint64_t ddr_base() const override { return in_.ddr_base(); }
  void ddr_write(uint64_t addr, std::span<const uint8_t> bytes) override { in_.ddr_write(addr, bytes); }
  void ddr_read(uint64_t addr, std::span<uint8_t> bytes) override { in_.ddr_read(addr, bytes); }
  void set_trace_sink(device::TraceSink sink) override {
    sink_ = std::move(sink);
    in_.set_trace_sink([this](const trace::Record& r) {
      const bool harness = injecting_ && r.unit == trace::Unit::HOST && r.kind == trace::Kind::REG_WRITE;
      if (sink_ && !harness) sink_(r);
    });
  }

 private:
  void corrupt() {
    fired_ = injecting_ = true;
    const uint32_t row = spec::core_row(fault_.core);
    auto reg = [&](const spec::Reg& r) { return spec::tile_addr(0, row, r.offset); };
    in_.write32(reg(spec::core::DBG_MEM_SEL), 0);  // L1
    in_.write32(reg(spec::core::DBG_MEM_ADDR), fault_.l1_addr);
    original_ = in_.read32(reg(spec::core::DBG_MEM_DATA));
    in_.write32(reg(spec::core::DBG_MEM_ADDR), fault_.l1_addr);
    in_.write32(reg(spec::core::DBG_MEM_DATA), original_ ^ fault_.xor_mask);
    injecting_ = false;
  }

  device::Device& in_;
  Fault fault_;
  device::TraceSink sink_;
  bool fired_ = false, injecting_ = false;
  uint32_t original_ = 0;
};

}  // namespace axcore::runtime::testing_support
