// axfw_specgen: spec/axcore.yaml -> a freestanding C header (`axfw/spec.h`) for the firmware.
// Only macros (no types, no code), so it compiles as C11 or C++ on any target:
//   AXC_<PARAM>                         architecture parameters
//   AXC_SPEC_HASH_LO/HI, AXC_SPEC_VERSION, AXC_TXN_DEV_GEN/MAJOR/MINOR, AXC_ID_MAGIC
//   AXC_<TILE>_<REG>_OFFSET/_COUNT/_STRIDE/_RESET   and per field _<FIELD>_LSB/_WIDTH
//   AXC_<STRUCT>_WORDS, AXC_<STRUCT>_<FIELD>_WORD/_LSB/_WIDTH
//   AXC_<ENUM>_<VALUE>, AXC_MAGIC_<NAME>, AXC_<LAYOUT>_<SECTION>_WORD
//   AXC_<TILE>_REGISTERS(X): X(name, offset, count, stride, words, reset, access, mask, memory)
// Uses the spec generator's model (spec/gen), so it validates exactly as axspecgen does.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "axcore/text/hex.hpp"
#include "model.hpp"

namespace sg = axcore::specgen;

namespace {

std::string hex(uint64_t v) { return axcore::text::hex(v) + "u"; }  // a C unsigned literal

const char* access_name(sg::Access a) {
  switch (a) {
    case sg::Access::RO: return "RO";
    case sg::Access::RW: return "RW";
    case sg::Access::WO: return "WO";
    case sg::Access::W1C: return "W1C";
    case sg::Access::RC: return "RC";
  }
  return "RO";
}

uint32_t field_mask(const sg::Register& r) {
  if (r.fields.empty()) return 0xFFFFFFFFu;
  uint32_t m = 0;
  for (const auto& f : r.fields) m |= (f.width >= 32 ? 0xFFFFFFFFu : ((1u << f.width) - 1)) << f.lsb;
  return m;
}

void emit(const sg::Spec& s, std::ostream& o) {
  o << "/* Generated from " << s.source_path << " by axfw_specgen. Do not edit: edit the YAML. */\n"
    << "#ifndef AXFW_SPEC_H\n#define AXFW_SPEC_H\n\n";
  o << "#define AXC_SPEC_HASH_LO " << hex(s.hash & 0xFFFFFFFFu) << "\n"
    << "#define AXC_SPEC_HASH_HI " << hex(s.hash >> 32) << "\n"
    << "#define AXC_SPEC_VERSION " << s.version << "u\n"
    << "#define AXC_TXN_DEV_GEN " << hex(s.txn_dev_gen) << "\n"
    << "#define AXC_TXN_MAJOR " << s.txn_major << "u\n"
    << "#define AXC_TXN_MINOR " << s.txn_minor << "u\n"
    << "#define AXC_ID_MAGIC " << hex(s.id_magic) << "\n\n/* params */\n";
  for (const auto& p : s.params) o << "#define AXC_" << sg::upper(p.name) << " " << p.value << "u\n";
  o << "\n/* enums */\n";
  for (const auto& e : s.enums)
    for (const auto& v : e.values)
      o << "#define AXC_" << sg::upper(e.name) << "_" << sg::upper(v.name) << " " << v.value << "u\n";
  o << "\n/* descriptor magics */\n";
  for (const auto& [n, v] : s.magic) o << "#define AXC_MAGIC_" << sg::upper(n) << " " << hex(v) << "\n";
  o << "\n/* structs */\n";
  for (const auto& st : s.structs) {
    const std::string p = "AXC_" + sg::upper(st.name);
    o << "#define " << p << "_WORDS " << st.words << "u\n";
    for (const auto& f : st.fields)
      o << "#define " << p << "_" << sg::upper(f.name) << "_WORD " << f.word << "u\n#define " << p << "_"
        << sg::upper(f.name) << "_LSB " << f.lsb << "u\n#define " << p << "_" << sg::upper(f.name) << "_WIDTH "
        << f.width << "u\n";
  }
  o << "\n/* layouts */\n";
  for (const auto& l : s.layouts)
    for (const auto& sec : l.sections)
      o << "#define AXC_" << sg::upper(l.name) << "_" << sg::upper(sec.name) << "_WORD " << sec.word << "u\n";
  for (const auto& t : s.tiles) {
    const std::string tp = "AXC_" + sg::upper(t.name);
    o << "\n/* tile " << t.name << " */\n";
    for (const auto& r : t.registers) {
      const std::string p = tp + "_" + sg::upper(r.name);
      o << "#define " << p << "_OFFSET " << hex(r.offset) << "\n#define " << p << "_COUNT " << r.count << "u\n#define "
        << p << "_STRIDE " << hex(r.stride) << "\n#define " << p << "_RESET " << hex(r.reset) << "\n";
      if (r.memory) o << "#define " << p << "_BYTES " << hex(r.bytes) << "\n";
      for (const auto& f : r.fields)
        o << "#define " << p << "_" << sg::upper(f.name) << "_LSB " << f.lsb << "u\n#define " << p << "_"
          << sg::upper(f.name) << "_WIDTH " << f.width << "u\n";
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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: axfw_specgen SPEC.yaml OUT.h [OVERLAY.yaml]\n";
    return 2;
  }
  try {
    const sg::Spec s = sg::load_spec(argv[1], argc == 4 ? argv[3] : "");
    std::ostringstream text;
    emit(s, text);
    std::ofstream out(argv[2]);
    out << text.str();
    if (!out) {
      std::cerr << "axfw_specgen: cannot write " << argv[2] << "\n";
      return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
