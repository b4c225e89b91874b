#include "word_fabric.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "timed_fifo.hpp"  // StreamFailed

namespace axcore::tlm {

namespace {
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kL2RowBytes = 64;  // l2_banks interleave on 64-byte rows
// A read's data comes back one cycle after its grant (L2 bank, L1 word port: ax_word_port) or
// ddr_latency_cycles + 1 after it (AXI bridge: AR the next cycle, R L cycles later); a write is
// answered one cycle after its grant, or 3 (AW+W the next cycle, B 2 later) for DDR.
constexpr uint64_t kReadResp = 1, kDdrReadResp = spec::param::ddr_latency_cycles + 1;
constexpr uint64_t kWriteResp = 1, kDdrWriteResp = 3;
constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ULL;
}  // namespace

WordFabric::WordFabric(sc_core::sc_module_name n, unsigned cores, Tracer& tracer)
    : sc_module(n), tracer_(tracer), cores_(cores) {
  const unsigned engines = spec::param::first_core_row + cores;
  ports_ = std::vector<Port>(engines * kPorts);
  for (unsigned i = 0; i < ports_.size(); ++i) {
    ports_[i].row = i / kPorts;
    ports_[i].mm2s = i % kPorts < spec::param::dma_channels;
    ports_[i].index = i % spec::param::dma_channels;
  }
  pairs_.resize(engines * spec::param::dma_channels);
  rr_.assign(1 + spec::param::l2_banks + cores, 0);
  req_.resize(rr_.size());
  fsize_.resize(pairs_.size());
  sc_core::sc_spawn([this] { stepper(); });
}

void WordFabric::attach(unsigned id, uint32_t* bytes) { ports_.at(id).bytes = bytes; }

unsigned WordFabric::target(const Port& p) const {
  switch (p.w.sel) {
    case spec::MemSel::DDR: return 0;
    case spec::MemSel::L2:
      return 1 + static_cast<unsigned>(p.w.words[p.next].byte_addr / kL2RowBytes % spec::param::l2_banks);
    default: return 1 + spec::param::l2_banks + std::min(p.w.core, cores_ - 1);
  }
}

void WordFabric::walk(unsigned id, Walk w, uint64_t& t) {
  Port& p = ports_[id];
  Pair& q = pair_of(p);
  if (q.failed) throw StreamFailed{q.code};
  if (w.words.empty()) return;
  p.w = std::move(w);
  p.next = 0;
  p.phase = Phase::Load;
  p.at = t - 1;
  p.failed = p.aborted = false;
  p.hash = kFnvBasis;
  work_.notify(sc_core::SC_ZERO_TIME);
  while (p.phase == Phase::Load || p.phase == Phase::Run) sc_core::wait(p.done);
  t = p.end;
  if (p.failed) throw StreamFailed{p.code};
}

uint64_t WordFabric::drain(unsigned id, uint64_t t) {
  Port& p = ports_[id];
  p.phase = Phase::Drain;
  p.at = t;
  p.failed = p.aborted = false;
  work_.notify(sc_core::SC_ZERO_TIME);
  while (p.phase == Phase::Drain) sc_core::wait(p.done);
  if (p.failed) throw StreamFailed{p.code};
  return std::max(t, p.end);
}

void WordFabric::release(unsigned id) {
  Port& p = ports_[id];
  if (p.phase == Phase::Await) {
    p.phase = Phase::Idle;
    work_.notify(sc_core::SC_ZERO_TIME);
  }
}

void WordFabric::finish(Port& p, uint64_t end) {
  p.end = end;
  p.phase = Phase::Await;
  p.done.notify(sc_core::SC_ZERO_TIME);
}

void WordFabric::fail_pair(uint32_t row, unsigned index, spec::ErrorCode code, uint64_t cycle) {
  Pair& q = pairs_[row * spec::param::dma_channels + index];
  q.failed = true;
  q.code = code;
  q.fifo.clear();
  for (bool mm2s : {true, false}) {
    Port& p = ports_[id(row, mm2s, index)];
    p.rob.clear();
    if (p.phase == Phase::Load || p.phase == Phase::Run || p.phase == Phase::Drain) {
      p.failed = true;
      p.code = code;
      finish(p, std::max(cycle + 1, p.at));  // the partner sees the failure a cycle later (fail_q)
    }
  }
  work_.notify(sc_core::SC_ZERO_TIME);
}

void WordFabric::clear_pair(uint32_t row, unsigned index) {
  Pair& q = pairs_[row * spec::param::dma_channels + index];
  q.fifo.clear();
  q.failed = false;
  work_.notify(sc_core::SC_ZERO_TIME);
}

void WordFabric::abort(unsigned id) {
  Port& p = ports_[id];
  p.rob.clear();
  p.resp.clear();
  pair_of(p).fifo.clear();  // a channel reset flushes the pair stream (flush_o)
  if (p.phase != Phase::Idle) {
    p.aborted = true;
    p.end = now_cycles();
    p.phase = Phase::Idle;
    p.done.notify(sc_core::SC_ZERO_TIME);
  }
  work_.notify(sc_core::SC_ZERO_TIME);
}

void WordFabric::pause(unsigned id, bool on, uint64_t cycle) {
  Port& p = ports_[id];
  if (on && !p.paused) p.pause_from = cycle + 1;  // pause_q
  if (!on && p.paused) p.resume_at = cycle + 1;
  p.paused = on;
  work_.notify(sc_core::SC_ZERO_TIME);
}

bool WordFabric::blocked() const {
  return std::any_of(ports_.begin(), ports_.end(), [](const Port& p) { return p.phase == Phase::Await; });
}

bool WordFabric::busy() const {
  return std::any_of(ports_.begin(), ports_.end(), [](const Port& p) {
    return p.phase == Phase::Load || p.phase == Phase::Run || p.phase == Phase::Drain || !p.rob.empty();
  });
}

void WordFabric::stepper() {
  for (;;) {
    if (blocked() || !busy()) {
      sc_core::wait(work_);
      continue;
    }
    const uint64_t h = host_horizon(), now = now_cycles();
    if (cur_ > h) {  // the host may still act before cur_: wait for its next window
      if (h + 1 > now)
        sc_core::wait(static_cast<double>(h + 1 - now), sc_core::SC_NS, work_);
      else
        sc_core::wait(work_);
      continue;
    }
    const uint64_t next = step(cur_);
    if (next == kNever) {  // nothing timed left: only a channel thread can change the picture
      ++cur_;
      if (!blocked()) sc_core::wait(work_);
      continue;
    }
    cur_ = std::min(next, h + 1);  // never past the window: a host push may start a channel in it
  }
}

uint64_t WordFabric::step(uint64_t c) {
  uint64_t next = kNever;
  auto soon = [&](uint64_t x) {
    if (x > c && x < next) next = x;
  };
  for (auto& r : req_) r.clear();
  for (std::size_t i = 0; i < pairs_.size(); ++i) fsize_[i] = pairs_[i].fifo.size();  // cnt_q
  pads_.clear();
  // Requests from the registered state of the cycle.
  for (unsigned id = 0; id < ports_.size(); ++id) {
    Port& p = ports_[id];
    while (!p.resp.empty() && p.resp.front() < c) p.resp.pop_front();
    if (!p.resp.empty()) soon(p.resp.back() + 1);
    if (!p.rob.empty()) soon(p.rob.front().ready);
    switch (p.phase) {
      case Phase::Load:
        if (c < p.at) {
          soon(p.at);
        } else if (p.resp.empty() || p.cls_ddr == (p.w.sel == spec::MemSel::DDR)) {
          p.phase = Phase::Run;  // S_LOAD: the walk's first request the next cycle
          p.at = c + 1;
          soon(c + 1);
        } else {
          p.at = c + 1;  // class_ok: the other class's requests are still outstanding
        }
        break;
      case Phase::Run:
        if (c < p.at) {
          soon(p.at);
        } else if (p.paused && c >= p.pause_from) {
          // held until pause() clears it
        } else if (c < p.resume_at) {
          soon(p.resume_at);
        } else if (p.mm2s) {
          if (p.rob.size() >= kRobDepth) break;  // a drain makes room (its ready cycle is a wake-up)
          if (p.w.words[p.next].pad)
            pads_.push_back(id);
          else
            req_[target(p)].push_back(id);
        } else if (fsize_[p.row * spec::param::dma_channels + p.index] > 0) {
          req_[target(p)].push_back(id);
        }
        break;
      case Phase::Drain:
        if (c < p.at)
          soon(p.at);
        else if (p.resp.empty() && p.rob.empty())
          finish(p, c + 1);  // S_FINISH (TASK_DONE) next cycle
        break;
      default: break;
    }
  }
  auto issued = [&](Port& p) {
    p.cls_ddr = p.w.sel == spec::MemSel::DDR;
    if (++p.next == p.w.words.size()) finish(p, c + 1);
    soon(c + 1);
  };
  // One grant per target, round-robin from the target's pointer.
  const unsigned n = static_cast<unsigned>(ports_.size());
  for (unsigned t = 0; t < req_.size(); ++t) {
    const auto& r = req_[t];
    if (r.empty()) continue;
    if (t == 0 && ddr_free_ > c) {  // the bridge holds a transaction: not ready, pointer stays
      soon(ddr_free_);
      continue;
    }
    unsigned win = r[0];
    for (unsigned id : r)
      if ((id + n - rr_[t]) % n < (win + n - rr_[t]) % n) win = id;
    rr_[t] = (win + 1) % n;
    if (r.size() > 1) soon(c + 1);
    Port& p = ports_[win];
    const ref::DmaWord& wd = p.w.words[p.next];
    const bool ddr = t == 0;
    if (ddr) ddr_free_ = c + (p.mm2s ? kDdrRead : kDdrWrite);
    if (p.mm2s) {
      uint32_t v;
      std::memcpy(&v, p.w.mem.ptr + wd.byte_addr, 4);
      const uint64_t resp = c + (ddr ? kDdrReadResp : kReadResp);
      p.resp.push_back(resp);
      p.rob.push_back({v, resp + 1});
    } else {
      Pair& q = pair_of(p);
      const uint32_t v = q.fifo.front();
      q.fifo.pop_front();
      std::memcpy(p.w.mem.ptr + wd.byte_addr, &v, 4);
      const uint64_t resp = c + (ddr ? kDdrWriteResp : kWriteResp);
      p.resp.push_back(resp);
      *p.w.task_bytes += 4;
      if (p.next % p.w.run == 0) {
        p.run_addr = wd.byte_addr;
        p.hash = kFnvBasis;
      }
      uint8_t b[4];
      std::memcpy(b, &v, 4);
      p.hash = trace::fnv1a64(b, p.hash);
      if (p.next % p.w.run == p.w.run - 1)
        tracer_.emit(c, p.row, trace::dma_unit(false, p.index), trace::Kind::MEM_WRITE, p.run_addr, p.w.run * 4, p.hash,
                     0);
    }
    *p.bytes += 4;
    issued(p);
  }
  for (unsigned id : pads_) {  // a pad fills its slot at once
    Port& p = ports_[id];
    p.rob.push_back({p.w.pad_value, c + 1});
    issued(p);
  }
  // Each MM2S drains its filled head slot into the pair FIFO when the FIFO had room (cnt_q).
  for (Port& p : ports_) {
    if (!p.mm2s || p.rob.empty() || p.rob.front().ready > c) continue;
    const std::size_t k = p.row * spec::param::dma_channels + p.index;
    if (fsize_[k] >= spec::param::dma_stream_depth) continue;  // the S2MM's grant makes room
    pairs_[k].fifo.push_back(p.rob.front().value);
    p.rob.pop_front();
    soon(c + 1);
  }
  return next;
}

}  // namespace axcore::tlm
