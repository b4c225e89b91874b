#include "axcore/runtime/regfile_device.hpp"

#include <algorithm>

#include "axcore/ref/dma.hpp"
#include "axcore/ref/error.hpp"

namespace axcore::runtime {
namespace {

namespace P = spec::param;

// The address taken apart (spec::decode_addr); find() has refused addresses past the window.
spec::TileAddr at(uint64_t a) { return spec::decode_addr32(static_cast<uint32_t>(a)); }

// The `reset` field of DMA_*_CTRL and Q_CTRL (one bit, the same in both).
uint32_t ctrl_reset_bit() {
  spec::core::QCtrl q;
  q.reset = 1;
  spec::core::DmaS2mmCtrl d;
  d.reset = 1;
  if (q.encode_word() != d.encode_word()) throw std::logic_error("regfile: Q_CTRL and DMA_*_CTRL reset differ");
  return q.encode_word();
}

// A channel or queue status word (DMA_*_STATUS, Q_STATUS: the same fields, cur_bd DMA only).
template <class Status>
uint32_t status_word(std::size_t pending, bool busy, bool error, uint32_t done) {
  Status s;
  s.pending = static_cast<uint32_t>(std::min<std::size_t>(pending, spec::detail::mask(Status::kFields[0].width)));
  s.busy = busy;
  s.error = error;
  s.done = done & 0xFFFF;  // wrapping (16 bits)
  return s.encode_word();
}

// ERROR_INFO of a failed channel task.
uint32_t error_info(spec::ErrorCode code, unsigned dir, unsigned ch, uint32_t detail) {
  spec::core::ErrorInfo e;
  e.code = code;
  e.dir = dir;
  e.channel = ch;
  e.detail = detail & 0xFFFF;  // the low bits of a BD id or word address
  return e.encode_word();
}

ref::DmaEngine engine_of(unsigned row) {
  if (row == P::shim_row) return ref::DmaEngine::sysdma();
  if (row == P::mem_row) return ref::DmaEngine::memdma();
  return ref::DmaEngine::coredma();
}

}  // namespace

RegFileDevice::RegFileDevice(RegFileOptions opt)
    : opt_(opt), ddr_(opt.ddr_bytes), l2_(P::l2_bytes), l1_(opt.cores, std::vector<uint8_t>(P::l1_bytes)) {
  if (opt.cores < 1 || opt.cores > P::max_cores)
    throw device::DeviceError("regfile: " + std::to_string(opt.cores) + " cores; a build has 1 to " +
                              std::to_string(P::max_cores));
}

const spec::RegisterInfo* RegFileDevice::find(uint64_t addr) const {
  const auto t = spec::decode_addr(addr);
  if ((addr & 3) || !t || t->col >= P::columns || t->row >= P::first_core_row + opt_.cores) return nullptr;
  return spec::find_register(t->kind, t->offset).reg;
}

uint32_t RegFileDevice::stored(uint64_t addr) const {
  if (auto it = regs_.find(addr); it != regs_.end()) return it->second;
  const spec::RegisterInfo* r = find(addr);
  return r && !r->memory ? r->reset : 0;
}

uint32_t RegFileDevice::computed_read(uint64_t addr, const spec::RegisterInfo& r) {
  const spec::TileAddr where = at(addr);
  const unsigned col = where.col, row = where.row;
  const std::string_view n = r.name;
  if (row == P::shim_row && n == "TOKEN_POP") {
    if (tokens_.empty()) return 0;
    const uint32_t t = tokens_.front();
    tokens_.pop_front();
    return t;
  }
  if (row == P::shim_row && n == "TOKEN_DROPPED") return tokens_dropped_;
  if (row == P::shim_row && n == "CYCLE_LO") return static_cast<uint32_t>(cycle_);
  if (row == P::shim_row && n == "CYCLE_HI") return static_cast<uint32_t>(cycle_ >> 32);
  if (row == P::shim_row && n == "STATUS") {
    bool err = false;
    for (unsigned rr = 0; rr < P::first_core_row + opt_.cores; ++rr)
      err = err || stored(spec::tile_addr(col, rr, spec::shim::ERROR_STATUS.offset)) != 0;
    spec::shim::Status st;
    st.busy = !idle();
    st.error = err;
    st.tokens = static_cast<uint32_t>(std::min<size_t>(tokens_.size(), 511));
    return st.encode_word();
  }
  auto status_of = [&](ChanKey k, bool with_bd) {
    const auto it = chans_.find(k);
    if (it == chans_.end()) return 0u;
    const Chan& c = it->second;
    if (!with_bd) return status_word<spec::core::QStatus>(c.queue.size(), c.busy, c.error, c.done);
    spec::core::DmaS2mmStatus s = spec::core::DmaS2mmStatus::decode_word(
        status_word<spec::core::DmaS2mmStatus>(c.queue.size(), c.busy, c.error, c.done));
    s.cur_bd = c.cur_bd & 0xFF;  // the BD id's low byte
    return s.encode_word();
  };
  const uint32_t idx = spec::find_register(where.kind, where.offset).index;
  if (n == "DMA_S2MM_STATUS") return status_of({col, row, 0, idx}, true);
  if (n == "DMA_MM2S_STATUS") return status_of({col, row, 1, idx}, true);
  if (n == "DMA_S2MM_BYTES" || n == "DMA_MM2S_BYTES") {
    const auto it = chans_.find({col, row, n == "DMA_MM2S_BYTES" ? 1u : 0u, idx});
    return it == chans_.end() ? 0u : static_cast<uint32_t>(it->second.bytes);
  }
  if (n == "Q_STATUS") return status_of({col, row, 0, P::core_queue_channel_base + idx}, false);
  if (r.access == spec::Access::WO) return 0;
  return stored(addr);
}

uint32_t RegFileDevice::read32(uint64_t addr) {
  const spec::RegisterInfo* r = find(addr);
  if (!r) throw device::DeviceError("regfile: read of unmapped register " + text::hex(addr));
  cycle_ += 4;
  step();
  const uint32_t v = computed_read(addr, *r);
  record({cycle_, false, addr, v});
  return v;
}

void RegFileDevice::write32(uint64_t addr, uint32_t value) {
  const spec::RegisterInfo* r = find(addr);
  if (!r)
    throw device::DeviceError("regfile: write of unmapped register " + text::hex(addr) + " <- " + text::hex(value));
  cycle_ += 3;
  record({cycle_, true, addr, value});
  if (sink_) {
    trace::Record rec;
    rec.seq = seq_++;
    rec.cycle = cycle_;
    rec.col = static_cast<uint8_t>(at(addr).col);
    rec.row = static_cast<uint8_t>(at(addr).row);
    rec.unit = trace::Unit::HOST;
    rec.kind = trace::Kind::REG_WRITE;
    rec.addr = addr;
    rec.data_hash = value;
    sink_(rec);
  }
  const spec::TileAddr t = at(addr);
  const unsigned col = t.col, row = t.row;
  const uint32_t idx = spec::find_register(t.kind, t.offset).index;
  const std::string_view n = r->name;
  switch (r->access) {
    case spec::Access::RO:
    case spec::Access::RC: break;
    case spec::Access::W1C: regs_[addr] = stored(addr) & ~value; break;
    case spec::Access::RW: regs_[addr] = value & (r->memory ? 0xFFFFFFFFu : r->field_mask); break;
    case spec::Access::WO:
      if (n == "DMA_S2MM_QUEUE")
        push({col, row, 0, idx}, value);
      else if (n == "DMA_MM2S_QUEUE")
        push({col, row, 1, idx}, value);
      else if (n == "Q_PUSH")
        push({col, row, 0, P::core_queue_channel_base + idx}, value);
      break;
  }
  // Self-clearing resets: drop the queued tasks of the channel / queue / device.
  static const uint32_t kCtrlReset = ctrl_reset_bit();
  if ((n == "DMA_S2MM_CTRL" || n == "DMA_MM2S_CTRL" || n == "Q_CTRL") && (value & kCtrlReset)) {
    const unsigned dir = n == "DMA_MM2S_CTRL" ? 1 : 0;
    const unsigned ch = n == "Q_CTRL" ? P::core_queue_channel_base + idx : idx;
    chans_[{col, row, dir, ch}].queue.clear();
    regs_[addr] = value & ~kCtrlReset;
  }
  if (row == P::shim_row && n == "CTRL" && spec::shim::Ctrl::decode_word(value).soft_reset) {
    chans_.clear();
    tokens_.clear();
    pending_tokens_.clear();
    regs_.clear();
  }
  step();
}

void RegFileDevice::push(ChanKey k, uint32_t word) {
  Chan& c = chans_[k];
  if (c.queue.size() >= P::queue_depth) {
    const auto [col, row, dir, ch] = k;
    const uint64_t es = spec::tile_addr(col, row, spec::shim::ERROR_STATUS.offset);
    if (stored(es) == 0)
      regs_[spec::tile_addr(col, row, spec::shim::ERROR_INFO.offset)] =
          error_info(spec::ErrorCode::QUEUE_OVERFLOW, dir, ch, 0);
    spec::core::ErrorStatus st = spec::core::ErrorStatus::decode_word(stored(es));
    st.any = st.overflow = 1;
    regs_[es] = st.encode_word();
    return;
  }
  c.queue.push_back({word, 0, false});
}

void RegFileDevice::finish(ChanKey k, uint32_t push, spec::ErrorCode code, uint32_t detail, uint64_t at) {
  const auto [col, row, dir, ch] = k;
  Chan& c = chans_[k];
  ++c.done;
  c.error = code != spec::ErrorCode::NONE;
  if (c.error) {
    const uint64_t es = spec::tile_addr(col, row, spec::shim::ERROR_STATUS.offset);
    if (stored(es) == 0)
      regs_[spec::tile_addr(col, row, spec::shim::ERROR_INFO.offset)] = error_info(code, dir, ch, detail);
    spec::core::ErrorStatus st = spec::core::ErrorStatus::decode_word(stored(es));
    st.any = 1;
    (ch < P::core_queue_channel_base ? st.dma : st.desc) = 1;
    if (code == spec::ErrorCode::ADDR_RANGE) st.range = 1;
    regs_[es] = st.encode_word();
  }
  const auto p = spec::QueuePush::decode_word(push);
  if (!p.token) return;
  spec::Token t;
  t.channel = ch;
  t.dir = dir;
  t.row = row;
  t.col = col;
  t.tag = p.tag;
  t.code = code;
  t.error = c.error ? 1 : 0;
  t.valid = 1;
  pending_tokens_.emplace(at + 1, t.encode_word());
}

bool RegFileDevice::run_dma(ChanKey k, const Task& t) {
  const auto [col, row, dir, ch] = k;
  Chan& c = chans_[k];
  const ref::DmaEngine eng = engine_of(row);
  const auto push = spec::QueuePush::decode_word(t.push);
  std::vector<spec::DmaBd> bds(eng.bds);
  const spec::Reg& bdreg = row == P::shim_row  ? spec::shim::DMA_BD
                           : row == P::mem_row ? spec::mem::DMA_BD
                                               : spec::core::DMA_BD;
  for (uint32_t i = 0; i < eng.bds; ++i) {
    std::array<uint32_t, 16> w{};
    for (uint32_t j = 0; j < 16; ++j) w[j] = stored(spec::tile_addr(col, row, bdreg.at(i) + 4 * j));
    bds[i] = spec::DmaBd::decode(w);
  }
  const ref::DmaDir rdir = dir ? ref::DmaDir::MM2S : ref::DmaDir::S2MM;
  auto mem_of = [&](const spec::DmaBd& bd) -> ref::MemView {
    if (bd.mem == spec::MemSel::DDR) return {ddr_, 0};
    if (bd.mem == spec::MemSel::L2) return {l2_, 0};
    if (bd.core >= opt_.cores)
      ref::fail(spec::ErrorCode::ADDR_RANGE, "L1 of core " + std::to_string(bd.core) + " is not on the device");
    return {l1_[bd.core], 0};
  };
  uint32_t bd_id = push.start;
  try {
    // S2MM: the words the whole task needs must be in the FIFO before it runs.
    struct Walk {
      uint32_t id;
      spec::DmaBd bd;
      std::vector<ref::DmaWord> words;
    };
    std::vector<Walk> walks;
    uint64_t need = 0;
    for (uint32_t run = 0; run <= push.repeat; ++run)
      for (uint32_t id : ref::dma_chain(bds, push.start, eng)) {
        bd_id = id;
        walks.push_back({id, bds[id], ref::dma_walk(bds[id], eng, rdir, run)});
        need += walks.back().words.size();
      }
    Chan& sink = chans_[{col, row, 0, ch}];
    if (!dir && sink.fifo.size() < need) return false;
    for (const auto& [id, bd, walk] : walks) {
      bd_id = id;
      c.cur_bd = id;
      const ref::MemView mem = mem_of(bd);
      if (dir) {
        const auto words = ref::mm2s_read(bd, walk, {mem.bytes, mem.base});
        sink.fifo.insert(sink.fifo.end(), words.begin(), words.end());
        // DMA_MM2S_BYTES counts bytes read from memory: pad words are emitted, not read.
        c.bytes += 4 * static_cast<uint64_t>(
                           std::count_if(walk.begin(), walk.end(), [](const ref::DmaWord& w) { return !w.pad; }));
      } else {
        std::vector<uint32_t> words(sink.fifo.begin(), sink.fifo.begin() + static_cast<std::ptrdiff_t>(walk.size()));
        sink.fifo.erase(sink.fifo.begin(), sink.fifo.begin() + static_cast<std::ptrdiff_t>(walk.size()));
        ref::s2mm_write(walk, words, mem);
        c.bytes += 4 * words.size();
      }
      dma_words_ += walk.size();
    }
    finish(k, t.push, spec::ErrorCode::NONE, 0, cycle_ + 2 + need);
  } catch (const ref::RefError& e) { finish(k, t.push, e.code(), bd_id, cycle_ + 2); }
  return true;
}

void RegFileDevice::deliver_tokens() {
  for (auto it = pending_tokens_.begin(); it != pending_tokens_.end() && it->first <= cycle_;) {
    if (tokens_.size() < P::token_fifo_depth)
      tokens_.push_back(it->second);
    else
      ++tokens_dropped_;
    it = pending_tokens_.erase(it);
  }
}

void RegFileDevice::step() {
  deliver_tokens();
  // MM2S first, so an S2MM task finds the words its partner produced in the same step.
  for (unsigned pass = 0; pass < 2; ++pass)
    for (auto& [k, c] : chans_) {
      const auto [col, row, dir, ch] = k;
      if (hung_.count(k) || c.queue.empty()) {
        c.busy = !c.queue.empty();
        continue;
      }
      const bool core_queue = ch >= P::core_queue_channel_base;
      if (!core_queue && (pass == 0) != (dir == 1)) continue;
      c.busy = true;
      Task& t = c.queue.front();
      if (core_queue) {
        if (!t.started) {
          t.started = true;
          t.ready_at = cycle_ + opt_.core_task_cycles;
        }
        if (t.ready_at > cycle_) continue;
        finish(k, t.push, spec::ErrorCode::NONE, 0, cycle_);
        c.queue.pop_front();
      } else if (run_dma(k, t)) {
        chans_[k].queue.pop_front();
      }
      chans_[k].busy = !chans_[k].queue.empty();
    }
  deliver_tokens();
}

void RegFileDevice::advance(uint64_t cycles) {
  // Step at every event in between so tokens appear at their cycle.
  const uint64_t end = cycle_ + cycles;
  while (cycle_ < end) {
    uint64_t next = end;
    if (!pending_tokens_.empty()) next = std::min(next, std::max(pending_tokens_.begin()->first, cycle_ + 1));
    for (const auto& [k, c] : chans_)
      if (!c.queue.empty() && c.queue.front().started)
        next = std::min(next, std::max(c.queue.front().ready_at, cycle_ + 1));
    cycle_ = next;
    step();
  }
}

bool RegFileDevice::idle() const {
  if (!pending_tokens_.empty()) return false;
  return std::all_of(chans_.begin(), chans_.end(), [](const auto& kv) { return kv.second.queue.empty(); });
}

void RegFileDevice::run_until_idle(uint64_t timeout_cycles) {
  const uint64_t start = cycle_;
  while (!idle()) {
    if (cycle_ - start >= timeout_cycles) {
      std::string busy;
      for (const auto& [k, c] : chans_)
        if (!c.queue.empty()) {
          const auto [col, row, dir, ch] = k;
          busy += " (" + std::to_string(col) + "," + std::to_string(row) + ") " +
                  (ch >= P::core_queue_channel_base ? "queue " + std::to_string(ch - P::core_queue_channel_base)
                                                    : std::string(dir ? "MM2S" : "S2MM") + " ch" + std::to_string(ch)) +
                  ": " + std::to_string(c.queue.size()) + " tasks;";
        }
      throw device::TimeoutError("regfile: not idle after " + std::to_string(timeout_cycles) + " cycles:" + busy);
    }
    advance(poll_interval_cycles);
  }
}

void RegFileDevice::hang(unsigned col, unsigned row, unsigned dir, unsigned channel) {
  hung_.insert({col, row, dir, channel});
}

void RegFileDevice::ddr_write(uint64_t addr, std::span<const uint8_t> bytes) {
  if (addr > ddr_.size() || bytes.size() > ddr_.size() - addr)
    throw device::DeviceError("regfile: DDR write [" + text::hex(addr) + ", +" + std::to_string(bytes.size()) +
                              ") outside the " + std::to_string(ddr_.size()) + "-byte DDR");
  std::copy(bytes.begin(), bytes.end(), ddr_.begin() + static_cast<std::ptrdiff_t>(addr));
}

void RegFileDevice::ddr_read(uint64_t addr, std::span<uint8_t> bytes) {
  if (addr > ddr_.size() || bytes.size() > ddr_.size() - addr)
    throw device::DeviceError("regfile: DDR read [" + text::hex(addr) + ", +" + std::to_string(bytes.size()) +
                              ") outside the " + std::to_string(ddr_.size()) + "-byte DDR");
  std::copy_n(ddr_.begin() + static_cast<std::ptrdiff_t>(addr), bytes.size(), bytes.begin());
}

}  // namespace axcore::runtime
