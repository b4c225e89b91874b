// The RTL's FST waveform (rtl_device.cpp): the reset ticks and then every half cycle from device
// cycle 0 on are dumped (no "dump call ignored", the first cycles after reset kept), time is in
// picoseconds at spec clock_mhz, and --fst-from/--fst-to keep only that window of device cycles.
// Read back with the FST reader Verilator ships (gtkwave/fstapi.h, compiled into its runtime).
#include <gtest/gtest.h>

#include <axcore/spec.hpp>
#include <filesystem>
#include <set>
#include <string>

#include "axcore/rtl/rtl_device.hpp"
#include "gtkwave/fstapi.h"

namespace {

constexpr uint64_t kResetCycles = 4;
const uint64_t kHalfPs = 500000 / axcore::spec::param::clock_mhz;

// The times at which the top's clock input changes (one per dumped half cycle).
std::set<uint64_t> clock_times(const std::string& path, int* timescale) {
  void* f = fstReaderOpen(path.c_str());
  if (!f) return {};
  *timescale = fstReaderGetTimescale(f);
  fstHandle clk = 0;
  while (const fstHier* h = fstReaderIterateHier(f))
    if (h->htyp == FST_HT_VAR && std::string(h->u.var.name) == "clk_i" && !clk) clk = h->u.var.handle;
  std::set<uint64_t> times;
  fstReaderSetFacProcessMask(f, clk);
  fstReaderIterBlocks(
      f,
      [](void* user, uint64_t t, fstHandle, const unsigned char*) {
        static_cast<std::set<uint64_t>*>(user)->insert(t);
      },
      &times, nullptr);
  fstReaderClose(f);
  return times;
}

unsigned cores() { return axcore::rtl::RtlDevice::has_config(1) ? 1 : 0; }

TEST(RtlFst, EveryHalfCycleFromResetIsDumped) {
  const auto path = (std::filesystem::temp_directory_path() / "tools_fst_all.fst").string();
  testing::internal::CaptureStdout();
  {
    axcore::rtl::RtlOptions o;
    o.cores = cores();
    o.fst_path = path;
    o.fst_depth = 1;
    axcore::rtl::RtlDevice d(o);
    d.advance(10);
  }
  const std::string printed = testing::internal::GetCapturedStdout();
  EXPECT_EQ(printed.find("dump call ignored"), std::string::npos) << printed;
  int ts = 0;
  const auto times = clock_times(path, &ts);
  EXPECT_EQ(ts, -12);  // picoseconds
  std::set<uint64_t> want;
  for (uint64_t h = 0; h < 2 * (kResetCycles + 10); ++h) want.insert(h * kHalfPs);
  EXPECT_EQ(times, want);  // device cycle 0 (at (0 + 4) periods) and the cycles after it included
  std::filesystem::remove(path);
}

TEST(RtlFst, TheWindowKeepsOnlyItsCycles) {
  const auto path = (std::filesystem::temp_directory_path() / "tools_fst_window.fst").string();
  {
    axcore::rtl::RtlOptions o;
    o.cores = cores();
    o.fst_path = path;
    o.fst_depth = 1;
    o.fst_from = 5;
    o.fst_to = 7;
    axcore::rtl::RtlDevice d(o);
    d.advance(20);
  }
  int ts = 0;
  const auto times = clock_times(path, &ts);
  std::set<uint64_t> want;
  for (uint64_t h = 0; h < 2 * kResetCycles; ++h) want.insert(h * kHalfPs);  // reset: always
  for (uint64_t c = 5; c <= 7; ++c)
    for (uint64_t half = 0; half < 2; ++half) want.insert((2 * (c + kResetCycles) + half) * kHalfPs);
  EXPECT_EQ(times, want);
  std::filesystem::remove(path);
}

}  // namespace
