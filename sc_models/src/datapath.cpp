#include "datapath.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <string_view>
#include <vector>

#include "axcore/ref/dwpu.hpp"
#include "axcore/ref/error.hpp"

namespace axcore::tlm {

namespace {
using spec::param::dpu_latency;
using spec::param::ifd_latency;
using spec::param::mvm_latency;
using spec::param::odr_latency;
constexpr uint64_t kCyclesPerTileOp = spec::param::imc_tile_rows / spec::param::mvm_rows_per_cycle;
}  // namespace

void Unit::begin_run(Pipe& pipe) {
  pipe.bt.start_unit();
  stall_in_ = stall_out_ = 0;
  busy_ = -1;
}

void Unit::end_run(Pipe& pipe, uint64_t t0, uint64_t t) {
  auto& c = (*env_.perf)[perf_];
  const uint64_t span = t > t0 ? t - t0 : 0;
  c.stall_in += static_cast<uint32_t>(stall_in_);
  c.stall_out += static_cast<uint32_t>(stall_out_);
  c.busy +=
      static_cast<uint32_t>(busy_ >= 0 ? static_cast<uint64_t>(busy_) : span - std::min(span, stall_in_ + stall_out_));
  pipe.bt.end_unit(t);
}

ThreadUnit::ThreadUnit(sc_core::sc_module_name n, UnitEnv env, unsigned perf) : Unit(n, env, perf) {
  sc_core::sc_spawn([this] { serve(); });
}

void ThreadUnit::launch(Pipe& pipe, uint64_t t0) {
  begin_run(pipe);
  pipe_ = &pipe;
  t0_ = t0;
  start_.notify();  // runnable now, as a process spawned here was
}

void ThreadUnit::serve() {
  for (;;) {
    sc_core::wait(start_);
    Pipe& pipe = *pipe_;
    uint64_t t = t0_;
    try {
      body(pipe, t);
    } catch (const Aborted&) {
    } catch (const ref::RefError& e) {
      if (pipe.err == spec::ErrorCode::NONE) pipe.err = e.code();
      pipe.bt.abort();
    }
    pipe.bt.run_inline();  // this unit stops popping: an IFD with room runs now, as its thread would
    pipe.bt.hand_over();   // (a consumer this thread stood in for runs as its own thread again)
    end_run(pipe, t0_, t);
  }
}

uint64_t Unit::l1_rows(int64_t row, uint64_t rows, uint64_t t) {
  const unsigned port = L1Banks::port_of(perf_);
  if (!env_.banks || port == L1Banks::kNoPort || row < 0) return 0;
  const uint64_t first = t + env_.banks->take_debt(port);
  uint64_t g = first;
  for (uint64_t r = 0; r < rows; ++r)
    g = env_.banks->access(port, static_cast<uint64_t>(row) + r, r == 0 ? first : g + 1);
  return g - (t + rows - 1);
}

void IfdUnit::launch(Pipe& pipe, uint64_t t0) {
  begin_run(pipe);
  pipe_ = &pipe;
  t0_ = t0;
  t_ = t0 + 1;  // the first request the cycle after the task starts (counted busy, as the RTL's start cycle)
  if (env_.banks && L1Banks::port_of(perf_) != L1Banks::kNoPort) env_.banks->take_debt(L1Banks::port_of(perf_));
  seg_ = 0;
  cursor_.emplace(walks.at(0), ref::WalkRole::Ifd);
  ahead_.reset();
  expect_ = {};
  built_ = 0;
  running_ = true;
  staged_ = blocked_ = false;
  out->set_producer(this);
  pipe.bt.add_inline(this);
  pipe.bt.on_abort([this] { abandon(); });
  refill();  // fills the stream, as the IFD's thread did first
}

void IfdUnit::refill() {
  if (!running_) return;
  Pipe& pipe = *pipe_;
  const uint32_t bit = second_ ? kIfd1Out : kIfd0Out;
  try {
    for (;;) {
      const spec::Walk& walk = walks[seg_];
      const uint64_t rows = num::element_rows(walk.dtype);
      if (!staged_) {  // the next element: its rows through the L1 banks, then the element
        if (cursor_->done()) {
          if (seg_ + 1 == walks.size()) break;
          cursor_.emplace(walks[++seg_], ref::WalkRole::Ifd);  // the next segment, no gap (timing.md)
          continue;
        }
        const ref::WalkStep& st = cursor_->step();
        if (st.guards_pass) t_ += l1_rows(st.row, rows, t_);  // a lost bank delays the element
        want_ = t_ + rows - 1 + ifd_latency;                  // ifd_latency after its last row (timing.md)
        const bool as_fetched = build_as_fetched(walk, st);
        mark(built_++, as_fetched);
        try {  // built in the stream's next slot (a 264-byte element is not copied)
          if (!as_fetched) ::new (static_cast<void*>(&out->staged())) ref::Element(ref::ifd_element(walk, st, env_.l1));
        } catch (const ref::RefError&) {
          pipe.err_addr = static_cast<uint32_t>(st.row);
          throw;
        }
        staged_ = true;
      }
      if (out->full()) {  // wait for a pop (blocked on the output, as the thread was)
        if (blocked_)
          pipe.bt.progress(want_);
        else
          pipe.bt.block(bit, want_);
        blocked_ = true;
        return;
      }
      const uint64_t enter = out->commit(want_, &pipe.bt, bit);
      stall_out_ += enter - want_;
      t_ = std::max(t_ + rows, enter + 1 - ifd_latency);
      staged_ = false;
      cursor_->advance();
    }
    t_ += ifd_latency + 1;  // busy until the last element is on the stream
    if (blocked_) pipe.bt.unblock(bit);
    running_ = blocked_ = false;
    end_run(pipe, t0_, t_);
  } catch (const ref::RefError& e) {
    if (pipe.err == spec::ErrorCode::NONE) pipe.err = e.code();
    pipe.bt.abort();  // ends this unit too (abandon)
  }
}

// Element built_ of the run, if the last fetch read it ahead and L1 holds the same bytes now: the
// staged slot says INT8, not padded, and keeps whatever lanes it had (the MVM reads the copy).
bool IfdUnit::build_as_fetched(const spec::Walk& walk, const ref::WalkStep& st) {
  const uint64_t k = built_ - expect_first_;
  constexpr uint64_t kRow = spec::param::l1_row_bytes;
  if (built_ < expect_first_ || k >= expect_.size() || walk.dtype != spec::Dtype::INT8 || !st.guards_pass ||
      st.row < 0 || (static_cast<uint64_t>(st.row) + 1) * kRow > env_.l1.size())
    return false;
  std::array<uint64_t, kRow / 8> now, copy;
  std::memcpy(now.data(), env_.l1.data() + static_cast<uint64_t>(st.row) * kRow, kRow);
  std::memcpy(copy.data(), expect_[k].data(), kRow);
  uint64_t diff = 0;
  for (std::size_t w = 0; w < now.size(); ++w) diff |= now[w] ^ copy[w];
  if (diff != 0) return false;
  ref::Element& e = out->staged();
  e.value.dtype = spec::Dtype::INT8;
  e.pad = false;
  return true;
}

uint64_t IfdUnit::fetch(uint64_t first, std::span<num::PwordI8> xs) {
  static_assert(sizeof(num::PwordI8) == spec::param::l1_row_bytes);  // an INT8 element is one L1 row
  expect_ = {};
  if (!ahead_) {
    if (walks.empty()) return 0;
    ahead_.emplace(walks[0], ref::WalkRole::Ifd);
    ahead_seg_ = 0;
    ahead_index_ = 0;
  }
  if (first < ahead_index_) return 0;
  uint64_t n = 0;
  while (n < xs.size()) {
    if (ahead_->done()) {  // the next segment, or the walk's end
      if (ahead_seg_ + 1 == walks.size()) break;
      ahead_.emplace(walks[++ahead_seg_], ref::WalkRole::Ifd);
      continue;
    }
    if (ahead_index_ >= first) {  // element first + n: as ifd_element reads it, INT8 only
      const spec::Walk& w = walks[ahead_seg_];
      const ref::WalkStep& st = ahead_->step();
      if (w.dtype != spec::Dtype::INT8) break;
      if (!st.guards_pass) {
        xs[n] = num::AnyPword::splat(w.dtype, w.pad_value).as_i8();
      } else {
        constexpr uint64_t kRow = spec::param::l1_row_bytes;
        if (st.row < 0 || (static_cast<uint64_t>(st.row) + 1) * kRow > env_.l1.size()) break;
        std::memcpy(xs[n].data(), env_.l1.data() + static_cast<uint64_t>(st.row) * kRow, sizeof xs[n]);
      }
      ++n;
    }
    ahead_->advance();
    ++ahead_index_;
  }
  expect_ = xs.first(n);
  expect_first_ = first;
  return n;
}

void IfdUnit::abandon() {
  if (!running_) return;
  if (blocked_) pipe_->bt.unblock(second_ ? kIfd1Out : kIfd0Out);
  running_ = blocked_ = false;
  end_run(*pipe_, t0_, t_);
}

template <class Desc>
void MainUnit<Desc>::push_out(Pipe& pipe, uint64_t& t, const ref::Element& e) {
  const uint64_t want = t - 1 + mvm_latency;
  out->staged() = e;  // (push(e) copied the 264-byte element twice: into its argument, then the slot)
  const uint64_t enter = out->commit(want, &pipe.bt, kMainOut);
  stall_out_ += enter - want;
  t = std::max(t, enter + 1 - mvm_latency);
}

template <>
void MvmUnit::body(Pipe& pipe, uint64_t& t) {
  uint64_t ops = 0;
  for (ref::MvmRun run(desc, *env_.imc, lookahead); !run.done();) {  // ref::run_mvm, reading x in place
    uint64_t at = 0;
    const ref::Element& x = pipe.ifd0.pop_ref(t, at, &pipe.bt, kMainIn);
    stall_in_ += at - t;
    t = at + kCyclesPerTileOp;
    ++ops;
    if (const ref::Element* y = run.take(x)) push_out(pipe, t, *y);
  }
  t += mvm_latency;
  busy_ = static_cast<int64_t>(ops * kCyclesPerTileOp);  // PERF_BUSY: tile-op cycles
}

template <>
void DwpuUnit::body(Pipe& pipe, uint64_t& t) {
  // Weight fetch: weight_count rows from weight_base_row, one request a cycle from the cycle after
  // the start on the L1 port below LoadIMC (l1_banks.hpp); a lost bank retries the next cycle.
  if (env_.banks && desc.weight_count) {
    uint64_t g = t + env_.banks->take_debt(L1Banks::kDwpuWeights);
    for (uint32_t r = 0; r < desc.weight_count; ++r)
      g = env_.banks->access(L1Banks::kDwpuWeights, uint64_t{desc.weight_base_row} + r, g + 1);
    t = g;
  } else {
    t += desc.weight_count;
  }
  auto pop = [&] {
    auto got = pipe.ifd0.pop(t, &pipe.bt, kMainIn);
    stall_in_ += got.cycle - t;
    t = got.cycle + 1;
    return std::move(got.value);
  };
  auto push = [&](const ref::Element& e) { push_out(pipe, t, e); };
  ref::run_dwpu(desc, env_.l1, pop, push);
  t += mvm_latency;
}

void DpuUnit::body(Pipe& pipe, uint64_t& t) {
  ref::Dpu dpu(program, cfg);
  ref::DpuIo io;
  io.pop = [&](unsigned s) {
    Stream& f = s == 1 ? pipe.ifd1 : *in0;
    auto got = f.pop(t, &pipe.bt, s == 1 ? kDpuIn1 : kDpuIn0);
    stall_in_ += got.cycle - t;
    t = got.cycle;
    return std::move(got.value);
  };
  io.push = [&](const ref::Element& e) {
    const uint64_t want = t + dpu_latency;
    const uint64_t enter = pipe.dpu.push(e, want, &pipe.bt, kDpuOut);
    stall_out_ += enter - want;
    t = enter - dpu_latency;
  };
  ++t;  // the first instruction issues the cycle after the task starts (ax_dpu_seq, like the IFDs)
  while (dpu.step(io)) ++t;
  t += dpu_latency;
  busy_ = static_cast<int64_t>(dpu.instructions);  // PERF_BUSY: issue cycles (the RTL's exec)
}

// One stored element's L1 write from take cycle `c` (a pop, or a transposed element taken from
// the buffer): the rows from c + odr_latency, the MEM_WRITE record; returns the cycle of its last row.
uint64_t OdrUnit::store(Pipe& pipe, const ref::WalkStep& st, const num::AnyPword& v, uint64_t c) {
  const uint64_t rows = num::element_rows(walk.dtype);
  const std::size_t bytes = num::element_bytes(walk.dtype);
  try {
    ref::odr_store(walk, st, v, env_.l1);
  } catch (const ref::RefError&) {
    pipe.err_addr = static_cast<uint32_t>(st.row);
    throw;
  }
  const uint64_t late = l1_rows(st.row, rows, c + odr_latency);
  const uint64_t written = c + odr_latency + rows - 1 + late;
  const uint64_t addr = static_cast<uint64_t>(st.row) * spec::param::l1_row_bytes;
  // (hashed with the next ones, side by side; no hash without a trace)
  env_.tracer->emit_hashed(written, env_.row, trace_unit(), trace::Kind::MEM_WRITE, addr, env_.l1.subspan(addr, bytes));
  pipe.bytes += static_cast<uint32_t>(bytes);
  pipe.end = written;
  return written;
}

// The lane transpose (docs/timing.md, ODR): a fill of 64 pops (one per cycle as the stream
// delivers), then from the cycle after the 64th pop 64 takes, each as a pop of the plain ODR
// (the next take in the cycle of the previous element's last row write, a drop one cycle); the
// next fill starts the cycle after the 64th take.
void OdrUnit::body_transpose(Pipe& pipe, uint64_t& t) {
  uint64_t written = 0;  // last row write of the latest stored element (the write buffer is busy until then)
  std::vector<ref::Element> pops;
  for (ref::WalkCursor c(walk, ref::WalkRole::Odr); !c.done();) {
    pops.clear();
    for (std::size_t j = 0; j < ref::kTransposeBlock; ++j) {
      auto got = in->pop(t, &pipe.bt, kOdrIn);
      const uint64_t writing = written + 1 > t ? std::min(got.cycle, written + 1) - t : 0;
      stall_in_ += got.cycle - t - writing;
      pops.push_back(std::move(got.value));
      t = got.cycle + 1;
    }
    const auto block = ref::transpose_block(walk, pops);
    uint64_t take = t;
    for (const ref::Element& e : block) {
      take = std::max(t, written);
      if (c.step().guards_pass) {
        written = store(pipe, c.step(), e.value, take);
        t = written;
      } else {
        t = take + 1;
        pipe.end = std::max(pipe.end, take);
      }
      c.advance();
    }
    t = take + 1;  // the next fill starts the cycle after the 64th take
  }
  t = std::max(t, pipe.end + 1);  // busy through the last write
}

bool& odr_inline() {
  static bool on = [] {
    const char* e = std::getenv("AXCORE_TLM_ODR_INLINE");
    return !e || std::string_view(e) != "0";
  }();
  return on;
}

uint64_t& odr_inline_turns() {
  static uint64_t n = 0;
  return n;
}

void OdrUnit::take(Pipe& pipe, const ref::Element& e, uint64_t at) {
  stall_in_ += at - t_ - std::min<uint64_t>(at - t_, writing_ ? 1 : 0);
  const auto& st = cursor_->step();
  if (!st.guards_pass) {
    t_ = at + 1;
    pipe.end = t_ - 1;
    writing_ = false;
  } else {
    if (e.value.dtype != walk.cast_from)
      ref::fail(spec::ErrorCode::STREAM_DTYPE,
                std::string("ODR: popped ") + std::string(spec::to_string(e.value.dtype)) + ", the walk casts from " +
                    std::string(spec::to_string(walk.cast_from)));
    t_ = store(pipe, st, num::convert(e.value, walk.dtype), at);
    writing_ = true;
  }
  cursor_->advance();
  --left_;
}

bool OdrUnit::take_inline() {
  Pipe& pipe = *pipe_;
  in->wake_inline();  // (from here on the thread, woken, would continue in the same state)
  while (!in->empty()) {
    if (left_ <= 1) return false;  // the run's last element: the thread takes it and ends the run
    const ref::WalkStep& st = cursor_->step();
    // an element that fails (its dtype, its rows outside L1): the thread reports it
    if (st.guards_pass &&
        (in->front().value.dtype != walk.cast_from || !ref::element_in_l1(walk, st.row, env_.l1.size())))
      return false;
    uint64_t at = 0;
    const ref::Element& e = in->pop_inline(t_, at);
    take(pipe, e, at);
  }
  pipe.bt.run_inline();  // as the thread's pop on the empty stream, then it waits again
  if (!in->empty()) return false;
  in->block_inline(&pipe.bt, kOdrIn, t_);
  ++odr_inline_turns();
  return true;
}

void OdrUnit::body(Pipe& pipe, uint64_t& t) {
  if (walk.transpose) return body_transpose(pipe, t);
  pipe_ = &pipe;
  cursor_.emplace(walk, ref::WalkRole::Odr);
  t_ = t;
  writing_ = false;  // the previous element's last row write is in cycle t (busy, not a stall)
  left_ = ref::walk_length(walk);
  struct Detach {  // (also when the run ends by an error or an abort)
    Stream* s;
    BlockTracker* bt;
    ~Detach() { s->set_consumer(nullptr, bt); }
  } detach{in, &pipe.bt};
  if (inline_ok && odr_inline()) in->set_consumer(this, &pipe.bt);
  while (!cursor_->done()) {
    uint64_t at = 0;
    const ref::Element& e = in->pop_ref(t_, at, &pipe.bt, kOdrIn);
    take(pipe, e, at);
  }
  t = std::max(t_, pipe.end + 1);  // busy through the last write
}

std::string watchdog_diagnostic(bool mvmexe, uint32_t waits, uint64_t cycle) {
  static constexpr struct {
    uint32_t bit;
    const char* what;
  } kWaits[] = {{kIfd0Out, "IFD0 waits on its full output stream (ifd0 -> main unit)"},
                {kIfd1Out, "IFD1 waits on its full output stream (ifd1 -> DPU in1)"},
                {kMainIn, "MVM/DWPU waits on its empty input stream (ifd0)"},
                {kMainOut, "MVM/DWPU waits on its full output stream (main -> DPU/ODR)"},
                {kDpuIn0, "DPU waits on its empty main input stream (in0)"},
                {kDpuIn1, "DPU waits on its empty IFD1 input stream (in1)"},
                {kDpuOut, "DPU waits on its full output stream (dpu -> ODR)"},
                {kOdrIn, "ODR waits on its empty input stream"}};
  std::string s = std::string("watchdog: ") + (mvmexe ? "MVMEXE" : "DWPU") + " datapath made no progress (cycle " +
                  std::to_string(cycle) + "):";
  const char* sep = " ";
  for (const auto& w : kWaits)
    if (waits & w.bit) s += sep + std::string(w.what), sep = "; ";
  return s;
}

spec::ErrorCode LoadImcUnit::run(const spec::LoadimcDesc& d, uint64_t& t, uint32_t& bytes, uint32_t& err_addr) {
  if (d.magic != spec::magic::loadimc) return spec::ErrorCode::DESC_MAGIC;
  if (d.d0_size == 0 || d.d1_size == 0) return spec::ErrorCode::DESC_RANGE;
  env_.imc->begin_residency(d.matrix_id);
  // Rows are read one per cycle from the cycle after the start and written into the IMC the
  // cycle after their read; the task is done the cycle after the last write. A row whose L1
  // bank a datapath unit holds that cycle is read in the next free one (port L1P_LOADIMC,
  // below the units, above the DMA word port: l1_banks.hpp). The rows are claimed at the start,
  // ahead of the DMA fabric (which steps at most a host window ahead of SystemC time), as one
  // chain: a unit that takes a row's cycle later (a datapath started after the load) moves that
  // row and the rows after it (l1_banks.hpp), and the load ends with its last row.
  constexpr uint64_t kRowCycles = spec::param::loadimc_cycles_per_row;
  uint64_t next = t + 1;
  if (env_.banks) {
    next += env_.banks->take_debt(L1Banks::kLoadimc);
    env_.banks->chain_begin(L1Banks::kLoadimc, kRowCycles);
  }
  constexpr uint32_t kTileBytes = spec::param::imc_tile_rows * spec::param::l1_row_bytes;
  // MEM_WRITE per tile, hashed up to 32 tiles at a time (trace::fnv1a64_each: a 4 KiB tile's serial
  // hash was 20 % of a matmul's TLM time; 32 side by side take AVX-512's path where the host has
  // it) and emitted in order before anything else can run; a tile written again is hashed before
  // it changes.
  struct Written {
    uint64_t cycle;
    std::size_t tile;
  };
  constexpr std::size_t kHashTiles = 32;
  std::array<Written, kHashTiles> pending{};
  std::size_t npending = 0;
  auto flush = [&] {
    if (!env_.tracer->on()) return void(npending = 0);
    std::array<std::span<const uint8_t>, kHashTiles> data;
    std::array<uint64_t, kHashTiles> hash{};
    for (std::size_t i = 0; i < npending; ++i) {
      const auto& tile = env_.imc->tile(pending[i].tile);
      data[i] = {reinterpret_cast<const uint8_t*>(tile.data()), tile.size()};
    }
    trace::fnv1a64_each(std::span(data).first(npending), std::span(hash).first(npending));
    for (std::size_t i = 0; i < npending; ++i)
      env_.tracer->emit(pending[i].cycle, env_.row, trace::Unit::LOADIMC, trace::Kind::MEM_WRITE,
                        static_cast<uint64_t>(pending[i].tile) * kTileBytes, kTileBytes, hash[i], 0);
    npending = 0;
  };
  for (uint32_t t1 = 0; t1 < d.d1_size; ++t1)
    for (uint32_t t0 = 0; t0 < d.d0_size; ++t0) {
      // One tile at a time through the reference, so earlier tiles are written when a later one faults.
      spec::LoadimcDesc one = d;
      one.d0_size = one.d1_size = 1;
      const int64_t tile = int64_t{d.tile_base} + int64_t{t0} * d.d0_tstride + int64_t{t1} * d.d1_tstride;
      const int64_t row = int64_t{d.base_row} + int64_t{t0} * d.d0_astride + int64_t{t1} * d.d1_astride;
      one.tile_base = static_cast<uint32_t>(tile < 0 ? 0xFFFFFFFF : tile);
      one.base_row = static_cast<uint32_t>(row < 0 ? 0xFFFFFFFF : row);
      if (std::any_of(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(npending),
                      [&](const Written& w) { return static_cast<int64_t>(w.tile) == tile; }))
        flush();
      try {
        ref::run_loadimc(one, env_.l1, *env_.imc);
      } catch (const ref::RefError& e) {
        flush();
        if (env_.banks) env_.banks->chain_end();
        err_addr = static_cast<uint32_t>(e.code() == spec::ErrorCode::IMC_RANGE ? tile : row);
        return e.code();
      }
      uint64_t g = next;
      if (env_.banks) {
        for (uint32_t r = 0; r < spec::param::imc_tile_rows; ++r) {
          g = env_.banks->chain_access(static_cast<uint64_t>(row + int64_t{r} * d.row_stride), next);
          next = g + kRowCycles;
        }
      } else {
        g = next + (spec::param::imc_tile_rows - 1) * kRowCycles;
        next = g + kRowCycles;
      }
      const uint64_t written = g + kRowCycles;
      t = written + 1;
      pending[npending++] = {written, static_cast<std::size_t>(tile)};
      if (npending == pending.size()) flush();
      bytes += kTileBytes;
    }
  flush();
  if (env_.banks) {
    // Done the cycle after the last row's write, as it stands once SystemC time reaches it (a
    // unit running meanwhile may move the chain's end later).
    for (;;) {
      sync_to(t);
      const uint64_t end = env_.banks->chain_last() + kRowCycles + 1;
      if (end <= t) break;
      t = end;
    }
    env_.banks->chain_end();
    t += env_.banks->take_debt(L1Banks::kLoadimc);
  }
  return spec::ErrorCode::NONE;
}

}  // namespace axcore::tlm
