#include "axfw/host/device_port.hpp"

#include <array>

namespace axcore::fw {
namespace {

DevicePort& self(void* ctx) { return *static_cast<DevicePort*>(ctx); }

uint32_t reg_read(void* ctx, uint64_t addr) {
  ++self(ctx).reg_reads;
  return self(ctx).device().read32(addr);
}
void reg_write(void* ctx, uint64_t addr, uint32_t v) {
  ++self(ctx).reg_writes;
  self(ctx).device().write32(addr, v);
}
uint32_t ddr_read(void* ctx, uint64_t addr) {
  auto& d = self(ctx).device();
  ++self(ctx).ddr_words;
  std::array<uint8_t, 4> b{};
  d.ddr_read(addr - d.ddr_base(), b);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}
void ddr_write(void* ctx, uint64_t addr, uint32_t v) {
  auto& d = self(ctx).device();
  ++self(ctx).ddr_words;
  const std::array<uint8_t, 4> b{static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16),
                                 static_cast<uint8_t>(v >> 24)};
  d.ddr_write(addr - d.ddr_base(), b);
}
uint64_t cycle(void* ctx) { return self(ctx).device().cycle(); }
void wait(void* ctx, uint32_t cycles) { self(ctx).device().advance(cycles); }

}  // namespace

DevicePort::DevicePort(device::Device& dev) : dev_(dev) {
  port_.ctx = this;
  port_.reg_read = reg_read;
  port_.reg_write = reg_write;
  port_.ddr_read = ddr_read;
  port_.ddr_write = ddr_write;
  port_.cycle = cycle;
  port_.wait = wait;
  port_.barrier = nullptr;  // one thread: program order is the order
}

}  // namespace axcore::fw
