// A bounded stream between two units, loosely timed: every element carries the cycle it became
// poppable and every pop the cycle it happened, so a producer running ahead of SystemC time still
// sees the back-pressure of a `depth`-element registered FIFO (a slot freed by a pop in cycle p
// takes a push from cycle p + 1; an element pushed in cycle t pops from t + 1). Units only
// block in simulation when the FIFO is really full or empty; then the datapath's BlockTracker
// learns what they wait on (the watchdog's WDOG_WAITS).
#pragma once

#include <systemc>

#include <algorithm>
#include <axcore/spec.hpp>
#include <cstdint>
#include <deque>
#include <vector>

#include "sim.hpp"

namespace axcore::tlm {

// Counts the units of one datapath that are running and blocked; all blocked = deadlock.
class BlockTracker {
 public:
  void start_unit() { ++running_; }
  void end_unit(uint64_t cycle) {
    --running_;
    last_ = std::max(last_, cycle);
    check();
  }
  void block(uint32_t bit, uint64_t cycle) {
    ++blocked_;
    waits_ |= bit;
    last_ = std::max(last_, cycle);
    check();
  }
  void unblock(uint32_t bit) {
    --blocked_;
    waits_ &= ~bit;
    progress_ev.notify(sc_core::SC_ZERO_TIME);
  }
  bool deadlocked() const { return running_ > 0 && blocked_ == running_; }
  uint32_t waits() const { return waits_; }
  uint64_t last_progress() const { return last_; }
  int running() const { return running_; }
  void abort() {
    aborted_ = true;
    abort_ev.notify(sc_core::SC_ZERO_TIME);
  }
  bool aborted() const { return aborted_; }
  // All blocked can be transient (a notification still pending in this delta), so the watchdog
  // waits for progress_ev with a timeout instead of trusting one look.
  sc_core::sc_event deadlock_ev, abort_ev, done_ev, progress_ev;

 private:
  void check() {
    if (running_ == 0) done_ev.notify(sc_core::SC_ZERO_TIME);
    else if (blocked_ == running_) deadlock_ev.notify(sc_core::SC_ZERO_TIME);
  }
  int running_ = 0, blocked_ = 0;
  uint32_t waits_ = 0;
  uint64_t last_ = 0;
  bool aborted_ = false;
};

// Error propagated through a stream (a DMA partner's failure).
struct StreamFailed {
  spec::ErrorCode code;
};

template <class T>
class TimedFifo {
 public:
  struct Popped {
    T value;
    uint64_t cycle;  // cycle of the pop
  };
  explicit TimedFifo(std::size_t depth) : depth_(depth), pop_at_(depth, 0) {}

  // Pushes v, produced by cycle `t`; returns the cycle it entered the FIFO.
  uint64_t push(T v, uint64_t t, BlockTracker* bt = nullptr, uint32_t wait_bit = 0) {
    while (q_.size() >= depth_) {
      if (failed_) throw StreamFailed{code_};
      if (bt) bt->block(wait_bit, t);
      if (bt) sc_core::wait(space_ | bt->abort_ev);
      else sc_core::wait(space_ | fail_ev_);
      if (bt) bt->unblock(wait_bit);
      if (bt && bt->aborted()) throw Aborted{};
    }
    if (failed_) throw StreamFailed{code_};
    uint64_t enter = t;
    if (pushes_ >= depth_) enter = std::max(enter, pop_at_[pushes_ % depth_] + 1);
    q_.push_back({std::move(v), enter + 1});
    ++pushes_;
    data_.notify(sc_core::SC_ZERO_TIME);
    return enter;
  }
  // The first cycle >= t at which a push would find a free slot (waits while the FIFO is full),
  // without pushing: a producer that must reserve something else first (a fabric target) asks
  // this, then pushes at the cycle it got.
  uint64_t space_at(uint64_t t) {
    while (q_.size() >= depth_) {
      if (failed_) throw StreamFailed{code_};
      sc_core::wait(space_ | fail_ev_);
    }
    if (failed_) throw StreamFailed{code_};
    return pushes_ >= depth_ ? std::max(t, pop_at_[pushes_ % depth_] + 1) : t;
  }
  // Pops at or after cycle `t`.
  Popped pop(uint64_t t, BlockTracker* bt = nullptr, uint32_t wait_bit = 0) {
    while (q_.empty()) {
      if (failed_) throw StreamFailed{code_};
      if (bt) bt->block(wait_bit, t);
      if (bt) sc_core::wait(data_ | bt->abort_ev);
      else sc_core::wait(data_ | fail_ev_);
      if (bt) bt->unblock(wait_bit);
      if (bt && bt->aborted()) throw Aborted{};
    }
    auto s = std::move(q_.front());
    q_.pop_front();
    const uint64_t at = std::max(t, s.ready);
    pop_at_[pops_ % depth_] = at;
    ++pops_;
    space_.notify(sc_core::SC_ZERO_TIME);
    return {std::move(s.value), at};
  }
  void fail(spec::ErrorCode c) {
    failed_ = true;
    code_ = c;
    fail_ev_.notify(sc_core::SC_ZERO_TIME);
  }
  void clear() {
    q_.clear();
    failed_ = false;
    pushes_ = pops_ = 0;
    std::fill(pop_at_.begin(), pop_at_.end(), 0);
  }
  bool failed() const { return failed_; }
  std::size_t size() const { return q_.size(); }

 private:
  struct Slot {
    T value;
    uint64_t ready;
  };
  std::size_t depth_;
  std::deque<Slot> q_;
  std::vector<uint64_t> pop_at_;
  uint64_t pushes_ = 0, pops_ = 0;
  bool failed_ = false;
  spec::ErrorCode code_ = spec::ErrorCode::NONE;
  sc_core::sc_event data_, space_, fail_ev_;
};

}  // namespace axcore::tlm
