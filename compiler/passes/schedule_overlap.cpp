// The overlap scheduler (issue 21): reorders a lowered program's launches and places its waits
// so that data movement runs while the datapaths compute. lower() hands it the launches in
// program order with only the user's A.sync waits (fences); every other order comes from
// must_order() (sync.hpp): a launch waits only for the earlier launches whose rows, tiles, DDR
// buffers or BDs it shares with one writing, never for everything before it.
//
// The host plays the TXN stream in order and blocks at each wait, so the stream is built as a
// list schedule: repeatedly push the first launch (in program order, within a window) whose
// dependencies are all complete and whose queue has room — a copy needed three layers later
// goes out before the host blocks on this layer's datapath; when nothing is ready, wait for what
// the next launch in program order needs and push it. A launch never passes an earlier pending
// launch of its own channel or queue (those run in push order, so passing one could only delay
// what is needed first), except a task that the model has done before the earlier one's
// dependencies end (backfilling: the queue would idle meanwhile). DDR reads share the data path
// (DdrReads), and a read whose channel lower() left open may change channel (`choose`).
// GCC 12 reports -Wmaybe-uninitialized inside std::variant's move of Step (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "axcore/compiler/sync.hpp"

namespace axcore::compiler {
namespace {

bool is_launch(const Step& s) { return std::holds_alternative<Transfer>(s) || std::holds_alternative<Task>(s); }

// Estimated cycles of a launch (docs/timing.md), only to choose what to wait for first: a copy
// moves axi_data_bytes per beat (from DDR one beat per ddr_latency + 2 cycles while the bridge
// holds one request, as at axi_data_bytes 4); a task its predicted cycles.
uint64_t estimate(const Step& s) {
  if (const auto* t = std::get_if<Transfer>(&s)) {
    const uint64_t bytes = t->words * 4;
    if (!t->ddr_mm2s && !t->ddr_s2mm) return 8 + bytes / spec::param::axi_data_bytes;
    const uint64_t beats = (bytes + spec::param::axi_data_bytes - 1) / spec::param::axi_data_bytes;
    const uint64_t per_beat = spec::param::axi_data_bytes <= 4 ? spec::param::ddr_latency_cycles + 2 : 1;
    return spec::param::ddr_latency_cycles + beats * per_beat;
  }
  return std::get<Task>(s).predicted_cycles;
}

// The DDR reads in flight (docs/timing.md "DDR"): each DMA channel runs its copies one after the
// other, a copy's data starting ddr_latency_cycles after the channel reached it, and the bridge
// interleaves the bursts of every channel streaming at once, so m copies streaming together each
// move 1/m of the data path's beats a cycle. A copy pushed later slows the ones in flight; the
// model keeps the state at the last push and projects every copy's end from there.
class DdrReads {
 public:
  // Adds a copy of `beats` beats pushed at `now` (never earlier than a previous push) on `channel`.
  void push(std::size_t id, uint32_t channel, uint64_t now, uint64_t beats) {
    advance(static_cast<double>(now));
    Read r{id, static_cast<double>(now), static_cast<double>(beats), 0};
    auto& q = chan_[channel];
    if (q.empty()) r.data_start = std::max(r.push, last_end_[channel]) + spec::param::ddr_latency_cycles;
    q.push_back(r);
  }
  // The projected end of every copy not finished at the last push (id -> cycle).
  std::map<std::size_t, uint64_t> project() const {
    DdrReads f = *this;
    std::map<std::size_t, uint64_t> ends;
    f.run(std::numeric_limits<double>::infinity(), &ends);
    return ends;
  }
  // When `channel` finishes the copies it holds (projected), or `now` if it holds none.
  double channel_free(uint32_t channel, const std::map<std::size_t, uint64_t>& ends, uint64_t now) const {
    auto it = chan_.find(channel);
    if (it == chan_.end() || it->second.empty()) return std::max(static_cast<double>(now), end_of(channel));
    return static_cast<double>(ends.at(it->second.back().id));
  }

