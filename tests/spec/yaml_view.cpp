#include "yaml_view.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "axcore/trace/record.hpp"

namespace spec_test {
namespace {

// A reset value: an integer, a param name, or one of the spec's own keywords.
uint32_t reset_of(const YAML::Node& n, const YamlView& v) {
  const std::string& s = n.Scalar();
  if (s == "spec_hash_lo") return static_cast<uint32_t>(v.hash);
  if (s == "spec_hash_hi") return static_cast<uint32_t>(v.hash >> 32);
  if (s == "id_magic") return v.id_magic;
  if (s == "spec_version") return v.version;
  if (const auto p = v.params.find(s); p != v.params.end()) return static_cast<uint32_t>(p->second);
  return n.as<uint32_t>();
}

YField field(const YAML::Node& n, bool has_word, const YamlView& v) {
  YField f;
  f.name = n["name"].as<std::string>();
  f.word = has_word ? n["word"].as<uint32_t>() : 0;
  f.lsb = n["lsb"].as<uint32_t>();
  f.width = n["width"].as<uint32_t>();
  f.is_signed = n["signed"] && n["signed"].as<bool>();
  if (n["enum"]) f.enum_name = n["enum"].as<std::string>();
  if (n["reset"]) f.reset = reset_of(n["reset"], v);
  return f;
}

void walk_registers(const YAML::Node& list, uint32_t base, const YamlView& v, std::vector<YReg>& out) {
  for (const auto& n : list) {
    if (n.IsSequence()) {
      walk_registers(n, base, v, out);
      continue;
    }
    const uint32_t off = base + n["offset"].as<uint32_t>();
    if (n["block"]) {
      walk_registers(n["block"], off, v, out);
      continue;
    }
    YReg r;
    r.name = n["name"].as<std::string>();
    r.offset = off;
    r.access = n["access"].as<std::string>();
    r.memory = n["memory"] && n["memory"].as<bool>();
    if (n["bytes"]) r.bytes = n["bytes"].as<uint32_t>();
    if (n["count"]) r.count = n["count"].as<uint32_t>();
    if (n["stride"]) r.stride = n["stride"].as<uint32_t>();
    if (n["struct"]) {
      r.struct_name = n["struct"].as<std::string>();
      r.words = v.struct_words.at(r.struct_name);
    }
    if (n["fields"])
      for (const auto& f : n["fields"]) r.fields.push_back(field(f, false, v));
    // State bits: its own fields, else a one-word struct's fields, else the whole word.
    const std::vector<YField>* bits = nullptr;
    if (!r.fields.empty())
      bits = &r.fields;
    else if (!r.struct_name.empty() && r.words == 1)
      bits = &v.structs.at(r.struct_name);
    r.field_mask = bits ? 0u : 0xFFFFFFFFu;
    if (bits)
      for (const auto& f : *bits) r.field_mask |= (f.width >= 32 ? 0xFFFFFFFFu : (1u << f.width) - 1) << f.lsb;
    if (n["reset"]) {
      r.reset = reset_of(n["reset"], v);
    } else {
      for (const auto& f : r.fields) r.reset |= f.reset << f.lsb;
    }
    out.push_back(r);
  }
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

YamlView read_yaml(const std::string& path) {
  const std::string text = read_file(path);
  const YAML::Node root = YAML::Load(text);
  YamlView v;
  // The spec hash, computed apart from the generator: FNV-1a 64 of the file (common/trace has it).
  v.hash = axcore::trace::fnv1a64({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  const YAML::Node head = root["spec"];
  v.version = head["version"].as<uint32_t>();
  v.txn_dev_gen = head["txn_dev_gen"].as<uint32_t>();
  v.txn_major = head["txn_major"].as<uint32_t>();
  v.txn_minor = head["txn_minor"].as<uint32_t>();
  v.id_magic = head["id_magic"].as<uint32_t>();
  for (const auto& p : root["params"]) {
    const auto name = p["name"].as<std::string>();
    v.params[name] = p["value"].as<int64_t>();
    v.param_ranges[name] = {p["value"].as<int64_t>(), p["min"].as<int64_t>(), p["max"].as<int64_t>()};
  }
  for (const auto& kv : root["enums"]) {
    const auto name = kv.first.as<std::string>();
    v.enum_widths[name] = kv.second["width"].as<uint32_t>();
    for (const auto& e : kv.second["values"]) {
      v.enum_values[name].push_back(e["value"].as<uint32_t>());
      v.enums[name].emplace_back(e["name"].as<std::string>(), e["value"].as<uint32_t>());
    }
  }
  for (const auto& kv : root["structs"]) {
    const auto name = kv.first.as<std::string>();
    v.struct_words[name] = kv.second["words"].as<uint32_t>();
    for (const auto& f : kv.second["fields"]) v.structs[name].push_back(field(f, true, v));
  }
  for (const auto& kv : root["layouts"]) {
    const auto name = kv.first.as<std::string>();
    if (name == "magic") {
      for (const auto& m : kv.second["values"]) v.magic[m["name"].as<std::string>()] = m["value"].as<uint32_t>();
      continue;
    }
    for (const auto& s : kv.second["sections"]) v.layouts[name][s["name"].as<std::string>()] = s["word"].as<uint32_t>();
  }
  for (const auto& kv : root["tiles"]) {
    const std::string tile = kv.first.as<std::string>();
    auto& regs = v.tiles[tile];
    walk_registers(kv.second["registers"], 0, v, regs);
    for (const auto& r : regs)
      if (!r.fields.empty()) v.structs[tile + "." + r.name] = r.fields;
  }
  return v;
}

}  // namespace spec_test
