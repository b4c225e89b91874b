// Emits axcore/spec.hpp: constants, enums, typed encode/decode for every struct and register.
#include <sstream>

#include "axcore/text/hex.hpp"
#include "model.hpp"

namespace axcore::specgen {
namespace {

using axcore::text::hex;

std::string quoted(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r + "\"";
}

std::string field_type(const Field& f) {
  if (!f.enum_name.empty()) return camel(f.enum_name);
  return f.is_signed ? "int32_t" : "uint32_t";
}

// The magic table entry a struct `X_desc` with a `magic` field carries (empty: none).
std::string magic_of(const Spec& spec, const std::string& yaml_name, const std::vector<Field>& fields) {
  const std::string suffix = "_desc";
  if (yaml_name.size() <= suffix.size() || yaml_name.compare(yaml_name.size() - suffix.size(), suffix.size(), suffix))
    return {};
  const std::string m = yaml_name.substr(0, yaml_name.size() - suffix.size());
  bool has = false;
  for (const auto& f : fields) has = has || f.name == "magic";
  return has && spec.magic.count(m) ? m : std::string{};
}

uint32_t field_mask(const Field& f) { return f.width >= 32 ? 0xFFFFFFFFu : ((1u << f.width) - 1) << f.lsb; }

// parse(): decode() that refuses what encode() cannot have written: bits outside every field, an
// enum field holding no value of its enum, and (a struct `X_desc` with a `magic` field whose
// magic table names `X`) a wrong magic.
void emit_parse(std::ostream& o, const Spec& spec, const std::string& type, const std::string& yaml_name,
                uint32_t words, const std::vector<Field>& fields) {
  std::vector<uint32_t> used(words, 0);
  for (const auto& f : fields) used[f.word] |= field_mask(f);
  o << "  // decode() that refuses bits outside every field, an enum value the enum lacks";
  const std::string magic = magic_of(spec, yaml_name, fields);
  if (!magic.empty()) o << " and a magic other than magic::" << magic;
  o << ".\n  static " << type << " parse(std::span<const uint32_t> w) {\n";
  o << "    if (w.size() < kWords)\n      throw ParseError(\"" << yaml_name
    << ": \" + std::to_string(w.size()) + \" words; it has " << words << "\");\n";
  o << "    static constexpr std::array<uint32_t, kWords> kUsed{{";
  for (uint32_t i = 0; i < words; ++i) o << (i ? ", " : "") << hex(used[i]);
  o << "}};\n";
  o << "    for (std::size_t i = 0; i < kWords; ++i)\n      if (w[i] & ~kUsed[i])\n        throw ParseError(\""
    << yaml_name
    << ": word \" + std::to_string(i) + \" sets bits \" + detail::hex32(w[i] & ~kUsed[i]) +\n"
       "                         \" outside every field\");\n";
  o << "    const " << type << " r = decode(w);\n";
  for (const auto& f : fields) {
    if (f.enum_name.empty()) continue;
    o << "    if (!is_valid(r." << f.name << "))\n      throw ParseError(\"" << yaml_name << "." << f.name
      << " = \" + std::to_string(static_cast<uint32_t>(r." << f.name << ")) + \" is no " << f.enum_name
      << " value\");\n";
  }
  if (!magic.empty())
    o << "    if (r.magic != magic::" << magic << ")\n      throw ParseError(\"" << yaml_name
      << ": magic \" + detail::hex32(r.magic) + \", not \" + detail::hex32(magic::" << magic << "));\n";
  o << "    return r;\n  }\n";
}

// A typed struct with encode/decode; `words` = 1 for register field types.
void emit_struct(std::ostream& o, const Spec& spec, const std::string& type, const std::string& yaml_name,
                 uint32_t words, const std::vector<Field>& fields, const std::string& doc) {
  o << "// " << doc << "\n";
  o << "struct " << type << " {\n";
  o << "  static constexpr std::string_view kName = " << quoted(yaml_name) << ";\n";
  o << "  static constexpr std::size_t kWords = " << words << ";\n";
  for (const auto& f : fields) o << "  " << field_type(f) << " " << f.name << "{};  // " << f.doc << "\n";
  o << "\n  static constexpr std::array<FieldInfo, " << fields.size() << "> kFields{{\n";
  for (const auto& f : fields)
    o << "      {" << quoted(f.name) << ", " << f.word << ", " << f.lsb << ", " << f.width << ", "
      << (f.is_signed ? "true" : "false") << ", " << quoted(f.enum_name) << ", " << quoted(f.doc) << "},\n";
  o << "  }};\n\n";
  // encode
  o << "  // Throws FieldRangeError when a value does not fit its field (never truncates).\n";
  o << "  void encode_to(std::span<uint32_t> w) const {\n";
  o << "    if (w.size() < kWords) throw std::length_error(\"" << yaml_name << ": needs " << words << " words\");\n";
  o << "    for (std::size_t i = 0; i < kWords; ++i) w[i] = 0;\n";
  for (const auto& f : fields) {
    std::string v;
    if (!f.enum_name.empty())
      v = "static_cast<uint64_t>(" + f.name + ")";
    else
      v = f.name;
    const char* put = f.is_signed ? "put_s" : "put_u";
    o << "    w[" << f.word << "] |= detail::" << put << "(" << v << ", " << f.width << ", \"" << yaml_name << "."
      << f.name << "\") << " << f.lsb << ";\n";
  }
  o << "  }\n";
  o << "  std::array<uint32_t, kWords> encode() const {\n    std::array<uint32_t, kWords> w{};\n   "
       " encode_to(w);\n    return w;\n  }\n";
  o << "  static " << type << " decode(std::span<const uint32_t> w) {\n";
  o << "    if (w.size() < kWords) throw std::length_error(\"" << yaml_name << ": needs " << words << " words\");\n";
  o << "    " << type << " r;\n";
  for (const auto& f : fields) {
    std::string raw = "((w[" + std::to_string(f.word) + "] >> " + std::to_string(f.lsb) + ") & detail::mask(" +
                      std::to_string(f.width) + "))";
    if (!f.enum_name.empty())
      o << "    r." << f.name << " = static_cast<" << camel(f.enum_name) << ">(" << raw << ");\n";
    else if (f.is_signed)
      o << "    r." << f.name << " = detail::get_s(" << raw << ", " << f.width << ");\n";
    else
      o << "    r." << f.name << " = " << raw << ";\n";
  }
  o << "    return r;\n  }\n";
  emit_parse(o, spec, type, yaml_name, words, fields);
  if (words == 1) {
    o << "  uint32_t encode_word() const { return encode()[0]; }\n";
    o << "  static " << type << " decode_word(uint32_t v) { const uint32_t w[1] = {v}; return decode(w); }\n";
    o << "  static " << type << " parse_word(uint32_t v) { const uint32_t w[1] = {v}; return parse(w); }\n";
  }
  // generic access by field index
  o << "  // Field access by index into kFields, for generic tools and tests.\n";
  o << "  int64_t get(std::size_t i) const {\n    switch (i) {\n";
  for (size_t i = 0; i < fields.size(); ++i)
    o << "      case " << i << ": return static_cast<int64_t>(" << fields[i].name << ");\n";
  o << "      default: throw std::out_of_range(\"" << yaml_name << ": no field \" + std::to_string(i));\n    }\n  }\n";
  o << "  void set(std::size_t i, int64_t v) {\n    switch (i) {\n";
  for (size_t i = 0; i < fields.size(); ++i)
    o << "      case " << i << ": " << fields[i].name << " = static_cast<" << field_type(fields[i])
      << ">(v); return;\n";
  o << "      default: throw std::out_of_range(\"" << yaml_name << ": no field \" + std::to_string(i));\n    }\n  }\n";
  o << "  bool operator==(const " << type << "&) const = default;\n";
  o << "};\n\n";
}

}  // namespace

void emit_cpp(const Spec& spec, const std::string& path) {
  std::ostringstream o;
  o << "// Generated from " << spec.source_path << " by axspecgen. Do not edit: edit the YAML.\n";
  o << "#pragma once\n\n#include <array>\n#include <cstddef>\n#include <cstdint>\n#include "
       "<span>\n#include <stdexcept>\n"
       "#include <optional>\n#include <string>\n#include <string_view>\n#include <tuple>\n#include "
       "<vector>\n\nnamespace axcore::spec "
       "{\n\n";
  o << "// A value that does not fit the field it is encoded into.\n";
  o << "class FieldRangeError : public std::out_of_range {\n public:\n  using "
       "std::out_of_range::out_of_range;\n};\n\n";
  o << "// Words that are not a well-formed instance of a format (parse()).\n";
  o << "class ParseError : public std::invalid_argument {\n public:\n  using "
       "std::invalid_argument::invalid_argument;\n};\n\n";
  o << "inline constexpr uint64_t kSpecHash = " << hex(spec.hash) << "ULL;\n";
  o << "inline constexpr uint32_t kSpecVersion = " << spec.version << ";\n";
  o << "inline constexpr uint32_t kTxnDevGen = " << hex(spec.txn_dev_gen) << ";\n";
  o << "inline constexpr uint32_t kTxnMajor = " << spec.txn_major << ";\n";
  o << "inline constexpr uint32_t kTxnMinor = " << spec.txn_minor << ";\n";
  o << "inline constexpr uint32_t kIdMagic = " << hex(spec.id_magic) << ";\n\n";

  o << "// Architecture parameters (spec/axcore.yaml `params`).\nnamespace param {\n";
  for (const auto& p : spec.params)
    o << "inline constexpr uint32_t " << p.name << " = " << p.value << ";  // " << p.doc << "\n";
  o << "}  // namespace param\n\n";
  o << "struct ParamInfo {\n  std::string_view name;\n  int64_t value, min, max;\n  "
       "std::string_view doc;\n};\n";
  o << "inline constexpr std::array<ParamInfo, " << spec.params.size() << "> kParams{{\n";
  for (const auto& p : spec.params)
    o << "    {" << quoted(p.name) << ", " << p.value << ", " << p.min << ", " << p.max << ", " << quoted(p.doc)
      << "},\n";
  o << "}};\n\n";

  o << "// Register address of `offset` in tile (col, row).\n";
  o << "constexpr uint32_t tile_addr(uint32_t col, uint32_t row, uint32_t offset) {\n"
       "  return col << param::addr_col_shift | row << param::addr_row_shift | offset;\n}\n";
  o << "constexpr uint32_t core_row(uint32_t core) { return param::first_core_row + core; }\n\n";

  o << "namespace detail {\n";
  o << "constexpr uint32_t mask(uint32_t width) { return width >= 32 ? 0xFFFFFFFFu : (1u << width) "
       "- 1; }\n";
  o << "inline uint32_t put_u(uint64_t v, uint32_t width, const char* name) {\n"
       "  if (width < 32 && (v >> width) != 0)\n"
       "    throw FieldRangeError(std::string(name) + \" = \" + std::to_string(v) + \" does not "
       "fit in \" +\n"
       "                          std::to_string(width) + \" bits\");\n"
       "  if (v > 0xFFFFFFFFull) throw FieldRangeError(std::string(name) + \" = \" + "
       "std::to_string(v) + \" does not fit in 32 bits\");\n"
       "  return static_cast<uint32_t>(v);\n}\n";
  o << "inline uint32_t put_u(int64_t v, uint32_t width, const char* name) {\n"
       "  if (v < 0) throw FieldRangeError(std::string(name) + \" = \" + std::to_string(v) + \" is "
       "negative in an unsigned field\");\n"
       "  return put_u(static_cast<uint64_t>(v), width, name);\n}\n";
  o << "inline uint32_t put_u(uint32_t v, uint32_t width, const char* name) { return "
       "put_u(static_cast<uint64_t>(v), width, name); }\n";
  o << "inline uint32_t put_s(int64_t v, uint32_t width, const char* name) {\n"
       "  const int64_t lo = -(int64_t{1} << (width - 1)), hi = (int64_t{1} << (width - 1)) - 1;\n"
       "  if (v < lo || v > hi)\n"
       "    throw FieldRangeError(std::string(name) + \" = \" + std::to_string(v) + \" does not "
       "fit in \" +\n"
       "                          std::to_string(width) + \" signed bits\");\n"
       "  return static_cast<uint32_t>(v) & mask(width);\n}\n";
  o << "inline std::string hex32(uint32_t v) {\n  static constexpr char kDigits[] = \"0123456789abcdef\";\n"
       "  std::string s = \"0x\";\n  bool lead = true;\n  for (int sh = 28; sh >= 0; sh -= 4) {\n"
       "    const uint32_t d = (v >> sh) & 0xF;\n    if (lead && d == 0 && sh > 0) continue;\n"
       "    lead = false;\n    s += kDigits[d];\n  }\n  return s;\n}\n";
  o << "constexpr int32_t get_s(uint32_t raw, uint32_t width) {\n"
       "  const uint32_t sign = 1u << (width - 1);\n"
       "  return static_cast<int32_t>((raw ^ sign) - sign);\n}\n";
  o << "}  // namespace detail\n\n";

  o << "struct FieldInfo {\n  std::string_view name;\n  uint32_t word, lsb, width;\n  bool "
       "is_signed;\n"
       "  std::string_view enum_name;\n  std::string_view doc;\n};\n\n";

  for (const auto& e : spec.enums) {
    const std::string t = camel(e.name);
    o << "// " << e.doc << "\nenum class " << t << " : uint32_t {\n";
    for (const auto& v : e.values) o << "  " << v.name << " = " << v.value << ",  // " << v.doc << "\n";
    o << "};\n";
    o << "inline constexpr uint32_t k" << t << "Width = " << e.width << ";\n";
    o << "inline constexpr std::array<" << t << ", " << e.values.size() << "> k" << t << "Values{{";
    for (const auto& v : e.values) o << t << "::" << v.name << ", ";
    o << "}};\n";
    o << "constexpr std::string_view to_string(" << t << " v) {\n  switch (v) {\n";
    for (const auto& v : e.values) o << "    case " << t << "::" << v.name << ": return " << quoted(v.name) << ";\n";
    o << "  }\n  return \"?\";\n}\n";
    o << "constexpr bool is_valid(" << t << " v) {\n  switch (v) {\n";
    for (const auto& v : e.values) o << "    case " << t << "::" << v.name << ":\n";
    o << "      return true;\n  }\n  return false;\n}\n";
    o << "constexpr bool parse(std::string_view s, " << t << "& out) {\n";
    for (const auto& v : e.values)
      o << "  if (s == " << quoted(v.name) << ") { out = " << t << "::" << v.name << "; return true; }\n";
    o << "  return false;\n}\n\n";
  }

  o << "namespace magic {\n";
  for (const auto& [n, v] : spec.magic) o << "inline constexpr uint32_t " << n << " = " << hex(v) << ";\n";
  o << "}  // namespace magic\n\n";
  for (const auto& s : spec.structs) emit_struct(o, spec, camel(s.name), s.name, s.words, s.fields, s.doc);

  o << "// Command-memory layouts: word offsets of each section.\nnamespace layout {\n";
  for (const auto& l : spec.layouts) {
    o << "namespace " << l.name << " {  // " << l.doc << "\n";
    uint32_t end = 0;
    for (const auto& sec : l.sections) {
      const StructDef* sd = spec.find_struct(sec.struct_name);
      o << "inline constexpr uint32_t " << sec.name << " = " << sec.word << ";  // " << camel(sec.struct_name);
      if (sec.count > 1) o << " x " << sec.count;
      o << "\n";
      if (sec.count > 1) o << "inline constexpr uint32_t " << sec.name << "_count = " << sec.count << ";\n";
      end = std::max(end, sec.word + sd->words * sec.count);
    }
    o << "inline constexpr uint32_t max_words = " << end << ";\n}  // namespace " << l.name << "\n";
  }
  o << "}  // namespace layout\n\n";
  emit_cpp_layouts(spec, o);

  o << "enum class Access : uint8_t { RO, RW, WO, W1C, RC };\n";
  o << "constexpr std::string_view to_string(Access a) {\n  switch (a) {\n    case Access::RO: "
       "return \"ro\";\n"
       "    case Access::RW: return \"rw\";\n    case Access::WO: return \"wo\";\n    case "
       "Access::W1C: return \"w1c\";\n"
       "    case Access::RC: return \"rc\";\n  }\n  return \"?\";\n}\n";
  o << "// One register (or register array, or memory window) of a tile.\n";
  o << "struct RegisterInfo {\n  std::string_view name;\n  uint32_t offset, count, stride, "
       "words;\n  uint32_t reset;\n"
       "  Access access;\n  uint32_t field_mask;  // bits that hold state (all for plain words)\n  "
       "bool memory;\n"
       "  uint32_t bytes;\n  std::string_view struct_name;\n  std::string_view doc;\n"
       "  constexpr uint32_t at(uint32_t i) const { return offset + i * stride; }\n};\n";
  o << "struct Reg {\n  uint32_t offset, count, stride;\n  constexpr uint32_t at(uint32_t i) const "
       "{ return offset + i * stride; }\n"
       "  // The element whose first byte is `off` (a register array's index), if any.\n"
       "  constexpr std::optional<uint32_t> index_of(uint32_t off) const {\n"
       "    if (off < offset || off >= offset + count * stride || (off - offset) % stride) return std::nullopt;\n"
       "    return (off - offset) / stride;\n  }\n};\n\n";

  for (const auto& t : spec.tiles) {
    o << "// Tile '" << t.name << "': " << t.doc << "\nnamespace " << t.name << " {\n";
    for (const auto& r : t.registers) {
      o << "inline constexpr Reg " << r.name << "{" << hex(r.offset) << ", " << (r.memory ? r.bytes / 4 : r.count)
        << ", " << (r.memory ? 4 : r.stride) << "};  // " << r.doc << "\n";
      if (!r.memory) o << "inline constexpr uint32_t " << r.name << "_RESET = " << hex(r.reset) << ";\n";
    }
    o << "\n";
    for (const auto& r : t.registers)
      if (!r.fields.empty()) emit_struct(o, spec, r.fields_type, t.name + "." + r.name, 1, r.fields, r.doc);
    o << "inline constexpr std::array<RegisterInfo, " << t.registers.size() << "> kRegisters{{\n";
    for (const auto& r : t.registers) {
      uint32_t mask = 0xFFFFFFFFu;
      if (!r.fields.empty()) {
        mask = 0;
        for (const auto& f : r.fields) mask |= field_mask(f);
      } else if (!r.struct_name.empty() && r.words == 1) {
        mask = 0;
        for (const auto& f : spec.find_struct(r.struct_name)->fields) mask |= field_mask(f);
      }
      o << "    {" << quoted(r.name) << ", " << hex(r.offset) << ", " << r.count << ", " << r.stride << ", " << r.words
        << ", " << hex(r.reset) << ", Access::" << access_name(r.access) << ", " << hex(mask) << ", "
        << (r.memory ? "true" : "false") << ", " << r.bytes << ", " << quoted(r.struct_name) << ", " << quoted(r.doc)
        << "},\n";
    }
    o << "}};\n}  // namespace " << t.name << "\n\n";
  }
  emit_cpp_addr(spec, o);
  o << "// Every generated struct type, for generic tools and the round-trip tests.\n";
  o << "using AllStructs = std::tuple<";
  bool first = true;
  for (const auto& s : spec.structs) {
    o << (first ? "" : ", ") << camel(s.name);
    first = false;
  }
  for (const auto& t : spec.tiles)
    for (const auto& r : t.registers)
      if (!r.fields.empty()) o << ", " << t.name << "::" << r.fields_type;
  o << ">;\n\n";
  o << "}  // namespace axcore::spec\n";

  write_if_changed(path, o.str());
}

}  // namespace axcore::specgen
