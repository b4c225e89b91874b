// Every register of every tile type from the spec table: reset values and access rules.
#include <gtest/gtest.h>

#include "axcore/cosim/stimulus.hpp"
#include "axcore/tlm/tlm_device.hpp"

namespace axcore {
namespace {

// Registers whose reads are live state rather than a stored reset value.
bool live(std::string_view n) { return n == "CYCLE_LO" || n == "CYCLE_HI"; }
// Writes with side effects (resets, pushes, debug windows) are covered by their own tests.
bool side_effect(std::string_view n) {
  return n == "CTRL" || n == "CORE_CTRL" || n == "Q_CTRL" || n == "DMA_S2MM_CTRL" || n == "DMA_MM2S_CTRL" ||
         n == "DBG_MEM_DATA" || n == "Q_PUSH" || n == "DMA_S2MM_QUEUE" || n == "DMA_MM2S_QUEUE";
}

template <std::size_t N>
void check_resets(device::Device& d, uint32_t row, const std::array<spec::RegisterInfo, N>& table, int& checked) {
  for (const auto& r : table) {
    if (r.memory || live(r.name)) continue;
    for (uint32_t i = 0; i < r.count; ++i)
      for (uint32_t w = 0; w < r.words; ++w) {
        uint32_t expect = r.access == spec::Access::WO || r.access == spec::Access::RC ? 0 : r.reset;
        if (r.name == "CONFIG") expect = (expect & ~0xFu) | d.cores();  // cores of this build
        EXPECT_EQ(d.read32(stim::addr(row, r.at(i) + 4 * w)), expect) << r.name << "[" << i << "] word " << w;
        ++checked;
      }
  }
}

template <std::size_t N>
void check_access(device::Device& d, uint32_t row, const std::array<spec::RegisterInfo, N>& table, int& checked) {
  constexpr uint32_t kPattern = 0xA5C3F00Fu;
  for (const auto& r : table) {
    if (r.memory || live(r.name) || side_effect(r.name)) continue;
    const uint32_t a = stim::addr(row, r.at(r.count - 1) + 4 * (r.words - 1));
    const uint32_t before = d.read32(a);
    d.write32(a, kPattern);
    const uint32_t after = d.read32(a);
    switch (r.access) {
      case spec::Access::RW: EXPECT_EQ(after, kPattern & r.field_mask) << r.name; break;
      case spec::Access::RO: EXPECT_EQ(after, before) << r.name << " is read-only"; break;
      case spec::Access::WO: EXPECT_EQ(after, 0u) << r.name << " is write-only"; break;
      case spec::Access::W1C: EXPECT_EQ(after, before & ~kPattern) << r.name; break;
      case spec::Access::RC: EXPECT_EQ(after, 0u) << r.name << " (empty)"; break;
    }
    ++checked;
  }
}

TEST(TlmRegmap, ResetValuesOfEveryRegister) {
  tlm::TlmDevice d({.cores = 2});
  int checked = 0;
  check_resets(d, spec::param::shim_row, spec::shim::kRegisters, checked);
  check_resets(d, spec::param::mem_row, spec::mem::kRegisters, checked);
  for (unsigned c = 0; c < 2; ++c) check_resets(d, spec::core_row(c), spec::core::kRegisters, checked);
  EXPECT_GT(checked, 1000);
}

TEST(TlmRegmap, AccessRulesOfEveryRegister) {
  tlm::TlmDevice d;
  int checked = 0;
  check_access(d, spec::param::shim_row, spec::shim::kRegisters, checked);
  check_access(d, spec::param::mem_row, spec::mem::kRegisters, checked);
  check_access(d, spec::core_row(0), spec::core::kRegisters, checked);
  EXPECT_GE(checked, 45);
}

TEST(TlmRegmap, CycleCounterAndIdentity) {
  tlm::TlmDevice d;
  const uint32_t c0 = d.read32(stim::addr(0, spec::shim::CYCLE_LO.offset));
  d.advance(100);
  const uint32_t c1 = d.read32(stim::addr(0, spec::shim::CYCLE_LO.offset));
  EXPECT_GE(c1 - c0, 100u);
  EXPECT_EQ(d.read32(stim::addr(0, spec::shim::ID.offset)), spec::kIdMagic);
  EXPECT_EQ(d.read32(stim::addr(0, spec::shim::SPEC_HASH_LO.offset)), static_cast<uint32_t>(spec::kSpecHash));
}

TEST(TlmRegmap, DebugWindowsReachL1AndL2) {
  tlm::TlmDevice d;
  const uint32_t core = spec::core_row(0);
  d.write32(stim::addr(core, spec::core::DBG_MEM_ADDR.offset), 0x100);
  d.write32(stim::addr(core, spec::core::DBG_MEM_DATA.offset), 0xDEADBEEF);
  d.write32(stim::addr(core, spec::core::DBG_MEM_DATA.offset), 0x01234567);
  EXPECT_EQ(d.l1(0)[0x100], 0xEF);
  EXPECT_EQ(d.l1(0)[0x104], 0x67);
  d.write32(stim::addr(core, spec::core::DBG_MEM_ADDR.offset), 0x100);
  EXPECT_EQ(d.read32(stim::addr(core, spec::core::DBG_MEM_DATA.offset)), 0xDEADBEEFu);
  d.write32(stim::addr(1, spec::mem::DBG_MEM_ADDR.offset), 0x40);
  d.write32(stim::addr(1, spec::mem::DBG_MEM_DATA.offset), 0xCAFEF00D);
  EXPECT_EQ(d.l2()[0x40], 0x0D);
}

TEST(TlmRegmap, BadAddressesThrow) {
  tlm::TlmDevice d;
  EXPECT_THROW(d.read32(stim::addr(0, 0x0FFC)), device::DeviceError);             // hole in the shim map
  EXPECT_THROW(d.read32(stim::addr(spec::core_row(1), 0)), device::DeviceError);  // core 1 absent
  EXPECT_THROW(d.write32(stim::addr(0, 0x52), 1), device::DeviceError);           // unaligned
  EXPECT_THROW(d.ddr_write(d.ddr_size() - 2, std::vector<uint8_t>(4)), device::DeviceError);
}

TEST(TlmRegmap, OneDevicePerProcess) {
  tlm::TlmDevice d;
  EXPECT_THROW(tlm::TlmDevice second, device::DeviceError);
}

}  // namespace
}  // namespace axcore
