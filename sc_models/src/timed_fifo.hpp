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
#include <functional>
#include <vector>

#include "sim.hpp"

namespace axcore::tlm {

// A producer without a thread of its own (the IFDs): its pipeline's consumers run it (refill)
// wherever one of them would yield to other processes (blocks on a stream, ends), which is
// when its thread, woken by their pops, ran; it pushes while its stream has room.
class InlineProducer {
 public:
  virtual void refill() = 0;

 protected:
  ~InlineProducer() = default;
};

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
    auto hooks = std::move(on_abort_);
    on_abort_.clear();
    for (auto& h : hooks) h();
  }
  // Called once by abort(): a unit without a thread (an InlineProducer) ends there.
  void on_abort(std::function<void()> f) { on_abort_.push_back(std::move(f)); }
  // The pipeline's inline producers, run where a unit would yield (run_inline).
  void add_inline(InlineProducer* p) { inline_.push_back(p); }
  void run_inline() {
    for (InlineProducer* p : inline_) p->refill();
  }
  // A unit that stays blocked made progress up to `cycle` (as a new block() would record).
  void progress(uint64_t cycle) { last_ = std::max(last_, cycle); }
  bool aborted() const { return aborted_; }
  // All blocked can be transient (a notification still pending in this delta), so the watchdog
  // waits for progress_ev with a timeout instead of trusting one look.
  sc_core::sc_event deadlock_ev, abort_ev, done_ev, progress_ev;

 private:
  void check() {
    if (running_ == 0)
      done_ev.notify(sc_core::SC_ZERO_TIME);
    else if (blocked_ == running_)
      deadlock_ev.notify(sc_core::SC_ZERO_TIME);
  }
  int running_ = 0, blocked_ = 0;
  uint32_t waits_ = 0;
  uint64_t last_ = 0;
  bool aborted_ = false;
  std::vector<std::function<void()>> on_abort_;
  std::vector<InlineProducer*> inline_;
};

// The slots of a bounded FIFO of `depth` elements: a fixed ring (a std::deque of 264-byte
// elements would allocate a node per push) with two slots more than the FIFO holds: `back()`,
// the slot the next push fills (a producer builds its element there, so it is never copied),
// and the slot popped last, which stays untouched until the next pop (a consumer reads the
// element in place). Neither is one of the FIFO's elements: with the FIFO full, back() is the
// slot before the one popped last.
template <class S>
class Ring {
 public:
  explicit Ring(std::size_t depth) : v_(depth + 2) {}
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  S& front() { return v_[head_]; }
  S& back() {  // (no division: a 64-bit div per element was a tenth of a stream's push)
    const std::size_t i = head_ + n_;
    return v_[i >= v_.size() ? i - v_.size() : i];
  }
  void push_back() { ++n_; }  // back() becomes the last element
  void pop_front() {
    head_ = head_ + 1 == v_.size() ? 0 : head_ + 1;
    --n_;
  }
  void clear() { head_ = n_ = 0; }

 private:
  std::vector<S> v_;
  std::size_t head_ = 0, n_ = 0;
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
  explicit TimedFifo(std::size_t depth) : depth_(depth), q_(depth), pop_at_(depth, 0) {
    space_fail_ |= space_;
    space_fail_ |= fail_ev_;
    data_fail_ |= data_;
    data_fail_ |= fail_ev_;
  }
  TimedFifo(const TimedFifo&) = delete;
  TimedFifo& operator=(const TimedFifo&) = delete;

