#include "axcore/txn/compare.hpp"

#include <algorithm>
#include <cstdio>

#include "axcore/txn/trace.hpp"

namespace axcore::txn {

std::vector<std::string> compare(std::span<const uint32_t> a, std::span<const uint32_t> b,
                                 std::array<std::string_view, 2> names) {
  const std::string na(names[0]), nb(names[1]);
  const Decoded da = decode(a), db = decode(b);
  if (!da.header.device.same_device(db.header.device))
    return {"headers differ:\n  " + na + ": " + to_string(da.header) + "\n  " + nb + ": " + to_string(db.header)};
  const Layout& layout = layout_for(da.header);
  const Trace ta = trace(da, layout), tb = trace(db, layout);
  std::vector<std::string> out;
  const std::size_t n = std::min(ta.events.size(), tb.events.size());
  for (std::size_t i = 0; i < n; ++i) {
    const Event &x = ta.events[i], &y = tb.events[i];
    if (x == y) continue;
    const std::string sx = to_string(x), sy = to_string(y);
    std::string d = "event " + std::to_string(i) + " differs:\n  " + na + ": " + sx + "\n  " + nb + ": " + sy;
    if (sx == sy) d += "\n  (" + first_difference(x, y) + ")";
    out.push_back(std::move(d));
    break;
  }
  if (ta.events.size() != tb.events.size())
    out.push_back(na + " has " + std::to_string(ta.events.size()) + " events, " + nb + " has " +
                  std::to_string(tb.events.size()));
  return out;
}

std::string explain(std::span<const uint32_t> words, bool raw) {
  std::string out;
  if (raw) {
    const Decoded d = decode(words);
    out = "     0 header " + to_string(d.header);
    for (const Op& op : d.ops) out += "\n" + to_string(op);
    return out;
  }
  return explain(words, std::span<const Preset>{});
}

std::string explain(std::span<const uint32_t> words, std::span<const Preset> preset) {
  const Decoded d = decode(words);
  const Trace t = trace(d, layout_for(d.header), preset);
  std::string out;
  char index[32];
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    std::snprintf(index, sizeof index, "%4zu ", i);
    if (i) out += "\n";
    out += index + to_string(t.events[i]);
  }
  return out;
}

}  // namespace axcore::txn
