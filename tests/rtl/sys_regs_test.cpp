// Shim and mem tile registers through the AXI4-Lite host port of the system test top.
#include <cstdio>
#include <string>

#include "sys_fixture.hpp"

namespace axcore::rtl::test {
namespace {

TEST(RtlSysRegs, IdentityAndConfig) {
  RtlDevice dev(sys_options());
  EXPECT_EQ(dev.read32(addr(kShim, spec::shim::ID.offset)), spec::shim::ID_RESET);
  EXPECT_EQ(dev.read32(addr(kShim, spec::shim::VERSION.offset)), spec::shim::VERSION_RESET);
  EXPECT_EQ(dev.read32(addr(kShim, spec::shim::SPEC_HASH_LO.offset)), spec::shim::SPEC_HASH_LO_RESET);
  EXPECT_EQ(dev.read32(addr(kShim, spec::shim::SPEC_HASH_HI.offset)), spec::shim::SPEC_HASH_HI_RESET);
  const auto cfg = spec::shim::Config::decode_word(dev.read32(addr(kShim, spec::shim::CONFIG.offset)));
  EXPECT_EQ(cfg.cores, 0u);  // the test top has no core tiles
  EXPECT_EQ(cfg.imc_tiles, P::imc_tiles);
  EXPECT_EQ(cfg.mvm_rows_per_cycle, P::mvm_rows_per_cycle);
  EXPECT_EQ(dev.read32(addr(kShim, spec::shim::STATUS.offset)), 0u);
  EXPECT_EQ(dev.read32(addr(kMem, spec::mem::MEM_STATUS.offset)), 0u);
}

TEST(RtlSysRegs, ScratchAndBdStoreReadBack) {
  RtlDevice dev(sys_options());
  for (uint32_t v : {0u, 0xFFFFFFFFu, 0xA5A5'1234u}) {
    dev.write32(addr(kShim, spec::shim::SCRATCH.offset), v);
    EXPECT_EQ(dev.read32(addr(kShim, spec::shim::SCRATCH.offset)), v);
  }
  for (uint32_t w = 0; w < 16; ++w) dev.write32(addr(kMem, spec::mem::DMA_BD.at(31) + 4 * w), 0x1000u * w + 7);
  for (uint32_t w = 0; w < 16; ++w)
    EXPECT_EQ(dev.read32(addr(kMem, spec::mem::DMA_BD.at(31) + 4 * w)), 0x1000u * w + 7);
}

TEST(RtlSysRegs, HostWriteTakesThreeCyclesReadFour) {
  RtlDevice dev(sys_options());
  uint64_t c = dev.cycle();
  dev.write32(addr(kShim, spec::shim::SCRATCH.offset), 1);
  EXPECT_EQ(dev.cycle() - c, 3u);
  c = dev.cycle();
  (void)dev.read32(addr(kShim, spec::shim::SCRATCH.offset));
  EXPECT_EQ(dev.cycle() - c, 4u);
  c = dev.cycle();
  (void)dev.read32(addr(kMem, spec::mem::DBG_MEM_DATA.offset));  // an SRAM-backed read
  EXPECT_EQ(dev.cycle() - c, 4u);
}

TEST(RtlSysRegs, CycleCounterLatchesHighWord) {
  RtlDevice dev(sys_options());
  dev.advance(1000);
  const uint32_t lo = dev.read32(addr(kShim, spec::shim::CYCLE_LO.offset));
  const uint32_t hi = dev.read32(addr(kShim, spec::shim::CYCLE_HI.offset));
  EXPECT_EQ(hi, 0u);
  // CYCLE_LO is sampled in the request cycle (the second of the read).
  EXPECT_EQ(lo, 1000u + 1u);
  EXPECT_GT(dev.read32(addr(kShim, spec::shim::CYCLE_LO.offset)), lo);
}

TEST(RtlSysRegs, UnmappedAccessesAreDeviceErrors) {
  RtlDevice dev(sys_options());
  EXPECT_THROW(dev.read32(addr(kShim, 0x0FFFC)), device::DeviceError);      // no register
  EXPECT_THROW(dev.write32(addr(kMem, 0x0FFFC), 1), device::DeviceError);   // no register
  EXPECT_THROW(dev.read32(addr(2, 0)), device::DeviceError);                // no core tile here
  EXPECT_THROW(dev.read32(spec::tile_addr(1, 0, 0)), device::DeviceError);  // column 1
  EXPECT_THROW(dev.read32(addr(kShim, 2)), device::DeviceError);            // misaligned
  EXPECT_THROW(dev.read32(uint64_t{1} << 33), device::DeviceError);         // not 32-bit
  // DBG_MEM past the end of L2.
  dev.write32(addr(kMem, spec::mem::DBG_MEM_ADDR.offset), P::l2_bytes);
  EXPECT_THROW(dev.read32(addr(kMem, spec::mem::DBG_MEM_DATA.offset)), device::DeviceError);
  // The device still works afterwards.
  EXPECT_EQ(dev.read32(addr(kShim, spec::shim::ID.offset)), spec::shim::ID_RESET);
}

TEST(RtlSysRegs, DbgMemAutoIncrementsAcrossBanks) {
  Sys s;
  const auto words = random_words(40, 7);  // 160 bytes: crosses three 64-byte rows (banks)
  s.l2_write(0x1F0, words);
  EXPECT_EQ(s.dev.read32(addr(kMem, spec::mem::DBG_MEM_ADDR.offset)), 0x1F0u + 160u);
  EXPECT_EQ(s.l2_read(0x1F0, words.size()), words);
}

TEST(RtlSysRegs, RegWritesAreTraced) {
  Sys s;
  s.dev.write32(addr(kShim, spec::shim::SCRATCH.offset), 0x1234);
  ASSERT_EQ(s.trace.size(), 1u);
  EXPECT_EQ(s.trace[0].kind, trace::Kind::REG_WRITE);
  EXPECT_EQ(s.trace[0].unit, trace::Unit::HOST);
  EXPECT_EQ(s.trace[0].addr, addr(kShim, spec::shim::SCRATCH.offset));
  EXPECT_EQ(s.trace[0].data_hash, 0x1234u);
}

}  // namespace
}  // namespace axcore::rtl::test

namespace axcore::rtl::test {
namespace {

TEST(RtlSysRegs, FstDumpOnRequest) {
  const std::string path = ::testing::TempDir() + "rtl_sys_dump.fst";
  std::remove(path.c_str());
  {
    RtlOptions o = sys_options();
    o.fst_path = path;
    o.fst_depth = 3;
    RtlDevice dev(o);
    dev.write32(addr(kShim, spec::shim::SCRATCH.offset), 5);
    dev.advance(100);
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr) << path;
  std::fseek(f, 0, SEEK_END);
  EXPECT_GT(std::ftell(f), 100);
  std::fclose(f);
}

TEST(RtlSysRegs, MissingConfigurationIsAClearError) {
  RtlOptions o = sys_options();
  o.cores = 3;
  EXPECT_THROW(RtlDevice dev(o), device::DeviceError);
}

}  // namespace
}  // namespace axcore::rtl::test
