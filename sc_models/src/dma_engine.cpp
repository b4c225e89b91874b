#include "dma_engine.hpp"

#include <algorithm>
#include <string>

#include "axcore/ref/error.hpp"

namespace axcore::tlm {

namespace {
using spec::ErrorCode;
constexpr unsigned kCh = spec::param::dma_channels;
// TASK_START -> S_LOAD -> first request (BD start 2); a chain link or a repeat costs one
// S_LOAD cycle. The beats themselves, the reorder buffer, the pair FIFO and the drain to
// TASK_DONE are the WordFabric's (RTL cycle order; an on-chip copy of n beats takes n + 7).
constexpr uint64_t kBdStart = 2, kBdChain = 1;

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
  for (unsigned i = 0; i < 2 * kCh; ++i) {
    Channel& ch = ch_[i];
    ch.mm2s = i >= kCh;
    ch.index = i % kCh;
    ctx_.fabric->attach(port(ch), &ch.bytes);
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
      auto c = spec::core::DmaS2mmCtrl::decode_word(v);  // DMA_MM2S_CTRL: the same fields
      ch.paused = c.pause != 0;
      ctx_.fabric->pause(port(ch), ch.paused, now_cycles());
      if (c.reset) {  // reset: drop the queue; the running task ends without a token
        reset_channel(ch);
        uint32_t& reg = ctx_.regs->at(mm2s ? "DMA_MM2S_CTRL" : "DMA_S2MM_CTRL", i);
        auto stored = spec::core::DmaS2mmCtrl::decode_word(reg);
        stored.reset = 0;
        reg = stored.encode_word();
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
  spec::core::DmaS2mmStatus s;  // DMA_MM2S_STATUS: the same fields
  s.pending = static_cast<uint32_t>(ch.queue.size());
  s.busy = ch.running;
  s.error = ch.last_error;
  s.cur_bd = ch.cur_bd & 0xFF;  // the BD id's low byte
  s.done = ch.done & 0xFFFF;    // wrapping
  return s.encode_word();
}

bool DmaEngine::busy() const {
  return std::any_of(ch_.begin(), ch_.end(), [](const Channel& c) { return !c.queue.empty(); });
}

void DmaEngine::reset_channel(Channel& ch) {
  while (ch.queue.size() > (ch.running ? 1u : 0u)) ch.queue.pop_back();
  if (ch.running) ++ch.epoch;
  ctx_.fabric->abort(port(ch));  // the running walk or drain ends; the pair stream is flushed
}

void DmaEngine::reset() {
  for (auto& c : ch_) {
    reset_channel(c);
    c.done = c.bytes = c.cur_bd = 0;
    c.last_error = c.paused = false;
    ctx_.fabric->pause(port(c), false, now_cycles());
  }
  for (unsigned i = 0; i < kCh; ++i) ctx_.fabric->clear_pair(ctx_.row, i);
  for (uint32_t b = 0; b < eng_.bds; ++b) {  // iteration state
    auto words = ctx_.regs->words("DMA_BD", b);
    spec::DmaBd bd = spec::DmaBd::decode(words);
    bd.iter_current = 0;
    words[3] = bd.encode()[3];  // iter_current's word, every bit of it a field
  }
}

MemWindow DmaEngine::window(const spec::DmaBd& bd) {
  ::tlm::tlm_generic_payload p;
  ::tlm::tlm_dmi dmi;
  p.set_address(fabric_addr(static_cast<unsigned>(bd.mem), bd.core, 0));
  p.set_command(::tlm::TLM_READ_COMMAND);
  if (!socket->get_direct_mem_ptr(p, dmi)) throw DmaFault{ErrorCode::ADDR_RANGE, 0, 0};
  return {dmi.get_dmi_ptr(), dmi.get_end_address() - dmi.get_start_address() + 1};
}

void DmaEngine::check_range(const spec::DmaBd& bd, const ref::DmaRuns& walk, uint32_t bd_id) {
  // The RTL checks the whole walk when it loads the BD, before moving a word.
  if (bd.mem == spec::MemSel::L1 && bd.core >= ctx_.cores) throw DmaFault{ErrorCode::ADDR_RANGE, bd_id, bd.addr_lo};
  // ERROR_ADDR (docs/rtl.md): the last byte past the end, or the first byte below 0 (dma_runs
  // refused any data word below 0). A run whose highest word ends inside is checked at once.
  const uint64_t limit = mem_bytes(bd.mem);
  bool bad = false;
  uint64_t last = 0;
  for (std::size_t r = 0; r < walk.base.size(); ++r) {
    if (walk.base[r] == ref::DmaRuns::kPadRun) continue;
    if (static_cast<uint64_t>(std::max(walk.first(r), walk.last(r))) + 3 < limit) continue;
    for (uint32_t j0 = 0; j0 < walk.s0; ++j0) {
      const auto a = static_cast<uint64_t>(walk.first(r) + 4 * int64_t{j0} * walk.stride0);
      if (a + 3 < limit) continue;
      if (a >= (uint64_t{1} << 63)) throw DmaFault{ErrorCode::ADDR_RANGE, bd_id, a};
      bad = true;
      last = std::max(last, a + 3);
    }
  }
  if (bad) throw DmaFault{ErrorCode::ADDR_RANGE, bd_id, last};
}

void DmaEngine::move_bd(Channel& ch, const spec::DmaBd& bd, uint32_t bd_id, uint64_t& t, uint32_t& task_bytes,
                        uint32_t epoch) {
  const auto dir = ch.mm2s ? ref::DmaDir::MM2S : ref::DmaDir::S2MM;
  ref::DmaRuns walk;
  try {
    walk = ref::dma_runs(bd, eng_, dir, 0);  // iter_current is written back per run (RTL)
  } catch (const ref::RefError& e) { throw DmaFault{e.code(), bd_id, bd.addr_lo}; }
  check_range(bd, walk, bd_id);
  const MemWindow mem = window(bd);
  if (mem.size < mem_bytes(bd.mem) && bd.mem != spec::MemSel::DDR)
    throw DmaFault{ErrorCode::ADDR_RANGE, bd_id, bd.addr_lo};
  for (std::size_t r = 0; r < walk.base.size(); ++r) {  // the first data word past the window
    if (walk.base[r] == ref::DmaRuns::kPadRun) continue;
    if (static_cast<uint64_t>(std::max(walk.first(r), walk.last(r))) + 4 <= mem.size) continue;
    for (uint32_t j0 = 0; j0 < walk.s0; ++j0) {
      const auto a = static_cast<uint64_t>(walk.first(r) + 4 * int64_t{j0} * walk.stride0);
      if (a + 4 > mem.size) throw DmaFault{ErrorCode::ADDR_RANGE, bd_id, a + 3};
    }
  }
  WordFabric::Walk w;
  w.runs = std::move(walk);
  w.mem = mem;
  w.sel = bd.mem;
  w.core = bd.core;
  w.pad_value = bd.pad_value;
  w.run = bd.d0_size <= 1 ? 1 : bd.d0_size;
  w.task_bytes = &task_bytes;
  if (ch.epoch != epoch) throw Reset{};
  ctx_.fabric->walk(port(ch), std::move(w), t);
  if (ch.epoch != epoch) throw Reset{};
}

ErrorCode DmaEngine::run_task(Channel& ch, const Task& task, uint64_t& t, uint32_t& task_bytes, ErrorReport& err) {
  const char* bd_reg = "DMA_BD";
  const uint32_t epoch = ch.task_epoch = ch.epoch;
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
          words[3] = bd.encode()[3];  // iter_current's word, every bit of it a field
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
    ctx_.fabric->fail_pair(ctx_.row, ch.index, f.code, t);  // the partner ends its running task with the same code
    return f.code;
  } catch (const StreamFailed& s) {
    if (ch.epoch != epoch) return reset_end(ch, t);
    ctx_.fabric->clear_pair(ctx_.row, ch.index);
    return s.code;
  } catch (const Reset&) { return reset_end(ch, t); }
  try {
    t = ctx_.fabric->drain(port(ch), t);  // S_DRAIN until nothing is outstanding; TASK_DONE
  } catch (const StreamFailed& s) {
    ctx_.fabric->clear_pair(ctx_.row, ch.index);
    return s.code;
  }
  if (ch.epoch != epoch) return reset_end(ch, t);
  return ErrorCode::NONE;
}

ErrorCode DmaEngine::reset_end(Channel& ch, uint64_t& t) {
  t = std::max(t, now_cycles());
  ch.task_epoch = ch.epoch;  // left
  const Channel& partner = ch_[(ch.mm2s ? 0 : kCh) + ch.index];
  // The side that leaves last flushes the pair FIFO (the RTL flushes it on either reset).
  if (!(partner.running && partner.epoch != partner.task_epoch)) ctx_.fabric->clear_pair(ctx_.row, ch.index);
  return ErrorCode::NONE;
}

void DmaEngine::channel_thread(Channel& ch) {
  for (;;) {
    if (ch.queue.empty()) ctx_.fabric->release(port(ch));  // the fabric no longer waits for this channel
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
