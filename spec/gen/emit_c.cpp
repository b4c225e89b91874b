// Emits axfw/spec.h: the firmware's freestanding C header (C11 or C++, any target).
//   AXC_<PARAM>                         architecture parameters
//   AXC_SPEC_HASH_LO/HI, AXC_SPEC_VERSION, AXC_TXN_DEV_GEN/MAJOR/MINOR, AXC_ID_MAGIC
//   AXC_<TILE>_<REG>_OFFSET/_COUNT/_STRIDE/_RESET   and per field _<FIELD>_LSB/_WIDTH
//   AXC_<STRUCT>_WORDS, AXC_<STRUCT>_<FIELD>_WORD/_LSB/_WIDTH
//   AXC_<ENUM>_<VALUE>, AXC_MAGIC_<NAME>, AXC_<LAYOUT>_<SECTION>_WORD
//   AXC_<TILE>_REGISTERS(X): X(name, offset, count, stride, words, reset, access, mask, memory)
//   axc_tile_addr(), axc_addr_col/row/offset(), axc_tile_kind(): the register-address decode
//   axc_field(word, lsb, width), axc_reg_index(): a field of a word, an element of a register array
#include <sstream>

#include "axcore/text/hex.hpp"
#include "model.hpp"

namespace axcore::specgen {
namespace {

std::string hex(uint64_t v) { return axcore::text::hex(v) + "u"; }  // a C unsigned literal

uint32_t field_mask(const Register& r) {
  if (r.fields.empty()) return 0xFFFFFFFFu;
  uint32_t m = 0;
  for (const auto& f : r.fields) m |= (f.width >= 32 ? 0xFFFFFFFFu : ((1u << f.width) - 1)) << f.lsb;
  return m;
}

void emit(const Spec& s, std::ostream& o) {
  o << "/* Generated from " << s.source_path << " by axspecgen. Do not edit: edit the YAML. */\n"
    << "#ifndef AXFW_SPEC_H\n#define AXFW_SPEC_H\n\n";
  o << "#define AXC_SPEC_HASH_LO " << hex(s.hash & 0xFFFFFFFFu) << "\n"
    << "#define AXC_SPEC_HASH_HI " << hex(s.hash >> 32) << "\n"
    << "#define AXC_SPEC_VERSION " << s.version << "u\n"
    << "#define AXC_TXN_DEV_GEN " << hex(s.txn_dev_gen) << "\n"
    << "#define AXC_TXN_MAJOR " << s.txn_major << "u\n"
    << "#define AXC_TXN_MINOR " << s.txn_minor << "u\n"
    << "#define AXC_ID_MAGIC " << hex(s.id_magic) << "\n\n/* params */\n";
  for (const auto& p : s.params) o << "#define AXC_" << upper(p.name) << " " << p.value << "u\n";
  o << "\n/* enums */\n";
  for (const auto& e : s.enums)
    for (const auto& v : e.values)
      o << "#define AXC_" << upper(e.name) << "_" << upper(v.name) << " " << v.value << "u\n";
  o << "\n/* descriptor magics */\n";
  for (const auto& [n, v] : s.magic) o << "#define AXC_MAGIC_" << upper(n) << " " << hex(v) << "\n";
  o << "\n/* structs */\n";
  for (const auto& st : s.structs) {
    const std::string p = "AXC_" + upper(st.name);
    o << "#define " << p << "_WORDS " << st.words << "u\n";
    for (const auto& f : st.fields)
      o << "#define " << p << "_" << upper(f.name) << "_WORD " << f.word << "u\n#define " << p << "_" << upper(f.name)
        << "_LSB " << f.lsb << "u\n#define " << p << "_" << upper(f.name) << "_WIDTH " << f.width << "u\n";
  }
  o << "\n/* layouts */\n";
  for (const auto& l : s.layouts)
    for (const auto& sec : l.sections)
      o << "#define AXC_" << upper(l.name) << "_" << upper(sec.name) << "_WORD " << sec.word << "u\n";
  for (const auto& t : s.tiles) {
    const std::string tp = "AXC_" + upper(t.name);
    o << "\n/* tile " << t.name << " */\n";
    for (const auto& r : t.registers) {
      const std::string p = tp + "_" + upper(r.name);
      o << "#define " << p << "_OFFSET " << hex(r.offset) << "\n#define " << p << "_COUNT " << r.count << "u\n#define "
        << p << "_STRIDE " << hex(r.stride) << "\n#define " << p << "_RESET " << hex(r.reset) << "\n";
      if (r.memory) o << "#define " << p << "_BYTES " << hex(r.bytes) << "\n";
      for (const auto& f : r.fields)
        o << "#define " << p << "_" << upper(f.name) << "_LSB " << f.lsb << "u\n#define " << p << "_" << upper(f.name)
          << "_WIDTH " << f.width << "u\n";
    }
    o << "#define " << tp << "_REGISTERS(X) \\\n";
    for (const auto& r : t.registers)
      o << "  X(" << r.name << ", " << hex(r.offset) << ", " << r.count << "u, " << hex(r.stride) << ", " << r.words
        << "u, " << hex(r.reset) << ", " << access_name(r.access) << ", " << hex(field_mask(r)) << ", "
        << (r.memory ? 1 : 0) << ") \\\n";
    o << "  /* end */\n";
  }
  o << "\n#endif /* AXFW_SPEC_H */\n";
}

// The register-address decode, as the C++ header's decode_addr() (static inline: no code unless used).
void emit_addr(const Spec& s, std::ostream& o) {
  o << "\n/* register addresses: col << AXC_ADDR_COL_SHIFT | row << AXC_ADDR_ROW_SHIFT | offset */\n"
    << "#define AXC_ADDR_ROW_MASK ((1u << (AXC_ADDR_COL_SHIFT - AXC_ADDR_ROW_SHIFT)) - 1u)\n"
    << "#define AXC_ADDR_OFFSET_MASK ((1u << AXC_ADDR_OFFSET_BITS) - 1u)\n";
  int kind = 0;
  for (const auto& t : s.tiles) o << "#define AXC_TILE_KIND_" << upper(t.name) << " " << kind++ << "u\n";
  o << "/* A cast that is a C cast in C and a static_cast in C++ (both include this header). */\n"
       "#ifdef __cplusplus\n#define AXC_CAST(T, v) static_cast<T>(v)\n#else\n#define AXC_CAST(T, v) ((T)(v))\n#endif\n"
       "static inline unsigned long long axc_tile_addr(unsigned col, unsigned row, unsigned offset) {\n"
       "  return AXC_CAST(unsigned long long, col) << AXC_ADDR_COL_SHIFT |\n"
       "         AXC_CAST(unsigned long long, row) << AXC_ADDR_ROW_SHIFT | offset;\n}\n"
       "/* Above the 32-bit register window: no tile register (the decode below does not apply). */\n"
       "static inline int axc_addr_in_window(unsigned long long addr) { return (addr >> 32) == 0u; }\n"
       "static inline unsigned axc_addr_col(unsigned long long addr) {\n"
       "  return AXC_CAST(unsigned, addr >> AXC_ADDR_COL_SHIFT) & ((1u << (32u - AXC_ADDR_COL_SHIFT)) - 1u);\n}\n"
       "static inline unsigned axc_addr_row(unsigned long long addr) {\n"
       "  return AXC_CAST(unsigned, addr >> AXC_ADDR_ROW_SHIFT) & AXC_ADDR_ROW_MASK;\n}\n"
       "static inline unsigned axc_addr_offset(unsigned long long addr) {\n"
       "  return AXC_CAST(unsigned, addr) & AXC_ADDR_OFFSET_MASK;\n}\n"
       "static inline unsigned axc_tile_kind(unsigned row) {\n";
  std::string core;
  for (const auto& t : s.tiles) {
    if (t.row_param == "core") {
      core = upper(t.name);
      continue;
    }
    o << "  if (row == AXC_" << upper(t.row_param) << "_ROW) return AXC_TILE_KIND_" << upper(t.name) << ";\n";
  }
  o << "  return AXC_TILE_KIND_" << core << ";\n}\n";
  o << "/* Field of a 32-bit word. */\n"
       "static inline unsigned axc_field(unsigned word, unsigned lsb, unsigned width) {\n"
       "  return width >= 32u ? word >> lsb : (word >> lsb) & ((1u << width) - 1u);\n}\n"
       "/* Whether `offset` is the first byte of an element of the register array (base, count, stride). */\n"
       "static inline int axc_reg_element(unsigned offset, unsigned base, unsigned count, unsigned stride) {\n"
       "  return offset >= base && offset < base + count * stride && (offset - base) % stride == 0u;\n}\n";
}

}  // namespace

void emit_c(const Spec& spec, const std::string& path) {
  std::ostringstream o;
  emit(spec, o);
  std::string text = o.str();
  std::ostringstream a;
  emit_addr(spec, a);
  const std::string tail = "\n#endif /* AXFW_SPEC_H */\n";
  text.insert(text.size() - tail.size(), a.str());
  write_if_changed(path, text);
}

}  // namespace axcore::specgen
