// The ordering rules between launches (sync.hpp) and the race verifier: replays a lowered
// program's pushes and waits and reports every pair of launches in flight together that touch
// the same L1 rows / IMC tiles / DDR buffer / BDs with one writing. lower() runs it on every
// program it builds, so a schedule with a race is an internal error, never a silent corruption.
// It also checks that an MVMEXE and a LoadIMC task in flight together are apart for the device.
// GCC 12 reports -Wmaybe-uninitialized inside std::variant's move of Step (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <deque>
#include <map>
#include <sstream>
#include <stdexcept>

#include "axcore/compiler/sync.hpp"
#include "axcore/ref/imc.hpp"

namespace axcore::compiler {
namespace {

const std::vector<Access>& footprint(const Step& s) {
  static const std::vector<Access> none;
  if (const auto* t = std::get_if<Transfer>(&s)) return t->footprint;
  if (const auto* k = std::get_if<Task>(&s)) return k->footprint;
  return none;
}

bool overlap(const Access& a, const Access& b) {
  if (a.space != b.space) return false;
  if (a.space == Access::Space::Ddr || a.space == Access::Space::L2) return a.ddr == b.ddr;
  return a.core == b.core && a.lo < b.hi && b.lo < a.hi;
}

const char* space_name(Access::Space s) {
  switch (s) {
    case Access::Space::L1: return "L1 rows";
    case Access::Space::Imc: return "IMC tiles";
    case Access::Space::Ddr: return "DDR buffer";
    case Access::Space::L2: return "L2 buffer";
  }
  return "?";
}

std::string describe(const Access& a) {
  std::ostringstream os;
  os << space_name(a.space);
  if (a.space == Access::Space::Ddr || a.space == Access::Space::L2)
    os << " " << (a.ddr ? a.ddr->name : std::string("?"));
  else
    os << " " << a.lo << ".." << a.hi - 1 << " of core " << a.core;
  if (!a.what.empty()) os << " (" << a.what << ")";
  return os.str();
}

// BDs of a copy on its engine tile, [lo, hi).
std::pair<uint32_t, uint32_t> bds(const Transfer& t) {
  const uint32_t lo = std::min(t.mm2s.start_bd, t.s2mm.start_bd);
  const uint32_t hi = std::max(t.mm2s.start_bd + static_cast<uint32_t>(t.mm2s.bds.size()),
                               t.s2mm.start_bd + static_cast<uint32_t>(t.s2mm.bds.size()));
  return {lo, hi};
}

std::string name_of(const Step& s) {
  if (const auto* t = std::get_if<Transfer>(&s)) return t->name;
  if (const auto* k = std::get_if<Task>(&s)) return k->name;
  return "?";
}

// An MVMEXE datapath and a LoadIMC of one core that the footprints let run together must also be
// apart for the device (docs/timing.md "MVMEXE beside LoadIMC": the same matrix_id, disjoint tile
// spans); else the command processor runs them one after the other, which the schedule (and
// `axc --explain`) does not assume. Empty when they are apart or not such a pair.
std::string imc_not_apart(const Step& a, const Step& b) {
  const auto* ta = std::get_if<Task>(&a);
  const auto* tb = std::get_if<Task>(&b);
  if (!ta || !tb || ta->core != tb->core) return "";
  if (tb->queue == spec::Queue::MVMEXE) std::swap(ta, tb);
  if (ta->queue != spec::Queue::MVMEXE || tb->queue != spec::Queue::LOADIMC) return "";
  namespace L = spec::layout::datapath_desc;
  const std::span<const uint32_t> w(ta->words);
  const auto h = spec::DpHeader::decode(w.first(spec::DpHeader::kWords));
  const auto m = spec::MvmDesc::decode(w.subspan(L::mvm));
  const auto l = spec::LoadimcDesc::decode(tb->words);
  if (ref::imc_tasks_apart(h.has_main, m, l)) return "";
  const auto ms = ref::mvm_tile_span(m), ls = ref::loadimc_tile_span(l);
  return "the IMC but are not apart (MVM matrix " + std::to_string(m.matrix_id) + " tiles " + std::to_string(ms.lo) +
         ".." + std::to_string(ms.hi) + ", LoadIMC matrix " + std::to_string(l.matrix_id) + " tiles " +
         std::to_string(ls.lo) + ".." + std::to_string(ls.hi) + "): the device runs them one after the other";
}

}  // namespace

LaunchKey launch_key(const Step& s) {
  if (const auto* t = std::get_if<Transfer>(&s)) return {0, dma_tile(*t), t->channel};
  const auto& k = std::get<Task>(s);
  return {1, k.core, static_cast<uint32_t>(k.queue)};
}

std::string order_reason(const Step& later, const Step& earlier) {
  const LaunchKey kl = launch_key(later), ke = launch_key(earlier);
  if (kl.kind == 1 && kl == ke) return "";  // a core queue runs one task after the other
  const auto* tl = std::get_if<Transfer>(&later);
  const auto* te = std::get_if<Transfer>(&earlier);
  if (tl && te && launch_key(later).where == launch_key(earlier).where) {
    const auto [a0, a1] = bds(*tl);
    const auto [b0, b1] = bds(*te);
    if (a0 < b1 && b0 < a1) return "BDs " + std::to_string(b0) + ".." + std::to_string(b1 - 1) + " of its engine";
  }
  // A copy whose channel the scheduler has not chosen yet may land on the other one.
  const bool unplaced = (tl && tl->any_channel) || (te && te->any_channel);
  const bool same_channel = kl == ke && !unplaced;
  for (const Access& a : footprint(later))
    for (const Access& b : footprint(earlier)) {
      if (!(a.write || b.write) || !overlap(a, b)) continue;
      // One channel: the next task's S2MM starts after the previous one's, its MM2S after the
      // previous MM2S — only reading what the previous task still writes races.
      if (same_channel && !(b.write && !a.write)) continue;
      return describe(b);
    }
  return "";
}

bool must_order(const Step& later, const Step& earlier) { return !order_reason(later, earlier).empty(); }

bool footprints_conflict(const Step& a, const Step& b) {
  for (const Access& x : footprint(a))
    for (const Access& y : footprint(b))
      if ((x.write || y.write) && overlap(x, y)) return true;
  return false;
}

std::vector<std::string> find_races(const Program& p) {
  std::vector<std::string> out;
  std::map<std::size_t, const Step*> in_flight;
  std::map<LaunchKey, std::deque<std::size_t>> fifo;
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const Step& s = p.steps[i];
    if (const auto* w = std::get_if<Wait>(&s)) {
      if (w->launch >= i || !in_flight.count(w->launch)) {
        out.push_back("step " + std::to_string(i) + " waits for launch " + std::to_string(w->launch) +
                      ", which is not in flight");
        continue;
      }
      auto& q = fifo[launch_key(p.steps[w->launch])];
      if (q.front() != w->launch)
        out.push_back("step " + std::to_string(i) + " waits for launch " + std::to_string(w->launch) +
                      " but the next token of its channel is launch " + std::to_string(q.front()) + "'s");
      in_flight.erase(q.front());
      q.pop_front();
      continue;
    }
    if (!std::holds_alternative<Transfer>(s) && !std::holds_alternative<Task>(s)) continue;
    for (const auto& [j, o] : in_flight) {
      std::string why = order_reason(s, *o);
      if (why.empty()) why = imc_not_apart(s, *o);
      if (!why.empty())
        out.push_back("launch " + std::to_string(i) + " (" + name_of(s) + ") starts while launch " + std::to_string(j) +
                      " (" + name_of(*o) + ") is in flight; both touch " + why);
    }
    in_flight[i] = &s;
    fifo[launch_key(s)].push_back(i);
  }
  for (const auto& [j, o] : in_flight)
    out.push_back("launch " + std::to_string(j) + " (" + name_of(*o) + ") is never waited");
  return out;
}

void verify_sync(const Program& p) {
  const auto races = find_races(p);
  if (races.empty()) return;
  std::string msg = "internal compiler error: the program's sync has " + std::to_string(races.size()) + " race" +
                    (races.size() == 1 ? "" : "s") + ":";
  for (std::size_t k = 0; k < races.size() && k < 8; ++k) msg += "\n  " + races[k];
  throw std::logic_error(msg);
}

}  // namespace axcore::compiler
