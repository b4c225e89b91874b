// Shared simulation plumbing: the cycle clock (1 cycle = 1 ns of SystemC time), the trace
// emitter, the per-tile error recorder (ERROR_STATUS/INFO/ADDR, first error kept like the RTL's
// ax_err_rec) and the abort signal units use to leave a task.
#pragma once

#include <systemc>

#include <algorithm>
#include <array>
#include <axcore/spec.hpp>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <vector>

#include "axcore/trace/record.hpp"

namespace axcore::tlm {

inline const sc_core::sc_time kCycle(1, sc_core::SC_NS);

inline uint64_t now_cycles() { return static_cast<uint64_t>(sc_core::sc_time_stamp() / kCycle); }
// Temporal decoupling point: lets SystemC time catch up with a unit's local cycle.
inline void sync_to(uint64_t cycle) {
  const uint64_t now = now_cycles();
  if (cycle > now) sc_core::wait(static_cast<double>(cycle - now), sc_core::SC_NS);
}

// The host's sc_start windows (TlmDevice::advance): the host reads or writes registers only at
// their ends, so a model may run ahead of SystemC time up to the end of the current window
// without missing a host push. TlmDevice runs several windows in one sc_start when the host does
// nothing between them (`ends`, ascending); a process at SystemC time t is in the first window
// ending after t, as it was when each window was an sc_start of its own (events at a window's
// end run in the next).
inline std::vector<uint64_t>& host_window_ends() {
  static std::vector<uint64_t> ends;
  return ends;
}
// The last cycle of the current window.
inline uint64_t host_horizon() {
  const auto& e = host_window_ends();
  const auto it = std::upper_bound(e.begin(), e.end(), now_cycles());
  return it != e.end() ? *it : e.empty() ? 0 : e.back();
}

class Tracer {
 public:
  // Records whose hash waits (emit_hashed): at most kDeferRecords, each of at most kDeferBytes.
  static constexpr std::size_t kDeferRecords = 32, kDeferBytes = 256;
  // Changes the sink (the records still waiting go to the old one first).
  void set_sink(std::function<void(const trace::Record&)> s) {
    drain();
    sink_ = std::move(s);
  }
  bool on() const { return static_cast<bool>(sink_); }
  void emit(trace::Record r) {
    if (!sink_) return;
    if (ndeferred_) drain();  // the waiting records come first, in their order
    r.seq = seq_++;
    sink_(r);
  }
  void emit(uint64_t cycle, uint32_t row, trace::Unit u, trace::Kind k, uint64_t addr, uint32_t bytes, uint64_t hash,
            uint32_t token) {
    if (!sink_) return;
    emit(trace::Record{0, cycle, 0, static_cast<uint8_t>(row), u, k, addr, bytes, hash, token});
  }
  // The record emit() would make with data_hash = trace::fnv1a64(data), data.size() bytes: its
  // bytes are copied now and hashed later, up to kDeferRecords at a time side by side
  // (trace::fnv1a64_each: one serial FNV-1a chain per small MEM_WRITE, the ODR's 64-byte elements,
  // ran at the multiplier's latency). The sink sees every record in the same order, with the same
  // fields and seq, as with emit(): the waiting ones are emitted before any other record, when
  // the sink changes, and by drain(), which the simulation's owner calls before it looks at what
  // the sink collected (TlmDevice: at the end of each sc_start).
  void emit_hashed(uint64_t cycle, uint32_t row, trace::Unit u, trace::Kind k, uint64_t addr,
                   std::span<const uint8_t> data) {
    if (!sink_) return;
    if (data.size() > kDeferBytes) {
      emit(cycle, row, u, k, addr, static_cast<uint32_t>(data.size()), trace::fnv1a64(data), 0);
      return;
    }
    if (ndeferred_ == kDeferRecords) drain();
    const std::size_t i = ndeferred_++;
    deferred_[i] =
        trace::Record{0, cycle, 0, static_cast<uint8_t>(row), u, k, addr, static_cast<uint32_t>(data.size()), 0, 0};
    std::memcpy(deferred_bytes_[i].data(), data.data(), data.size());
  }
  // Emits the records emit_hashed keeps waiting (their hashes taken together).
  void drain() {
    if (!ndeferred_) return;
    std::array<std::span<const uint8_t>, kDeferRecords> data;
    std::array<uint64_t, kDeferRecords> hash{};
    for (std::size_t i = 0; i < ndeferred_; ++i) data[i] = std::span(deferred_bytes_[i]).first(deferred_[i].bytes);
    trace::fnv1a64_each(std::span(data).first(ndeferred_), std::span(hash).first(ndeferred_));
    const std::size_t n = ndeferred_;
    ndeferred_ = 0;
    for (std::size_t i = 0; i < n; ++i) {
      deferred_[i].data_hash = hash[i];
      emit(deferred_[i]);
    }
  }

 private:
  std::function<void(const trace::Record&)> sink_;
  uint64_t seq_ = 0;
  std::size_t ndeferred_ = 0;
  std::array<trace::Record, kDeferRecords> deferred_{};
  std::array<std::array<uint8_t, kDeferBytes>, kDeferRecords> deferred_bytes_{};
};

// Thrown inside a unit's thread when its datapath is aborted (watchdog, error elsewhere).
struct Aborted {};

struct ErrorReport {
  spec::ErrorCode code = spec::ErrorCode::NONE;
  uint32_t dir = 0, channel = 0, detail = 0, addr = 0;
};

// ERROR_STATUS (sticky, w1c), ERROR_INFO and ERROR_ADDR of one tile.
class ErrorRecorder {
 public:
  void report(const ErrorReport& e);
  void clear(uint32_t mask) { status &= ~mask; }
  void reset() { status = info = addr = 0; }
  uint32_t status = 0, info = 0, addr = 0;
};

}  // namespace axcore::tlm
