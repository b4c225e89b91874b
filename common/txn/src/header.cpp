#include "axcore/txn/header.hpp"

#include <axcore/spec.hpp>
#include <stdexcept>

#include "axcore/txn/text.hpp"

namespace axcore::txn {

Device Device::axcore(uint32_t cores) {
  return Device{spec::kTxnDevGen,     spec::param::first_core_row + cores,
                spec::param::columns, spec::param::mem_tile_rows,
                spec::kTxnMajor,      spec::kTxnMinor};
}
Device Device::aie2(uint32_t cols, uint32_t rows) { return Device{3, rows, cols, 1, 0, 1}; }
Device Device::aie2p(uint32_t cols, uint32_t rows) { return Device{4, rows, cols, 1, 0, 1}; }

std::string_view to_string(TileKind k) {
  switch (k) {
    case TileKind::SHIM: return "shim";
    case TileKind::MEM: return "memtile";
    case TileKind::CORE: return "core";
  }
  return "?";
}

Header Header::of(std::span<const uint32_t, 4> w) {
  Header h;
  h.device.major = w[0] & 0xFF;
  h.device.minor = (w[0] >> 8) & 0xFF;
  h.device.dev_gen = (w[0] >> 16) & 0xFF;
  h.device.num_rows = (w[0] >> 24) & 0xFF;
  h.device.num_cols = w[1] & 0xFF;
  h.device.num_mem_tile_rows = (w[1] >> 8) & 0xFF;
  h.num_ops = w[2];
  h.size = w[3];
  return h;
}

std::array<uint32_t, 4> Header::words() const {
  const Device& d = device;
  for (uint32_t v : {d.major, d.minor, d.dev_gen, d.num_rows, d.num_cols, d.num_mem_tile_rows})
    if (v > 0xFF) throw std::out_of_range("TXN header field " + std::to_string(v) + " does not fit 8 bits");
  return {d.num_rows << 24 | d.dev_gen << 16 | d.minor << 8 | d.major, d.num_mem_tile_rows << 8 | d.num_cols, num_ops,
          size};
}

TileKind Header::tile_kind(uint32_t row) const {
  if (row == 0) return TileKind::SHIM;
  if (row <= device.num_mem_tile_rows) return TileKind::MEM;
  return TileKind::CORE;
}

std::string to_string(const Header& h) {
  const Device& d = h.device;
  return "Header(devGen=" + hex(d.dev_gen) + ", rows=" + std::to_string(d.num_rows) +
         ", cols=" + std::to_string(d.num_cols) + ", memTileRows=" + std::to_string(d.num_mem_tile_rows) +
         ", version=" + std::to_string(d.major) + "." + std::to_string(d.minor) + ", ops=" + std::to_string(h.num_ops) +
         ", bytes=" + std::to_string(h.size) + ")";
}

}  // namespace axcore::txn
