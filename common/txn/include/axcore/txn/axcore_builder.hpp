// The compiler's way to write an axcore TXN program (docs/architecture.md §4): BDs and their DDR_PATCHes,
// descriptors into a core's command memory, queue pushes with tokens, TCT waits. Register
// offsets come from spec/; every index is range-checked (std::out_of_range).
#pragma once

#include <axcore/spec.hpp>
#include <cstdint>
#include <span>
#include <vector>

#include "axcore/txn/writer.hpp"

namespace axcore::txn {

struct Tile {
  uint32_t col = 0, row = 0;
  static Tile shim(uint32_t col = 0) { return {col, spec::param::shim_row}; }
  static Tile mem(uint32_t col = 0) { return {col, spec::param::mem_row}; }
  static Tile core(uint32_t core, uint32_t col = 0) { return {col, spec::core_row(core)}; }
  uint32_t addr(uint32_t offset) const { return spec::tile_addr(col, row, offset); }
};

class AxcoreBuilder {
 public:
  explicit AxcoreBuilder(uint32_t cores = spec::param::cores);

  Writer& writer() { return writer_; }
  uint32_t cores() const { return cores_; }

  AxcoreBuilder& write_reg(Tile t, uint32_t offset, uint32_t value);
  // The BD's 16 words as one blockwrite.
  AxcoreBuilder& write_bd(Tile t, uint32_t bd, const spec::DmaBd& value);
  // Only the BD words the device reads (read_words.hpp): no reserved words, and no address words
  // when a patch_bd_address follows (`address_patched`); one blockwrite per run of them.
  AxcoreBuilder& write_bd_read_words(Tile t, uint32_t bd, const spec::DmaBd& value, bool address_patched);
  // DDR_PATCH of the BD's addr_lo: at run time the BD gets host argument `arg` + `offset`.
  AxcoreBuilder& patch_bd_address(Tile t, uint32_t bd, uint32_t arg, uint64_t offset);
  AxcoreBuilder& push_dma(Tile t, Dir dir, uint32_t channel, const spec::QueuePush& push);
  AxcoreBuilder& wait_dma(Tile t, Dir dir, uint32_t channel);
  // Descriptor words at command-memory word address `word` of a core.
  AxcoreBuilder& write_descriptor(uint32_t core, uint32_t word, std::span<const uint32_t> words);
  // Only the words whose `read` flag is set (descriptor_read_words), one blockwrite per run of them.
  AxcoreBuilder& write_descriptor(uint32_t core, uint32_t word, std::span<const uint32_t> words,
                                  const std::vector<bool>& read);
  AxcoreBuilder& push_task(uint32_t core, spec::Queue queue, const spec::QueuePush& push);
  AxcoreBuilder& wait_task(uint32_t core, spec::Queue queue);

  std::vector<uint32_t> words() const { return writer_.words(); }

 private:
  TileKind kind(Tile t) const;
  uint32_t bd_offset(Tile t, uint32_t bd) const;
  Tile core_tile(uint32_t core) const;
  void write_runs(uint32_t addr, std::span<const uint32_t> words, const std::vector<bool>& read);

  uint32_t cores_;
  Writer writer_;
};

}  // namespace axcore::txn
