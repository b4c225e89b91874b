// The 4-word TXN header: w0 = numRows << 24 | devGen << 16 | minor << 8 | major,
// w1 = numMemTileRows << 8 | numCols, w2 = op count, w3 = total bytes including the header.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace axcore::txn {

// What a stream runs on: the header fields that are not counts. Two streams can only be
// equivalent when they name the same device.
struct Device {
  uint32_t dev_gen = 0;
  uint32_t num_rows = 0, num_cols = 0, num_mem_tile_rows = 0;
  uint32_t major = 0, minor = 0;  // TXN container version (not part of `same_device`)

  bool same_device(const Device& o) const {
    return dev_gen == o.dev_gen && num_rows == o.num_rows && num_cols == o.num_cols &&
           num_mem_tile_rows == o.num_mem_tile_rows;
  }
  bool operator==(const Device&) const = default;

  static Device axcore(uint32_t cores);                       // devGen spec::kTxnDevGen, from spec/
  static Device aie2(uint32_t cols = 4, uint32_t rows = 6);   // npu1, devGen 3, TXN 0.1
  static Device aie2p(uint32_t cols = 8, uint32_t rows = 6);  // npu2, devGen 4, TXN 0.1
};

enum class TileKind : uint8_t { SHIM, MEM, CORE };
std::string_view to_string(TileKind k);

struct Header {
  Device device;
  uint32_t num_ops = 0;
  uint32_t size = 0;  // bytes, header included

  static constexpr uint32_t kWords = 4;
  static Header of(std::span<const uint32_t, 4> w);
  std::array<uint32_t, 4> words() const;  // throws std::out_of_range if a field overflows
  // Row 0 is the shim, rows 1..numMemTileRows are memtiles, the rest are cores.
  TileKind tile_kind(uint32_t row) const;
  bool operator==(const Header&) const = default;
};

// "Header(devGen=0x3, rows=6, cols=4, memTileRows=1, version=0.1, ops=12, bytes=400)".
std::string to_string(const Header& h);

}  // namespace axcore::txn
