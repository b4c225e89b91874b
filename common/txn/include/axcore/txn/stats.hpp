// Counts for `axtxn stats`: ops per opcode, events per kind, bytes moved per DMA channel and
// tasks per command queue.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>

#include "axcore/txn/header.hpp"
#include "axcore/txn/op.hpp"

namespace axcore::txn {

struct ChannelKey {
  uint32_t col = 0, row = 0;
  Dir dir = Dir::S2MM;
  uint32_t channel = 0;
  auto operator<=>(const ChannelKey&) const = default;
};

struct ChannelStats {
  std::string name;  // "(0,0) MM2S ch0" or "(0,2) MVMEXE"
  uint64_t pushes = 0;
  uint64_t bytes = 0;    // DMA: 4 * length summed over the chain, times repeat + 1
  bool endless = false;  // a chain that loops moves data until the channel is reset
};

struct Stats {
  Header header;
  std::size_t words = 0;
  std::map<std::string, uint64_t> ops;     // by opcode name
  std::map<std::string, uint64_t> events;  // by event kind
  std::map<ChannelKey, ChannelStats> channels;
};

Stats stats(std::span<const uint32_t> words);
std::string to_string(const Stats& s);

}  // namespace axcore::txn
