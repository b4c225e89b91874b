// The TLM's Tracer: records whose hashes wait (emit_hashed, hashed side by side at drain) reach
// the sink exactly as the same records emitted one by one with their FNV-1a taken at once.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "sim.hpp"

namespace axcore::tlm {
namespace {

struct Seen {
  std::vector<trace::Record> records;
  std::function<void(const trace::Record&)> sink() {
    return [this](const trace::Record& r) { records.push_back(r); };
  }
};

bool same(const trace::Record& a, const trace::Record& b) {
  return a.seq == b.seq && a.cycle == b.cycle && a.col == b.col && a.row == b.row && a.unit == b.unit &&
         a.kind == b.kind && a.addr == b.addr && a.bytes == b.bytes && a.data_hash == b.data_hash && a.token == b.token;
}

// A random mix of plain records, hashed records (1 .. 2 * kDeferBytes bytes, so some are hashed
// at once), drains and sink changes, on a deferring Tracer and on one that hashes each record when
// it is emitted; the data a record hashed is overwritten right after its emit (the record keeps
// the bytes of its emit). Every sink sees the same records in the same order.
TEST(TlmTracer, HashedRecordsEqualRecordsHashedAtOnce) {
  std::mt19937_64 rng(27);
  Seen deferred[2], direct[2];
  Tracer t;
  Tracer ref;
  t.set_sink(deferred[0].sink());
  ref.set_sink(direct[0].sink());
  std::vector<uint8_t> mem(4096);
  unsigned sink = 0, hashed = 0, waiting = 0;
  for (int step = 0; step < 20000; ++step) {
    const unsigned what = static_cast<unsigned>(rng() % 100);
    const uint64_t cycle = rng() % 100000, addr = rng() % 2048;
    const auto unit = static_cast<trace::Unit>(rng() % 8);
    const auto kind = trace::Kind::MEM_WRITE;
    if (what < 70) {
      const std::size_t n = 1 + rng() % (what < 65 ? Tracer::kDeferBytes : 2 * Tracer::kDeferBytes);
      for (std::size_t i = 0; i < n; ++i) mem[addr + i] = static_cast<uint8_t>(rng());
      const std::span<const uint8_t> data(mem.data() + addr, n);
      t.emit_hashed(cycle, 2, unit, kind, addr, data);
      ref.emit(cycle, 2, unit, kind, addr, static_cast<uint32_t>(n), trace::fnv1a64(data), 0);
      for (std::size_t i = 0; i < n; ++i) mem[addr + i] = static_cast<uint8_t>(rng());  // written again
      ++hashed;
      if (deferred[sink].records.size() < direct[sink].records.size()) ++waiting;
    } else if (what < 90) {
      const uint64_t hash = rng();
      const auto token = static_cast<uint32_t>(rng());
      t.emit(cycle, 1, trace::Unit::CMDPROC, trace::Kind::TASK_DONE, addr, 8, hash, token);
      ref.emit(cycle, 1, trace::Unit::CMDPROC, trace::Kind::TASK_DONE, addr, 8, hash, token);
    } else if (what < 99) {
      t.drain();
      ASSERT_EQ(deferred[sink].records.size(), direct[sink].records.size()) << "step " << step;
    } else {  // another sink: the waiting records go to the old one
      sink ^= 1;
      t.set_sink(deferred[sink].sink());
      ref.set_sink(direct[sink].sink());
    }
  }
  t.drain();
  EXPECT_GT(hashed, 10000u);
  EXPECT_GT(waiting, 5000u);  // most hashed records did wait
  for (unsigned s = 0; s < 2; ++s) {
    ASSERT_EQ(deferred[s].records.size(), direct[s].records.size()) << "sink " << s;
    for (std::size_t i = 0; i < direct[s].records.size(); ++i)
      ASSERT_TRUE(same(deferred[s].records[i], direct[s].records[i])) << "sink " << s << " record " << i;
  }
}

// Without a sink nothing is kept, hashed or emitted later.
TEST(TlmTracer, NoSinkKeepsNothing) {
  Tracer t;
  const std::vector<uint8_t> data(64, 7);
  for (int i = 0; i < 100; ++i) t.emit_hashed(i, 0, trace::Unit::MVM_ODR, trace::Kind::MEM_WRITE, 0, data);
  Seen seen;
  t.set_sink(seen.sink());
  t.drain();
  EXPECT_TRUE(seen.records.empty());
}

}  // namespace
}  // namespace axcore::tlm

// libsystemc wants an sc_main; this binary uses no part of the device that brings the library's
// weak one (tlm_device.cpp).
int sc_main(int, char*[]) { return 0; }
