#include "yaml_view.hpp"

#include <yaml-cpp/yaml.h>

namespace spec_test {
namespace {

YField field(const YAML::Node& n, bool has_word) {
  YField f;
  f.name = n["name"].as<std::string>();
  f.word = has_word ? n["word"].as<uint32_t>() : 0;
  f.lsb = n["lsb"].as<uint32_t>();
  f.width = n["width"].as<uint32_t>();
  f.is_signed = n["signed"] && n["signed"].as<bool>();
  if (n["enum"]) f.enum_name = n["enum"].as<std::string>();
  return f;
}

void walk_registers(const YAML::Node& list, uint32_t base, std::vector<YReg>& out) {
  for (const auto& n : list) {
    if (n.IsSequence()) {
      walk_registers(n, base, out);
      continue;
    }
    const uint32_t off = base + n["offset"].as<uint32_t>();
    if (n["block"]) {
      walk_registers(n["block"], off, out);
      continue;
    }
    YReg r;
    r.name = n["name"].as<std::string>();
    r.offset = off;
    r.access = n["access"].as<std::string>();
    r.memory = n["memory"] && n["memory"].as<bool>();
    if (n["count"]) r.count = n["count"].as<uint32_t>();
    if (n["stride"]) r.stride = n["stride"].as<uint32_t>();
    if (n["struct"]) r.struct_name = n["struct"].as<std::string>();
    if (n["fields"])
      for (const auto& f : n["fields"]) r.fields.push_back(field(f, false));
    out.push_back(r);
  }
}

}  // namespace

YamlView read_yaml(const std::string& path) {
  const YAML::Node root = YAML::LoadFile(path);
  YamlView v;
  for (const auto& p : root["params"])
    v.params[p["name"].as<std::string>()] = p["value"].as<int64_t>();
  for (const auto& kv : root["enums"])
    for (const auto& e : kv.second["values"])
      v.enum_values[kv.first.as<std::string>()].push_back(e["value"].as<uint32_t>());
  for (const auto& kv : root["structs"])
    for (const auto& f : kv.second["fields"])
      v.structs[kv.first.as<std::string>()].push_back(field(f, true));
  for (const auto& kv : root["tiles"]) {
    const std::string tile = kv.first.as<std::string>();
    auto& regs = v.tiles[tile];
    walk_registers(kv.second["registers"], 0, regs);
    for (const auto& r : regs)
      if (!r.fields.empty()) v.structs[tile + "." + r.name] = r.fields;
  }
  return v;
}

}  // namespace spec_test
