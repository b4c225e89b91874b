// An independent reading of spec/axcore.yaml for the tests (not the generator's loader).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace spec_test {

struct YField {
  std::string name;
  uint32_t word = 0, lsb = 0, width = 0;
  bool is_signed = false;
  std::string enum_name;
};

struct YReg {
  std::string name, access, struct_name;
  uint32_t offset = 0, count = 1, stride = 4;
  bool memory = false;
  std::vector<YField> fields;
};

struct YamlView {
  std::map<std::string, std::vector<YField>>
      structs;  // struct name, or "tile.REG" for register fields
  std::map<std::string, std::vector<uint32_t>> enum_values;
  std::map<std::string, int64_t> params;
  std::map<std::string, std::vector<YReg>> tiles;
};

YamlView read_yaml(const std::string& path);

}  // namespace spec_test
