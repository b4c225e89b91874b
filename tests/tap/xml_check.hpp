// A strict little XML reader for the SVG tests: elements, quoted attributes, text with the five
// predefined entities, comments and the XML declaration. Throws std::runtime_error on anything
// malformed (unbalanced or mismatched tags, unquoted attributes, a stray '<' or '&').
#pragma once

#include <cctype>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace axcore::tap::testing {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<std::unique_ptr<XmlElement>> children;
  std::string text;

  // Every descendant (self included) named `tag` whose `class` attribute is `cls` (if given).
  void find_all(const std::string& tag, const std::string& cls, std::vector<const XmlElement*>& out) const {
    if (name == tag && (cls.empty() || (attrs.count("class") && attrs.at("class") == cls))) out.push_back(this);
    for (const auto& c : children) c->find_all(tag, cls, out);
  }
  std::vector<const XmlElement*> all(const std::string& tag, const std::string& cls = "") const {
    std::vector<const XmlElement*> out;
    find_all(tag, cls, out);
    return out;
  }
};

class XmlReader {
 public:
  explicit XmlReader(std::string text) : s_(std::move(text)) {}

  std::unique_ptr<XmlElement> parse() {
    skip_ws();
    if (s_.compare(i_, 5, "<?xml") == 0) {
      auto end = s_.find("?>", i_);
      if (end == std::string::npos) fail("unterminated XML declaration");
      i_ = end + 2;
    }
    skip_misc();
    auto root = element();
    skip_misc();
    if (i_ != s_.size()) fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("malformed XML at offset " + std::to_string(i_) + ": " + why);
  }
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void skip_misc() {
    for (skip_ws(); s_.compare(i_, 4, "<!--") == 0; skip_ws()) {
      auto end = s_.find("-->", i_);
      if (end == std::string::npos) fail("unterminated comment");
      i_ = end + 3;
    }
  }
  std::string name() {
    std::size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' || s_[i_] == '_' ||
                              s_[i_] == ':' || s_[i_] == '.'))
      ++i_;
    if (start == i_) fail("expected a name");
    return s_.substr(start, i_ - start);
  }
  std::string chars(char stop) {
    std::string out;
    while (i_ < s_.size() && s_[i_] != stop) {
      if (s_[i_] == '<') fail("'<' in text or attribute");
      if (s_[i_] == '&') {
        static const std::pair<const char*, char> kEntities[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool ok = false;
        for (auto [ent, ch] : kEntities) {
          std::string e(ent);
          if (s_.compare(i_, e.size(), e) == 0) {
            out += ch;
            i_ += e.size();
            ok = true;
            break;
          }
        }
        if (!ok) fail("bad entity");
        continue;
      }
      out += s_[i_++];
    }
    return out;
  }
  std::unique_ptr<XmlElement> element() {
    if (i_ >= s_.size() || s_[i_] != '<') fail("expected '<'");
    ++i_;
    auto el = std::make_unique<XmlElement>();
    el->name = name();
    for (;;) {
      skip_ws();
      if (i_ >= s_.size()) fail("unterminated tag");
      if (s_.compare(i_, 2, "/>") == 0) {
        i_ += 2;
        return el;
      }
      if (s_[i_] == '>') {
        ++i_;
        break;
      }
      std::string key = name();
      skip_ws();
      if (i_ >= s_.size() || s_[i_] != '=') fail("expected '=' after attribute " + key);
      ++i_;
      skip_ws();
      if (i_ >= s_.size() || s_[i_] != '"') fail("attribute " + key + " is not double-quoted");
      ++i_;
      std::string value = chars('"');
      if (i_ >= s_.size()) fail("unterminated attribute");
      ++i_;
      if (!el->attrs.emplace(key, value).second) fail("duplicate attribute " + key);
    }
    for (;;) {
      el->text += chars('<');
      if (i_ >= s_.size()) fail("unterminated element " + el->name);
      if (s_.compare(i_, 4, "<!--") == 0) {
        skip_misc();
        continue;
      }
      if (s_.compare(i_, 2, "</") == 0) {
        i_ += 2;
        if (name() != el->name) fail("mismatched end tag for " + el->name);
        skip_ws();
        if (i_ >= s_.size() || s_[i_] != '>') fail("expected '>'");
        ++i_;
        return el;
      }
      el->children.push_back(element());
    }
  }

  std::string s_;
  std::size_t i_ = 0;
};

inline std::unique_ptr<XmlElement> parse_xml(const std::string& text) { return XmlReader(text).parse(); }

}  // namespace axcore::tap::testing
