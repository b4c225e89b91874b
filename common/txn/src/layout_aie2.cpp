// AIE2 / AIE2p (npu1 / npu2) shim, memtile and core DMA layouts, as docs/txn.md describes them
// (aie-rt register definitions as mlir-aie uses them).
#include <algorithm>
#include <array>
#include <string>

#include "axcore/txn/layout.hpp"
#include "bits.hpp"

namespace axcore::txn {
namespace {

using detail::bits;

struct TileTable {
  uint32_t bd_base, bds, bd_words, ctrl_base, mm2s_delta, channels, start_bits;
};
constexpr TileTable kShim{0x1D000, 16, 8, 0x1D200, 0x10, 2, 4};
constexpr TileTable kMem{0xA0000, 48, 8, 0xA0600, 0x30, 6, 6};
constexpr TileTable kCore{0x1D000, 16, 6, 0x1DE00, 0x10, 2, 4};
constexpr uint32_t kBdStride = 0x20;
constexpr std::array<uint32_t, 1> kShimPatchWords{1};

const TileTable& table(TileKind k) { return k == TileKind::SHIM ? kShim : k == TileKind::MEM ? kMem : kCore; }

void add(Transfer& t, std::string_view name, uint32_t value) { t.fields.push_back({name, value}); }

// Shim w7 / core w5: locks, validity and chain.
void add_locks(Transfer& t, uint32_t w) {
  add(t, "lock_acq_id", bits(w, 0, 4));
  add(t, "lock_acq_value", bits(w, 5, 7));
  add(t, "lock_acq_enable", bits(w, 12, 1));
  add(t, "lock_rel_id", bits(w, 13, 4));
  add(t, "lock_rel_value", bits(w, 18, 7));
  add(t, "valid_bd", bits(w, 25, 1));
  add(t, "tlast_suppress", bits(w, 31, 1));
}
std::optional<uint32_t> next_of_lock_word(uint32_t w) {
  if (!bits(w, 26, 1)) return std::nullopt;
  return bits(w, 27, 4);
}

// Packet fields laid out as shim w2 [30:16] / core w1 [30:16].
void add_packet(Transfer& t, uint32_t w) {
  add(t, "enable_packet", bits(w, 30, 1));
  add(t, "packet_type", bits(w, 16, 3));
  add(t, "packet_id", bits(w, 19, 5));
  add(t, "out_of_order_bd_id", bits(w, 24, 6));
}

Dim dim(uint32_t wrap, uint32_t stepsize) { return {wrap, int64_t{stepsize} + 1}; }

BdContent shim_bd(std::span<const uint32_t> w, const Patch* patch) {
  BdContent c;
  Transfer& t = c.transfer;
  t.length = w[0];
  if (patch)
    t.address = {true, patch->arg, patch->plus, {}};
  else
    t.address.value = uint64_t{bits(w[1], 2, 30)} << 2 | uint64_t{bits(w[2], 0, 16)} << 32;
  t.dims = {dim(bits(w[3], 20, 10), bits(w[3], 0, 20)), dim(bits(w[4], 20, 10), bits(w[4], 0, 20))};
  t.outer_stride = int64_t{bits(w[5], 0, 20)} + 1;
  t.iteration = dim(bits(w[6], 20, 6), bits(w[6], 0, 20));
  add_packet(t, w[2]);
  add(t, "burst_length", bits(w[4], 30, 2));
  add(t, "axcache", bits(w[5], 24, 4));
  add(t, "axqos", bits(w[5], 20, 4));
  add(t, "smid", bits(w[5], 28, 4));
  add(t, "secure_access", bits(w[3], 30, 1));
  add_locks(t, w[7]);
  add(t, "iteration_current", bits(w[6], 26, 6));
  c.next = next_of_lock_word(w[7]);
  return c;
}

BdContent mem_bd(std::span<const uint32_t> w) {
  BdContent c;
  Transfer& t = c.transfer;
  t.length = bits(w[0], 0, 17);
  t.address.value = uint64_t{bits(w[1], 0, 19)} << 2;
  t.dims = {dim(bits(w[2], 17, 10), bits(w[2], 0, 17)), dim(bits(w[3], 17, 10), bits(w[3], 0, 17))};
  t.outer_stride = int64_t{bits(w[4], 0, 17)} + 1;
  if (const uint32_t d2_wrap = bits(w[4], 17, 10); d2_wrap != 0) {
    t.dims.push_back(dim(d2_wrap, bits(w[4], 0, 17)));
    t.outer_stride = int64_t{bits(w[5], 0, 17)} + 1;
  }
  const std::array<Pad, 3> pads{{{bits(w[1], 26, 6), bits(w[5], 17, 6)},
                                 {bits(w[3], 27, 5), bits(w[5], 23, 5)},
                                 {bits(w[4], 27, 4), bits(w[5], 28, 4)}}};
  if (std::ranges::any_of(pads, [](const Pad& p) { return p.before || p.after; }))
    t.padding.assign(pads.begin(), pads.end());
  t.iteration = dim(bits(w[6], 17, 6), bits(w[6], 0, 17));
  add(t, "enable_packet", bits(w[0], 31, 1));
  add(t, "packet_type", bits(w[0], 28, 3));
  add(t, "packet_id", bits(w[0], 23, 5));
  add(t, "out_of_order_bd_id", bits(w[0], 17, 6));
  add(t, "enable_compression", bits(w[4], 31, 1));
  add(t, "lock_acq_id", bits(w[7], 0, 8));
  add(t, "lock_acq_value", bits(w[7], 8, 7));
  add(t, "lock_acq_enable", bits(w[7], 15, 1));
  add(t, "lock_rel_id", bits(w[7], 16, 8));
  add(t, "lock_rel_value", bits(w[7], 24, 7));
  add(t, "valid_bd", bits(w[7], 31, 1));
  add(t, "tlast_suppress", bits(w[2], 31, 1));
  add(t, "iteration_current", bits(w[6], 23, 6));
  if (bits(w[1], 19, 1)) c.next = bits(w[1], 20, 6);
  return c;
}

BdContent core_bd(std::span<const uint32_t> w) {
  BdContent c;
  Transfer& t = c.transfer;
  t.length = bits(w[0], 0, 14);
  t.address.value = uint64_t{bits(w[0], 14, 14)} << 2;
  t.dims = {dim(bits(w[3], 13, 8), bits(w[2], 0, 13)), dim(bits(w[3], 21, 8), bits(w[2], 13, 13))};
  t.outer_stride = int64_t{bits(w[3], 0, 13)} + 1;
  t.iteration = dim(bits(w[4], 13, 6), bits(w[4], 0, 13));
  add_packet(t, w[1]);
  add(t, "enable_compression", bits(w[1], 31, 1));
  add_locks(t, w[5]);
  add(t, "iteration_current", bits(w[4], 19, 6));
  c.next = next_of_lock_word(w[5]);
  return c;
}

class Aie2Layout final : public Layout {
 public:
  explicit Aie2Layout(std::string_view name) : name_(name) {}
  std::string_view name() const override { return name_; }

