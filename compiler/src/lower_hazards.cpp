#include "lower_hazards.hpp"

#include <algorithm>

#include "axcore/compiler/sync.hpp"
#include "axcore/num/pword.hpp"

namespace axcore::compiler::lower_detail {
namespace {

namespace L = spec::layout::datapath_desc;

struct Rows {
  int64_t lo = 0, hi = -1;  // inclusive
};

// The rows a walk touches, as one range (its strides may leave gaps: a superset).
Rows walk_rows(const spec::Walk& w) {
  const uint32_t sizes[] = {w.d0_size, w.d1_size, w.d2_size, w.d3_size, w.d4_size, w.d5_size};
  const int32_t strides[] = {w.d0_stride, w.d1_stride, w.d2_stride, w.d3_stride, w.d4_stride, w.d5_stride};
  Rows r{w.base_row, w.base_row};
  for (uint32_t k = 0; k < w.ndims && k < 6; ++k) {
    const int64_t span = static_cast<int64_t>(std::max<uint32_t>(sizes[k], 1) - 1) * strides[k];
    r.lo += std::min<int64_t>(0, span);
    r.hi += std::max<int64_t>(0, span);
  }
  r.hi += static_cast<int64_t>(num::element_rows(w.dtype)) - 1;
  return r;
}

// An unguarded walk dimension of more than one step and stride 0: the same rows every step.
bool repeats_rows(const spec::Walk& w) {
  if (w.nguards) return false;  // a predicated store may keep one step of several
  const uint32_t sizes[] = {w.d0_size, w.d1_size, w.d2_size, w.d3_size, w.d4_size, w.d5_size};
  const int32_t strides[] = {w.d0_stride, w.d1_stride, w.d2_stride, w.d3_stride, w.d4_stride, w.d5_stride};
  for (uint32_t k = 0; k < w.ndims && k < 6; ++k)
    if (sizes[k] > 1 && strides[k] == 0) return true;
  return false;
}

bool is_datapath(const Task& t) { return t.queue == spec::Queue::MVMEXE || t.queue == spec::Queue::DWPU; }

// Whether `s` may read rows [lo, hi] of `core`'s L1. A datapath reads through its IFD walks (a
// DWPU also reads its weights: any L1 buffer it touches counts); a copy out of L1 reads its
// region; a LoadIMC its weight rows. Over-approximated: a read too many only hides a warning.
bool reads_rows(const Step& s, uint32_t core, int64_t lo, int64_t hi) {
  auto hit = [&](uint32_t c, int64_t a, int64_t b) { return c == core && a <= hi && lo <= b; };
  if (const auto* t = std::get_if<Transfer>(&s))
    return !t->to_l1 && t->l1.rows &&
           hit(t->l1.core, t->l1.base_row, static_cast<int64_t>(t->l1.base_row) + t->l1.rows - 1);
  const auto& k = std::get<Task>(s);
  if (is_datapath(k)) {
    const std::span<const uint32_t> w(k.words);
    const auto h = spec::DpHeader::decode(w.first(spec::DpHeader::kWords));
    const Rows r0 = walk_rows(spec::Walk::decode(w.subspan(L::ifd0)));
    if (hit(k.core, r0.lo, r0.hi)) return true;
    if (h.has_ifd1) {
      const Rows r1 = walk_rows(spec::Walk::decode(w.subspan(L::ifd1)));
      if (hit(k.core, r1.lo, r1.hi)) return true;
    }
    if (k.queue == spec::Queue::MVMEXE) return false;
  }
  for (const Access& a : k.footprint)
    if (a.space == Access::Space::L1 && hit(a.core, static_cast<int64_t>(a.lo), static_cast<int64_t>(a.hi) - 1))
      return true;
  return false;
}

const char* launch_word(const Step& s) {
  if (std::holds_alternative<Transfer>(s)) return "copy";
  return std::get<Task>(s).queue == spec::Queue::LOADIMC ? "LoadIMC" : "datapath";
}

}  // namespace

void HazardChecker::report(Diagnostic d) {
  if (!said_.insert(d.loc.str() + "|" + d.message).second) return;
  if (as_errors_) fail(d.loc, d.full_message(), d.hint);
  out_.push_back(std::move(d));
}

bool HazardChecker::loadimc(uint32_t core, const BufferNode& b, uint32_t matrix_id, const SourceLoc& loc) {
  Residency& r = imc_[core];
  ever_loaded_[core].insert(&b);
  const bool begins = r.matrix_id != matrix_id;
  if (begins) r = Residency{matrix_id, {}, b.name, loc};
  r.loaded.insert(&b);
  return begins;
}

void HazardChecker::mvm_reads(uint32_t core, const BufferNode& b, const SourceLoc& loc) {
  const Residency& r = imc_[core];
  if (r.loaded.count(&b)) return;
  const std::string on = " on core " + std::to_string(core);
  Diagnostic d;
  d.loc = loc;
  if (ever_loaded_[core].count(&b)) {
    d.message = "the MatMul reads IMC matrix " + b.name + ", whose residency" + on + " ended when " + r.began_by +
                " was loaded: the MVM computes with stale weights and the device counts IMC_STALE_READS (loading a "
                "second matrix on the same core ends the first's residency, §14)";
    d.related = r.began_at;
    d.related_what = "the LoadIMC of " + r.began_by + " that ended it";
    d.hint = "load " + b.name +
             " again right before this datapath (A.pseudo.LoadIMC), or place the matrices on "
             "different cores (A.alloc_imc(core=))";
  } else {
    d.message = "the MatMul reads IMC matrix " + b.name + ", which no LoadIMC before it loaded" + on +
                ": the MVM computes with whatever the IMC holds and the device counts IMC_STALE_READS (§14)";
    d.related = b.loc;
    d.related_what = b.name + " is allocated here";
    d.hint = "load " + b.name + " with A.pseudo.LoadIMC before the datapath";
  }
  report(std::move(d));
}

void HazardChecker::before_launch(const Step& s, const std::vector<Step>& steps, const SourceLoc& loc) {
  // A launch tagged by the author and not waited for yet, which this one must follow.
  for (auto it = tagged_.begin(); it != tagged_.end();) {
    const std::string why = order_reason(s, steps[it->first]);
    if (why.empty()) {
      ++it;
      continue;
    }
    const Tagged& t = it->second;
    Diagnostic d;
    d.loc = loc;
    d.message = std::string("this ") + launch_word(s) + " depends on the launch tagged id=\"" + t.id + "\" (" + why +
                "), and no A.sync waits for \"" + t.id +
                "\" before it: a wait placed after both launches lets the consumer read stale data (§14); the "
                "compiler waits for \"" +
                t.id + "\" here instead";
    d.related = t.loc;
    d.related_what = "the launch tagged id=\"" + t.id + "\"";
    d.hint = "wait on the producer before launching its consumer: A.sync(waits=[\"" + t.id + "\"]) (C++ A::sync({\"" +
             t.id + "\"})) right before this launch";
    report(std::move(d));
    it = tagged_.erase(it);
  }
}

void HazardChecker::launching(const Step& s, const SourceLoc& loc) {
  // K tiles: the MatMul datapath's ODR stores over an earlier one's unread result.
  const auto* k = std::get_if<Task>(&s);
  for (auto it = stores_.begin(); it != stores_.end();)
    it = reads_rows(s, it->core, it->lo, it->hi) ? stores_.erase(it) : std::next(it);
  if (!k || k->queue != spec::Queue::MVMEXE) {
    // Anything else writing those rows also ends the question (it is not a K tile).
    if (k && is_datapath(*k)) {
      const Rows o = walk_rows(spec::Walk::decode(std::span<const uint32_t>(k->words).subspan(L::odr)));
      std::erase_if(stores_, [&](const Store& st) { return st.core == k->core && st.lo <= o.hi && o.lo <= st.hi; });
    }
    return;
  }
  const std::span<const uint32_t> w(k->words);
  const auto odr_words = w.subspan(L::odr, spec::Walk::kWords);
  const spec::Walk odr = spec::Walk::decode(odr_words);
  const Rows o = walk_rows(odr);
  if (repeats_rows(odr)) {
    Diagnostic d;
    d.loc = loc;
    d.message =
        "the MatMul datapath's ODR stores the same rows for every step of a loop its IFD and MVM walk: "
        "each K tile's product overwrites the one before it, and only the last is kept (§14)";
    d.hint =
        "accumulate the K tiles: add the partial sum read back through A.IFD(num=1) in a DPU block, or "
        "call core.linear, which splits K and accumulates";
    report(std::move(d));
  }
  Store mine{k->core, {odr_words.begin(), odr_words.end()}, {w.begin(), w.end()}, o.lo, o.hi, loc};
  for (auto it = stores_.begin(); it != stores_.end(); ++it) {
    if (it->core != mine.core || it->odr != mine.odr) continue;
    if (it->words != mine.words) {
      Diagnostic d;
      d.loc = loc;
      d.message =
          "the MatMul datapath stores the rows the MatMul datapath before it stored, and nothing read "
          "them in between: each K tile's product overwrites the one before it, and only the last is "
          "kept (§14)";
      d.related = it->loc;
      d.related_what = "the MatMul datapath whose result is overwritten";
      d.hint =
          "accumulate the K tiles: add the previous partial sum, read back through A.IFD(num=1), in a DPU "
          "block, or call core.linear, which splits K and accumulates";
      report(std::move(d));
    }
    stores_.erase(it);
    break;
  }
  std::erase_if(stores_, [&](const Store& st) { return st.core == mine.core && st.lo <= mine.hi && mine.lo <= st.hi; });
  stores_.push_back(std::move(mine));
}

void HazardChecker::tagged(std::size_t index, const std::string& id, const SourceLoc& loc) {
  tagged_[index] = Tagged{id, loc};
}

void HazardChecker::fenced(std::size_t index, const std::vector<Step>& steps) {
  const LaunchKey key = launch_key(steps[index]);
  std::erase_if(tagged_, [&](const auto& e) { return e.first <= index && launch_key(steps[e.first]) == key; });
}

}  // namespace axcore::compiler::lower_detail
