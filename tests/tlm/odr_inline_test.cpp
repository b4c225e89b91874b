// The MVM's / DWPU's thread standing in for the ODR's behind it (TimedFifo's virtual consumer,
// OdrUnit::take_inline) against the ODR's own thread (AXCORE_TLM_ODR_INLINE=0): the programs of
// cosim/agree with a datapath run on one TlmDevice each way (the plain way in a forked child, as
// SystemC elaborates once per process), and every trace record (cycle, seq, data hash included),
// every output and every task must be the same.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "axcore/cosim/agree.hpp"
#include "axcore/tlm/tlm_device.hpp"
#include "datapath.hpp"

namespace axcore {
namespace {

std::vector<agree::Program> programs() {
  return {agree::matmul(64, 18, 4),  // K = 1152: tile-ops between outputs, the threads stand in for the ODR
          agree::matmul(64, 4, 4),
          agree::matmul(16, 1, 4),  // an output per tile-op: the MVM fills the ODR's stream
          agree::matmul(32, 2, 2, spec::Dtype::INT32),
          agree::dwpu_weights_beside_loadimc(),
          agree::loadimc_beside_dwpu_copy(256, 4),
          agree::matmul_during_dma_to_l1(64, 4, 4, 4096),
          agree::whole_core(16, 2, 1),
          agree::perf_counters(),
          agree::queued_tasks(64),
          agree::barrier_after_matmul(),
          agree::loadimc_beside_matmul(8, 1, true),
          agree::lane_transpose(1, spec::Dtype::INT8, spec::Dtype::INT8),
          agree::matmul_leaving_l1(true),  // L1_RANGE half-way, with the ODR's turns taken until then
          agree::matmul_leaving_l1(false),
          agree::deadlock()};  // (the watchdog fires: last, it leaves the core in its error state)
}

// Every run's records, outputs and tasks as bytes (a Record's fields one by one).
std::string serialize(const std::vector<agree::Run>& runs) {
  std::string s;
  auto put = [&s](const auto& v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (const auto& r : runs) {
    put(r.records.size());
    for (const auto& x : r.records) {
      put(x.seq), put(x.cycle), put(x.col), put(x.row), put(x.unit), put(x.kind);
      put(x.addr), put(x.bytes), put(x.data_hash), put(x.token);
    }
    put(r.out.size());
    s.append(r.out.begin(), r.out.end());
    put(r.tasks.size());
    for (const auto& t : r.tasks) put(t.row), put(t.unit), put(t.start), put(t.done), put(t.word);
    put(r.t0), put(r.t1);
  }
  return s;
}

std::vector<agree::Run> run_all() {
  tlm::TlmDevice dev;
  std::vector<agree::Run> runs;
  for (const auto& p : programs()) runs.push_back(agree::run(dev, p));
  return runs;
}

TEST(TlmOdrInline, StandingInEqualsTheOdrThread) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the plain way: the ODR's thread takes every element
    tlm::odr_inline() = false;
    const std::string bytes = serialize(run_all());
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() && std::fflush(f) == 0;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child (AXCORE_TLM_ODR_INLINE=0) failed";
  std::string plain;
  std::rewind(f);
  for (char buf[65536]; const std::size_t n = std::fread(buf, 1, sizeof buf, f);) plain.append(buf, n);
  std::fclose(f);

  tlm::odr_inline() = true;
  const uint64_t turns0 = tlm::odr_inline_turns();
  const auto runs = run_all();
  EXPECT_GT(tlm::odr_inline_turns() - turns0, 200u) << "the main units' threads stood in for the ODR's too seldom";
  const std::string fast = serialize(runs);
  ASSERT_EQ(fast.size(), plain.size()) << "a different number of records, outputs or tasks";
  // Which program differs first (the serialized runs follow each other).
  std::size_t at = 0;
  const auto names = programs();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::size_t n = serialize({runs[i]}).size();
    EXPECT_EQ(fast.compare(at, n, plain, at, n), 0) << names[i].name << ": records, outputs or tasks differ";
    at += n;
  }
}

}  // namespace
}  // namespace axcore
