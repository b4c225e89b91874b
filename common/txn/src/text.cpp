#include "axcore/txn/text.hpp"

namespace axcore::txn {

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
