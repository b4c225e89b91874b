// The fpga backend's fake board over the TLM (labels tlm, e2e): axrun runs the matmul program on
// `--board fake=LOG,device=tlm`, i.e. the exact register / DMA-buffer protocol a board would see,
// logged; the log then replays into a fresh TLM model here and every read must come back the
// same. This process's only SystemC simulation is the replay's (axrun runs in its own process).
#include <gtest/gtest.h>

#include "axcore/runtime/fpga.hpp"
#include "axcore/runtime/ref_backend.hpp"
#include "axcore/tlm/tlm_device.hpp"
#include "axrun_harness.hpp"
#include "hand_programs.hpp"

namespace axcore::runtime {
namespace {

namespace ts = testing_support;

TEST(RuntimeFpgaTlm, FakeBoardProtocolReplaysIntoTheTlm) {
  const ts::HandProgram p = ts::matmul_program();
  ts::Scratch s("board_tlm");
  const auto log = s / "board.log";
  const ts::AxrunRun r =
      ts::run_axrun(s, p.name, p.bundle, p.inputs, "fpga", "--board fake=" + log.string() + ",device=tlm");
  ASSERT_EQ(r.exec.rc, 0) << r.exec.out;
  EXPECT_EQ(ts::array_difference(run_ref(p.bundle, p.inputs).outputs.at("y"), r.outputs.at("y")), "");
  tlm::TlmDevice dev;
  const ReplayResult replay = replay_board_log(log, dev);
  EXPECT_TRUE(replay.mismatches.empty()) << replay.mismatches.front();
  EXPECT_GT(replay.writes, 100u);  // BDs, descriptors, pushes
  EXPECT_GT(replay.reads, 8u);     // token pops (one per wait at least), cycle counters
  std::printf("fake board on tlm: %llu events, %llu reads, %llu writes replayed\n",
              static_cast<unsigned long long>(replay.events), static_cast<unsigned long long>(replay.reads),
              static_cast<unsigned long long>(replay.writes));
}

}  // namespace
}  // namespace axcore::runtime
