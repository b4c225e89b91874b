// L1 placement (guide §11, §14): every buffer a unit touches gets rows of its core's L1. When they
// fit together each keeps its rows for the whole program (a bump allocator, the placement the
// example kernels were measured with); when they do not, a buffer holds its rows only while it
// is live — from the first launch touching it to the last (an output to the end: it is copied
// out there) — largest first, at the lowest rows no buffer live with it holds, and may take
// rows earlier buffers held (`reuses`: lower() waits for every launch touching those before the
// first launch touching it).
#include <algorithm>

#include "lower_internal.hpp"

namespace axcore::compiler::lower_detail {

L1Plan allocate_l1(const std::vector<Lifetime>& bufs, uint32_t cores, uint64_t l1_bytes) {
  const uint64_t budget = l1_bytes / spec::param::l1_row_bytes;
  L1Plan plan;
  plan.rows_used.assign(cores, 0);
  std::vector<uint64_t> next(cores, 0);
  bool fits = true;
  for (const Lifetime& b : bufs) {
    plan.region[b.buf] = L1Region{b.core, static_cast<uint32_t>(next[b.core]), static_cast<uint32_t>(b.rows)};
    next[b.core] += b.rows;
    fits = fits && next[b.core] <= budget;
  }
  if (fits) {
    for (uint32_t c = 0; c < cores; ++c) plan.rows_used[c] = static_cast<uint32_t>(next[c]);
    return plan;
  }
  plan.region.clear();
  // Largest first, each at the lowest rows free of every buffer live at the same time as it
  // (lifetimes are known for the whole program, so the order is free: big buffers placed first
  // leave no small one splitting the rows they need).
  std::vector<const Lifetime*> by_size;
  for (const Lifetime& b : bufs) by_size.push_back(&b);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const Lifetime* a, const Lifetime* b) { return a->rows > b->rows; });
  auto overlap = [](const Lifetime& a, const Lifetime& b) {
    return a.core == b.core && a.first <= b.last && b.first <= a.last;
  };
  std::vector<const Lifetime*> done;
  for (const Lifetime* b : by_size) {
    std::vector<const Lifetime*> live;
    for (const Lifetime* o : done)
      if (overlap(*o, *b)) live.push_back(o);
    std::sort(live.begin(), live.end(), [&](const Lifetime* x, const Lifetime* y) {
      return plan.region[x->buf].base_row < plan.region[y->buf].base_row;
    });
    uint64_t at = 0;
    for (const Lifetime* o : live) {
      const L1Region& r = plan.region[o->buf];
      if (r.base_row >= at + b->rows) break;
      at = std::max<uint64_t>(at, r.base_row + r.rows);
    }
    if (at + b->rows > budget) {
      uint64_t live_rows = b->rows;
      for (const Lifetime* o : live) live_rows += o->rows;
      {
        // A pinned scratch (A.L1) is never moved (guide §5.1): say so, and what lets the compiler move it.
        const bool pinned = b->buf->role == BufferRole::Local && b->buf->scope == Scope::L1;
        throw L1Overflow(
            b->buf->loc,
            "the kernel's buffers need " + std::to_string(live_rows * spec::param::l1_row_bytes) + " bytes of L1 (" +
                b->buf->name + (pinned ? ", pinned to L1 (A.L1)," : "") +
                " is the first that does not fit); L1 holds " + std::to_string(l1_bytes) + ", and " +
                std::to_string(live.size()) + " other buffer" + (live.size() == 1 ? " is" : "s are") + " live with " +
                b->buf->name,
            pinned ? "declare it A.L1_WEAK (the compiler then moves it to L2 and tiles its loops), or tile the outer "
                     "loop (A.tiles)"
                   : "tile the outer loop (A.tiles), or keep fewer buffers in L1 at once");
      }
    }
    plan.region[b->buf] = L1Region{b->core, static_cast<uint32_t>(at), static_cast<uint32_t>(b->rows)};
    plan.rows_used[b->core] = std::max(plan.rows_used[b->core], static_cast<uint32_t>(at + b->rows));
    done.push_back(b);
  }
  // A buffer taking rows an earlier buffer held starts after every launch touching that one.
  for (const Lifetime& b : bufs)
    for (const Lifetime& o : bufs) {
      const L1Region &r = plan.region[b.buf], &q = plan.region[o.buf];
      if (o.core == b.core && o.last < b.first && q.base_row < r.base_row + r.rows && r.base_row < q.base_row + q.rows)
        plan.reuses[b.buf].push_back(o.buf);
    }
  return plan;
}

}  // namespace axcore::compiler::lower_detail
