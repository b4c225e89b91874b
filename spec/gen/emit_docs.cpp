// Emits the Markdown tables of docs/spec (in the build tree, so they never drift from the YAML).
#include <sstream>

#include "axcore/text/hex.hpp"
#include "model.hpp"

namespace axcore::specgen {
namespace {

// `w` counts hex digits (no "0x"); 0 prints as many as the value needs.
std::string hex(uint64_t v, int w = 0) { return w ? axcore::text::hex_width(v, w + 2) : axcore::text::hex(v); }

std::string cell(const std::string& s) {
  std::string r;
  for (char c : s) r += c == '|' ? std::string("\\|") : std::string(1, c);
  return r;
}

const char* access(Access a) {
  switch (a) {
    case Access::RO: return "ro";
    case Access::RW: return "rw";
    case Access::WO: return "wo";
    case Access::W1C: return "w1c";
    case Access::RC: return "rc";
  }
  return "";
}

std::string bits(const Field& f) {
  return f.width == 1 ? "[" + std::to_string(f.lsb) + "]"
                      : "[" + std::to_string(f.lsb + f.width - 1) + ":" + std::to_string(f.lsb) + "]";
}

}  // namespace

void emit_docs(const Spec& spec, const std::string& dir) {
  const std::string banner = "<!-- Generated from spec/axcore.yaml by axspecgen. Do not edit. -->\n\n";
  {
    std::ostringstream o;
    o << banner << "# axcore parameters\n\nSpec version " << spec.version << ", hash `" << hex(spec.hash, 16)
      << "`, TXN devGen " << hex(spec.txn_dev_gen) << ".\n\n| name | value | range | meaning |\n|---|---|---|---|\n";
    for (const auto& p : spec.params)
      o << "| `" << p.name << "` | " << p.value << " | " << p.min << "–" << p.max << " | " << cell(p.doc) << " |\n";
    o << "\n# Enumerations\n";
    for (const auto& e : spec.enums) {
      o << "\n## `" << e.name << "` (" << e.width << " bits)\n\n"
        << e.doc << "\n\n| value | name | meaning |\n|---|---|---|\n";
      for (const auto& v : e.values) o << "| " << v.value << " | `" << v.name << "` | " << cell(v.doc) << " |\n";
    }
    write_if_changed(dir + "/params.md", o.str());
  }
  {
    std::ostringstream o;
    o << banner << "# Descriptor and word formats\n\nBits are LSB-first within each 32-bit word.\n";
    for (const auto& s : spec.structs) {
      o << "\n## `" << s.name << "` (" << s.words << (s.words == 1 ? " word" : " words") << ")\n\n"
        << s.doc << "\n\n| word | bits | field | type | meaning |\n|---|---|---|---|---|\n";
      for (const auto& f : s.fields)
        o << "| " << f.word << " | " << bits(f) << " | `" << f.name << "` | "
          << (f.enum_name.empty() ? (f.is_signed ? "signed" : "unsigned") : "enum `" + f.enum_name + "`") << " | "
          << cell(f.doc) << " |\n";
    }
    o << "\n# Command-memory layouts\n";
    for (const auto& l : spec.layouts) {
      o << "\n## `" << l.name << "`\n\n" << l.doc << "\n\n| word | section | struct |\n|---|---|---|\n";
      for (const auto& sec : l.sections)
        o << "| " << sec.word << " | `" << sec.name << "` | `" << sec.struct_name << "`"
          << (sec.count > 1 ? " × " + std::to_string(sec.count) : "") << " |\n";
    }
    o << "\nMagic numbers:";
    for (const auto& [n, v] : spec.magic) o << " `" << n << "` = " << hex(v) << ";";
    o << "\n";
    write_if_changed(dir + "/formats.md", o.str());
  }
  {
    std::ostringstream o;
    o << banner << "# Register map\n\nRegister address = `col << 25 | row << 20 | offset`.\n";
    for (const auto& t : spec.tiles) {
      o << "\n## Tile `" << t.name << "`\n\n"
        << t.doc
        << "\n\n| offset | register | count × stride | access | reset | meaning "
           "|\n|---|---|---|---|---|---|\n";
      for (const auto& r : t.registers) {
        o << "| " << hex(r.offset, 5) << " | `" << r.name << "` | ";
        if (r.memory)
          o << r.bytes << " bytes";
        else if (r.count > 1)
          o << r.count << " × " << hex(r.stride);
        o << " | " << access(r.access) << " | " << (r.memory ? "" : hex(r.reset)) << " | " << cell(r.doc);
        if (!r.struct_name.empty()) o << " (format `" << r.struct_name << "`)";
        o << " |\n";
      }
      for (const auto& r : t.registers) {
        if (r.fields.empty()) continue;
        o << "\n### `" << t.name << "." << r.name
          << "` fields\n\n| bits | field | reset | meaning |\n|---|---|---|---|\n";
        for (const auto& f : r.fields)
          o << "| " << bits(f) << " | `" << f.name << "` | " << f.reset << " | " << cell(f.doc) << " |\n";
      }
    }
    write_if_changed(dir + "/registers.md", o.str());
  }
}

}  // namespace axcore::specgen
