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
#include <utility>
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

// A consumer with a thread whose runs its producer's thread may do itself (the ODR behind the MVM
// or DWPU; TimedFifo's "virtual consumer", below).
class InlineConsumer {
 public:
  // Takes the queued elements as its thread would when woken and, the stream empty, waits again
  // (in the tracker; its thread stays where it waits). False when its thread has to go on from an
  // element (those before it taken as the thread would have): the last element of its run (the
  // thread takes it and ends the run) or one that fails (the thread reports the error).
  virtual bool take_inline() = 0;

 protected:
  ~InlineConsumer() = default;
};

// A stream whose consumer's thread may be stood in for (TimedFifo with an InlineConsumer).
class Handoff {
 public:
  virtual bool yield_point() = 0;  // BlockTracker::yield_point
  virtual void hand_over() = 0;    // the consumer's thread runs again as it would have

 protected:
  ~Handoff() = default;
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
  // unblock() without progress_ev, which no process waits on then (a stood-in consumer's:
  // TimedFifo::yield_point).
  void unblock_quiet(uint32_t bit) {
    --blocked_;
    waits_ &= ~bit;
  }
  // The stream whose consumer the producer's thread stands in for (nullptr: none).
  void set_handoff(Handoff* h) { handoff_ = h; }
  // Where a unit's thread, its inline producers run, would yield if anything is pending at the
  // current time; returns whether it yields (TimedFifo::yield_point when a consumer is stood in for).
  bool yield_point() { return handoff_ ? handoff_->yield_point() : sc_core::sc_pending_activity_at_current_time(); }
  // Before a unit's thread waits (or aborts): a stood-in consumer's thread takes over again.
  void hand_over() {
    if (handoff_) handoff_->hand_over();
  }
  // The datapath's watchdog waits on progress_ev (every unblock wakes it): no consumer is stood in for.
  bool watching = false;
  bool deadlocked() const { return running_ > 0 && blocked_ == running_; }
  uint32_t waits() const { return waits_; }
  uint64_t last_progress() const { return last_; }
  int running() const { return running_; }
  void abort() {
    hand_over();
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
  Handoff* handoff_ = nullptr;
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
class TimedFifo final : public Handoff {
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
    if (virtual_) {  // the consumer's wake-up is kept by the producer's thread (yield_point)
      if (waiter_) {
        waiter_->unblock_quiet(waiter_bit_);
        waiter_ = nullptr;
      }
      pushed_ = true;
      return enter;
    }
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
  // The stream's consumer may be stood in for by its producer's thread (nullptr: no more).
  void set_consumer(InlineConsumer* c, BlockTracker* bt) {
    consumer_ = c;
    virtual_ = false;
    if (bt) bt->set_handoff(c ? this : nullptr);
  }
  bool empty() const { return q_.empty(); }
  const T& front() { return q_.front().value; }
  // pop_ref for an InlineConsumer's take_inline (the stream not empty): the same pop, without the
  // space notification (no process waits on it: the producer's thread is the one running). (Also
  // pop_ref's pop.)
  const T& pop_inline(uint64_t t, uint64_t& at) {
    auto& s = q_.front();
    at = std::max(t, s.ready);
    q_.pop_front();
    pop_at_[pop_slot_] = at;
    ++pops_;
    pop_slot_ = pop_slot_ + 1 == depth_ ? 0 : pop_slot_ + 1;
    return s.value;
  }
  // An InlineConsumer woken from its wait on data: released as its thread would release itself
  // (without progress_ev, which no process waits on here).
  void wake_inline() {
    if (waiter_) {
      waiter_->unblock_quiet(waiter_bit_);
      waiter_ = nullptr;
    }
  }
  // An InlineConsumer found the stream empty at cycle t: it waits for data again, as block_on
  // records it (its thread still waits where it blocked).
  void block_inline(BlockTracker* bt, uint32_t bit, uint64_t t) {
    bt->block(bit, t);
    waiter_ = bt;
    waiter_bit_ = bit;
  }

  // The virtual consumer. A consumer thread C (the ODR) blocked on this stream and its producer's
  // thread P (the MVM / DWPU), with the producer's inline IFDs, run in deltas at one SystemC time:
  // P runs until a yield point (BlockTracker::yield_point: its input empty after its IFDs ran) at
  // which something is pending, then C runs if a push notified it in the delta before (SystemC
  // triggers a delta's events last-notified first: P's timeout before C's data), taking what is
  // queued, running the IFDs, blocking again. When nothing else is pending, P does this itself:
  // at each yield point at which it would yield (C triggered in this delta, or a push since its
  // last yield), it takes C's turn (take_inline) if C's run is due, and moves C's wake-ups one
  // delta on — the same work in the same order, without the two context switches. Anything else
  // pending, any other wait of P, an abort, or a turn C's thread must take itself: hand_over().
  bool yield_point() override {
    if (!virtual_) {  // C blocked, nothing pending: neither triggered nor notified, P would not yield
      if (consumer_ && waiter_ && waiter_ == or_bt_ && !or_bt_->watching &&
          !sc_core::sc_pending_activity_at_current_time()) {
        virtual_ = true;
        due_ = pushed_ = false;
        return false;
      }
      return sc_core::sc_pending_activity_at_current_time();
    }
    if (sc_core::sc_pending_activity_at_current_time()) {  // another process would run: as before
      hand_over();
      return true;
    }
    if (!due_ && !pushed_) return false;  // P would not yield here
    if (due_ && !consumer_->take_inline()) {
      hand_over();
      return true;
    }
    due_ = pushed_;  // C is triggered in the next delta by this delta's pushes
    pushed_ = false;
    // (an IFD that C's turn ran failed and aborted the datapath, which handed C back: P yields,
    // as it did before C's turn, and then sees the abort)
    return or_bt_->aborted();
  }
  void hand_over() override {
    if (!virtual_) return;
    virtual_ = false;
    if (due_) data_.notify();  // runnable now: C runs after P waits, as when triggered at this delta's start
    if (pushed_) {
      or_bt_->progress_ev.notify(sc_core::SC_ZERO_TIME);
      data_.notify(sc_core::SC_ZERO_TIME);
    }
    due_ = pushed_ = false;
  }

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
  // it stays valid until this FIFO's next pop (the ring keeps the popped slot). (`t` is read again
  // after a wait: an InlineConsumer's cycle moves while its thread waits here.)
  const T& pop_ref(const uint64_t& t, uint64_t& at, BlockTracker* bt = nullptr, uint32_t wait_bit = 0) {
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
      } else if (bt->yield_point()) {
        // It had blocked until the producer's push: the processes that ran meanwhile run now.
        sc_core::wait(sc_core::SC_ZERO_TIME);
        if (bt->aborted()) throw Aborted{};
      }
    }
    const T& v = pop_inline(t, at);
    if (!producer_) {  // (an inline producer has no thread that waits for room)
      release_waiter();
      space_.notify(sc_core::SC_ZERO_TIME);
    }
    return v;
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
    bt->hand_over();  // (a consumer stood in for runs as its own thread again, before this process waits)
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
  InlineConsumer* consumer_ = nullptr;
  bool virtual_ = false, due_ = false, pushed_ = false;  // the virtual consumer (yield_point)
};

}  // namespace axcore::tlm
