#include "axcore/txn/trace.hpp"

#include <algorithm>
#include <unordered_map>

#include <axcore/spec.hpp>

#include "axcore/txn/text.hpp"

namespace axcore::txn {
namespace {

constexpr unsigned kColShift = 25, kRowShift = 20;
constexpr uint32_t kOffsetMask = (1u << kRowShift) - 1;

struct Location {
  uint32_t col, row, offset, tile;  // tile = the address of offset 0 in the tile
  TileKind kind;
};

std::string tile_text(const Location& at) { return "(" + std::to_string(at.col) + "," + std::to_string(at.row) + ")"; }

class Replay {
 public:
  Replay(const Header& header, const Layout& layout, Trace& out) : header_(header), layout_(layout), out_(out) {}

  // Host-written state before the stream (no event): command memory, parameter targets.
  void preset(const Preset& p) {
    uint32_t& reg = regs_[p.addr];
    reg = (reg & ~p.mask) | (p.value & p.mask);
  }

  void run(const Op& op) {
    pos_ = op.pos;
    std::visit([this](const auto& body) { on(body); }, op.body);
  }

 private:
  class State final : public TileState {
   public:
    State(const Replay& r, uint32_t tile) : r_(r), tile_(tile) {}
    std::optional<uint32_t> read(uint32_t offset) const override { return r_.read(tile_ | offset); }

   private:
    const Replay& r_;
    uint32_t tile_;
  };

  std::optional<uint32_t> read(uint64_t addr) const {
    const auto it = regs_.find(addr);
    if (it == regs_.end()) return std::nullopt;
    return it->second;
  }

  Location locate(uint32_t addr) const {
    const uint32_t col = (addr >> kColShift) & 0x7F, row = (addr >> kRowShift) & 0x1F;
    return {col, row, addr & kOffsetMask, addr & ~kOffsetMask, header_.tile_kind(row)};
  }

  Event& emit(EventKind kind, uint32_t col = 0, uint32_t row = 0) {
    Event& e = out_.events.emplace_back();
    e.kind = kind;
    e.col = col;
    e.row = row;
    out_.positions.push_back(pos_);
    return e;
  }

  [[noreturn]] void fail(const std::string& msg) const { throw TraceError(msg, pos_); }

  // How a register write reached the tile: only a write32 to a queue register is a push (the
  // seed's tracer); a maskwrite32 or a blockwrite word there updates the register state only.
  enum class Via : uint8_t { WRITE32, MASKWRITE, BLOCKWRITE };

  // Every register write lands here; `mask` is all ones except for a masked write.
  void store(uint64_t addr, uint32_t value, uint32_t mask, Via via) {
    uint32_t& reg = regs_[addr];
    reg = (reg & ~mask) | (value & mask);
    if (!patches_.empty()) patches_.erase(addr);  // a newer write replaces the patched value
    const Location at = locate(static_cast<uint32_t>(addr));
    const RegRole role = (addr >> 32) ? RegRole{} : layout_.classify(at.kind, at.offset);
    switch (role.kind) {
      case RegRole::Kind::OTHER: {
        Event& e = emit(EventKind::WRITE, at.col, at.row);
        e.reg = at.offset;
        e.addr_hi = static_cast<uint32_t>(addr >> 32);
        e.value = value & mask;
        e.mask = mask;
        break;
      }
      case RegRole::Kind::DMA_QUEUE:
        if (via == Via::WRITE32) push(at, role, reg);
        break;
      case RegRole::Kind::TASK_QUEUE:
        if (via == Via::WRITE32) task_push(at, role, reg);
        break;
      default: break;  // BD words, control registers, command memory: state only
    }
  }

  uint32_t ctrl_of(const Location& at, const RegRole& role) const { return read(at.tile | role.ctrl).value_or(0); }

  Event& push_event(const Location& at, const RegRole& role, const PushWord& p) {
    Event& e = emit(EventKind::PUSH, at.col, at.row);
    e.dir = role.dir;
    e.channel = role.channel;
    e.repeat = p.repeat;
    e.tag = p.tag;
    e.token = p.token;
    e.ctrl = ctrl_of(at, role);
    return e;
  }

  void push(const Location& at, const RegRole& role, uint32_t value) {
    const PushWord p = layout_.decode_push(at.kind, value);
    std::vector<Transfer> chain;
    std::vector<uint32_t> seen;  // BD ids in chain order
    std::optional<uint32_t> loop_to;
    std::vector<uint32_t> words(layout_.bd_words(at.kind));
    const auto patch_words = layout_.patch_words(at.kind);
    for (uint32_t bd = p.start;;) {
      if (const auto again = std::ranges::find(seen, bd); again != seen.end()) {
        loop_to = static_cast<uint32_t>(again - seen.begin());
        break;
      }
      if (bd >= layout_.bd_count(at.kind))
        fail("the push at word " + std::to_string(pos_) + " runs BD " + std::to_string(bd) + " of tile " +
             tile_text(at) + ", which has " + std::to_string(layout_.bd_count(at.kind)) + " BDs");
      seen.push_back(bd);
      const uint32_t base = at.tile | layout_.bd_offset(at.kind, bd);
      const Patch* patch = nullptr;
      if (!patch_words.empty())
        if (const auto it = patches_.find(base + 4 * patch_words[0]); it != patches_.end()) patch = &it->second;
      std::vector<uint32_t> missing;
      for (uint32_t i = 0; i < words.size(); ++i) {
        const auto v = read(base + 4 * i);
        words[i] = v.value_or(0);
        if (!v && !(patch && std::ranges::find(patch_words, i) != patch_words.end())) missing.push_back(i);
      }
      if (!missing.empty())
        fail("the push at word " + std::to_string(pos_) + " runs BD " + std::to_string(bd) + " of tile " +
             tile_text(at) + ", but the stream never writes its words " + word_list(missing));
      BdContent c = layout_.decode_bd(at.kind, words, patch);
      chain.push_back(std::move(c.transfer));
      if (!c.next) break;
      bd = *c.next;
    }
    uint32_t repeat = p.repeat;
    if (chain.size() == 1 && !loop_to) layout_.fold_repeat(at.kind, chain.front(), repeat);
    Event& e = push_event(at, role, p);
    e.repeat = repeat;
    e.chain = std::move(chain);
    e.loop_to = loop_to;
  }

