// In-memory form of spec/axcore.yaml, validated. The emitters only read it.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace axcore::specgen {

// Where something was written: every validation error names the file, line and column.
struct Mark {
  std::string file;
  int line = 0;    // 1-based
  int column = 0;  // 1-based
  std::string str() const { return file + ":" + std::to_string(line) + ":" + std::to_string(column); }
};

class SpecError : public std::runtime_error {
 public:
  SpecError(const Mark& m, const std::string& msg) : std::runtime_error(m.str() + ": error: " + msg) {}
};

struct Param {
  std::string name;
  int64_t value = 0, min = 0, max = 0;
  std::string doc;
};

struct EnumValue {
  std::string name;
  uint32_t value = 0;
  std::string doc;
};

struct EnumDef {
  std::string name;
  uint32_t width = 0;
  std::string doc;
  std::vector<EnumValue> values;
};

struct Field {
  std::string name;
  uint32_t word = 0, lsb = 0, width = 0;
  bool is_signed = false;
  std::string enum_name;  // empty: plain integer
  uint32_t reset = 0;     // register fields only
  std::string doc;
  Mark mark;
};

struct StructDef {
  std::string name;
  uint32_t words = 0;
  std::string doc;
  std::vector<Field> fields;
};

enum class Access { RO, RW, WO, W1C, RC };

struct Register {
  std::string name;
  uint32_t offset = 0;
  uint32_t count = 1, stride = 4;
  Access access = Access::RW;
  uint32_t reset = 0;
  std::string struct_name;    // multi-word struct, or a 1-word struct the register carries
  std::string fields_type;    // generated type of a register's own fields (empty if none)
  std::vector<Field> fields;  // the register's own bit fields (word 0)
  bool memory = false;
  uint32_t bytes = 0;  // memory windows
  uint32_t words = 1;  // words per element
  std::string doc;
  Mark mark;
  uint32_t span() const { return memory ? bytes : (count - 1) * stride + words * 4; }
};

struct Tile {
  std::string name;
  std::string row_param;
  std::string doc;
  std::vector<Register> registers;
};

struct Section {
  std::string name, struct_name, doc;
  uint32_t word = 0, count = 1;
};

struct Layout {
  std::string name, doc;
  std::vector<Section> sections;
};

struct Spec {
  std::string source_path;
  uint64_t hash = 0;
  uint32_t version = 0, txn_dev_gen = 0, txn_major = 0, txn_minor = 0, id_magic = 0;
  std::vector<Param> params;
  std::vector<EnumDef> enums;
  std::vector<StructDef> structs;
  std::vector<Layout> layouts;
  std::map<std::string, uint32_t> magic;
  std::vector<Tile> tiles;

  const Param* find_param(const std::string& n) const;
  const EnumDef* find_enum(const std::string& n) const;
  const StructDef* find_struct(const std::string& n) const;
};

// Reads and validates the YAML. Throws SpecError with file:line:column. `overlay_path`: an
// optional parameter overlay (`params: {name: value}`, inside each param's min/max; the FPGA
// build's firmware/fpga/*.yaml) applied before the register resets are resolved; it changes the
// hash (the hash of the spec text followed by the overlay text).
Spec load_spec(const std::string& path, const std::string& overlay_path = {});

// FNV-1a 64 over bytes: the spec hash the device and bundles carry.
uint64_t fnv1a64(const std::string& bytes);

std::string camel(const std::string& snake_or_upper);  // DMA_S2MM_CTRL -> DmaS2mmCtrl
const char* access_name(Access a);                     // Access::W1C -> "W1C"
std::string upper(const std::string& s);
std::string lower(const std::string& s);

void emit_cpp(const Spec& spec, const std::string& path);
// Pieces of spec.hpp: the whole-descriptor type of each layout, the register-address decode.
void emit_cpp_layouts(const Spec& spec, std::ostream& o);
void emit_cpp_addr(const Spec& spec, std::ostream& o);
// The firmware's freestanding C header (axfw/spec.h).
void emit_c(const Spec& spec, const std::string& path);
void emit_sv(const Spec& spec, const std::string& path);
void emit_docs(const Spec& spec, const std::string& dir);
// Writes `text` to `path` unless the file already holds exactly that text (mtime kept then).
void write_if_changed(const std::string& path, const std::string& text);

}  // namespace axcore::specgen