  RegRole classify(TileKind kind, uint32_t off) const override {
    const TileTable& t = table(kind);
    RegRole r;
    if (off % 4 != 0) return r;
    if (off >= t.bd_base && off < t.bd_base + kBdStride * t.bds) {
      const uint32_t word = (off - t.bd_base) % kBdStride / 4;
      if (word < t.bd_words) {
        r.kind = RegRole::Kind::BD_WORD;
        r.bd = (off - t.bd_base) / kBdStride;
        r.word = word;
      }
      return r;
    }
    for (Dir dir : {Dir::S2MM, Dir::MM2S}) {
      const uint32_t base = t.ctrl_base + (dir == Dir::MM2S ? t.mm2s_delta : 0);
      if (off < base || off >= base + 8 * t.channels) continue;
      r.dir = dir;
      r.channel = (off - base) / 8;
      r.ctrl = base + 8 * r.channel;
      r.kind = off == r.ctrl ? RegRole::Kind::DMA_CTRL : RegRole::Kind::DMA_QUEUE;
      return r;
    }
    return r;
  }
  uint32_t bd_count(TileKind kind) const override { return table(kind).bds; }
  uint32_t bd_words(TileKind kind) const override { return table(kind).bd_words; }
  uint32_t bd_offset(TileKind kind, uint32_t bd) const override { return table(kind).bd_base + kBdStride * bd; }
  std::span<const uint32_t> patch_words(TileKind kind) const override {
    if (kind == TileKind::SHIM) return kShimPatchWords;
    return {};
  }
  PushWord decode_push(TileKind kind, uint32_t v) const override {
    return {bits(v, 0, table(kind).start_bits), bits(v, 16, 8), 0, bits(v, 31, 1) != 0};
  }
  BdContent decode_bd(TileKind kind, std::span<const uint32_t> w, const Patch* patch) const override {
    BdContent c = kind == TileKind::SHIM ? shim_bd(w, patch) : kind == TileKind::MEM ? mem_bd(w) : core_bd(w);
    normalize_walk(c.transfer);
    return c;
  }
  // The static emitter folds a contiguous repeat into the length of one shim transfer.
  void fold_repeat(TileKind kind, Transfer& t, uint32_t& repeat) const override {
    if (kind != TileKind::SHIM || !t.dims.empty() || t.outer_stride != 1 || repeat == 0) return;
    const int64_t iter_wrap = t.iteration.wrap + 1;
    if (iter_wrap != int64_t{repeat} + 1 || t.iteration.stride != static_cast<int64_t>(t.length)) return;
    t.length *= static_cast<uint64_t>(iter_wrap);
    t.iteration = {0, 1};
    repeat = 0;
  }
  std::string_view queue_name(TileKind, Dir, uint32_t) const override { return {}; }
  TaskRead read_task(TileKind, uint32_t, uint32_t, const TileState&) const override {
    return {"a task", std::nullopt, {}, "AIE2 tiles have no task queues"};
  }

 private:
  std::string_view name_;
};

}  // namespace

const Layout& aie2_layout() {
  static const Aie2Layout layout("aie2");
  return layout;
}
const Layout& aie2p_layout() {
  static const Aie2Layout layout("aie2p");
  return layout;
}

}  // namespace axcore::txn
