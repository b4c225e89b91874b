#include "axcore/txn/text.hpp"

#include <cstdio>

namespace axcore::txn {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string hex_width(uint64_t v, int width) {
  char buf[32];
  const int digits = width > 2 ? width - 2 : 1;
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

std::string signed_hex(int64_t v) {
  if (v < 0) return "-" + hex(0 - static_cast<uint64_t>(v));
  return hex(static_cast<uint64_t>(v));
}

std::string word_list(std::span<const uint32_t> v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string hex_list(std::span<const uint32_t> v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + hex(v[i]);
  return s + "]";
}

}  // namespace axcore::txn
