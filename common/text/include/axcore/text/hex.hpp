// The project's one spelling of numbers in hex, for messages and printed forms: Python's f"{v:#x}"
// ("0x1f000", "0x0") and f"{v:#0{width}x}" ("0x01000" for width 7, "0x0000002a" for width 10).
// Header-only with no dependencies, so every part can use it (spec/gen included).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace axcore::text {

inline std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// `width` counts the "0x", as Python's does; fewer digits than the value needs are never cut.
inline std::string hex_width(uint64_t v, int width) {
  char buf[32];
  const int digits = width > 2 ? width - 2 : 1;
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace axcore::text
