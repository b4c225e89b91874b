// Bit-field reads for the layouts (LSB-first within a word).
#pragma once

#include <cstdint>

namespace axcore::txn::detail {

constexpr uint32_t bits(uint32_t word, unsigned lsb, unsigned width) {
  return width >= 32 ? word >> lsb : (word >> lsb) & ((1u << width) - 1);
}

}  // namespace axcore::txn::detail
