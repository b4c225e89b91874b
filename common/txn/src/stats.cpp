#include "axcore/txn/stats.hpp"

#include "axcore/txn/trace.hpp"

namespace axcore::txn {

Stats stats(std::span<const uint32_t> words) {
  Stats s;
  const Decoded d = decode(words);
  s.header = d.header;
  s.words = words.size();
  for (const Op& op : d.ops) ++s.ops[std::string(to_string(op.opcode))];
  const Trace t = trace(d, layout_for(d.header));
  for (const Event& e : t.events) {
    ++s.events[std::string(to_string(e.kind))];
    if (e.kind != EventKind::PUSH) continue;
    ChannelStats& c = s.channels[{e.col, e.row, e.dir, e.channel}];
    if (c.name.empty())
      c.name =
          "(" + std::to_string(e.col) + "," + std::to_string(e.row) + ") " +
          (e.queue.empty() ? std::string(to_string(e.dir)) + " ch" + std::to_string(e.channel) : std::string(e.queue));
    ++c.pushes;
    uint64_t words_moved = 0;
    for (const Transfer& tr : e.chain) words_moved += tr.length;
    c.bytes += 4 * words_moved * (uint64_t{e.repeat} + 1);
    c.endless = c.endless || e.loop_to.has_value();
  }
  return s;
}

std::string to_string(const Stats& s) {
  std::string out =
      to_string(s.header) + "\n" + std::to_string(s.words) + " words, " + std::to_string(s.header.num_ops) + " ops:";
  for (const auto& [name, n] : s.ops) out += " " + name + "=" + std::to_string(n);
  uint64_t events = 0;
  for (const auto& [name, n] : s.events) events += n;
  out += "\n" + std::to_string(events) + " events:";
  for (const auto& [name, n] : s.events) out += " " + name + "=" + std::to_string(n);
  if (!s.channels.empty()) out += "\nper channel:";
  for (const auto& [key, c] : s.channels) {
    out += "\n  " + c.name + ": " + std::to_string(c.pushes) + (c.pushes == 1 ? " push" : " pushes");
    if (c.name.find(" ch") != std::string::npos || c.bytes)
      out += ", " + std::to_string(c.bytes) + " bytes" + (c.endless ? " per pass of a looping chain" : "");
  }
  return out;
}

}  // namespace axcore::txn
