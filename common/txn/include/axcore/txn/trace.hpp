// Replays a TXN stream into the register state it programs and reduces it to events (event.hpp):
// push (a write32 to a queue register, resolved to the BD chain or descriptor it runs), wait (TCT),
// write (any register write outside the DMA BD, channel and queue registers), and loadpdi /
// preempt / scratchpad / update_reg / custom ops verbatim. A maskwrite32 or blockwrite reaching a
// queue register only updates its state, as the seed's tracer has it. Polls and noops are not events.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "axcore/txn/decode.hpp"
#include "axcore/txn/event.hpp"
#include "axcore/txn/layout.hpp"

namespace axcore::txn {

struct Trace {
  Header header;
  const Layout* layout = nullptr;
  std::vector<Event> events;
  std::vector<uint32_t> positions;  // word of the op behind each event
};

// Layout from the header's devGen (TraceError if no layout knows it).
Trace trace(std::span<const uint32_t> words);
Trace trace(std::span<const uint32_t> words, const Layout& layout);
Trace trace(const Decoded& decoded, const Layout& layout);

// Register state the host writes before the stream plays (a bundle's command streams preloaded
// into CMD_MEM, its parameters' default values): state the replay starts from, no events.
struct Preset {
  uint64_t addr = 0;
  uint32_t value = 0;
  uint32_t mask = 0xFFFFFFFF;
};
Trace trace(const Decoded& decoded, const Layout& layout, std::span<const Preset> preset);

// The layout of a header's devGen, or TraceError naming the known ones.
const Layout& layout_for(const Header& header);

}  // namespace axcore::txn
