// axcore's DMA and command-queue layout, generated from spec/axcore.yaml (<axcore/spec.hpp>).
#include <algorithm>
#include <array>
#include <axcore/spec.hpp>

#include "axcore/txn/layout.hpp"
#include "axcore_tasks.hpp"

namespace axcore::txn {
namespace {

using spec::Reg;

struct DmaRegs {
  Reg s2mm_ctrl, s2mm_queue, mm2s_ctrl, mm2s_queue, bd;
};
constexpr DmaRegs kShim{spec::shim::DMA_S2MM_CTRL, spec::shim::DMA_S2MM_QUEUE, spec::shim::DMA_MM2S_CTRL,
                        spec::shim::DMA_MM2S_QUEUE, spec::shim::DMA_BD};
constexpr DmaRegs kMem{spec::mem::DMA_S2MM_CTRL, spec::mem::DMA_S2MM_QUEUE, spec::mem::DMA_MM2S_CTRL,
                       spec::mem::DMA_MM2S_QUEUE, spec::mem::DMA_BD};
constexpr DmaRegs kCore{spec::core::DMA_S2MM_CTRL, spec::core::DMA_S2MM_QUEUE, spec::core::DMA_MM2S_CTRL,
                        spec::core::DMA_MM2S_QUEUE, spec::core::DMA_BD};
static_assert(spec::shim::DMA_MM2S_CTRL.offset - spec::shim::DMA_S2MM_CTRL.offset == spec::param::dma_mm2s_delta);
static_assert(spec::param::addr_col_shift == 25 && spec::param::addr_row_shift == 20,
              "the tracer locates tiles with the TXN address split");

constexpr uint32_t kBdFieldWords = detail::field_words<spec::DmaBd>();
constexpr uint32_t kBdSlotWords = spec::shim::DMA_BD.stride / 4;
static_assert(kBdFieldWords <= spec::DmaBd::kWords && spec::DmaBd::kWords <= kBdSlotWords);
// DDR_PATCH targets addr_lo; the runtime writes the 64-bit address as addr_lo then addr_hi.
constexpr std::array<uint32_t, 2> kPatchWords{1, 2};

const DmaRegs& regs(TileKind k) { return k == TileKind::SHIM ? kShim : k == TileKind::MEM ? kMem : kCore; }

constexpr std::array<std::string_view, 4> kL1Names{"L1[0]", "L1[1]", "L1[2]", "L1[3]"};

std::string_view memory_name(const spec::DmaBd& bd) {
  switch (bd.mem) {
    case spec::MemSel::DDR: return {};
    case spec::MemSel::L2: return "L2";
    case spec::MemSel::L1: return kL1Names[bd.core & 3];
    case spec::MemSel::RESERVED: return "RESERVED";
  }
  return "?";
}

bool in(const Reg& r, uint32_t off) { return off >= r.offset && off < r.offset + r.count * r.stride; }
uint32_t index_in(const Reg& r, uint32_t off) { return (off - r.offset) / r.stride; }
bool at_element(const Reg& r, uint32_t off) { return in(r, off) && (off - r.offset) % r.stride == 0; }

class AxcoreLayout final : public Layout {
 public:
  std::string_view name() const override { return "axcore"; }

  RegRole classify(TileKind kind, uint32_t off) const override {
    const DmaRegs& d = regs(kind);
    RegRole r;
    if (off % 4 != 0) return r;
    if (in(d.bd, off)) {
      r.kind = RegRole::Kind::BD_WORD;
      r.bd = index_in(d.bd, off);
      r.word = (off - d.bd.offset) % d.bd.stride / 4;
      return r;
    }
    struct Channel {
      const Reg& ctrl;
      const Reg& queue;
      Dir dir;
    };
    for (const Channel& c :
         {Channel{d.s2mm_ctrl, d.s2mm_queue, Dir::S2MM}, Channel{d.mm2s_ctrl, d.mm2s_queue, Dir::MM2S}}) {
      const bool ctrl = at_element(c.ctrl, off), queue = at_element(c.queue, off);
      if (!ctrl && !queue) continue;
      r.kind = ctrl ? RegRole::Kind::DMA_CTRL : RegRole::Kind::DMA_QUEUE;
      r.dir = c.dir;
      r.channel = index_in(ctrl ? c.ctrl : c.queue, off);
      r.ctrl = c.ctrl.at(r.channel);
      return r;
    }
    if (kind != TileKind::CORE) return r;
    if (in(spec::core::CMD_MEM, off)) {
      r.kind = RegRole::Kind::TASK_MEMORY;
    } else if (at_element(spec::core::Q_CTRL, off) || at_element(spec::core::Q_PUSH, off)) {
      const bool push = at_element(spec::core::Q_PUSH, off);
      r.kind = push ? RegRole::Kind::TASK_QUEUE : RegRole::Kind::TASK_CTRL;
      r.queue = index_in(push ? spec::core::Q_PUSH : spec::core::Q_CTRL, off);
      r.channel = spec::param::core_queue_channel_base + r.queue;
      r.ctrl = spec::core::Q_CTRL.at(r.queue);
    }
    return r;
  }
  uint32_t bd_count(TileKind kind) const override { return regs(kind).bd.count; }
  uint32_t bd_words(TileKind) const override { return kBdFieldWords; }
  uint32_t bd_offset(TileKind kind, uint32_t bd) const override { return regs(kind).bd.at(bd); }
  std::span<const uint32_t> patch_words(TileKind) const override { return kPatchWords; }

