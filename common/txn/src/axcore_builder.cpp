#include "axcore/txn/axcore_builder.hpp"

#include <stdexcept>
#include <string>

#include "axcore/txn/read_words.hpp"

namespace axcore::txn {
namespace {

// Every tile has the same DMA block, so one set of queue offsets serves all.
static_assert(spec::shim::DMA_S2MM_QUEUE.offset == spec::mem::DMA_S2MM_QUEUE.offset &&
              spec::shim::DMA_S2MM_QUEUE.offset == spec::core::DMA_S2MM_QUEUE.offset &&
              spec::shim::DMA_MM2S_QUEUE.offset == spec::mem::DMA_MM2S_QUEUE.offset &&
              spec::shim::DMA_MM2S_QUEUE.offset == spec::core::DMA_MM2S_QUEUE.offset);

void check(bool ok, const std::string& what) {
  if (!ok) throw std::out_of_range("axcore TXN builder: " + what);
}

}  // namespace

AxcoreBuilder::AxcoreBuilder(uint32_t cores) : cores_(cores), writer_(Device::axcore(cores)) {
  check(cores >= 1 && cores <= spec::param::max_cores,
        std::to_string(cores) + " cores; a build has 1 to " + std::to_string(spec::param::max_cores));
}

TileKind AxcoreBuilder::kind(Tile t) const {
  check(t.col < spec::param::columns, "column " + std::to_string(t.col) + " is not on the device");
  check(t.row < spec::core_row(cores_), "row " + std::to_string(t.row) + " is not on the device");
  return t.row == spec::param::shim_row  ? TileKind::SHIM
         : t.row == spec::param::mem_row ? TileKind::MEM
                                         : TileKind::CORE;
}

uint32_t AxcoreBuilder::bd_offset(Tile t, uint32_t bd) const {
  const TileKind k = kind(t);
  const spec::Reg& r = k == TileKind::SHIM  ? spec::shim::DMA_BD
                       : k == TileKind::MEM ? spec::mem::DMA_BD
                                            : spec::core::DMA_BD;
  check(bd < r.count,
        "BD " + std::to_string(bd) + " of a " + std::string(to_string(k)) + " tile; it has " + std::to_string(r.count));
  return r.at(bd);
}

Tile AxcoreBuilder::core_tile(uint32_t core) const {
  check(core < cores_, "core " + std::to_string(core) + " of a " + std::to_string(cores_) + "-core build");
  return Tile::core(core);
}

AxcoreBuilder& AxcoreBuilder::write_reg(Tile t, uint32_t offset, uint32_t value) {
  kind(t);
  check(offset < (1u << spec::param::addr_offset_bits), "register offset past the tile window");
  writer_.write32(t.addr(offset), value);
  return *this;
}

AxcoreBuilder& AxcoreBuilder::write_bd(Tile t, uint32_t bd, const spec::DmaBd& value) {
  const uint32_t off = bd_offset(t, bd);
  const auto words = value.encode();
  writer_.blockwrite(t.addr(off), words);
  return *this;
}

void AxcoreBuilder::write_runs(uint32_t addr, std::span<const uint32_t> words, const std::vector<bool>& read) {
  check(read.size() == words.size(),
        std::to_string(read.size()) + " read flags for " + std::to_string(words.size()) + " words");
  for (std::size_t i = 0; i < words.size();) {
    if (!read[i]) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < words.size() && read[end]) ++end;
    writer_.blockwrite(addr + static_cast<uint32_t>(4 * i), words.subspan(i, end - i));
    i = end;
  }
}

AxcoreBuilder& AxcoreBuilder::write_bd_read_words(Tile t, uint32_t bd, const spec::DmaBd& value, bool address_patched) {
  const uint32_t off = bd_offset(t, bd);
  const auto words = value.encode();
  write_runs(t.addr(off), words, bd_read_words(address_patched));
  return *this;
}

AxcoreBuilder& AxcoreBuilder::patch_bd_address(Tile t, uint32_t bd, uint32_t arg, uint64_t offset) {
  writer_.ddr_patch(t.addr(bd_offset(t, bd) + 4), arg, offset);
  return *this;
}

AxcoreBuilder& AxcoreBuilder::push_dma(Tile t, Dir dir, uint32_t channel, const spec::QueuePush& push) {
  kind(t);
  check(channel < spec::param::dma_channels, "DMA channel " + std::to_string(channel));
  const spec::Reg& q = dir == Dir::S2MM ? spec::shim::DMA_S2MM_QUEUE : spec::shim::DMA_MM2S_QUEUE;
  writer_.write32(t.addr(q.at(channel)), push.encode_word());
  return *this;
}

AxcoreBuilder& AxcoreBuilder::wait_dma(Tile t, Dir dir, uint32_t channel) {
  kind(t);
  check(channel < spec::param::dma_channels, "DMA channel " + std::to_string(channel));
  writer_.tct(dir, t.col, t.row, channel);
  return *this;
}

AxcoreBuilder& AxcoreBuilder::write_descriptor(uint32_t core, uint32_t word, std::span<const uint32_t> words) {
  return write_descriptor(core, word, words, std::vector<bool>(words.size(), true));
}

AxcoreBuilder& AxcoreBuilder::write_descriptor(uint32_t core, uint32_t word, std::span<const uint32_t> words,
                                               const std::vector<bool>& read) {
  const Tile t = core_tile(core);
  check(uint64_t{word} + words.size() <= spec::core::CMD_MEM.count, "descriptor at word " + std::to_string(word) +
                                                                        " of " + std::to_string(words.size()) +
                                                                        " words runs past command memory");
  write_runs(t.addr(spec::core::CMD_MEM.at(word)), words, read);
  return *this;
}

AxcoreBuilder& AxcoreBuilder::push_task(uint32_t core, spec::Queue queue, const spec::QueuePush& push) {
  const Tile t = core_tile(core);
  writer_.write32(t.addr(spec::core::Q_PUSH.at(static_cast<uint32_t>(queue))), push.encode_word());
  return *this;
}

AxcoreBuilder& AxcoreBuilder::wait_task(uint32_t core, spec::Queue queue) {
  const Tile t = core_tile(core);
  writer_.tct(Dir::S2MM, t.col, t.row, spec::param::core_queue_channel_base + static_cast<uint32_t>(queue));
  return *this;
}

}  // namespace axcore::txn
