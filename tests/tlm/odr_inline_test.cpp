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
#include "axcore/cosim/stimulus.hpp"
#include "axcore/rtl/mm_layout.hpp"
#include "axcore/tlm/tlm_device.hpp"
#include "datapath.hpp"

namespace axcore {
namespace {

// A 64 x 1152 x 256 matmul (the stand-in takes the ODR's turns) whose IFD walk (x from `x_row`) or
// ODR walk (y from `y_row`) runs past the end of L1 half-way: the datapath ends with L1_RANGE, an
// error token, the error registers and perf counters as they are read back.
agree::Program matmul_out_of_l1(const std::string& name, uint32_t x_row, uint32_t y_row) {
  rtlcore::Matmul mm{64, 18, 4};
  mm.out = spec::Dtype::INT8;
  mm.x_row = x_row;
  mm.y_row = y_row;
  agree::Program p;
  p.name = name;
  p.setup = [mm](device::Device& d) {
    auto l1 = dynamic_cast<tlm::TlmDevice&>(d).l1(0);
    for (std::size_t i = 0; i < l1.size(); ++i) l1[i] = static_cast<uint8_t>(i * 7 + (i >> 9));
    stim::write_cmd(d, 0, 0x10, mm.load().encode());
    stim::Datapath dp;
    dp.header.kind = spec::DpKind::MVMEXE;
    dp.header.has_ifd0 = dp.header.has_main = dp.header.has_odr = 1;
    dp.ifd0 = mm.ifd();
    dp.mvm = mm.mvm();
    dp.odr = mm.odr();
    stim::write_cmd(d, 0, 0x100, dp.words());
  };
  p.timed = [](device::Device& d) {
    stim::push_queue(d, 0, spec::Queue::LOADIMC, stim::push_word(0x10, 1));
    stim::push_queue(d, 0, spec::Queue::MVMEXE, stim::push_word(0x100, 2));
    stim::wait_queue_token(d, 0, spec::Queue::LOADIMC);
    stim::wait_queue_token(d, 0, spec::Queue::MVMEXE);
  };
  p.readback = [](device::Device& d) {
    std::vector<uint8_t> out;
    auto read = [&](uint32_t offset) {
      const uint32_t v = d.read32(spec::tile_addr(0, spec::param::first_core_row, offset));
      for (int b = 0; b < 4; ++b) out.push_back(static_cast<uint8_t>(v >> (8 * b)));
    };
    for (const spec::Reg* r : {&spec::core::ERROR_STATUS, &spec::core::ERROR_INFO, &spec::core::ERROR_ADDR})
      read(r->offset);
    for (uint32_t u = 0; u < spec::param::perf_units; ++u)
      for (const spec::Reg* r :
           {&spec::core::PERF_BUSY, &spec::core::PERF_STALL_IN, &spec::core::PERF_STALL_OUT, &spec::core::PERF_TASKS})
        read(r->at(u));
    d.write32(spec::tile_addr(0, spec::param::first_core_row, spec::core::ERROR_STATUS.offset), 0xFFFFFFFF);
    return out;
  };
  return p;
}

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
          matmul_out_of_l1("matmul_ifd_out_of_l1", spec::param::l1_bytes / 64 - 576, rtlcore::kY0),
          matmul_out_of_l1("matmul_odr_out_of_l1", rtlcore::kX0, spec::param::l1_bytes / 64 - 128),
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