  void task_push(const Location& at, const RegRole& role, uint32_t value) {
    const PushWord p = layout_.decode_push(at.kind, value);
    TaskRead r = layout_.read_task(at.kind, role.queue, p.start, State(*this, at.tile));
    const std::string runs =
        "the push at word " + std::to_string(pos_) + " runs " + r.what + " of tile " + tile_text(at);
    if (!r.problem.empty()) fail(runs + ", " + r.problem);
    if (!r.missing.empty()) fail(runs + ", but the stream never writes its words " + word_list(r.missing));
    Event& e = push_event(at, role, p);
    e.queue = layout_.queue_name(at.kind, role.dir, role.channel);
    e.task = std::move(r.task);
  }

  void on(const Write32& b) { store(b.addr, b.value, 0xFFFFFFFF, Via::WRITE32); }
  void on(const MaskWrite32& b) { store(b.addr, b.value, b.mask, Via::MASKWRITE); }
  void on(const BlockWrite& b) {
    for (std::size_t i = 0; i < b.data.size(); ++i)
      store(uint64_t{b.addr} + 4 * i, b.data[i], 0xFFFFFFFF, Via::BLOCKWRITE);
  }
  void on(const MaskPoll32&) {}  // waits for state another op produces
  void on(const Noop&) {}
  void on(const DdrPatch& b) {
    const Location at = locate(b.regaddr);
    const RegRole role = layout_.classify(at.kind, at.offset);
    const auto words = layout_.patch_words(at.kind);
    if (role.kind == RegRole::Kind::BD_WORD && !words.empty() && role.word == words[0]) {
      patches_[b.regaddr] = Patch{b.arg_idx, b.arg_plus};
      return;
    }
    // Not a BD address word: the runtime writes a host address into a plain register.
    Event& e = emit(EventKind::WRITE, at.col, at.row);
    e.reg = at.offset;
    e.patched_value = Address{true, b.arg_idx, b.arg_plus, {}};
  }
  void on(const Tct& b) {
    Event& e = emit(EventKind::WAIT, b.col, b.row);
    e.dir = b.dir;
    e.channel = b.channel;
    e.ncol = b.ncol;
    e.nrow = b.nrow;
    e.queue = layout_.queue_name(header_.tile_kind(b.row), b.dir, b.channel);
  }
  void on(const LoadPdi& b) {
    emit(EventKind::LOADPDI).raw = {b.id, b.size, static_cast<uint32_t>(b.addr), static_cast<uint32_t>(b.addr >> 32)};
  }
  void on(const Preempt& b) { emit(EventKind::PREEMPT).raw = {b.level}; }
  void on(const CreateScratchpad& b) { emit(EventKind::SCRATCHPAD).raw = {b.usage, b.size}; }
  void on(const UpdateReg& b) { emit(EventKind::UPDATE_REG).raw = {b.table, b.func, b.arg, b.reg}; }
  void on(const CustomOp& b) {
    Event& e = emit(EventKind::CUSTOM);
    e.opcode = b.opcode;
    e.raw.assign(b.payload.begin(), b.payload.end());
  }

  const Header& header_;
  const Layout& layout_;
  Trace& out_;
  uint32_t pos_ = 0;
  std::unordered_map<uint64_t, uint32_t> regs_;
  std::unordered_map<uint64_t, Patch> patches_;  // BD address word -> the patch that fills it
};

}  // namespace

const Layout& layout_for(const Header& header) {
  if (const Layout* l = find_layout(header.device.dev_gen)) return *l;
  throw TraceError("no device layout for TXN devGen " + hex(header.device.dev_gen) +
                       " (known: 0x3 AIE2 npu1, 0x4 AIE2p npu2, " + hex(spec::kTxnDevGen) + " axcore)",
                   0);
}

Trace trace(const Decoded& d, const Layout& layout, std::span<const Preset> preset) {
  Trace t;
  t.header = d.header;
  t.layout = &layout;
  t.events.reserve(d.ops.size());
  Replay replay(t.header, layout, t);
  for (const Preset& p : preset) replay.preset(p);
  for (const Op& op : d.ops) replay.run(op);
  return t;
}

Trace trace(const Decoded& d, const Layout& layout) { return trace(d, layout, {}); }

Trace trace(std::span<const uint32_t> words, const Layout& layout) { return trace(decode(words), layout); }

Trace trace(std::span<const uint32_t> words) {
  const Decoded d = decode(words);
  return trace(d, layout_for(d.header));
}

}  // namespace axcore::txn
