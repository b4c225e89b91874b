// Emits, into axcore/spec.hpp, the register-address decode: an address (col << addr_col_shift |
// row << addr_row_shift | offset) back to its column, row, tile kind (spec `tiles`, by their
// `rows`), core index and offset, and an offset of a tile kind to the register, array element and
// word that hold it. Every tool that reads an address calls these instead of shifting by hand.
#include <ostream>

#include "model.hpp"

namespace axcore::specgen {

void emit_cpp_addr(const Spec& spec, std::ostream& o) {
  o << "// ---- register addresses: col << addr_col_shift | row << addr_row_shift | offset\n";
  o << "enum class TileKind : uint8_t {";
  for (size_t i = 0; i < spec.tiles.size(); ++i) o << (i ? ", " : " ") << camel(spec.tiles[i].name);
  o << " };\n";
  o << "constexpr std::string_view to_string(TileKind k) {\n  switch (k) {\n";
  for (const auto& t : spec.tiles) o << "    case TileKind::" << camel(t.name) << ": return \"" << t.name << "\";\n";
  o << "  }\n  return \"?\";\n}\n";
  o << "inline constexpr uint32_t kAddrColBits = 32 - param::addr_col_shift;\n";
  o << "inline constexpr uint32_t kAddrRowBits = param::addr_col_shift - param::addr_row_shift;\n";
  o << "inline constexpr uint32_t kAddrOffsetMask = (1u << param::addr_offset_bits) - 1;\n";
  o << "static_assert(param::addr_offset_bits <= param::addr_row_shift, \"a tile's offsets reach into its row\");\n";
  o << "// The tile kind of a row (rows past the mem row are cores).\n";
  o << "constexpr TileKind tile_kind(uint32_t row) {\n";
  for (const auto& t : spec.tiles) {
    if (t.row_param == "core") continue;
    o << "  if (row == param::" << t.row_param << "_row) return TileKind::" << camel(t.name) << ";\n";
  }
  std::string core_kind;
  for (const auto& t : spec.tiles)
    if (t.row_param == "core") core_kind = camel(t.name);
  o << "  return TileKind::" << core_kind << ";\n}\n";
  o << "// A register address taken apart.\nstruct TileAddr {\n"
       "  uint32_t col = 0, row = 0;\n  uint32_t offset = 0;  // inside the tile's window\n"
       "  TileKind kind = TileKind::"
    << camel(spec.tiles[0].name)
    << ";\n"
       "  uint32_t core = 0;  // kind "
    << core_kind
    << ": row - first_core_row\n"
       "  constexpr uint32_t tile_base() const { return tile_addr(col, row, 0); }\n"
       "  bool operator==(const TileAddr&) const = default;\n};\n";
  o << "// Column, row and offset of `addr`; std::nullopt when it lies above the 32-bit register window.\n"
       "constexpr std::optional<TileAddr> decode_addr(uint64_t addr) {\n"
       "  if (addr >> 32) return std::nullopt;\n"
       "  TileAddr t;\n"
       "  t.col = static_cast<uint32_t>(addr >> param::addr_col_shift);\n"
       "  t.row = static_cast<uint32_t>(addr >> param::addr_row_shift) & ((1u << kAddrRowBits) - 1);\n"
       "  t.offset = static_cast<uint32_t>(addr) & kAddrOffsetMask;\n"
       "  t.kind = tile_kind(t.row);\n"
       "  t.core = t.kind == TileKind::"
    << core_kind
    << " ? t.row - param::first_core_row : 0;\n"
       "  return t;\n}\n";
  o << "// The same for an address known to be inside the window (only the low 32 bits are read).\n"
       "constexpr TileAddr decode_addr32(uint32_t addr) { return *decode_addr(addr); }\n";
  o << "// The register map of a tile kind.\nconstexpr std::span<const RegisterInfo> registers_of(TileKind k) {\n"
       "  switch (k) {\n";
  for (const auto& t : spec.tiles)
    o << "    case TileKind::" << camel(t.name) << ": return " << t.name << "::kRegisters;\n";
  o << "  }\n  return {};\n}\n";
  o << "// Where an offset falls in a tile kind's map: the register (or memory window), the element of a\n"
       "// register array and the word inside it (a multi-word element, or a memory window's word).\n"
       "struct RegisterAt {\n  const RegisterInfo* reg = nullptr;  // nullptr: no register there\n"
       "  uint32_t index = 0, word = 0;\n  explicit operator bool() const { return reg != nullptr; }\n};\n";
  o << "constexpr RegisterAt find_register(TileKind k, uint32_t offset) {\n"
       "  for (const RegisterInfo& r : registers_of(k)) {\n"
       "    if (offset < r.offset) continue;\n"
       "    const uint32_t rel = offset - r.offset;\n"
       "    if (r.memory) {\n      if (rel < r.bytes) return {&r, 0, rel / 4};\n      continue;\n    }\n"
       "    if (rel >= (r.count - 1) * r.stride + r.words * 4 || rel % r.stride >= r.words * 4) continue;\n"
       "    return {&r, rel / r.stride, rel % r.stride / 4};\n  }\n  return {};\n}\n\n";
}

}  // namespace axcore::specgen
