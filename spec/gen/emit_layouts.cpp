// Emits, into axcore/spec.hpp, one whole-descriptor type per layout (spec/axcore.yaml `layouts`):
// its sections as typed members, words() (the descriptor's words in command memory), parse()
// (the words back, refusing a malformed descriptor) and decode() (the words as the device reads
// them: fields only, nothing refused; the models' command processors). The rules the YAML implies:
// - the section at word 0 is the header; a header field `magic` takes magic::X for the layout
//   `X_desc`, a header field `words` the descriptor's length (both filled by words());
// - sections that share words are alternatives (std::optional, at most one set); each one's doc
//   begins with `FIELD VALUE`, the header enum field and value that select it in parse();
// - a section with a count is the variable tail (std::vector, up to count entries), after every
//   other section; the descriptor is as long as the words before it plus the entries.
#include <algorithm>
#include <sstream>

#include "model.hpp"

namespace axcore::specgen {
namespace {

struct Selector {
  std::string field, enum_type, value;
};

[[noreturn]] void bad_layout(const Layout& l, const std::string& msg) {
  throw std::runtime_error("layout '" + l.name + "': " + msg);
}

const Field* find_field(const StructDef& s, const std::string& name) {
  for (const auto& f : s.fields)
    if (f.name == name) return &f;
  return nullptr;
}

bool overlaps(const Spec& spec, const Section& a, const Section& b) {
  const uint32_t a_end = a.word + spec.find_struct(a.struct_name)->words * a.count;
  const uint32_t b_end = b.word + spec.find_struct(b.struct_name)->words * b.count;
  return a.word < b_end && b.word < a_end;
}

// `FIELD VALUE ...` at the start of an alternative section's doc, checked against the header.
Selector selector_of(const Spec& spec, const Layout& l, const StructDef& header, const Section& sec) {
  std::istringstream in(sec.doc);
  Selector s;
  in >> s.field >> s.value;
  const Field* f = find_field(header, s.field);
  if (!f || f->enum_name.empty())
    bad_layout(l, "section '" + sec.name + "' shares words with another section; its doc must begin with the " +
                      camel(header.name) + " enum field that selects it and the value (e.g. \"kind MVMEXE\")");
  const EnumDef* e = spec.find_enum(f->enum_name);
  const bool known = std::any_of(e->values.begin(), e->values.end(), [&](const auto& v) { return v.name == s.value; });
  if (!known) bad_layout(l, "section '" + sec.name + "': '" + s.value + "' is no " + e->name + " value");
  s.enum_type = camel(e->name);
  return s;
}

void emit_layout(std::ostream& o, const Spec& spec, const Layout& l) {
  const std::string type = camel(l.name);
  if (l.sections.empty() || l.sections[0].word != 0 || l.sections[0].count != 1)
    bad_layout(l, "the first section (the header) sits at word 0, once");
  const Section& head = l.sections[0];
  const StructDef& header = *spec.find_struct(head.struct_name);
  const Section* tail = nullptr;
  uint32_t fixed = 0;  // words before the tail (or all words without one)
  for (const auto& sec : l.sections) {
    if (sec.count > 1) {
      if (tail) bad_layout(l, "two sections with a count");
      tail = &sec;
    } else {
      fixed = std::max(fixed, sec.word + spec.find_struct(sec.struct_name)->words);
    }
  }
  if (tail && tail->word < fixed) bad_layout(l, "the section with a count must follow every other section");
  if (tail) fixed = tail->word;
  auto alternative = [&](const Section& sec) {
    return std::any_of(l.sections.begin(), l.sections.end(),
                       [&](const Section& x) { return &x != &sec && overlaps(spec, x, sec); });
  };
  const std::string magic_name =
      l.name.size() > 5 && l.name.ends_with("_desc") ? l.name.substr(0, l.name.size() - 5) : "";
  const bool has_magic = find_field(header, "magic") && spec.magic.count(magic_name);
  const bool has_words = find_field(header, "words") != nullptr;

  o << "// Layout '" << l.name << "': " << l.doc << "\n";
  o << "// words() fills";
  if (has_magic) o << " " << head.name << ".magic (magic::" << magic_name << ")";
  if (has_words) o << (has_magic ? " and" : "") << " " << head.name << ".words";
  o << " and packs every section at its word (absent\n// sections are zero); parse() is its inverse.\n";
  o << "struct " << type << " {\n";
  for (const auto& sec : l.sections) {
    const std::string t = camel(sec.struct_name);
    o << "  ";
    if (sec.count > 1)
      o << "std::vector<" << t << "> " << sec.name << "{};  // up to " << sec.count;
    else if (alternative(sec))
      o << "std::optional<" << t << "> " << sec.name << "{};  // words " << sec.word << "..";
    else
      o << t << " " << sec.name << "{};  // word " << sec.word;
    o << (sec.doc.empty() ? "" : ": " + sec.doc) << "\n";
  }
  o << "\n  static constexpr uint32_t kFixedWords = " << fixed << ";\n";
  o << "  static constexpr uint32_t kMaxWords = layout::" << l.name << "::max_words;\n\n";

  // words()
  o << "  std::vector<uint32_t> words() const {\n";
  if (tail)
    o << "    if (" << tail->name << ".size() > " << tail->count << ")\n      throw std::length_error(\"" << l.name
      << ": \" + std::to_string(" << tail->name << ".size()) + \" " << tail->name << " entries; it holds "
      << tail->count << "\");\n";
  for (size_t i = 0; i < l.sections.size(); ++i)
    for (size_t j = i + 1; j < l.sections.size(); ++j)
      if (overlaps(spec, l.sections[i], l.sections[j]))
        o << "    if (" << l.sections[i].name << " && " << l.sections[j].name
          << ")\n      throw std::invalid_argument(\"" << l.name << ": sections " << l.sections[i].name << " and "
          << l.sections[j].name << " share words; set one\");\n";
  o << "    std::vector<uint32_t> w(kFixedWords";
  if (tail) o << " + " << spec.find_struct(tail->struct_name)->words << " * " << tail->name << ".size()";
  o << ", 0);\n";
  o << "    auto at = [&](std::size_t word) { return std::span<uint32_t>(w).subspan(word); };\n";
  o << "    " << camel(head.struct_name) << " h = " << head.name << ";\n";
  if (has_magic) o << "    h.magic = magic::" << magic_name << ";\n";
  if (has_words) o << "    h.words = static_cast<uint32_t>(w.size());\n";
  o << "    h.encode_to(at(" << head.word << "));\n";
  for (size_t i = 1; i < l.sections.size(); ++i) {
    const Section& sec = l.sections[i];
    if (sec.count > 1) {
      const uint32_t n = spec.find_struct(sec.struct_name)->words;
      o << "    for (std::size_t i = 0; i < " << sec.name << ".size(); ++i) " << sec.name << "[i].encode_to(at("
        << sec.word << " + " << n << " * i));\n";
    } else if (alternative(sec)) {
      o << "    if (" << sec.name << ") " << sec.name << "->encode_to(at(" << sec.word << "));\n";
    } else {
      o << "    " << sec.name << ".encode_to(at(" << sec.word << "));\n";
    }
  }
  o << "    return w;\n  }\n\n";

  // The sections after the header read by `fn` (parse or decode) into d; the tail's entries run
  // while `at + entry words <= tail_end` (`tail_init` declares what tail_end names, if anything).
  auto read_sections = [&](const std::string& fn, const std::string& tail_init, const std::string& tail_end) {
    for (size_t i = 1; i < l.sections.size(); ++i) {
      const Section& sec = l.sections[i];
      const std::string t = camel(sec.struct_name);
      if (sec.count > 1) {
        const uint32_t sw = spec.find_struct(sec.struct_name)->words;
        o << "    for (std::size_t at = kFixedWords" << tail_init << "; at + " << sw << " <= " << tail_end
          << "; at += " << sw << ")\n      d." << sec.name << ".push_back(" << t << "::" << fn << "(w.subspan(at)));\n";
      } else if (alternative(sec)) {
        const Selector s = selector_of(spec, l, header, sec);
        o << "    if (d." << head.name << "." << s.field << " == " << s.enum_type << "::" << s.value << ") d."
          << sec.name << " = " << t << "::" << fn << "(w.subspan(" << sec.word << "));\n";
      } else {
        o << "    d." << sec.name << " = " << t << "::" << fn << "(w.subspan(" << sec.word << "));\n";
      }
    }
  };

  // parse()
  o << "  // The descriptor at the start of `w` (`w` may run on: command memory). Throws ParseError.\n";
  o << "  static " << type << " parse(std::span<const uint32_t> w) {\n";
  o << "    if (w.size() < kFixedWords)\n      throw ParseError(\"" << l.name
    << ": \" + std::to_string(w.size()) + \" words; its fixed part has \" + std::to_string(kFixedWords));\n";
  o << "    " << type << " d;\n";
  o << "    d." << head.name << " = " << camel(head.struct_name) << "::parse(w);\n";
  if (has_magic)
    o << "    if (d." << head.name << ".magic != magic::" << magic_name << ")\n      throw ParseError(\"" << l.name
      << ": magic \" + detail::hex32(d." << head.name << ".magic) + \", not \" + detail::hex32(magic::" << magic_name
      << "));\n";
  std::string n = "kFixedWords";
  if (has_words) {
    n = "d." + head.name + ".words";
    o << "    if (" << n << " < kFixedWords || " << n << " > w.size()";
    if (tail) o << " || (" << n << " - kFixedWords) % " << spec.find_struct(tail->struct_name)->words;
    o << " || " << n << " > kMaxWords)\n      throw ParseError(\"" << l.name << ": " << head.name
      << ".words = \" + std::to_string(" << n << ") + \" with \" + std::to_string(w.size()) +\n"
      << "                       \" words given (fixed part \" + std::to_string(kFixedWords) + \", at most \" + "
         "std::to_string(kMaxWords) + \")\");\n";
  }
  read_sections("parse", "", n);
  o << "    return d;\n  }\n\n";

  // decode(): the device's reading of the same words
  o << "  // The device's reading of the descriptor at the start of `w`: every section's fields (the\n"
       "  // alternative the header selects), the tail entries that fit in "
    << (has_words ? head.name + ".words" : std::string("`w`"))
    << " (at most `w`'s words); bits\n"
       "  // outside the fields, enum values and ranges are not checked (the device's checks give\n"
       "  // its DESC_* codes). Throws std::length_error only when `w` is shorter than the fixed part.\n";
  o << "  static " << type << " decode(std::span<const uint32_t> w) {\n";
  o << "    if (w.size() < kFixedWords)\n      throw std::length_error(\"" << l.name
    << ": \" + std::to_string(w.size()) + \" words; its fixed part has \" + std::to_string(kFixedWords));\n";
  o << "    " << type << " d;\n";
  o << "    d." << head.name << " = " << camel(head.struct_name) << "::decode(w);\n";
  const std::string words_given = "std::size_t{d." + head.name + ".words}";
  read_sections("decode",
                has_words ? ", end = " + words_given + " < w.size() ? " + words_given + " : w.size()" : std::string(),
                has_words ? "end" : "w.size()");
  o << "    return d;\n  }\n";
  o << "  bool operator==(const " << type << "&) const = default;\n};\n\n";
}

}  // namespace

void emit_cpp_layouts(const Spec& spec, std::ostream& o) {
  for (const auto& l : spec.layouts) emit_layout(o, spec, l);
}

}  // namespace axcore::specgen