 private:
  struct Read {
    std::size_t id;
    double push, beats, data_start;  // data_start: set when the copy heads its channel
  };
  double end_of(uint32_t channel) const {
    auto it = last_end_.find(channel);
    return it == last_end_.end() ? 0.0 : it->second;
  }
  void advance(double to) { run(to, nullptr); }
  // Moves the model to cycle `to`, recording the ends of the copies that finish on the way.
  void run(double to, std::map<std::size_t, uint64_t>* ends) {
    while (t_ < to) {
      std::size_t m = 0;
      double next = to;
      for (const auto& [c, q] : chan_) {
        if (q.empty()) continue;
        if (q.front().data_start <= t_)
          ++m;
        else
          next = std::min(next, q.front().data_start);
      }
      for (const auto& [c, q] : chan_)
        if (!q.empty() && q.front().data_start <= t_)
          next = std::min(next, t_ + q.front().beats * static_cast<double>(m));
      if (next == std::numeric_limits<double>::infinity()) return;
      const double dt = next - t_;
      t_ = next;
      for (auto& [c, q] : chan_) {
        if (q.empty() || q.front().data_start > t_ - dt) continue;
        Read& r = q.front();
        r.beats -= dt / static_cast<double>(m);
        if (r.beats > 1e-6) continue;
        if (ends) (*ends)[r.id] = static_cast<uint64_t>(std::ceil(t_));
        last_end_[c] = t_;
        q.pop_front();
        if (!q.empty()) q.front().data_start = std::max(q.front().push, t_) + spec::param::ddr_latency_cycles;
      }
    }
  }
  double t_ = 0;
  std::map<uint32_t, std::deque<Read>> chan_;
  std::map<uint32_t, double> last_end_;
};

// Two dependency ends closer than this are a tie for the overlap scheduler's waits (a quarter of
// a DDR latency: the model's error on a copy's end; measured on the example models, 2026-12-07).
constexpr uint64_t kNearTie = spec::param::ddr_latency_cycles / 4;

}  // namespace

void schedule_overlap(Program& p, const OverlapOptions& opt) {
  // Launches in program order, their dependencies (indices into `launch`), the fences.
  std::vector<std::size_t> launch;  // old step index of launch n
  std::map<std::size_t, std::size_t> number;
  std::vector<std::set<std::size_t>> deps;
  std::set<std::size_t> fenced;  // launches some A.sync waited so far (program order)
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const Step& s = p.steps[i];
    if (const auto* w = std::get_if<Wait>(&s)) {
      fenced.insert(number.at(w->launch));
      continue;
    }
    if (!is_launch(s)) continue;
    const std::size_t n = launch.size();
    number[i] = n;
    launch.push_back(i);
    std::set<std::size_t> d(fenced.begin(), fenced.end());
    for (std::size_t j = 0; j < n; ++j)
      if (must_order(s, p.steps[launch[j]])) d.insert(j);
    deps.push_back(std::move(d));
  }

  std::vector<Step> out;
  std::vector<std::size_t> new_index(launch.size(), 0);
  std::vector<bool> pushed(launch.size(), false), done(launch.size(), false);
  std::map<LaunchKey, std::deque<std::size_t>> fifo;  // pushed, not waited, in push order
  std::size_t in_flight = 0;
  std::vector<std::string> notes, reorder_notes;

