// A tile's register table, built from the generated spec table (`spec::<tile>::kRegisters`):
// name, offset, reset value, access and the bits that hold state, plus per-register callbacks a
// unit installs (on-write for queue pushes and control bits, on-read for live status). Register
// arrays (count/stride) and multi-word structs (DMA_BD) are expanded word by word; memory windows
// (CMD_MEM) are plain word storage.
#pragma once

#include <axcore/spec.hpp>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace axcore::tlm {

class RegFile {
 public:
  using ReadFn = std::function<uint32_t(uint32_t index, uint32_t word)>;
  using WriteFn = std::function<void(uint32_t index, uint32_t word, uint32_t value)>;

  explicit RegFile(std::span<const spec::RegisterInfo> table);

  // Host accesses; false when no register is at `offset`.
  bool read(uint32_t offset, uint32_t& value);
  bool write(uint32_t offset, uint32_t value);

  // Callbacks by register name. on_read replaces the stored value; on_write runs after the
  // access rule was applied (for WO/RC registers it is the only effect).
  void on_read(std::string_view name, ReadFn f);
  void on_write(std::string_view name, WriteFn f);

  // Storage of word `word` of element `index` of register `name` (the units' own view).
  uint32_t& at(std::string_view name, uint32_t index = 0, uint32_t word = 0);
  std::span<uint32_t> words(std::string_view name, uint32_t index = 0);
  void reset();

 private:
  struct Entry {
    spec::RegisterInfo info;
    std::vector<uint32_t> data;  // count * words (memory: bytes / 4)
    ReadFn rd;
    WriteFn wr;
  };
  Entry* find(uint32_t offset, uint32_t& index, uint32_t& word);
  Entry& named(std::string_view name);
  std::vector<Entry> entries_;
};

}  // namespace axcore::tlm
