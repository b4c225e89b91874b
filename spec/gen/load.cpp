// Loads spec/axcore.yaml into the model and checks it. Every error carries file:line:column.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "model.hpp"

namespace axcore::specgen {

uint64_t fnv1a64(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string upper(const std::string& s) {
  std::string r = s;
  for (auto& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

std::string lower(const std::string& s) {
  std::string r = s;
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

const char* access_name(Access a) {
  switch (a) {
    case Access::RO: return "RO";
    case Access::RW: return "RW";
    case Access::WO: return "WO";
    case Access::W1C: return "W1C";
    case Access::RC: return "RC";
  }
  return "RO";
}

std::string camel(const std::string& s) {
  std::string r;
  bool up = true;
  for (char c : s) {
    if (c == '_') {
      up = true;
      continue;
    }
    r += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
            : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    up = false;
  }
  return r;
}

const Param* Spec::find_param(const std::string& n) const {
  for (const auto& p : params)
    if (p.name == n) return &p;
  return nullptr;
}
const EnumDef* Spec::find_enum(const std::string& n) const {
  for (const auto& e : enums)
    if (e.name == n) return &e;
  return nullptr;
}
const StructDef* Spec::find_struct(const std::string& n) const {
  for (const auto& s : structs)
    if (s.name == n) return &s;
  return nullptr;
}

namespace {

class Loader {
 public:
  explicit Loader(std::string file) : file_(std::move(file)) {}

  Mark mark(const YAML::Node& n) const {
    auto m = n.Mark();
    return Mark{file_, m.line + 1, m.column + 1};
  }

  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const { throw SpecError(mark(n), msg); }

  YAML::Node req(const YAML::Node& map, const std::string& key, const std::string& what) const {
    if (!map.IsMap()) fail(map, what + ": expected a mapping");
    YAML::Node v = map[key];
    if (!v) fail(map, what + ": missing '" + key + "'");
    return v;
  }

  int64_t integer(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, what + ": expected an integer");
    const std::string s = n.Scalar();
    try {
      size_t pos = 0;
      int64_t v = std::stoll(s, &pos, 0);
      if (pos != s.size()) throw std::invalid_argument(s);
      return v;
    } catch (const std::exception&) { fail(n, what + ": '" + s + "' is not an integer"); }
  }

  int64_t ranged(const YAML::Node& n, const std::string& what, int64_t lo, int64_t hi) const {
    int64_t v = integer(n, what);
    if (v < lo || v > hi)
      fail(n, what + " = " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                  "]");
    return v;
  }

  std::string text(const YAML::Node& map, const std::string& key, const std::string& what) const {
    YAML::Node v = req(map, key, what);
    if (!v.IsScalar()) fail(v, what + ": '" + key + "' must be a string");
    return v.Scalar();
  }

  std::string opt_text(const YAML::Node& map, const std::string& key) const {
    YAML::Node v = map[key];
    return v && v.IsScalar() ? v.Scalar() : std::string();
  }

  Spec load(const std::string& content, const std::string& overlay_path = {}, const std::string& overlay_content = {}) {
    YAML::Node root;
    try {
      root = YAML::Load(content);
    } catch (const YAML::ParserException& e) {
      throw SpecError(Mark{file_, e.mark.line + 1, e.mark.column + 1}, e.msg);
    }
    if (!root.IsMap()) throw SpecError(Mark{file_, 1, 1}, "the spec must be a mapping");
    Spec spec;
    spec.source_path = file_;
    // An overlay is part of what a device is built from: it changes the hash (docs/bringup.md).
    spec.hash = fnv1a64(overlay_path.empty() ? content : content + overlay_content);
    spec_ = &spec;

    YAML::Node head = req(root, "spec", "spec file");
    spec.version = static_cast<uint32_t>(ranged(req(head, "version", "spec"), "spec.version", 1, 255));
    spec.txn_dev_gen = static_cast<uint32_t>(ranged(req(head, "txn_dev_gen", "spec"), "spec.txn_dev_gen", 0, 255));
    spec.txn_major = static_cast<uint32_t>(ranged(req(head, "txn_major", "spec"), "spec.txn_major", 0, 255));
    spec.txn_minor = static_cast<uint32_t>(ranged(req(head, "txn_minor", "spec"), "spec.txn_minor", 0, 255));
    spec.id_magic = static_cast<uint32_t>(ranged(req(head, "id_magic", "spec"), "spec.id_magic", 0, 0xFFFFFFFFLL));

    load_params(req(root, "params", "spec file"));
    if (!overlay_path.empty()) {
      Loader ov(overlay_path);
      ov.spec_ = &spec;
      ov.apply_overlay(overlay_content);
    }
    load_enums(req(root, "enums", "spec file"));
    load_structs(req(root, "structs", "spec file"));
    load_layouts(req(root, "layouts", "spec file"));
    load_tiles(req(root, "tiles", "spec file"));
    return spec;
  }

 private:
  // A parameter overlay (the FPGA build): `params: {name: value, ...}`, each name a spec param,
  // each value inside its min/max. Applied before the tiles, so register resets follow it.
  void apply_overlay(const std::string& content) {
    YAML::Node root;
    try {
      root = YAML::Load(content);
    } catch (const YAML::ParserException& e) {
      throw SpecError(Mark{file_, e.mark.line + 1, e.mark.column + 1}, e.msg);
    }
    if (!root.IsMap()) throw SpecError(Mark{file_, 1, 1}, "the overlay must be a mapping with 'params'");
    for (const auto& kv : root)
      if (kv.first.Scalar() != "params")
        fail(kv.first, "overlay: unknown key '" + kv.first.Scalar() + "' (only 'params')");
    const YAML::Node params = req(root, "params", "overlay");
    if (!params.IsMap()) fail(params, "overlay params: expected a mapping name: value");
    std::string applied;
    for (const auto& kv : params) {
      const std::string name = kv.first.Scalar();
      Param* p = nullptr;
      for (auto& q : spec_->params)
        if (q.name == name) p = &q;
      if (!p) fail(kv.first, "overlay: '" + name + "' is not a spec parameter");
      p->value = ranged(kv.second, "overlay " + name, p->min, p->max);
      applied += (applied.empty() ? "" : ", ") + name + "=" + std::to_string(p->value);
    }
    spec_->source_path += " + overlay " + file_ + " (" + applied + ")";
  }

  void unique(std::set<std::string>& seen, const std::string& name, const YAML::Node& at,
              const std::string& what) const {
    if (!seen.insert(name).second) fail(at, "duplicate " + what + " '" + name + "'");
  }

  void load_params(const YAML::Node& list) {
    if (!list.IsSequence()) fail(list, "params: expected a list");
    std::set<std::string> seen;
    for (const auto& n : list) {
      Param p;
      p.name = text(n, "name", "param");
      unique(seen, p.name, n, "param");
      const std::string what = "param '" + p.name + "'";
      p.value = integer(req(n, "value", what), what + ".value");
      p.min = integer(req(n, "min", what), what + ".min");
      p.max = integer(req(n, "max", what), what + ".max");
      p.doc = opt_text(n, "doc");
      if (p.min > p.max) fail(n["min"], what + ": min " + std::to_string(p.min) + " > max " + std::to_string(p.max));
      if (p.value < p.min || p.value > p.max)
        fail(n["value"], what + ".value = " + std::to_string(p.value) + " is out of range [" + std::to_string(p.min) +
                             ", " + std::to_string(p.max) + "]");
      spec_->params.push_back(p);
    }
  }

  void load_enums(const YAML::Node& map) {
    if (!map.IsMap()) fail(map, "enums: expected a mapping");
    for (const auto& kv : map) {
      EnumDef e;
      e.name = kv.first.Scalar();
      const std::string what = "enum '" + e.name + "'";
      e.width = static_cast<uint32_t>(ranged(req(kv.second, "width", what), what + ".width", 1, 32));
      e.doc = opt_text(kv.second, "doc");
      std::set<std::string> names;
      std::set<uint32_t> values;
      for (const auto& v : req(kv.second, "values", what)) {
        EnumValue ev;
        ev.name = text(v, "name", what);
        unique(names, ev.name, v, what + " value");
        const int64_t max = (int64_t{1} << e.width) - 1;
        ev.value = static_cast<uint32_t>(ranged(req(v, "value", what), what + "." + ev.name, 0, max));
        if (!values.insert(ev.value).second) fail(v, what + ": value " + std::to_string(ev.value) + " used twice");
        ev.doc = opt_text(v, "doc");
        e.values.push_back(ev);
      }
      spec_->enums.push_back(e);
    }
  }

  // Parses one field; `words` bounds `word` (1 for a register's own fields).
  Field load_field(const YAML::Node& n, const std::string& owner, uint32_t words, bool has_word, bool allow_reset) {
    Field f;
    f.mark = mark(n);
    f.name = text(n, "name", owner + " field");
    const std::string what = owner + "." + f.name;
    if (has_word) f.word = static_cast<uint32_t>(ranged(req(n, "word", what), what + ".word", 0, words - 1));
    f.lsb = static_cast<uint32_t>(ranged(req(n, "lsb", what), what + ".lsb", 0, 31));
    f.width = static_cast<uint32_t>(ranged(req(n, "width", what), what + ".width", 1, 32));
    if (f.lsb + f.width > 32)
      fail(n, "field '" + what + "' (lsb " + std::to_string(f.lsb) + ", width " + std::to_string(f.width) +
                  ") is wider than its 32-bit " + (has_word ? "word" : "register"));
    if (n["signed"]) f.is_signed = n["signed"].as<bool>();
    if (n["enum"]) {
      f.enum_name = n["enum"].Scalar();
      const EnumDef* e = spec_->find_enum(f.enum_name);
      if (!e) fail(n["enum"], what + ": unknown enum '" + f.enum_name + "'");
      if (e->width > f.width)
        fail(n["enum"], what + ": enum '" + f.enum_name + "' needs " + std::to_string(e->width) +
                            " bits, the field has " + std::to_string(f.width));
    }
    if (n["reset"]) {
      if (!allow_reset) fail(n["reset"], what + ": only register fields take a reset value");
      const uint64_t v = reset_value(n["reset"], what);
      if (f.width < 32 && v >= (uint64_t{1} << f.width))
        fail(n["reset"],
             what + ": reset value " + std::to_string(v) + " does not fit in " + std::to_string(f.width) + " bits");
      f.reset = static_cast<uint32_t>(v);
    }
    f.doc = opt_text(n, "doc");
    return f;
  }

  void check_field_overlap(const std::vector<Field>& fields, const std::string& owner) const {
    for (size_t i = 0; i < fields.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        const Field &a = fields[i], &b = fields[j];
        if (a.name == b.name) throw SpecError(a.mark, "duplicate field '" + owner + "." + a.name + "'");
        if (a.word == b.word && a.lsb < b.lsb + b.width && b.lsb < a.lsb + a.width)
          throw SpecError(a.mark, "field '" + owner + "." + a.name + "' overlaps field '" + b.name + "' in word " +
                                      std::to_string(a.word));
      }
    }
  }

  void load_structs(const YAML::Node& map) {
    if (!map.IsMap()) fail(map, "structs: expected a mapping");
    for (const auto& kv : map) {
      StructDef s;
      s.name = kv.first.Scalar();
      const std::string what = "struct '" + s.name + "'";
      s.words = static_cast<uint32_t>(ranged(req(kv.second, "words", what), what + ".words", 1, 256));
      s.doc = opt_text(kv.second, "doc");
      for (const auto& f : req(kv.second, "fields", what))
        s.fields.push_back(load_field(f, s.name, s.words, true, false));
      check_field_overlap(s.fields, s.name);
      spec_->structs.push_back(s);
    }
  }

  void load_layouts(const YAML::Node& map) {
    if (!map.IsMap()) fail(map, "layouts: expected a mapping");
    for (const auto& kv : map) {
      const std::string name = kv.first.Scalar();
      if (name == "magic") {
        for (const auto& v : req(kv.second, "values", "layouts.magic"))
          spec_->magic[text(v, "name", "magic")] =
              static_cast<uint32_t>(ranged(req(v, "value", "magic"), "magic value", 0, 255));
        continue;
      }
      Layout l;
      l.name = name;
      l.doc = opt_text(kv.second, "doc");
      for (const auto& s : req(kv.second, "sections", "layout '" + name + "'")) {
        Section sec;
        sec.name = text(s, "name", "section");
        sec.struct_name = text(s, "struct", "section " + sec.name);
        if (!spec_->find_struct(sec.struct_name))
          fail(s["struct"], "section '" + sec.name + "': unknown struct '" + sec.struct_name + "'");
        sec.word = static_cast<uint32_t>(ranged(req(s, "word", sec.name), sec.name + ".word", 0, 65535));
        if (s["count"]) sec.count = static_cast<uint32_t>(param_or_int(s["count"], sec.name + ".count"));
        sec.doc = opt_text(s, "doc");
        l.sections.push_back(sec);
      }
      spec_->layouts.push_back(l);
    }
  }

  int64_t param_or_int(const YAML::Node& n, const std::string& what) const {
    if (n.IsScalar() && !n.Scalar().empty() && std::isalpha(static_cast<unsigned char>(n.Scalar()[0]))) {
      const Param* p = spec_->find_param(n.Scalar());
      if (!p) fail(n, what + ": unknown param '" + n.Scalar() + "'");
      return p->value;
    }
    return integer(n, what);
  }

  uint64_t reset_value(const YAML::Node& n, const std::string& what) const {
    if (n.IsScalar()) {
      const std::string& s = n.Scalar();
      if (s == "spec_hash_lo") return spec_->hash & 0xFFFFFFFFu;
      if (s == "spec_hash_hi") return spec_->hash >> 32;
      if (s == "id_magic") return spec_->id_magic;
      if (s == "spec_version") return spec_->version;
    }
    const int64_t v = param_or_int(n, what + ".reset");
    if (v < 0 || v > 0xFFFFFFFFLL) fail(n, what + ": reset value " + std::to_string(v) + " does not fit in 32 bits");
    return static_cast<uint64_t>(v);
  }

  static Access access_of(const std::string& s, bool& ok) {
    ok = true;
    if (s == "ro") return Access::RO;
    if (s == "rw") return Access::RW;
    if (s == "wo") return Access::WO;
    if (s == "w1c") return Access::W1C;
    if (s == "rc") return Access::RC;
    ok = false;
    return Access::RO;
  }

  void load_register(const YAML::Node& n, uint32_t base, Tile& tile) {
    if (n.IsSequence()) {  // a block spliced in through an alias
      for (const auto& m : n) load_register(m, base, tile);
      return;
    }
    Register r;
    r.mark = mark(n);
    r.name = text(n, "name", "register");
    const std::string what = tile.name + "." + r.name;
    const int64_t off = integer(req(n, "offset", what), what + ".offset");
    if (off < 0 || off % 4 != 0) fail(n["offset"], what + ": offset must be a non-negative multiple of 4");
    r.offset = base + static_cast<uint32_t>(off);
    r.doc = opt_text(n, "doc");
    if (n["block"]) {
      const YAML::Node blk = n["block"];
      if (!blk.IsSequence()) fail(blk, what + ": block must be a list of registers");
      for (const auto& m : blk) load_register(m, r.offset, tile);
      return;
    }
    bool ok = false;
    r.access = access_of(text(n, "access", what), ok);
    if (!ok) fail(n["access"], what + ": access must be one of ro, rw, wo, w1c, rc");
    if (n["memory"]) {
      r.memory = true;
      r.bytes = static_cast<uint32_t>(ranged(req(n, "bytes", what), what + ".bytes", 4, 1 << 20));
      tile.registers.push_back(r);
      return;
    }
    if (n["count"]) r.count = static_cast<uint32_t>(ranged(n["count"], what + ".count", 1, 4096));
    if (n["stride"]) r.stride = static_cast<uint32_t>(ranged(n["stride"], what + ".stride", 4, 1 << 20));
    if (n["struct"]) {
      r.struct_name = n["struct"].Scalar();
      const StructDef* s = spec_->find_struct(r.struct_name);
      if (!s) fail(n["struct"], what + ": unknown struct '" + r.struct_name + "'");
      r.words = s->words;
      if (r.count > 1 && r.stride < r.words * 4)
        fail(n["stride"], what + ": stride " + std::to_string(r.stride) + " is smaller than its struct (" +
                              std::to_string(r.words * 4) + " bytes)");
    }
    const bool has_fields = static_cast<bool>(n["fields"]);
    if (has_fields) {
      for (const auto& f : n["fields"]) r.fields.push_back(load_field(f, what, 1, false, true));
      check_field_overlap(r.fields, what);
      r.fields_type = camel(r.name);
    }
    if (n["reset"]) {
      r.reset = static_cast<uint32_t>(reset_value(n["reset"], what));
      if (has_fields) {
        uint32_t mask = 0;
        for (const auto& f : r.fields) mask |= f.width == 32 ? 0xFFFFFFFFu : ((1u << f.width) - 1) << f.lsb;
        if (r.reset & ~mask) fail(n["reset"], what + ": reset value sets bits outside its fields");
        for (const auto& f : r.fields)
          if (f.reset) fail(n["reset"], what + ": give the reset on the register or on its fields, not both");
      }
    } else {
      for (const auto& f : r.fields) r.reset |= f.reset << f.lsb;
    }
    tile.registers.push_back(r);
  }

  void check_register_overlap(const Tile& tile) const {
    struct Span {
      uint32_t lo, hi;
      const Register* r;
    };
    std::vector<Span> spans;
    for (const auto& r : tile.registers) {
      if (r.memory) {
        spans.push_back({r.offset, r.offset + r.bytes, &r});
        continue;
      }
      for (uint32_t i = 0; i < r.count; ++i)
        spans.push_back({r.offset + i * r.stride, r.offset + i * r.stride + r.words * 4, &r});
    }
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.lo < b.lo; });
    const uint32_t window = 1u << 20;
    for (size_t i = 0; i < spans.size(); ++i) {
      if (spans[i].hi > window) {
        std::ostringstream os;
        os << "register '" << tile.name << "." << spans[i].r->name << "' ends at 0x" << std::hex << spans[i].hi
           << ", past the 20-bit tile window";
        throw SpecError(spans[i].r->mark, os.str());
      }
      if (i && spans[i].lo < spans[i - 1].hi) {
        std::ostringstream os;
        os << "register '" << tile.name << "." << spans[i].r->name << "' at 0x" << std::hex << spans[i].lo
           << " overlaps register '" << spans[i - 1].r->name << "'";
        throw SpecError(spans[i].r->mark, os.str());
      }
    }
    std::set<std::string> names;
    for (const auto& r : tile.registers)
      if (!names.insert(r.name).second)
        throw SpecError(r.mark, "duplicate register '" + tile.name + "." + r.name + "'");
  }

  void load_tiles(const YAML::Node& map) {
    if (!map.IsMap()) fail(map, "tiles: expected a mapping");
    for (const auto& kv : map) {
      Tile t;
      t.name = kv.first.Scalar();
      t.doc = opt_text(kv.second, "doc");
      const YAML::Node rows = req(kv.second, "rows", "tile '" + t.name + "'");
      t.row_param = rows.Scalar();
      if (t.row_param != "shim" && t.row_param != "mem" && t.row_param != "core")
        fail(rows, "tile '" + t.name + "': rows must be shim, mem or core");
      for (const auto& r : req(kv.second, "registers", "tile '" + t.name + "'")) load_register(r, 0, t);
      check_register_overlap(t);
      spec_->tiles.push_back(t);
    }
  }

  std::string file_;
  Spec* spec_ = nullptr;
};

}  // namespace

namespace {
std::string read_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(Mark{path, 0, 0}, std::string("cannot read the ") + what);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

Spec load_spec(const std::string& path, const std::string& overlay_path) {
  const std::string content = read_file(path, "spec file");
  const std::string overlay = overlay_path.empty() ? std::string() : read_file(overlay_path, "overlay file");
  Loader loader(path);
  try {
    return loader.load(content, overlay_path, overlay);
  } catch (const YAML::Exception& e) { throw SpecError(Mark{path, e.mark.line + 1, e.mark.column + 1}, e.msg); }
}

}  // namespace axcore::specgen
