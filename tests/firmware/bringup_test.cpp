// Bring-up on the register-level device: all steps pass; each injected fault stops the run at
// its step with a diagnosis naming the fault.
#include <gtest/gtest.h>

#include <sstream>

#include "axcore/bringup/bringup.hpp"
#include "axcore/bringup/open_device.hpp"
#include "axcore/runtime/regfile_device.hpp"

namespace {

using namespace axcore;

std::vector<bringup::StepResult> run_with(bringup::Fault f, std::string* log = nullptr) {
  auto d = bringup::open_device("regfile");
  bringup::FaultyDevice fd(*d, f);
  std::ostringstream o;
  bringup::Options opt;
  opt.mem_words = 256;
  auto r = bringup::run(fd, opt, o);
  if (log) *log = o.str();
  return r;
}

TEST(FirmwareBringup, EveryStepPassesOnAHealthyDevice) {
  std::string log;
  const auto r = run_with(bringup::Fault::NONE, &log);
  ASSERT_EQ(r.size(), bringup::step_names().size()) << log;
  for (const auto& s : r) EXPECT_TRUE(s.pass) << s.name << ": " << s.detail;
  EXPECT_NE(log.find("[1/7] identity ... PASS"), std::string::npos) << log;
  EXPECT_NE(log.find("B/cycle"), std::string::npos) << log;
}

struct Case {
  bringup::Fault fault;
  const char* step;
  const char* says;
};

TEST(FirmwareBringup, EachFaultFailsItsStepWithADiagnosis) {
  const Case cases[] = {
      {bringup::Fault::SPEC_HASH, "identity", "spec hash"},
      {bringup::Fault::RESET_VALUE, "register-walk", "mem.ERROR_ADDR"},
      {bringup::Fault::SCRATCH_BIT, "scratch", "bits 0x00000080"},
      {bringup::Fault::STUCK_DDR_BIT, "memories", "stuck at 1"},
      {bringup::Fault::DMA_DROP, "dma-loopback", "no completion token"},
      {bringup::Fault::TOKEN_TAG, "tokens", "tags"},
  };
  ASSERT_EQ(std::size(cases), bringup::all_faults().size());
  for (const auto& c : cases) {
    SCOPED_TRACE(bringup::to_string(c.fault));
    std::string log;
    const auto r = run_with(c.fault, &log);
    ASSERT_FALSE(r.empty());
    EXPECT_FALSE(r.back().pass);
    EXPECT_EQ(r.back().name, c.step) << log;
    EXPECT_NE(r.back().detail.find(c.says), std::string::npos) << r.back().detail;
    EXPECT_FALSE(r.back().check.empty());
    for (size_t i = 0; i + 1 < r.size(); ++i) EXPECT_TRUE(r[i].pass);
    EXPECT_NE(log.find("FAIL"), std::string::npos);
    EXPECT_NE(log.find("check: "), std::string::npos);
  }
}

TEST(FirmwareBringup, UnknownFaultNamesTheKnownOnes) {
  try {
    bringup::parse_fault("melted");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("stuck-ddr-bit"), std::string::npos);
  }
}

}  // namespace
