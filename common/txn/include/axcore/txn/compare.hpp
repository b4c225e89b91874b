// Semantic comparison and listing of TXN streams. Two streams are equivalent when their headers
// name the same device and their event lists are equal (every field, printed or not).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "axcore/txn/trace.hpp"

namespace axcore::txn {

// The differences, empty when equivalent: "headers differ:\n  a: ...\n  b: ...", or
// "event i differs:\n  a: ...\n  b: ..." for the first differing event (plus a line naming the
// field when both print alike), then "a has N events, b has M" when the counts differ.
std::vector<std::string> compare(std::span<const uint32_t> a, std::span<const uint32_t> b,
                                 std::array<std::string_view, 2> names = {"a", "b"});

// One line per event, f"{index:4d} {event}"; with raw, one line per decoded op (header first).
std::string explain(std::span<const uint32_t> words, bool raw = false);
// The same over the state the host writes before the stream (a bundle's preloaded command
// streams and parameter defaults, trace.hpp Preset): descriptors the TXN never writes itself.
std::string explain(std::span<const uint32_t> words, std::span<const Preset> preset);

}  // namespace axcore::txn
