// Number spellings of the txn_trace printed forms (Python's `#x`, `#07x`, `#010x`).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "axcore/text/hex.hpp"

namespace axcore::txn {

using text::hex;                                     // "0x1f000", "0x0" (Python f"{v:#x}")
using text::hex_width;                               // f"{v:#0{width}x}": "0x01000" for width 7
std::string signed_hex(int64_t v);                   // "-0x40" / "0x40"
std::string word_list(std::span<const uint32_t> v);  // "[1, 2]" (Python list of ints)
std::string hex_list(std::span<const uint32_t> v);   // "[0x1, 0x20]"

}  // namespace axcore::txn
