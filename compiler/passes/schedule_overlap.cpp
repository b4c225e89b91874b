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
// what is needed first).
// GCC 12 reports -Wmaybe-uninitialized inside std::variant's move of Step (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <set>

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
  std::vector<std::string> notes;

  // A model of the run: when each launch ends (its key runs in push order, after the host pushed
  // it), and where the host is (it waits for a token until the launch ends).
  std::vector<uint64_t> end(launch.size(), 0);
  std::map<LaunchKey, uint64_t> key_free;
  uint64_t host = 0;
  auto key = [&](std::size_t n) { return launch_key(p.steps[launch[n]]); };
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
  auto room = [&](std::size_t n) { return fifo[key(n)].size() < opt.queue_depth && in_flight < opt.max_in_flight; };
  auto make_room = [&](std::size_t n) {
    while (fifo[key(n)].size() >= opt.queue_depth) retire(fifo[key(n)].front());
    while (in_flight >= opt.max_in_flight) {
      std::size_t oldest = launch.size();
      for (const auto& [k, q] : fifo)
        if (!q.empty() && (oldest == launch.size() || new_index[q.front()] < new_index[oldest])) oldest = q.front();
      retire(oldest);
    }
  };
  // DDR reads of all channels share the DDR's data path (the bridge interleaves their bursts), so
  // a read copy's data follows the data of the reads pushed before it.
  uint64_t ddr_read_free = 0;
  auto push = [&](std::size_t n) {
    const uint64_t start = std::max(host, key_free[key(n)]);
    end[n] = start + estimate(p.steps[launch[n]]);
    if (const auto* t = std::get_if<Transfer>(&p.steps[launch[n]]); t && t->ddr_mm2s) {
      const uint64_t data = end[n] - start - spec::param::ddr_latency_cycles;
      end[n] = std::max(end[n], ddr_read_free + data);
      ddr_read_free = end[n];
    }
    key_free[key(n)] = end[n];
    host += 4;  // a few register writes
    Step s = p.steps[launch[n]];
    new_index[n] = out.size();
    out.push_back(std::move(s));
    pushed[n] = true;
    fifo[key(n)].push_back(n);
    ++in_flight;
  };

  std::deque<std::size_t> pending;
  for (std::size_t n = 0; n < launch.size(); ++n) pending.push_back(n);
  while (!pending.empty()) {
    bool progress = false;
    std::set<LaunchKey> passed;  // keys of earlier pending launches (not to be overtaken)
    for (std::size_t k = 0; k < pending.size() && k < opt.window; ++k) {
      const std::size_t n = pending[k];
      const LaunchKey kn = key(n);
      if (passed.count(kn)) continue;
      bool ready = room(n);
      for (std::size_t d : deps[n]) ready = ready && pushed[d] && done[d];
      if (!ready) {
        passed.insert(kn);
        continue;
      }
      push(n);
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
      progress = true;
      break;
    }
    if (progress) continue;
    // Nothing is ready: wait for the candidate whose dependencies end first in the model, the
    // next in program order on a tie (a unit's queue is refilled before the host blocks on a
    // copy that ends later).
    std::size_t pick = 0;
    uint64_t best = UINT64_MAX;
    std::set<LaunchKey> ahead;
    for (std::size_t k = 0; k < pending.size() && k < opt.window; ++k) {
      const std::size_t c = pending[k];
      if (ahead.count(key(c))) continue;
      ahead.insert(key(c));
      uint64_t last = 0;
      bool all_pushed = true;
      for (std::size_t d : deps[c]) {
        all_pushed = all_pushed && pushed[d];
        if (pushed[d] && !done[d]) last = std::max(last, end[d]);
      }
      if (!all_pushed) continue;
      if (last < best) best = last, pick = k;
    }
    const std::size_t n = pending[pick];
    for (std::size_t d : deps[n])
      if (!done[d]) {
        const std::string why = order_reason(p.steps[launch[n]], p.steps[launch[d]]);
        if (!why.empty()) {
          const auto name = [&](std::size_t x) {
            const Step& s = p.steps[launch[x]];
            return std::holds_alternative<Transfer>(s) ? std::get<Transfer>(s).name : std::get<Task>(s).name;
          };
          notes.push_back(name(n) + " waits for " + name(d) + ": " + why);
        }
        retire(d);
      }
    make_room(n);
    push(n);
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  // Everything is waited before the program ends, in push order.
  std::vector<std::size_t> rest;
  for (std::size_t n = 0; n < launch.size(); ++n)
    if (!done[n]) rest.push_back(n);
  std::sort(rest.begin(), rest.end(), [&](std::size_t a, std::size_t b) { return new_index[a] < new_index[b]; });
  for (std::size_t n : rest) retire(n);
  p.steps = std::move(out);
  p.sync_notes = std::move(notes);
}

}  // namespace axcore::compiler