  PushWord decode_push(TileKind, uint32_t v) const override {
    const auto p = spec::QueuePush::decode_word(v);
    return {p.start, p.repeat, p.tag, p.token != 0};
  }

  BdContent decode_bd(TileKind, std::span<const uint32_t> w, const Patch* patch) const override {
    std::array<uint32_t, spec::DmaBd::kWords> words{};
    std::copy_n(w.begin(), std::min(w.size(), words.size()), words.begin());
    const auto bd = spec::DmaBd::decode(words);
    BdContent c;
    Transfer& t = c.transfer;
    t.length = bd.length;
    if (patch)
      t.address = {true, patch->arg, patch->plus, {}};
    else
      t.address = {false, 0, uint64_t{bd.addr_hi} << 32 | bd.addr_lo, memory_name(bd)};
    t.dims = {
        {bd.d0_size, bd.d0_stride}, {bd.d1_size, bd.d1_stride}, {bd.d2_size, bd.d2_stride}, {bd.d3_size, bd.d3_stride}};
    const std::array<Pad, 4> pads{{{bd.d0_pad_before, bd.d0_pad_after},
                                   {bd.d1_pad_before, bd.d1_pad_after},
                                   {bd.d2_pad_before, bd.d2_pad_after},
                                   {bd.d3_pad_before, bd.d3_pad_after}}};
    if (std::ranges::any_of(pads, [](const Pad& p) { return p.before || p.after; }))
      t.padding.assign(pads.begin(), pads.end());
    // Padding keeps dims positional; outer unit dims without padding still say nothing.
    while (!t.padding.empty() && t.dims.size() > 1 && t.dims.back().wrap <= 1 && t.padding.back() == Pad{}) {
      t.dims.pop_back();
      t.padding.pop_back();
    }
    // iter_size 0 or 1 means no iteration: its stride and current index do nothing.
    if (bd.iter_size > 1) t.iteration = {bd.iter_size, bd.iter_stride};
    normalize_walk(t);
    t.fields.push_back({"valid", bd.valid});
    t.fields.push_back({"mem", static_cast<int64_t>(bd.mem)});
    if (bd.mem == spec::MemSel::L1) t.fields.push_back({"core", bd.core});
    if (bd.iter_size > 1) t.fields.push_back({"iter_current", bd.iter_current});
    if (!t.padding.empty()) t.fields.push_back({"pad_value", bd.pad_value});
    if (bd.use_next) c.next = bd.next_bd;
    return c;
  }

  // Runs r = 0..repeat of a linear BD that iterate by its own length, from iteration 0, are one
  // linear transfer (repeat + 1) times as long; the same on every axcore DMA engine.
  void fold_repeat(TileKind, Transfer& t, uint32_t& repeat) const override {
    if (repeat == 0 || !t.dims.empty() || !t.padding.empty()) return;
    if (t.iteration.wrap != int64_t{repeat} + 1 || t.iteration.stride != static_cast<int64_t>(t.length)) return;
    const auto current = std::ranges::find(t.fields, std::string_view("iter_current"), &Field::name);
    if (current == t.fields.end() || current->value != 0) return;
    t.fields.erase(current);
    t.length *= uint64_t{repeat} + 1;
    t.iteration = {};
    repeat = 0;
  }

  std::string_view queue_name(TileKind kind, Dir dir, uint32_t channel) const override {
    const uint32_t base = spec::param::core_queue_channel_base;
    if (kind != TileKind::CORE || dir != Dir::S2MM || channel < base || channel >= base + spec::param::core_queues)
      return {};
    return spec::to_string(static_cast<spec::Queue>(channel - base));
  }

  TaskRead read_task(TileKind, uint32_t queue, uint32_t start, const TileState& state) const override {
    return detail::read_axcore_task(static_cast<spec::Queue>(queue), start, state);
  }
};

}  // namespace

const Layout& axcore_layout() {
  static const AxcoreLayout layout;
  return layout;
}

}  // namespace axcore::txn
