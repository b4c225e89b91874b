#include "word_fabric.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "timed_fifo.hpp"  // StreamFailed

namespace axcore::tlm {

namespace {
namespace P = spec::param;
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kL2RowBytes = 64;                // l2_banks interleave on 64-byte rows
constexpr unsigned kRowWords = 16;                  // one PWORD
constexpr unsigned kAxiK = 64 / P::axi_data_bytes;  // AXI beats per row
constexpr uint64_t kBeatCycles = (P::axi_data_bytes + P::ddr_bytes_per_cycle - 1) / P::ddr_bytes_per_cycle;
static_assert(P::axi_data_bytes == 16 || P::axi_data_bytes == 32 || P::axi_data_bytes == 64);
static_assert(P::dma_words_per_cycle == kRowWords);
static_assert((P::dma_rob_rows & (P::dma_rob_rows - 1)) == 0);
// An on-chip read's row comes back one cycle after its grant (L2 bank, L1 port: ax_word_port),
// so its slot drains 2 cycles after the grant; an on-chip write is acked one cycle after it.
constexpr uint64_t kReadResp = 1, kWriteResp = 1;
constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ULL;
// Words [k, k + n) of the walk are data at consecutive addresses (copied in one memcpy): with
// d0 stride 1 a beat or burst never leaves its d0 run, so both ends are data n - 1 words apart.
bool contiguous(const WordFabric::Walk& w, std::size_t k, std::size_t n) {
  if (!w.stride1()) return false;
  const ref::DmaWord a = w.runs.at(k), b = w.runs.at(k + n - 1);
  return !a.pad && !b.pad && b.byte_addr == a.byte_addr + 4 * (n - 1);
}
}  // namespace

WordFabric::WordFabric(sc_core::sc_module_name n, unsigned cores, Tracer& tracer)
    : sc_module(n), tracer_(tracer), cores_(cores) {
  const unsigned engines = P::first_core_row + cores;
  ports_ = std::vector<Port>(engines * kPorts);
  for (unsigned i = 0; i < ports_.size(); ++i) {
    ports_[i].row = i / kPorts;
    ports_[i].mm2s = i % kPorts < P::dma_channels;
    ports_[i].index = i % P::dma_channels;
  }
  pairs_.resize(engines * P::dma_channels);
  rr_.assign(1 + P::l2_banks + cores, 0);
  req_.resize(rr_.size());
  fsize_.resize(pairs_.size());
  sc_core::sc_spawn([this] { stepper(); });
}

void WordFabric::attach(unsigned id, uint32_t* bytes) { ports_.at(id).bytes = bytes; }

void WordFabric::attach_l1(unsigned core, L1Banks* banks, std::function<bool()> units_pending) {
  if (l1_.size() <= core) l1_.resize(core + 1);
  l1_[core] = {banks, std::move(units_pending)};
}

bool WordFabric::l1_contended(uint64_t c) const {
  if (c <= now_cycles()) return false;
  for (const Port& p : ports_) {
    if (p.phase != Phase::Run || p.w.sel != spec::MemSel::L1) continue;
    const unsigned k = std::min(p.w.core, cores_ - 1);
    if (k < l1_.size() && l1_[k].units_pending && l1_[k].units_pending()) return true;
  }
  return false;
}

unsigned WordFabric::target(const Port& p) const {
  switch (p.w.sel) {
    case spec::MemSel::DDR: return 0;
    case spec::MemSel::L2: return 1 + static_cast<unsigned>(p.w.runs.at(p.next).byte_addr / kL2RowBytes % P::l2_banks);
    default: return 1 + P::l2_banks + std::min(p.w.core, cores_ - 1);
  }
}

// The beat rule (docs/timing.md, rtl/dma/ax_dma_walk): from the walk position, on the same d0
// run and d0 region (pad before / data / pad after): data with d0 stride 1 up to the row end
// (else one word), pads up to 16; the DDR burst up to the next 4 KiB boundary.
WordFabric::Beat WordFabric::beat(const Port& p) const {
  const Walk& w = p.w;
  const ref::DmaWord wd = w.runs.at(p.next);
  const uint32_t e0 = w.runs.e0, b0 = w.runs.b0, s0 = w.runs.s0;
  const uint32_t p0 = static_cast<uint32_t>(p.next % e0);
  const uint32_t seg = p0 < b0 ? b0 - p0 : p0 < b0 + s0 ? b0 + s0 - p0 : e0 - p0;
  Beat b{wd.pad, 1, 1, 1};
  if (wd.pad) {
    b.n = b.bn = std::min(seg, kRowWords);
    return b;
  }
  if (!w.stride1()) return b;
  const uint32_t off = static_cast<uint32_t>(wd.byte_addr / 4 % kRowWords);
  b.n = std::min(seg, kRowWords - off);
  b.bn = std::min<uint32_t>(seg,
                            static_cast<uint32_t>((P::axi_boundary_bytes - wd.byte_addr % P::axi_boundary_bytes) / 4));
  b.brows = (off + b.bn + kRowWords - 1) / kRowWords;
  return b;
}

void WordFabric::walk(unsigned id, Walk w, uint64_t& t) {
  Port& p = ports_[id];
  Pair& q = pair_of(p);
  if (q.failed) throw StreamFailed{q.code};
  if (w.runs.size() == 0) return;
  p.w = std::move(w);
  p.next = 0;
  p.phase = Phase::Load;
  p.at = t - 1;
  p.failed = p.aborted = false;
  p.hash = kFnvBasis;
  p.bq_left = 0;
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
  Pair& q = pairs_[row * P::dma_channels + index];
  q.failed = true;
  q.code = code;
  q.fifo.clear();
  for (bool mm2s : {true, false}) {
    Port& p = ports_[id(row, mm2s, index)];
    p.rob.clear();
    p.bq_left = 0;
    if (p.phase == Phase::Load || p.phase == Phase::Run || p.phase == Phase::Drain) {
      p.failed = true;
      p.code = code;
      finish(p, std::max(cycle + 1, p.at));  // the partner sees the failure a cycle later (fail_q)
    }
  }
  work_.notify(sc_core::SC_ZERO_TIME);
}

void WordFabric::clear_pair(uint32_t row, unsigned index) {
  Pair& q = pairs_[row * P::dma_channels + index];
  q.fifo.clear();
  q.failed = false;
  work_.notify(sc_core::SC_ZERO_TIME);
}

void WordFabric::abort(unsigned id) {
  Port& p = ports_[id];
  p.rob.clear();
  p.resp.clear();
  p.bq_left = 0;
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
    if (l1_contended(cur_)) {  // a LoadIMC or datapath may still start before cur_ and claim its bank
      sc_core::wait(static_cast<double>(cur_ - now), sc_core::SC_NS, work_);
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
  auto prune = [&](std::deque<uint64_t>& d) {  // outstanding at c: answered in c or later
    while (!d.empty() && d.front() < c) d.pop_front();
    for (uint64_t x : d)
      if (x != kNever) soon(x + 1);
  };
  for (auto& r : req_) r.clear();
  for (std::size_t i = 0; i < pairs_.size(); ++i) fsize_[i] = pairs_[i].fifo.size();  // count at the cycle's start
  pads_.clear();
  prune(rd_done_);
  prune(wr_done_);
  if (wpath_free_ > c) soon(wpath_free_);
  // Requests from the registered state of the cycle.
  for (unsigned id = 0; id < ports_.size(); ++id) {
    Port& p = ports_[id];
    while (!p.resp.empty() && p.resp.front() < c) p.resp.pop_front();
    for (uint64_t x : p.resp)
      if (x != kNever) soon(x + 1);
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
          const Beat b = beat(p);
          const std::size_t need = (b.pad || p.w.sel != spec::MemSel::DDR) ? 1 : b.brows;
          if (p.rob.size() + need > P::dma_rob_rows) break;  // a drain makes room (its ready cycle is a wake-up)
          if (b.pad)
            pads_.push_back(id);
          else
            req_[target(p)].push_back(id);
        } else if (fsize_[p.row * P::dma_channels + p.index] >= beat(p).n) {
          const unsigned t = target(p);
          if (t == 0 && wlock_ && wlock_id_ != id) break;  // the write path is held by another burst
          req_[t].push_back(id);
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
  auto issued = [&](Port& p, uint32_t words) {
    p.cls_ddr = p.w.sel == spec::MemSel::DDR;
    p.next += words;
    if (p.next == p.w.runs.size()) finish(p, c + 1);
    soon(c + 1);
  };
  // Slots of `words` walk words from p.next, the first at row offset `off`.
  auto fill = [&](Port& p, uint32_t words, uint32_t off, uint64_t ready0, const std::vector<uint64_t>* rows_ready) {
    std::size_t k = p.next, end = p.next + words;
    unsigned r = 0;
    while (k < end) {
      Slot sl{};
      sl.n = static_cast<unsigned>(std::min<std::size_t>(kRowWords - off, end - k));
      if (contiguous(p.w, k, sl.n)) {  // one run of data words: one copy
        std::memcpy(sl.words, p.w.mem.ptr + p.w.runs.at(k).byte_addr, 4 * std::size_t{sl.n});
        k += sl.n;
      } else {
        for (unsigned j = 0; j < sl.n; ++j, ++k) {
          const ref::DmaWord wd = p.w.runs.at(k);
          if (wd.pad)
            sl.words[j] = p.w.pad_value;
          else
            std::memcpy(&sl.words[j], p.w.mem.ptr + wd.byte_addr, 4);
        }
      }
      sl.ready = rows_ready ? (*rows_ready)[r] : ready0;
      p.rob.push_back(sl);
      off = 0;
      ++r;
    }
  };
  // One grant per target, round-robin from the target's pointer.
  const unsigned n = static_cast<unsigned>(ports_.size());
  std::vector<uint64_t>& rows_ready = rows_ready_;
  for (unsigned t = 0; t < req_.size(); ++t) {
    const auto& r = req_[t];
    if (r.empty()) continue;
    unsigned win = r[0];
    for (unsigned id : r)
      if ((id + n - rr_[t]) % n < (win + n - rr_[t]) % n) win = id;
    Port& p = ports_[win];
    const Beat b = beat(p);
    const ref::DmaWord wd = p.w.runs.at(p.next);
    const bool ddr = t == 0;
    if (ddr) {  // the bridge's ready: outstanding slots, the write path
      const bool ok = p.mm2s ? rd_done_.size() < P::axi_max_reads
                             : c >= wpath_free_ && (p.bq_left != 0 || wr_done_.size() < P::axi_max_writes);
      if (!ok) {  // not taken: the grant and the pointer stay
        soon(c + 1);
        continue;
      }
    } else if (t > P::l2_banks && t - 1 - P::l2_banks < l1_.size()) {
      // A core's L1 word port, below every unit port of its banks: not granted while a unit
      // holds the bank of the beat's row (the grant and the pointer stay).
      L1Banks* banks = l1_[t - 1 - P::l2_banks].banks;
      if (banks && !banks->word_free(wd.byte_addr / P::l1_row_bytes, c)) {
        soon(c + 1);
        continue;
      }
    }
    rr_[t] = (win + 1) % n;
    if (r.size() > 1) soon(c + 1);
    if (p.mm2s) {
      const uint32_t off = static_cast<uint32_t>(wd.byte_addr / 4 % kRowWords);
      if (ddr) {
        // AR in c + 1; the DDR model's beats from c + 1 + latency, one per kBeatCycles.
        const uint64_t first = std::max<uint64_t>(c + 1 + P::ddr_latency_cycles, r_free_);
        rows_ready.clear();
        for (unsigned row = 0; row < b.brows; ++row)
          rows_ready.push_back(first + ((row + 1) * kAxiK - 1) * kBeatCycles + 1);
        r_free_ = first + uint64_t{b.brows} * kAxiK * kBeatCycles;
        const uint64_t last = rows_ready.back() - 1;
        rd_done_.push_back(last);
        p.resp.push_back(last);
        fill(p, b.bn, off, 0, &rows_ready);
        *p.bytes += 4 * b.bn;
        issued(p, b.bn);
      } else {
        p.resp.push_back(c + kReadResp);
        fill(p, b.n, off, c + kReadResp + 1, nullptr);
        *p.bytes += 4 * b.n;
        issued(p, b.n);
      }
    } else {
      Pair& q = pair_of(p);
      if (ddr) {
        const bool first = p.bq_left == 0;
        const unsigned rows = first ? b.brows : p.bq_left;
        // the row's W beats from c + 1, at the DDR model's rate
        uint64_t wt = std::max<uint64_t>(c + 1, w_free_);
        for (unsigned k = 1; k < kAxiK; ++k) wt = std::max(wt + 1, wt + kBeatCycles);
        w_free_ = wt + kBeatCycles;
        wpath_free_ = wt;  // the bridge takes the next write beat in the cycle of this row's last W beat
        if (first) {
          p.resp.push_back(kNever);
          wr_done_.push_back(kNever);
        }
        p.bq_left = rows - 1;
        if (p.bq_left == 0) {     // the burst's last beat: B two cycles after its last W beat
          for (auto& x : p.resp)  // the burst's B (the only open response of this channel)
            if (x == kNever) x = wt + 2;
          for (auto& x : wr_done_)
            if (x == kNever) {
              x = wt + 2;
              break;
            }
          wlock_ = false;
          soon(wt + 3);
        } else {
          wlock_ = true;
          wlock_id_ = win;
        }
      } else {
        p.resp.push_back(c + kWriteResp);
      }
      if (p.next % p.w.run == 0) {
        p.run_addr = wd.byte_addr;
        p.hash = kFnvBasis;
      }
      uint32_t beat_words[kRowWords];  // b.n <= one row; hashed in one call, in order
      for (unsigned j = 0; j < b.n; ++j) {
        beat_words[j] = q.fifo.front();
        q.fifo.pop_front();
      }
      if (contiguous(p.w, p.next, b.n)) {
        std::memcpy(p.w.mem.ptr + wd.byte_addr, beat_words, 4 * std::size_t{b.n});
      } else {
        for (unsigned j = 0; j < b.n; ++j)
          std::memcpy(p.w.mem.ptr + p.w.runs.at(p.next + j).byte_addr, &beat_words[j], 4);
      }
      p.hash = trace::fnv1a64({reinterpret_cast<const uint8_t*>(beat_words), 4 * std::size_t{b.n}}, p.hash);
      *p.w.task_bytes += 4 * b.n;
      *p.bytes += 4 * b.n;
      if ((p.next + b.n) % p.w.run == 0)
        tracer_.emit(c, p.row, trace::dma_unit(false, p.index), trace::Kind::MEM_WRITE, p.run_addr, p.w.run * 4, p.hash,
                     0);
      issued(p, b.n);
    }
  }
  for (unsigned id : pads_) {  // a pad beat fills its slot at once
    Port& p = ports_[id];
    const Beat b = beat(p);
    fill(p, b.n, 0, c + 1, nullptr);
    issued(p, b.n);
  }
  // Each MM2S drains its filled head slot into the pair FIFO when the FIFO's count leaves room.
  for (Port& p : ports_) {
    if (!p.mm2s || p.rob.empty() || p.rob.front().ready > c) continue;
    const std::size_t k = p.row * P::dma_channels + p.index;
    const Slot& sl = p.rob.front();
    if (fsize_[k] + sl.n > P::dma_stream_depth) continue;  // the S2MM's beat makes room
    for (unsigned j = 0; j < sl.n; ++j) pairs_[k].fifo.push_back(sl.words[j]);
    p.rob.pop_front();
    soon(c + 1);
  }
  return next;
}

}  // namespace axcore::tlm
