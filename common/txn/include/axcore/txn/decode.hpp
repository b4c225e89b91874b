// Splits a TXN stream into ops, validating the header and every op's extent. Malformed input
// never crashes: it throws DecodeError naming the word.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "axcore/txn/error.hpp"
#include "axcore/txn/header.hpp"
#include "axcore/txn/op.hpp"

namespace axcore::txn {

struct Decoded {
  Header header;
  std::vector<Op> ops;  // header excluded; each op views the words passed to decode()
};

// The ops view `words`: keep it alive while they are used.
Decoded decode(std::span<const uint32_t> words);
Decoded decode(std::vector<uint32_t>&&) = delete;  // the ops would dangle

// Reads the header alone (throws DecodeError for a stream shorter than 4 words).
Header decode_header(std::span<const uint32_t> words);

}  // namespace axcore::txn
