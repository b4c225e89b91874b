// The DDR mailbox: ring order and wrap, completion back-pressure, the status page, and a device
// whose spec hash is not the firmware's.
#include <gtest/gtest.h>

#include "axcore/txn/writer.hpp"
#include "fw_test_support.hpp"

namespace {

using namespace axcore;
using fw::FirmwareInTheLoop;

std::vector<uint32_t> scratch_write(uint32_t v) {
  txn::Writer w(txn::Device::axcore(1));
  w.write32(spec::tile_addr(0, 0, spec::shim::SCRATCH.offset), v);
  return w.words();
}
uint32_t scratch(device::Device& d) { return d.read32(spec::tile_addr(0, 0, spec::shim::SCRATCH.offset)); }

TEST(FirmwareMailbox, InitPublishesIdentityAndStatus) {
  runtime::RegFileDevice d;
  FirmwareInTheLoop f(d);
  EXPECT_EQ(f.init_status(), AXFW_OK);
  const auto s = f.client().status();
  EXPECT_EQ(s.at(AXFW_ST_MAGIC), AXFW_STATUS_MAGIC);
  EXPECT_EQ(s.at(AXFW_ST_STATE), AXFW_STATE_READY);
  EXPECT_EQ(s.fw_spec_hash(), spec::kSpecHash);
  EXPECT_EQ(s.dev_spec_hash(), spec::kSpecHash);
  EXPECT_EQ(s.at(AXFW_ST_DEV_ID), spec::kIdMagic);
  EXPECT_EQ(s.at(AXFW_ST_CORES), 1u);
  EXPECT_EQ(s.at(AXFW_ST_FW_VERSION), AXFW_FW_VERSION_MAJOR << 16 | AXFW_FW_VERSION_MINOR);
  EXPECT_NE(s.describe().find("state ready"), std::string::npos) << s.describe();
}

TEST(FirmwareMailbox, SubmissionsCompleteInOrderAcrossRingWraps) {
  runtime::RegFileDevice d;
  FirmwareInTheLoop f(d, 3);  // 3 entries: 10 submissions wrap it three times
  for (uint32_t i = 0; i < 10; ++i) {
    const auto c = f.run(scratch_write(100 + i), {});
    EXPECT_EQ(c.id, i + 1);
    EXPECT_EQ(c.status, AXFW_OK);
    EXPECT_EQ(scratch(d), 100 + i);
  }
  const auto s = f.client().status();
  EXPECT_EQ(s.at(AXFW_ST_SUBMITTED), 10u);
  EXPECT_EQ(s.at(AXFW_ST_COMPLETED), 10u);
  EXPECT_EQ(s.at(AXFW_ST_OPS), 10u);
  EXPECT_GE(s.at(AXFW_ST_HEARTBEAT), 10u);
}

TEST(FirmwareMailbox, FullRingsApplyBackPressure) {
  runtime::RegFileDevice d;
  FirmwareInTheLoop f(d, 2);
  auto& c = f.client();
  c.submit(scratch_write(1), {});
  c.submit(scratch_write(2), {});
  EXPECT_THROW(c.submit(scratch_write(3), {}), fw::MailboxError);  // submission ring full
  EXPECT_EQ(axfw_step(&f.firmware()), 1);
  EXPECT_EQ(axfw_step(&f.firmware()), 1);
  c.submit(scratch_write(3), {});
  EXPECT_EQ(axfw_step(&f.firmware()), 0);  // completion ring full: the firmware waits
  EXPECT_EQ(scratch(d), 2u);
  ASSERT_TRUE(c.poll());
  EXPECT_EQ(axfw_step(&f.firmware()), 1);
  EXPECT_EQ(scratch(d), 3u);
  EXPECT_EQ(c.poll()->id, 2u);
  EXPECT_EQ(c.poll()->id, 3u);
  EXPECT_FALSE(c.poll());
  EXPECT_EQ(axfw_step(&f.firmware()), 0);  // empty
}

// The register file with one register answering differently: a device built from another spec.
class OtherSpecDevice : public runtime::RegFileDevice {
 public:
  uint32_t read32(uint64_t addr) override {
    const uint32_t v = RegFileDevice::read32(addr);
    return addr == spec::tile_addr(0, 0, spec::shim::SPEC_HASH_LO.offset) ? v ^ 1u : v;
  }
};

TEST(FirmwareMailbox, ForeignSpecHashFaultsAndRefusesWork) {
  OtherSpecDevice d;
  FirmwareInTheLoop f(d);
  EXPECT_EQ(f.init_status(), AXFW_ERR_SPEC_HASH);
  EXPECT_EQ(f.client().status().at(AXFW_ST_STATE), AXFW_STATE_FAULT);
  const auto c = f.run(scratch_write(9), {});
  EXPECT_EQ(c.status, AXFW_ERR_SPEC_HASH);
  EXPECT_EQ(scratch(d), 0u);  // nothing played
  EXPECT_NE(f.client().status().describe().find("spec_hash"), std::string::npos);
}

TEST(FirmwareMailbox, ClientRefusesAMissingFirmware) {
  runtime::RegFileDevice d;
  fw::MailboxClient c(d, 0x1000, 0x2000, 0x1000);
  EXPECT_THROW(c.attach(), fw::MailboxError);
}

}  // namespace
