// Emits axcore_pkg.sv: parameters, enums and packed structs that match spec.hpp bit for bit.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "model.hpp"

namespace axcore::specgen {
namespace {

const std::set<std::string>& sv_keywords() {
  static const std::set<std::string> k = {
      "alias",     "always",   "and",       "assert",   "assign",   "assume",     "automatic", "before",   "begin",
      "bind",      "bins",     "bit",       "break",    "buf",      "byte",       "case",      "cell",     "chandle",
      "checker",   "class",    "clocking",  "config",   "const",    "constraint", "context",   "continue", "cover",
      "cross",     "deassign", "default",   "defparam", "design",   "disable",    "dist",      "do",       "edge",
      "else",      "end",      "enum",      "event",    "expect",   "export",     "extends",   "extern",   "final",
      "for",       "force",    "foreach",   "forever",  "fork",     "function",   "generate",  "genvar",   "global",
      "if",        "iff",      "implies",   "import",   "initial",  "inout",      "input",     "inside",   "instance",
      "int",       "integer",  "interface", "join",     "large",    "let",        "library",   "local",    "logic",
      "longint",   "matches",  "medium",    "modport",  "module",   "nand",       "new",       "nor",      "not",
      "null",      "or",       "output",    "package",  "packed",   "parameter",  "priority",  "program",  "property",
      "protected", "pure",     "rand",      "randc",    "real",     "ref",        "reg",       "release",  "repeat",
      "restrict",  "return",   "scalared",  "sequence", "shortint", "signed",     "small",     "soft",     "solve",
      "specify",   "static",   "string",    "strong",   "struct",   "super",      "supply0",   "supply1",  "table",
      "tagged",    "task",     "this",      "time",     "tri",      "type",       "union",     "unique",   "unsigned",
      "use",       "var",      "vectored",  "virtual",  "void",     "wait",       "weak",      "while",    "wildcard",
      "wire",      "with",     "within",    "xnor",     "xor"};
  return k;
}

std::string sv_name(const std::string& n) {
  std::string l = lower(n);
  return sv_keywords().count(l) ? l + "_f" : l;
}

std::string hexlit(uint32_t bits, uint64_t v) {
  std::ostringstream os;
  os << bits << "'h" << std::hex << v;
  return os.str();
}

// Packed struct over `words` 32-bit words, MSB first, gaps as reserved bits.
void emit_packed(std::ostream& o, const Spec& spec, const std::string& type, uint32_t words,
                 const std::vector<Field>& fields, const std::string& doc) {
  auto enum_width = [&](const std::string& n) { return static_cast<int64_t>(spec.find_enum(n)->width); };
  std::vector<const Field*> fs;
  for (const auto& f : fields) fs.push_back(&f);
  auto pos = [](const Field* f) { return static_cast<int64_t>(f->word) * 32 + f->lsb; };
  std::sort(fs.begin(), fs.end(), [&](const Field* a, const Field* b) { return pos(a) > pos(b); });
  o << "  // " << doc << "\n  typedef struct packed {\n";
  int64_t top = static_cast<int64_t>(words) * 32 - 1;  // highest bit not yet placed
  for (const Field* f : fs) {
    const int64_t hi = pos(f) + f->width - 1;
    if (hi < top) o << "    logic [" << (top - hi - 1) << ":0] rsv_" << (hi + 1) << ";\n";
    if (!f->enum_name.empty()) {
      // The enum type may be narrower than its field: the bits above it are reserved.
      const int64_t ew = enum_width(f->enum_name);
      if (ew < f->width) o << "    logic [" << (f->width - ew - 1) << ":0] rsv_" << (pos(f) + ew) << ";\n";
      o << "    " << lower(f->enum_name) << "_e " << sv_name(f->name) << ";  // " << f->doc << "\n";
    } else {
      const std::string range = f->width == 1 ? "" : "[" + std::to_string(f->width - 1) + ":0] ";
      o << "    logic " << (f->is_signed ? "signed " : "") << range << sv_name(f->name) << ";  // " << f->doc << "\n";
    }
    top = pos(f) - 1;
  }
  if (top >= 0) o << "    logic [" << top << ":0] rsv_0;\n";
  o << "  } " << type << ";\n\n";
}

// A register block several tiles share (the DMA channel registers, the error registers): a
// register of the same name at the same offset and stride, with the same fields, in every tile
// that has it (two or more) is also emitted without the tile prefix, so one RTL block (ax_dma,
// ax_err_rec) decodes it for every tile. The element count may differ (DMA_BD: 16 or 32 BDs):
// it stays per tile.
void emit_shared_registers(std::ostream& o, const Spec& spec) {
  auto same_fields = [](const Register& a, const Register& b) {
    if (a.fields.size() != b.fields.size()) return false;
    for (size_t i = 0; i < a.fields.size(); ++i) {
      const Field &x = a.fields[i], &y = b.fields[i];
      if (x.name != y.name || x.lsb != y.lsb || x.width != y.width || x.is_signed != y.is_signed ||
          x.enum_name != y.enum_name)
        return false;
    }
    return true;
  };
  std::vector<std::string> names;  // in the order of their first tile
  std::map<std::string, std::vector<const Register*>> by_name;
  for (const auto& t : spec.tiles)
    for (const auto& r : t.registers) {
      if (r.memory) continue;
      if (!by_name.count(r.name)) names.push_back(r.name);
      by_name[r.name].push_back(&r);
    }
  std::vector<const Register*> shared;
  for (const auto& n : names) {
    const auto& rs = by_name[n];
    bool same = rs.size() > 1;
    for (const Register* r : rs)
      same = same && r->offset == rs[0]->offset && r->stride == rs[0]->stride && (r->count > 1) == (rs[0]->count > 1) &&
             same_fields(*r, *rs[0]);
    if (same) shared.push_back(rs[0]);
  }
  if (shared.empty()) return;
  o << "  // ---- registers placed alike in every tile that has them (shared blocks)\n";
  for (const Register* r : shared) {
    const std::string n = upper(r->name);
    o << "  localparam logic [19:0] " << n << "_OFFSET = " << hexlit(20, r->offset) << ";\n";
    if (r->count > 1) o << "  localparam int unsigned " << n << "_STRIDE = " << r->stride << ";\n";
  }
  o << "\n";
  for (const Register* r : shared) {
    const std::string type = lower(r->name) + "_t";
    if (r->fields.empty()) continue;
    if (spec.find_struct(lower(r->name)) || spec.find_enum(lower(r->name)))
      throw std::runtime_error("axspecgen --sv: shared register type " + type + " clashes with a struct or enum");
    emit_packed(o, spec, type, 1, r->fields, r->doc);
  }
}

}  // namespace

void emit_sv(const Spec& spec, const std::string& path) {
  std::ostringstream o;
  o << "// Generated from " << spec.source_path << " by axspecgen. Do not edit: edit the YAML.\n";
  o << "// Multi-word structs are packed with word 0 in the low 32 bits: {w[N-1], ..., w[0]}.\n";
  o << "// A package's parameters are used by some modules only; the waiver covers this file "
       "alone.\n";
  o << "// verilator lint_off UNUSEDPARAM\n";
  o << "package axcore_pkg;\n\n";
  o << "  localparam logic [63:0] SPEC_HASH = " << hexlit(64, spec.hash) << ";\n";
  o << "  localparam int unsigned SPEC_VERSION = " << spec.version << ";\n";
  o << "  localparam logic [31:0] ID_MAGIC = " << hexlit(32, spec.id_magic) << ";\n";
  o << "  localparam int unsigned TXN_DEV_GEN = " << spec.txn_dev_gen << ";\n\n";
  for (const auto& p : spec.params)
    o << "  localparam int unsigned " << upper(p.name) << " = " << p.value << ";  // " << p.doc << "\n";
  o << "\n";
  for (const auto& [n, v] : spec.magic)
    o << "  localparam logic [7:0] MAGIC_" << upper(n) << " = " << hexlit(8, v) << ";\n";
  o << "\n";
  for (const auto& e : spec.enums) {
    o << "  // " << e.doc << "\n  typedef enum logic [" << (e.width - 1) << ":0] {\n";
    for (size_t i = 0; i < e.values.size(); ++i)
      o << "    " << upper(e.name) << "_" << e.values[i].name << " = " << e.width << "'d" << e.values[i].value
        << (i + 1 < e.values.size() ? "," : "") << "  // " << e.values[i].doc << "\n";
    o << "  } " << lower(e.name) << "_e;\n\n";
  }
  for (const auto& s : spec.structs) {
    o << "  localparam int unsigned " << upper(s.name) << "_WORDS = " << s.words << ";\n";
    emit_packed(o, spec, lower(s.name) + "_t", s.words, s.fields, s.doc);
  }
  for (const auto& l : spec.layouts)
    for (const auto& sec : l.sections)
      o << "  localparam int unsigned " << upper(l.name) << "_" << upper(sec.name) << "_WORD = " << sec.word << ";\n";
  o << "\n";
  emit_shared_registers(o, spec);
  for (const auto& t : spec.tiles) {
    o << "  // ---- tile " << t.name << ": " << t.doc << "\n";
    for (const auto& r : t.registers) {
      const std::string n = upper(t.name) + "_" + upper(r.name);
      o << "  localparam logic [19:0] " << n << "_OFFSET = " << hexlit(20, r.offset) << ";\n";
      if (r.memory) {
        o << "  localparam int unsigned " << n << "_BYTES = " << r.bytes << ";\n";
        continue;
      }
      if (r.count > 1) {
        o << "  localparam int unsigned " << n << "_COUNT = " << r.count << ";\n";
        o << "  localparam int unsigned " << n << "_STRIDE = " << r.stride << ";\n";
      }
      o << "  localparam logic [31:0] " << n << "_RESET = " << hexlit(32, r.reset) << ";\n";
    }
    o << "\n";
    for (const auto& r : t.registers)
      if (!r.fields.empty()) emit_packed(o, spec, lower(t.name) + "_" + lower(r.name) + "_t", 1, r.fields, r.doc);
  }
  o << "endpackage\n// verilator lint_on UNUSEDPARAM\n";
  write_if_changed(path, o.str());
}

}  // namespace axcore::specgen