  // A model of the run: when each launch ends (its key runs in push order, after the host pushed
  // it), and where the host is (it waits for a token until the launch ends).
  std::vector<uint64_t> end(launch.size(), 0);
  std::map<LaunchKey, uint64_t> key_free;
  uint64_t host = 0;
  auto key = [&](std::size_t n) { return launch_key(p.steps[launch[n]]); };
  // The keys a launch may run on: its own, or every channel of its engine for a DDR read whose
  // channel is open (Transfer::any_channel).
  auto keys = [&](std::size_t n) {
    const LaunchKey k = key(n);
    const auto* t = std::get_if<Transfer>(&p.steps[launch[n]]);
    if (!t || !t->any_channel) return std::vector<LaunchKey>{k};
    std::vector<LaunchKey> all;
    for (uint32_t c = 0; c < spec::param::dma_channels; ++c) all.push_back(LaunchKey{k.kind, k.where, c});
    return all;
  };
  auto retire = [&](std::size_t n) {  // waits for n and, first, the earlier pushes of its key
    if (done[n]) return;
    auto& q = fifo[key(n)];
    while (!done[n]) {
      const std::size_t e = q.front();
      q.pop_front();
      out.push_back(Wait{new_index[e]});
      host = std::max(host, end[e]);
      done[e] = true;
      --in_flight;
    }
  };
  auto room = [&](const LaunchKey& k) { return fifo[k].size() < opt.queue_depth && in_flight < opt.max_in_flight; };
  auto make_room = [&](const LaunchKey& on) {
    while (fifo[on].size() >= opt.queue_depth) retire(fifo[on].front());
    while (in_flight >= opt.max_in_flight) {
      std::size_t oldest = launch.size();
      for (const auto& [k, q] : fifo)
        if (!q.empty() && (oldest == launch.size() || new_index[q.front()] < new_index[oldest])) oldest = q.front();
      retire(oldest);
    }
  };
  // DDR reads of all channels share the DDR's data path (DdrReads).
  DdrReads ddr;
  std::map<std::size_t, uint64_t> ddr_ends;  // projected ends of the reads in flight
  // A copy with an open channel stays on lower()'s alternating channel unless the other channel
  // frees (in the model) earlier by more than 1.5 times the copy's own time: then it would queue
  // behind a long copy while the other channel idles (cnn: both halves of w2 on channel 0 behind
  // w1, the image's channel empty, and the linear's weight chunks taking the data path from w2
  // there). A smaller gap keeps the alternation, whose order is the need order. The copy waits
  // for room on the channel chosen.
  auto choose = [&](std::size_t n) {
    const auto* t = std::get_if<Transfer>(&p.steps[launch[n]]);
    if (!t || !t->any_channel) return key(n);
    LaunchKey best = key(n);
    const double margin = 1.5 * static_cast<double>(estimate(p.steps[launch[n]]));
    for (const LaunchKey& k : keys(n))
      if (ddr.channel_free(k.which, ddr_ends, host) + margin < ddr.channel_free(best.which, ddr_ends, host)) best = k;
    return best;
  };
  auto place = [&](std::size_t n, const LaunchKey& best) {
    auto* t = std::get_if<Transfer>(&p.steps[launch[n]]);
    if (!t || !t->any_channel) return;
    if (best.which != t->channel)
      reorder_notes.push_back(t->name + ": DMA channel " + std::to_string(best.which) + ", not lower()'s " +
                              std::to_string(t->channel) + " (that one frees later by more than 1.5 times the copy)");
    t->channel = best.which;
    t->any_channel = false;
  };
  auto push = [&](std::size_t n, const LaunchKey& k) {  // k: choose(n) when the queue had room
    place(n, k);
    const Step& st = p.steps[launch[n]];
    if (const auto* t = std::get_if<Transfer>(&st); t && t->ddr_mm2s) {
      ddr.push(n, t->channel, host, estimate(st) - spec::param::ddr_latency_cycles);
      ddr_ends = ddr.project();
      for (const auto& [m, e] : ddr_ends) end[m] = e;  // a new read slows the ones in flight
      key_free[key(n)] = end[n];
    } else {
      end[n] = std::max(host, key_free[key(n)]) + estimate(st);
      key_free[key(n)] = end[n];
    }
    host += 4;  // a few register writes
    Step s = st;
    new_index[n] = out.size();
    out.push_back(std::move(s));
    pushed[n] = true;
    fifo[key(n)].push_back(n);
    ++in_flight;
  };

