// Bring-up: every step passes (or is SKIP with a reason) on a healthy register-level device; each
// injected fault, run through the axbringup CLI against the backend AXBRINGUP_TARGET names (one
// process per run: the TLM elaborates once per process), stops the run at its step with its
// diagnosis, or finds that step SKIP because the device lacks the unit.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "axcore/bringup/bringup.hpp"
#include "axcore/runtime/backend.hpp"

namespace {

using namespace axcore;

TEST(FirmwareBringup, EveryStepPassesOnAHealthyDevice) {
  auto d = runtime::make_device("regfile");
  std::ostringstream o;
  bringup::Options opt;
  opt.mem_words = 256;
  const auto r = bringup::run(*d, opt, o);
  const std::string log = o.str();
  ASSERT_EQ(r.size(), bringup::step_names().size()) << log;
  for (const auto& s : r) {
    const bool kernel = s.name == "copy" || s.name == "mvm" || s.name == "dpu" || s.name == "dwpu";
    // The register-level device completes core tasks without running them: never a kernel PASS.
    // The performance step may be WARN (below half of the spec's peak): its figure, not a failure.
    const bool perf_ok = s.name == "performance" && s.status == bringup::Status::WARN;
    if (!perf_ok) {
      EXPECT_EQ(s.status, kernel ? bringup::Status::SKIP : bringup::Status::PASS) << s.name << ": " << s.detail;
    }
    if (kernel) { EXPECT_NE(s.detail.find("without running them"), std::string::npos) << s.detail; }
  }
  EXPECT_NE(log.find("[1/11] identity ... PASS"), std::string::npos) << log;
  EXPECT_NE(log.find("B/cycle"), std::string::npos) << log;
}

TEST(FirmwareBringup, UnknownFaultNamesTheKnownOnes) {
  try {
    bringup::parse_fault("melted");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("stuck-ddr-bit"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("mvm-bit"), std::string::npos);
  }
}

std::string run_cli(const std::string& args, int* rc) {
  const std::string cmd = std::string(AXBRINGUP_PATH) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "popen failed";
  std::string out;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int st = pclose(p);
  *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

// A bandwidth far below the spec's peak is WARN, with the figure; near the peak it is PASS.
TEST(FirmwareBringup, SlowPerformanceIsWarnNotPass) {
  EXPECT_EQ(bringup::performance_status(0.03), bringup::Status::WARN);
  EXPECT_EQ(bringup::performance_status(0.49), bringup::Status::WARN);
  EXPECT_EQ(bringup::performance_status(0.9), bringup::Status::PASS);
  EXPECT_STREQ(bringup::to_string(bringup::Status::WARN), "WARN");
}

// The CLI writes the log it prints to --log as well (streamed as each step ends), and its closing
// line names the warnings.
TEST(FirmwareBringup, TheLogFileHoldsWhatTheTerminalShows) {
  const std::string log = ::testing::TempDir() + "bringup_cli.log";
  int rc = -1;
  const std::string out = run_cli("--target regfile --mem-words 64 --log " + log, &rc);
  EXPECT_EQ(rc, 0) << out;
  std::ifstream in(log);
  std::stringstream file;
  file << in.rdbuf();
  EXPECT_NE(file.str().find("[1/11] identity ... PASS"), std::string::npos) << file.str();
  EXPECT_NE(file.str().find("bring-up PASSED"), std::string::npos) << file.str();
  EXPECT_NE(out.find(file.str()), std::string::npos) << "terminal:\n" << out << "\nlog:\n" << file.str();
  EXPECT_NE(out.find("log: " + log), std::string::npos) << out;
  if (file.str().find("] performance ... WARN") != std::string::npos) {
    EXPECT_NE(file.str().find("; WARN: performance)"), std::string::npos) << file.str();
  }
}

// A backend this build lacks names the binary, so a user sees which tree it came from.
TEST(FirmwareBringup, AnUnbuiltBackendNamesTheTree) {
  int rc = -1;
  const std::string out = run_cli("--target nosuchbackend", &rc);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("(this axbringup: "), std::string::npos) << out;
}

struct Case {
  bringup::Fault fault;
  const char* step;
  const char* says;
};

TEST(FirmwareBringup, EachFaultFailsItsStepWithADiagnosis) {
  const char* env = std::getenv("AXBRINGUP_TARGET");
  const std::string target = env ? env : "regfile";
  const Case cases[] = {
      {bringup::Fault::SPEC_HASH, "identity", "spec hash"},
      {bringup::Fault::RESET_VALUE, "register-walk", "mem.ERROR_ADDR"},
      {bringup::Fault::SCRATCH_BIT, "scratch", "bits 0x00000080"},
      {bringup::Fault::STUCK_DDR_BIT, "memories", "stuck at 1"},
      {bringup::Fault::DMA_DROP, "dma-loopback", "no completion token"},
      {bringup::Fault::TOKEN_TAG, "tokens", "tags"},
      {bringup::Fault::COPY_BIT, "copy", "element 0, lane 3, byte 0"},
      {bringup::Fault::MVM_BIT, "mvm", "element 0, lane 3, byte 0"},
      {bringup::Fault::DPU_BIT, "dpu", "element 0, lane 3, byte 0"},
      {bringup::Fault::DWPU_BIT, "dwpu", "element 0, lane 3, byte 0"},
      {bringup::Fault::PERF_TIMER, "performance", "cycle counter"},
  };
  ASSERT_EQ(std::size(cases), bringup::all_faults().size());
  ASSERT_EQ(std::size(cases), bringup::step_names().size());  // one fault per step
  int caught = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(target + ", " + bringup::to_string(c.fault));
    int rc = 0;
    const std::string out =
        run_cli("--target " + target + " --mem-words 256 --inject " + bringup::to_string(c.fault), &rc);
    const auto names = bringup::step_names();
    size_t at = 0;
    while (names[at] != c.step) ++at;
    const std::string line =
        "[" + std::to_string(at + 1) + "/" + std::to_string(names.size()) + "] " + c.step + " ... ";
    if (const size_t skip = out.find(line + "SKIP"); skip != std::string::npos) {
      // The device lacks the unit: the fault cannot show, and the step says why.
      EXPECT_EQ(rc, 0) << out;
      const size_t reason = out.find("\n      ", skip);
      ASSERT_NE(reason, std::string::npos) << out;
      EXPECT_GT(out.find('\n', reason + 7), reason + 20) << "a SKIP without a reason:\n" << out;
      continue;
    }
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find(line + "FAIL"), std::string::npos) << out;
    EXPECT_NE(out.find("bring-up FAILED at step '" + std::string(c.step) + "'"), std::string::npos) << out;
    const size_t fail = out.find(line + "FAIL");
    EXPECT_NE(out.find(c.says, fail == std::string::npos ? 0 : fail), std::string::npos) << out;
    EXPECT_NE(out.find("check: "), std::string::npos) << out;
    for (size_t i = 0; i < at; ++i) {  // every step before passed or was skipped
      const std::string before =
          "[" + std::to_string(i + 1) + "/" + std::to_string(names.size()) + "] " + names[i] + " ... ";
      EXPECT_TRUE(out.find(before + "PASS") != std::string::npos || out.find(before + "SKIP") != std::string::npos)
          << before << "\n"
          << out;
    }
    ++caught;
  }
  std::printf("%s: %d of %zu faults caught at their step, the rest SKIP (unit absent)\n", target.c_str(), caught,
              std::size(cases));
  EXPECT_GE(caught, 7);  // identity .. tokens, performance and at least one datapath kernel on every backend
}

// A device without the DWPU (its queue refuses every task with DESC_UNITS): the dwpu step is SKIP
// with that reason, the run still passes, and the summary names the step.
TEST(FirmwareBringup, AMissingUnitIsSkipNotPass) {
  const char* env = std::getenv("AXBRINGUP_TARGET");
  const std::string target = env ? env : "regfile";
  int rc = 0;
  const std::string out = run_cli("--target " + target + " --mem-words 256 --inject no-dwpu", &rc);
  EXPECT_EQ(rc, 0) << out;
  const size_t at = out.find("[10/11] dwpu ... SKIP");
  ASSERT_NE(at, std::string::npos) << out;
  const bool kernels_run = target != "regfile";
  EXPECT_NE(out.find(kernels_run ? "this device has no DWPU" : "without running them", at), std::string::npos) << out;
  EXPECT_NE(out.find("skipped, the device lacks the unit: "), std::string::npos) << out;
  EXPECT_EQ(out.find("] dwpu ... PASS"), std::string::npos) << out;
}

}  // namespace
