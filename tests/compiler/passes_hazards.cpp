// The hazard checker of passes_kernels.hpp: the L1 rows each launch reads and writes, decoded
// from the emitted descriptors (walks) and the copies' L1 regions, replayed against the waits.
#include <algorithm>
#include <map>

#include "passes_kernels.hpp"

namespace axcore::passes_test {
namespace {

namespace L = spec::layout::datapath_desc;

struct Rows {
  int64_t lo = 0, hi = -1;  // inclusive
  uint32_t core = 0;
  bool overlaps(const Rows& o) const { return core == o.core && lo <= o.hi && o.lo <= hi; }
};

int64_t rows_of(spec::Dtype d) {
  switch (d) {
    case spec::Dtype::INT8: return 1;
    case spec::Dtype::FLOAT16: return 2;
    default: return 4;
  }
}

Rows walk_rows(const spec::Walk& w) {
  const uint32_t sizes[] = {w.d0_size, w.d1_size, w.d2_size, w.d3_size, w.d4_size, w.d5_size};
  const int32_t strides[] = {w.d0_stride, w.d1_stride, w.d2_stride, w.d3_stride, w.d4_stride, w.d5_stride};
  Rows r{w.base_row, w.base_row, 0};
  for (uint32_t k = 0; k < w.ndims; ++k) {
    const int64_t span = static_cast<int64_t>(std::max<uint32_t>(sizes[k], 1) - 1) * strides[k];
    r.lo += std::min<int64_t>(0, span);
    r.hi += std::max<int64_t>(0, span);
  }
  r.hi += rows_of(w.dtype) - 1;
  return r;
}

struct Use {
  std::vector<Rows> reads, writes;
  std::pair<int, uint32_t> key;  // (0 dma channel | 1 core queue, which): in-order within a key
  bool is_load = false, is_datapath = false;
};

Use use_of(const compiler::Step& s, const std::map<uint32_t, std::vector<uint32_t>>& cmds) {
  Use u;
  if (const auto* t = std::get_if<compiler::Transfer>(&s)) {
    const Rows r{t->l1.base_row, static_cast<int64_t>(t->l1.base_row) + t->l1.rows - 1, t->l1.core};
    if (t->l1.rows) (t->to_l1 ? u.writes : u.reads).push_back(r);
    u.key = {0, t->channel};
    u.is_load = t->to_l1;
    return u;
  }
  const auto& k = std::get<compiler::Task>(s);
  u.key = {1, k.core * 8 + static_cast<uint32_t>(k.queue)};
  if (k.queue == spec::Queue::LOADIMC || k.queue == spec::Queue::CTRL) return u;
  u.is_datapath = true;
  const auto& cmd = cmds.at(k.core);
  const std::span<const uint32_t> d(cmd.data() + k.cmd_word, k.words.size());
  const auto h = spec::DpHeader::decode(d);
  auto on_core = [&](Rows r) {
    r.core = k.core;
    return r;
  };
  u.reads.push_back(on_core(walk_rows(spec::Walk::decode(d.subspan(L::ifd0)))));
  if (h.has_ifd1) u.reads.push_back(on_core(walk_rows(spec::Walk::decode(d.subspan(L::ifd1)))));
  u.writes.push_back(on_core(walk_rows(spec::Walk::decode(d.subspan(L::odr)))));
  return u;
}

}  // namespace

HazardReport check_hazards(const compiler::Program& p, const runtime::Bundle& bundle) {
  std::map<uint32_t, std::vector<uint32_t>> cmd;
  for (const auto& cs : axcore::runtime::command_memory(bundle)) cmd[cs.core] = cs.words;
  HazardReport rep;
  std::map<std::size_t, Use> in_flight;
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const auto& s = p.steps[i];
    if (const auto* w = std::get_if<compiler::Wait>(&s)) {
      EXPECT_TRUE(in_flight.count(w->launch))
          << "step " << i << " waits for launch " << w->launch << ", which is not in flight";
      in_flight.erase(w->launch);
      continue;
    }
    if (!std::holds_alternative<compiler::Transfer>(s) && !std::holds_alternative<compiler::Task>(s)) continue;
    const Use u = use_of(s, cmd);
    rep.cores_used = std::max<std::size_t>(
        rep.cores_used, std::holds_alternative<compiler::Task>(s) ? std::get<compiler::Task>(s).core + 1 : 1);
    ++rep.launches;
    (std::holds_alternative<compiler::Transfer>(s) ? rep.transfers : rep.tasks) += 1;
    for (const auto& [j, o] : in_flight) {
      if (o.key == u.key) continue;  // one channel / queue runs its tasks in order
      if (u.is_datapath && o.is_load) rep.load_overlapped_compute = true;
      for (const Rows& a : u.writes) {
        for (const Rows& b : o.writes)
          EXPECT_FALSE(a.overlaps(b)) << "step " << i << " writes L1 rows launch " << j << " writes";
        for (const Rows& b : o.reads)
          EXPECT_FALSE(a.overlaps(b)) << "step " << i << " writes L1 rows launch " << j << " reads";
      }
      for (const Rows& a : u.reads)
        for (const Rows& b : o.writes)
          EXPECT_FALSE(a.overlaps(b)) << "step " << i << " reads L1 rows [" << a.lo << ", " << a.hi << "] launch " << j
                                      << " writes";
    }
    in_flight[i] = u;
    rep.max_in_flight = std::max(rep.max_in_flight, in_flight.size());
  }
  EXPECT_TRUE(in_flight.empty()) << in_flight.size() << " launches never waited";
  return rep;
}

}  // namespace axcore::passes_test