  // When the dependencies of n not waited yet end in the model (all pushed), or none if one is not.
  auto deps_end = [&](std::size_t n) -> std::optional<uint64_t> {
    uint64_t last = 0;
    for (std::size_t d : deps[n]) {
      if (!pushed[d]) return std::nullopt;
      if (!done[d]) last = std::max(last, end[d]);
    }
    return last;
  };
  // Backfilling: a task may go before the earlier pending tasks of its core queue (`before`, the
  // first of them `before.front()`) when the model has it done before the first could start
  // (its dependencies end later), and it touches nothing they touch: the queue would idle
  // meanwhile (a LoadIMC of a matrix whose copy landed, while the next one in program order
  // waits for its copy).
  auto can_pass = [&](std::size_t c, const std::vector<std::size_t>& before) {
    if (before.empty() || key(c).kind != 1) return false;
    const auto fe = deps_end(before.front()), ce = deps_end(c);
    if (!fe || !ce) return false;
    const uint64_t start = std::max({host, *ce, key_free[key(c)]});
    if (start + estimate(p.steps[launch[c]]) > *fe) return false;
    for (std::size_t b : before)
      if (footprints_conflict(p.steps[launch[c]], p.steps[launch[b]])) return false;
    return true;
  };
  const auto name = [&](std::size_t x) {
    const Step& s = p.steps[launch[x]];
    return std::holds_alternative<Transfer>(s) ? std::get<Transfer>(s).name : std::get<Task>(s).name;
  };
  auto note_backfill = [&](std::size_t n, std::size_t first) {
    reorder_notes.push_back(
        name(n) + ": before " + name(first) + " in its queue (done at ~" +
        std::to_string(std::max({host, *deps_end(n), key_free[key(n)]}) + estimate(p.steps[launch[n]])) +
        " in the model, before what " + name(first) + " waits for ends at ~" + std::to_string(*deps_end(first)) + ")");
  };
  std::deque<std::size_t> pending;
  for (std::size_t n = 0; n < launch.size(); ++n) pending.push_back(n);
  while (!pending.empty()) {
    bool progress = false;
    std::map<LaunchKey, std::vector<std::size_t>> passed;  // earlier pending launches per key (not overtaken)
    for (std::size_t k = 0; k < pending.size() && k < opt.window; ++k) {
      const std::size_t n = pending[k];
      const LaunchKey kn = key(n), on = choose(n);
      const bool passes = passed.count(kn) != 0;
      bool ready = !(passes && !can_pass(n, passed[kn])) && !(on != kn && passed.count(on)) && room(on);
      for (std::size_t d : deps[n]) ready = ready && pushed[d] && done[d];
      if (!ready) {  // every launch left behind counts for the ones after it (an open channel: on any)
        for (const LaunchKey& c : keys(n)) passed[c].push_back(n);
        continue;
      }
      if (passes) note_backfill(n, passed[kn].front());
      push(n, on);
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
      progress = true;
      break;
    }
    if (progress) continue;
    // Nothing is ready: wait for the candidate whose dependencies end first in the model, the
    // next in program order on a tie (a unit's queue is refilled before the host blocks on a
    // copy that ends later). A tie is anything within kNearTie cycles: the model's DDR ends are
    // no better than that, and the earlier launch is the one the program needs first.
    std::size_t pick = 0, passes_first = 0;  // passes_first: 1 + the launch a backfilled pick goes before
    uint64_t best = UINT64_MAX;
    std::map<LaunchKey, std::vector<std::size_t>> ahead;
    for (std::size_t k = 0; k < pending.size() && k < opt.window; ++k) {
      const std::size_t c = pending[k];
      auto& before = ahead[key(c)];
      const bool first = before.empty();
      before.push_back(c);
      if (!first && !can_pass(c, std::vector<std::size_t>(before.begin(), before.end() - 1))) continue;
      const auto last = deps_end(c);
      if (!last) continue;
      if (best == UINT64_MAX || *last + kNearTie < best)
        best = *last, pick = k, passes_first = first ? 0 : before.front() + 1;
    }
    if (passes_first) note_backfill(pending[pick], passes_first - 1);
    const std::size_t n = pending[pick];
    for (std::size_t d : deps[n])
      if (!done[d]) {
        const std::string why = order_reason(p.steps[launch[n]], p.steps[launch[d]]);
        if (!why.empty()) { notes.push_back(name(n) + " waits for " + name(d) + ": " + why); }
        retire(d);
      }
    const LaunchKey on = choose(n);
    make_room(on);
    push(n, on);
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  // Everything is waited before the program ends, in push order.
  std::vector<std::size_t> rest;
  for (std::size_t n = 0; n < launch.size(); ++n)
    if (!done[n]) rest.push_back(n);
  std::sort(rest.begin(), rest.end(), [&](std::size_t a, std::size_t b) { return new_index[a] < new_index[b]; });
  for (std::size_t n : rest) retire(n);
  // The race verifier sees launches in flight together; a task moved before another of its queue
  // is never in flight with it, so check here that every pair touching the same thing with one
  // writing kept its program order (an internal error otherwise, never a wrong result).
  for (std::size_t a = 0; a < launch.size(); ++a)
    for (std::size_t b = a + 1; b < launch.size(); ++b)
      if (new_index[b] < new_index[a] && footprints_conflict(p.steps[launch[a]], p.steps[launch[b]]))
        throw std::logic_error("schedule_overlap: " + name(b) + " was moved before " + name(a) +
                               ", which touches what it touches");
  p.steps = std::move(out);
  p.sync_notes = std::move(notes);
  p.reorder_notes = std::move(reorder_notes);
}

}  // namespace axcore::compiler
