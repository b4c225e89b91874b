#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

#include <axcore/spec.hpp>

#include "axcore/runtime/trace_tools.hpp"

namespace axcore::runtime {
namespace {

// A stream: (col, row, unit, source). `source` is -1 except for TOKEN records, which the token
// unit commits on behalf of the channel or queue that finished a task: each issuer is its own
// stream (source = the token's col/row/dir/channel bits), because the order in which concurrent
// tasks of different channels finish is timing (a DMA pair's MM2S and S2MM finish a few cycles
// apart, and a TLM with other latencies may swap them) while one issuer's tokens keep a strict order.
// Likewise a core's CMDPROC TASK_START/TASK_DONE records: the four queues run concurrently (a
// LoadIMC or a DWPU task beside an MVMEXE one), so how the records of different queues interleave
// is timing; each descriptor (source = its CMD_MEM word) is its own stream, and one descriptor's
// runs keep a strict order (a queue runs its tasks in push order; the HOST stream orders the pushes).
using Key = StreamKey;
using Streams = std::map<Key, std::vector<const trace::Record*>>;

int64_t source_of(const trace::Record& r) {
  if (r.unit == trace::Unit::CMDPROC && (r.kind == trace::Kind::TASK_START || r.kind == trace::Kind::TASK_DONE))
    return static_cast<int64_t>(r.addr);
  if (r.kind != trace::Kind::TOKEN) return -1;
  // the token's issuer fields (col, row, dir, channel) in their token bits
  const auto t = spec::Token::decode_word(r.token);
  spec::Token issuer;
  issuer.col = t.col, issuer.row = t.row, issuer.dir = t.dir, issuer.channel = t.channel;
  return issuer.encode_word();
}

Streams split(const std::vector<trace::Record>& v) {
  Streams s;
  for (const auto& r : v) s[stream_key(r)].push_back(&r);
  return s;
}

std::string source_text(int64_t src) {
  const auto t = spec::Token::decode_word(static_cast<uint32_t>(src));
  const uint32_t ch = t.channel, dir = t.dir;
  std::string s = " from (" + std::to_string(t.col) + "," + std::to_string(t.row) + ") ";
  if (ch >= spec::param::core_queue_channel_base)
    return s + std::string(spec::to_string(static_cast<spec::Queue>(ch - spec::param::core_queue_channel_base))) +
           " queue";
  return s + (dir ? "MM2S" : "S2MM") + " ch" + std::to_string(ch);
}

std::string key_text(const Key& k) {
  const std::string unit = "(" + std::to_string(std::get<0>(k)) + "," + std::to_string(std::get<1>(k)) + ") " +
                           std::string(trace::to_string(std::get<2>(k)));
  if (std::get<3>(k) < 0) return unit;
  if (std::get<2>(k) == trace::Unit::CMDPROC) return unit + " descriptor at word " + std::to_string(std::get<3>(k));
  return unit + source_text(std::get<3>(k));
}

uint64_t last_cycle(const std::vector<trace::Record>& v) {
  uint64_t c = 0;
  for (const auto& r : v) c = std::max(c, r.cycle);
  return c;
}

}  // namespace

StreamKey stream_key(const trace::Record& r) { return {r.col, r.row, r.unit, source_of(r)}; }

CompareResult compare_traces(const std::vector<trace::Record>& a, const std::vector<trace::Record>& b,
                             const CompareOptions& opt) {
  CompareResult res;
  const Streams sa = split(a), sb = split(b);
  std::map<Key, int> keys;
  for (const auto& [k, v] : sa) keys[k] |= 1;
  for (const auto& [k, v] : sb) keys[k] |= 2;
  static const std::vector<const trace::Record*> kNone;
  struct Found {
    UnitDivergence d;
    uint64_t order;  // A's seq at the divergence (or past its end)
  };
  std::vector<Found> found;
  std::ostringstream unit_lines;
  for (const auto& [k, which] : keys) {
    ++res.units;
    const auto& x = which & 1 ? sa.at(k) : kNone;
    const auto& y = which & 2 ? sb.at(k) : kNone;
    size_t i = 0;
    while (i < x.size() && i < y.size() && x[i]->same_transaction(*y[i])) ++i;
    res.matched += i;
    if (i == x.size() && i == y.size()) continue;
    UnitDivergence d{std::get<0>(k), std::get<1>(k), std::get<2>(k), i, i == x.size(), i == y.size(), std::get<3>(k)};
    const uint64_t order = i < x.size() ? x[i]->seq : (x.empty() ? 0 : x.back()->seq + 1);
    found.push_back({d, order});
  }
  std::sort(found.begin(), found.end(), [](const Found& p, const Found& q) { return p.order < q.order; });
  for (const auto& f : found) res.divergences.push_back(f.d);
  res.equivalent = found.empty();
  const uint64_t ca = last_cycle(a), cb = last_cycle(b);
  res.cycle_ratio = cb ? static_cast<double>(ca) / static_cast<double>(cb) : 0;

  std::ostringstream o;
  const auto& [na, nb] = opt.names;
  o << na << ": " << a.size() << " records, " << nb << ": " << b.size() << " records, " << res.units
    << " unit streams\n";
  if (res.equivalent) {
    o << "equivalent: " << res.matched << " records match in every unit stream\n";
  } else {
    const UnitDivergence& d = res.divergences.front();
    const Key k{d.col, d.row, d.unit, d.source};
    const auto& x = sa.count(k) ? sa.at(k) : kNone;
    const auto& y = sb.count(k) ? sb.at(k) : kNone;
    o << "first divergence in " << key_text(k) << " at record " << d.index << " of that unit:\n";
    const size_t from = d.index > opt.context ? d.index - opt.context : 0;
    if (from < d.index) o << "  last " << (d.index - from) << " matching:\n";
    for (size_t i = from; i < d.index; ++i) o << "    " << describe_record(*x[i]) << "\n";
    o << "  " << na << ": " << (d.a_ended ? "(no more records)" : describe_record(*x[d.index])) << "\n";
    o << "  " << nb << ": " << (d.b_ended ? "(no more records)" : describe_record(*y[d.index])) << "\n";
    if (!d.a_ended && !d.b_ended) o << "  differs in " << record_difference(*x[d.index], *y[d.index]) << "\n";
    for (const auto& dv : res.divergences) {
      const Key kk{dv.col, dv.row, dv.unit, dv.source};
      const size_t lx = sa.count(kk) ? sa.at(kk).size() : 0, ly = sb.count(kk) ? sb.at(kk).size() : 0;
      o << "  " << key_text(kk) << ": diverges at record " << dv.index;
      if (lx != ly)
        o << "; tail: " << (lx > ly ? na : nb) << " has " << (lx > ly ? lx - ly : ly - lx) << " more records";
      o << "\n";
    }
    o << res.divergences.size() << " of " << res.units << " unit streams diverge\n";
  }
  char ratio[64];
  std::snprintf(ratio, sizeof ratio, "%.4f", res.cycle_ratio);
  o << "cycles: " << na << " " << ca << ", " << nb << " " << cb << ", ratio " << na << "/" << nb << " " << ratio
    << "\n";
  res.report = o.str();
  return res;
}

void show_trace(std::ostream& out, const std::vector<trace::Record>& recs, const ShowOptions& opt) {
  std::map<std::tuple<uint8_t, uint8_t, trace::Unit, trace::Kind>, uint64_t> counts;
  size_t shown = 0;
  for (const auto& r : recs) {
    if (opt.row >= 0 && r.row != opt.row) continue;
    if (!opt.unit.empty() && trace::to_string(r.unit) != opt.unit) continue;
    ++counts[{r.col, r.row, r.unit, r.kind}];
    if (!opt.summary && shown < opt.limit) {
      out << trace::format(r) << "\n";
      ++shown;
    }
  }
  if (opt.summary) {
    for (const auto& [k, n] : counts)
      out << "(" << unsigned(std::get<0>(k)) << "," << unsigned(std::get<1>(k)) << ") "
          << trace::to_string(std::get<2>(k)) << " " << trace::to_string(std::get<3>(k)) << ": " << n << "\n";
  }
}

}  // namespace axcore::runtime
