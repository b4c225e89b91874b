#include "dma_engine.hpp"

#include <algorithm>
#include <string>

#include "axcore/ref/error.hpp"

namespace axcore::tlm {

namespace {
using spec::ErrorCode;
constexpr unsigned kCh = spec::param::dma_channels;
constexpr uint64_t kBdStart = 2, kBdChain = 1;
// A read's data comes back one cycle after its grant (L2 bank, L1 word port) or
// ddr_latency_cycles + 1 after it (AXI bridge: AR the next cycle, R L cycles later); a write is
// answered one cycle after its grant, or 3 (AW+W the next cycle, B 2 later) for DDR.
constexpr uint64_t kReadResp = 1, kDdrReadResp = spec::param::ddr_latency_cycles + 1;
constexpr uint64_t kWriteResp = 1, kDdrWriteResp = 3;
// From the last word entering the pair FIFO (MM2S) / the last write answer (S2MM) to TASK_DONE:
// the channel's reorder buffer and response registers. With BD start 2 this gives the RTL's
// n + 7 cycles for an n-word on-chip copy (docs/timing.md).
constexpr uint64_t kDoneLatency = 3;
// Quantum of a running channel: it syncs with SystemC time (and sees pause/reset) this often.
constexpr uint64_t kQuantum = 64;

struct DmaFault {
  ErrorCode code;
  uint32_t bd;
  uint64_t addr;
};

uint64_t mem_bytes(spec::MemSel m) {
  switch (m) {
    case spec::MemSel::DDR: return uint64_t{1} << spec::param::ddr_addr_bits;
    case spec::MemSel::L2: return spec::param::l2_bytes;
    default: return spec::param::l1_bytes;
  }
}
}  // namespace

DmaEngine::DmaEngine(sc_core::sc_module_name n, ref::DmaEngine eng, DmaContext ctx)
    : sc_module(n), socket("socket"), eng_(eng), ctx_(std::move(ctx)) {
  for (unsigned i = 0; i < kCh; ++i) pairs_.push_back(std::make_unique<TimedFifo<uint32_t>>(spec::param::dma_stream_depth));
  for (unsigned i = 0; i < 2 * kCh; ++i) {
    Channel& ch = ch_[i];
    ch.mm2s = i >= kCh;
    ch.index = i % kCh;
    sc_core::sc_spawn_options opt;
    sc_core::sc_spawn([this, &ch] { channel_thread(ch); }, nullptr, &opt);
  }
  auto push = [this](bool mm2s) {
    return [this, mm2s](uint32_t i, uint32_t, uint32_t v) {
      Channel& ch = ch_[(mm2s ? kCh : 0) + i];
      const auto p = spec::QueuePush::decode_word(v);
      if (ch.queue.size() >= spec::param::queue_depth) {
        ctx_.errors->report({ErrorCode::QUEUE_OVERFLOW, mm2s ? 1u : 0u, i, p.start, 0});
        return;
      }
      ch.queue.push_back({p, now_cycles()});  // the cycle the write takes effect
      ch.wake.notify(sc_core::SC_ZERO_TIME);
    };
  };
  RegFile& r = *ctx_.regs;
  r.on_write("DMA_S2MM_QUEUE", push(false));
  r.on_write("DMA_MM2S_QUEUE", push(true));
  auto ctrl = [this](bool mm2s) {
    return [this, mm2s](uint32_t i, uint32_t, uint32_t v) {
      Channel& ch = ch_[(mm2s ? kCh : 0) + i];
      if ((v & 4u) && !ch.paused) ch.pause_at = now_cycles();
      ch.paused = (v & 4u) != 0;
      if (!ch.paused) ch.unpause.notify(sc_core::SC_ZERO_TIME);
      if (v & 2u) {  // reset: drop the queue; the running task ends without a token
        reset_channel(ch);
        ctx_.regs->at(mm2s ? "DMA_MM2S_CTRL" : "DMA_S2MM_CTRL", i) &= ~2u;
      }
    };
  };
  r.on_write("DMA_S2MM_CTRL", ctrl(false));
  r.on_write("DMA_MM2S_CTRL", ctrl(true));
  r.on_read("DMA_S2MM_STATUS", [this](uint32_t i, uint32_t) { return status_word(ch_[i]); });
  r.on_read("DMA_MM2S_STATUS", [this](uint32_t i, uint32_t) { return status_word(ch_[kCh + i]); });
  r.on_read("DMA_S2MM_BYTES", [this](uint32_t i, uint32_t) { return ch_[i].bytes; });
  r.on_read("DMA_MM2S_BYTES", [this](uint32_t i, uint32_t) { return ch_[kCh + i].bytes; });
}

uint32_t DmaEngine::status_word(const Channel& ch) const {
  return static_cast<uint32_t>(ch.queue.size()) | (ch.running ? 1u : 0u) << 5 | (ch.last_error ? 1u : 0u) << 6 |
         (ch.cur_bd & 0xFF) << 8 | (ch.done & 0xFFFF) << 16;
}

bool DmaEngine::busy() const {
  return std::any_of(ch_.begin(), ch_.end(), [](const Channel& c) { return !c.queue.empty(); });
}

void DmaEngine::reset_channel(Channel& ch) {
  while (ch.queue.size() > (ch.running ? 1u : 0u)) ch.queue.pop_back();
  if (ch.running) ++ch.epoch;
}

void DmaEngine::reset() {
  for (auto& c : ch_) {
    reset_channel(c);
    c.done = c.bytes = c.cur_bd = 0;
    c.last_error = c.paused = false;
    c.unpause.notify(sc_core::SC_ZERO_TIME);
  }
  // Wake the running sides of every pair (they see their epoch changed and leave); an idle
  // pair is flushed at once.
  for (unsigned i = 0; i < kCh; ++i) {
    if (ch_[i].running || ch_[kCh + i].running) pairs_[i]->fail(ErrorCode::NONE);
    else pairs_[i]->clear();
  }
  for (uint32_t b = 0; b < eng_.bds; ++b) ctx_.regs->words("DMA_BD", b)[3] &= ~(0xFFFu << 20);  // iteration state
}

void DmaEngine::keep(Channel& ch, uint64_t& t, uint32_t epoch) {
  // A channel running behind SystemC time keeps moving words up to the pause's cycle.
  const bool hold = ch.paused && t >= ch.pause_at;
  if (t < ch.sync_at && !hold && ch.epoch == epoch) return;
  sync_to(t);
  while (ch.paused && t >= ch.pause_at && ch.epoch == epoch) {
    sc_core::wait(ch.unpause);
    t = std::max(t, now_cycles() + 1);
  }
  if (ch.epoch != epoch) throw Reset{};
  ch.sync_at = t + kQuantum;
}

MemWindow DmaEngine::window(const spec::DmaBd& bd) {
  ::tlm::tlm_generic_payload p;
  ::tlm::tlm_dmi dmi;
  p.set_address(fabric_addr(static_cast<unsigned>(bd.mem), bd.core, 0));
  p.set_command(::tlm::TLM_READ_COMMAND);
  if (!socket->get_direct_mem_ptr(p, dmi)) throw DmaFault{ErrorCode::ADDR_RANGE, 0, 0};
  return {dmi.get_dmi_ptr(), dmi.get_end_address() - dmi.get_start_address() + 1};
}

void DmaEngine::check_range(const spec::DmaBd& bd, const std::vector<ref::DmaWord>& walk, uint32_t bd_id) {
  // The RTL checks the whole walk when it loads the BD, before moving a word.
  if (bd.mem == spec::MemSel::L1 && bd.core >= ctx_.cores) throw DmaFault{ErrorCode::ADDR_RANGE, bd_id, bd.addr_lo};
  // ERROR_ADDR (docs/rtl.md): the last byte past the end, or the first byte below 0.
  const uint64_t limit = mem_bytes(bd.mem);
  bool bad = false;
  uint64_t last = 0;
  for (const auto& w : walk) {
    if (w.pad || w.byte_addr + 3 < limit) continue;
    if (w.byte_addr >= (uint64_t{1} << 63)) throw DmaFault{ErrorCode::ADDR_RANGE, bd_id, w.byte_addr};
    bad = true;
    last = std::max(last, w.byte_addr + 3);
  }
  if (bad) throw DmaFault{ErrorCode::ADDR_RANGE, bd_id, last};
}

void DmaEngine::move_bd(Channel& ch, const spec::DmaBd& bd, uint32_t bd_id, uint64_t& t, uint32_t& task_bytes,
                        uint32_t epoch) {
  const auto dir = ch.mm2s ? ref::DmaDir::MM2S : ref::DmaDir::S2MM;
  std::vector<ref::DmaWord> walk;
  try {
    walk = ref::dma_walk(bd, eng_, dir, 0);  // iter_current is written back per run (RTL)
  } catch (const ref::RefError& e) {
    throw DmaFault{e.code(), bd_id, bd.addr_lo};
  }
  check_range(bd, walk, bd_id);
  const MemWindow mem = window(bd);
  if (mem.size < mem_bytes(bd.mem) && bd.mem != spec::MemSel::DDR) throw DmaFault{ErrorCode::ADDR_RANGE, bd_id, bd.addr_lo};
  for (const auto& w : walk)
    if (!w.pad && w.byte_addr + 4 > mem.size) throw DmaFault{ErrorCode::ADDR_RANGE, bd_id, w.byte_addr + 3};
  const bool ddr = bd.mem == spec::MemSel::DDR;
  FabricTiming& fab = *ctx_.fabric;
  TimedFifo<uint32_t>& f = pair(ch.index);
  if (ch.mm2s) {
    for (const auto& w : walk) {
      keep(ch, t, epoch);
      if (w.pad) {  // padding: no memory access, one cycle
        ch.last_effect = f.push(bd.pad_value, t);
        t = ch.last_effect + 1;
        continue;
      }
      uint32_t v;
      std::memcpy(&v, mem.ptr + w.byte_addr, 4);
      const uint64_t g = fab.grant(bd.mem, bd.core, w.byte_addr, f.space_at(t), false);
      ch.last_effect = f.push(v, g + (ddr ? kDdrReadResp : kReadResp));
      t = g + (ddr ? FabricTiming::kDdrRead : 1);
      ch.bytes += 4;
    }
    return;
  }
  const uint32_t run = bd.d0_size <= 1 ? 1 : bd.d0_size;
  uint64_t hash = 0xcbf29ce484222325ULL, run_addr = 0;
  for (std::size_t i = 0; i < walk.size(); ++i) {
    keep(ch, t, epoch);
    // The stream's head is taken when the write is granted (the RTL's s_ready = issue), so a
    // write that loses its target keeps the MM2S's slot.
    const uint64_t g = fab.grant(bd.mem, bd.core, walk[i].byte_addr, f.ready_at(t), true);
    const uint32_t v = f.pop(g).value;
    std::memcpy(mem.ptr + walk[i].byte_addr, &v, 4);
    const uint64_t answered = g + (ddr ? kDdrWriteResp : kWriteResp);
    t = g + 1;
    ch.bytes += 4;
    task_bytes += 4;
    if (i % run == 0) {
      run_addr = walk[i].byte_addr;
      hash = 0xcbf29ce484222325ULL;
    }
    uint8_t b[4];
    std::memcpy(b, &v, 4);
    hash = trace::fnv1a64(b, hash);
    if (i % run == run - 1)
      ctx_.tracer->emit(answered, ctx_.row, trace::dma_unit(false, ch.index), trace::Kind::MEM_WRITE, run_addr, run * 4, hash, 0);
    ch.last_effect = answered;
  }
}

ErrorCode DmaEngine::run_task(Channel& ch, const Task& task, uint64_t& t, uint32_t& task_bytes, ErrorReport& err) {
  const char* bd_reg = "DMA_BD";
  const uint32_t epoch = ch.task_epoch = ch.epoch;
  ch.sync_at = t + kQuantum;
  ch.last_effect = t;
  try {
    for (uint32_t r = 0; r <= task.push.repeat; ++r) {
      uint32_t id = task.push.start, chain = 1;
      t += r == 0 ? kBdStart : kBdChain;  // a repeat costs what a chain link does
      for (;;) {
        if (id >= eng_.bds) throw DmaFault{ErrorCode::BD_INVALID, id, 0};
        ch.cur_bd = id;
        auto words = ctx_.regs->words(bd_reg, id);
        spec::DmaBd bd = spec::DmaBd::decode(words);
        move_bd(ch, bd, id, t, task_bytes, epoch);
        if (bd.iter_size > 1) {  // write back the next iteration like the RTL
          bd.iter_current = (bd.iter_current % bd.iter_size + 1) % bd.iter_size;
          words[3] = (words[3] & ~(0xFFFu << 20)) | bd.iter_current << 20;
        }
        if (!bd.use_next) break;
        if (chain >= eng_.bds) throw DmaFault{ErrorCode::BD_CHAIN_LOOP, id, 0};
        id = bd.next_bd;
        ++chain;
        t += kBdChain;
      }
    }
  } catch (const DmaFault& f) {
    t += 1;  // the BD check (S_LOAD) ends the task the cycle after
    err = {f.code, ch.mm2s ? 1u : 0u, ch.index, f.bd, static_cast<uint32_t>(f.addr)};
    pair(ch.index).fail(f.code);  // the partner ends its running task with the same code
    return f.code;
  } catch (const StreamFailed& s) {
    if (ch.epoch != epoch) return reset_end(ch, t);
    pair(ch.index).clear();
    return s.code;
  } catch (const Reset&) {
    return reset_end(ch, t);
  }
  t = std::max(t, ch.last_effect + kDoneLatency);
  return ErrorCode::NONE;
}

ErrorCode DmaEngine::reset_end(Channel& ch, uint64_t& t) {
  t = std::max(t, now_cycles());
  ch.task_epoch = ch.epoch;  // left
  const Channel& partner = ch_[(ch.mm2s ? 0 : kCh) + ch.index];
  // The side that leaves last flushes the pair FIFO (the RTL flushes it on either reset).
  if (!(partner.running && partner.epoch != partner.task_epoch)) pair(ch.index).clear();
  return ErrorCode::NONE;
}

void DmaEngine::channel_thread(Channel& ch) {
  for (;;) {
    while (ch.queue.empty()) sc_core::wait(ch.wake);
    const Task task = ch.queue.front();
    ch.running = true;
    // TASK_START the cycle after the push took effect, and after the previous task's end.
    uint64_t t = std::max({now_cycles(), task.accepted + 1, ch.next_free});
    const auto unit = trace::dma_unit(ch.mm2s, ch.index);
    const uint32_t push_word = task.push.encode_word();
    ctx_.tracer->emit(t, ctx_.row, unit, trace::Kind::TASK_START, task.push.start, 0, 0, push_word);
    uint32_t task_bytes = 0;
    ErrorReport err;
    const uint32_t epoch = ch.epoch;
    const ErrorCode code = run_task(ch, task, t, task_bytes, err);
    sync_to(t);
    if (ch.epoch != epoch) {  // reset while running: the task ends without a token or record
      if (!ch.queue.empty()) ch.queue.pop_front();
      ch.running = false;
      ch.next_free = t + 1;
      continue;
    }
    if (err.code != ErrorCode::NONE) ctx_.errors->report(err);
    spec::Token tok;
    tok.valid = 1;
    tok.error = code != ErrorCode::NONE;
    tok.code = code;
    tok.tag = task.push.tag;
    tok.row = ctx_.row;
    tok.dir = ch.mm2s ? 1 : 0;
    tok.channel = ch.index;
    const uint32_t tw = task.push.token ? tok.encode_word() : 0;
    ctx_.tracer->emit(t, ctx_.row, unit, trace::Kind::TASK_DONE, task.push.start, task_bytes, 0, tw);
    ch.queue.pop_front();
    ch.running = false;
    ch.last_error = code != ErrorCode::NONE;
    ++ch.done;
    ch.next_free = t + (task.push.token ? 2 : 1);  // the next task starts after the token
    if (task.push.token) {
      sync_to(t + 1);
      ctx_.token(tw, t + 1);
    }
  }
}

}  // namespace axcore::tlm
