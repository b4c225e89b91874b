// An independent reading of spec/axcore.yaml for the tests (not the generator's loader).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace spec_test {

struct YField {
  std::string name;
  uint32_t word = 0, lsb = 0, width = 0;
  bool is_signed = false;
  std::string enum_name;
  uint32_t reset = 0;  // register fields only
};

struct YReg {
  std::string name, access, struct_name;
  uint32_t offset = 0, count = 1, stride = 4, words = 1, bytes = 0;
  uint32_t reset = 0;       // resolved: literal, param name, spec_* keyword or the fields' resets
  uint32_t field_mask = 0;  // bits of its fields, all ones for a plain word
  bool memory = false;
  std::vector<YField> fields;
};

struct YParam {
  int64_t value = 0, min = 0, max = 0;
};

struct YamlView {
  uint32_t version = 0, txn_dev_gen = 0, txn_major = 0, txn_minor = 0, id_magic = 0;
  uint64_t hash = 0;                                   // FNV-1a 64 of the file's bytes
  std::map<std::string, std::vector<YField>> structs;  // struct name, or "tile.REG" for register fields
  std::map<std::string, uint32_t> struct_words;        // descriptor structs only
  std::map<std::string, uint32_t> enum_widths;
  std::map<std::string, std::vector<std::pair<std::string, uint32_t>>> enums;  // name, value
  std::map<std::string, std::vector<uint32_t>> enum_values;
  std::map<std::string, int64_t> params;
  std::map<std::string, YParam> param_ranges;
  std::map<std::string, std::vector<YReg>> tiles;
  std::map<std::string, std::map<std::string, uint32_t>> layouts;  // layout -> section -> word
  std::map<std::string, uint32_t> magic;
};

YamlView read_yaml(const std::string& path);

}  // namespace spec_test