  // Pushes v, produced by cycle `t`; returns the cycle it entered the FIFO.
  uint64_t push(T v, uint64_t t, BlockTracker* bt = nullptr, uint32_t wait_bit = 0) {
    staged() = std::move(v);
    return commit(t, bt, wait_bit);
  }
  // The element the next commit pushes: a producer builds it here, in place (also while the
  // FIFO is full: this slot is none of its elements, nor the one popped last).
  T& staged() { return q_.back().value; }
  // Pushes staged(), produced by cycle `t` (waits while the FIFO is full); returns the cycle it
  // entered the FIFO.
  uint64_t commit(uint64_t t, BlockTracker* bt = nullptr, uint32_t wait_bit = 0) {
    while (q_.size() >= depth_) {
      if (failed_) throw StreamFailed{code_};
      if (bt) {
        bt->run_inline();  // before this unit yields (an inline producer never pushes into a full stream)
        block_on(space_, bt, wait_bit, t);
      } else {
        sc_core::wait(space_fail_);
      }
    }
    if (failed_) throw StreamFailed{code_};
    uint64_t enter = t;
    if (pushes_ >= depth_) enter = std::max(enter, pop_at_[push_slot_] + 1);
    q_.back().ready = enter + 1;
    q_.push_back();
    ++pushes_;
    push_slot_ = push_slot_ + 1 == depth_ ? 0 : push_slot_ + 1;
    // An inline producer pushes from its consumer's pops (or before the consumer started): a
    // consumer waits for data only after the producer ended, so only a waiting one is notified.
    const bool notify = !producer_ || waiter_ != nullptr;
    release_waiter();
    if (notify) data_.notify(sc_core::SC_ZERO_TIME);
    return enter;
  }
  bool full() const { return q_.size() >= depth_; }
  // The stream's producer is inline (runs in its consumers' processes) from now on.
  void set_producer(InlineProducer* p) { producer_ = p; }
  // The first cycle >= t at which a push would find a free slot (waits while the FIFO is full),
  // without pushing: a producer that must reserve something else first (a fabric target) asks
  // this, then pushes at the cycle it got.
  uint64_t space_at(uint64_t t) {
    while (q_.size() >= depth_) {
      if (failed_) throw StreamFailed{code_};
      sc_core::wait(space_fail_);
    }
    if (failed_) throw StreamFailed{code_};
    return pushes_ >= depth_ ? std::max(t, pop_at_[push_slot_] + 1) : t;
  }
  // The first cycle >= t at which the head element can be popped (waits while the FIFO is
  // empty), without popping: a consumer that takes the head only when something else grants it
  // (the S2MM's write) asks this, then pops at the cycle it got.
  uint64_t ready_at(uint64_t t) {
    while (q_.empty()) {
      if (failed_) throw StreamFailed{code_};
      sc_core::wait(data_fail_);
    }
    if (failed_) throw StreamFailed{code_};
    return std::max(t, q_.front().ready);
  }
  // Pops at or after cycle `t`.
  Popped pop(uint64_t t, BlockTracker* bt = nullptr, uint32_t wait_bit = 0) {
    uint64_t at = 0;
    const T& v = pop_ref(t, at, bt, wait_bit);
    return Popped{v, at};
  }
  // Pops at or after cycle `t` (the cycle of the pop in `at`) and returns the element in place:
  // it stays valid until this FIFO's next pop (the ring keeps the popped slot).
  const T& pop_ref(uint64_t t, uint64_t& at, BlockTracker* bt = nullptr, uint32_t wait_bit = 0) {
    while (q_.empty()) {
      if (failed_) throw StreamFailed{code_};
      if (!bt) {
        sc_core::wait(data_fail_);
        continue;
      }
      // This unit would block here: the inline producers run first, as their threads did.
      bt->run_inline();
      if (q_.empty()) {
        block_on(data_, bt, wait_bit, t);
      } else if (sc_core::sc_pending_activity_at_current_time()) {
        // It had blocked until the producer's push: the processes that ran meanwhile run now.
        sc_core::wait(sc_core::SC_ZERO_TIME);
        if (bt->aborted()) throw Aborted{};
      }
    }
    auto& s = q_.front();
    at = std::max(t, s.ready);
    q_.pop_front();
    pop_at_[pop_slot_] = at;
    ++pops_;
    pop_slot_ = pop_slot_ + 1 == depth_ ? 0 : pop_slot_ + 1;
    if (!producer_) {  // (an inline producer has no thread that waits for room)
      release_waiter();
      space_.notify(sc_core::SC_ZERO_TIME);
    }
    return s.value;
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
    push_slot_ = pop_slot_ = 0;
    std::fill(pop_at_.begin(), pop_at_.end(), 0);
  }
  bool failed() const { return failed_; }
  std::size_t size() const { return q_.size(); }

 private:
  // A unit blocks on `ev` (space or data) of this stream. The other side releases it in the
  // tracker the moment it makes the room or the element (release_waiter), not when the blocked
  // unit runs again: a pipeline whose units wake each other is never seen as all-blocked.
  void block_on(const sc_core::sc_event& ev, BlockTracker* bt, uint32_t bit, uint64_t t) {
    if (or_bt_ != bt) {  // the wait lists of this stream's tracker, built once
      sc_core::sc_event_or_list sp, da;
      sp |= space_;
      sp |= bt->abort_ev;
      da |= data_;
      da |= bt->abort_ev;
      space_abort_.swap(sp);
      data_abort_.swap(da);
      or_bt_ = bt;
    }
    bt->block(bit, t);
    waiter_ = bt;
    waiter_bit_ = bit;
    sc_core::wait(&ev == &space_ ? space_abort_ : data_abort_);
    if (waiter_) release_waiter();  // woken by the abort
    if (bt->aborted()) throw Aborted{};
  }
  void release_waiter() {
    if (!waiter_) return;
    waiter_->unblock(waiter_bit_);
    waiter_ = nullptr;
  }
  struct Slot {
    T value;
    uint64_t ready;
  };
  std::size_t depth_;
  Ring<Slot> q_;
  std::vector<uint64_t> pop_at_;
  uint64_t pushes_ = 0, pops_ = 0;
  std::size_t push_slot_ = 0, pop_slot_ = 0;  // pushes_ % depth_, pops_ % depth_
  bool failed_ = false;
  spec::ErrorCode code_ = spec::ErrorCode::NONE;
  sc_core::sc_event data_, space_, fail_ev_;
  sc_core::sc_event_or_list space_fail_, data_fail_, space_abort_, data_abort_;
  BlockTracker* or_bt_ = nullptr;
  BlockTracker* waiter_ = nullptr;
  uint32_t waiter_bit_ = 0;
  InlineProducer* producer_ = nullptr;
};

}  // namespace axcore::tlm
