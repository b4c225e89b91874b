// What a launch touches (its footprint) and when two launches may run at the same time: the
// rules the overlap scheduler (compiler/passes/schedule_overlap.cpp) orders launches by and the
// race verifier (compiler/passes/verify_sync.cpp) checks the final program against.
#pragma once

#include <string>
#include <vector>

#include "axcore/compiler/program.hpp"

namespace axcore::compiler {

// Which hardware runs a launch, in order: a DMA channel pair of one engine tile, or a core queue.
struct LaunchKey {
  int kind = 0;        // 0 = DMA channel pair, 1 = core queue
  uint32_t where = 0;  // engine tile (0 shim, 1 + c core c's CoreDMA) or core
  uint32_t which = 0;  // channel or queue
  auto operator<=>(const LaunchKey&) const = default;
};
LaunchKey launch_key(const Step& s);

// True when `later` (after `earlier` in program order) must not start before `earlier` is done:
// they touch the same L1 rows, IMC tiles, DDR buffer or DMA BDs with one of them writing, and the
// hardware does not order them by itself (a core queue runs its tasks one after the other; a DMA
// channel starts its next task after the previous one, so only a read of what the previous one
// still writes races there; BD registers are rewritten when a copy is pushed, so two copies in
// flight never share a BD). A copy whose channel is still open (Transfer::any_channel) counts as
// on another channel than every other copy.
bool must_order(const Step& later, const Step& earlier);
// True when a and b touch the same L1 rows, IMC tiles, DDR or L2 buffer with one writing, whatever
// runs them (the overlap scheduler checks it before a task passes an earlier one of its queue).
bool footprints_conflict(const Step& a, const Step& b);
// The first reason, for explanations ("L1 rows 0..255 of w1"); empty when none.
std::string order_reason(const Step& later, const Step& earlier);

// Replays the program's pushes and waits and returns one line per pair of launches in flight at
// once that must_order() says must be ordered (empty: race free). Tokens of one channel or queue
// arrive in push order, so a wait for a launch also retires the earlier launches of its key.
std::vector<std::string> find_races(const Program& p);
// Throws std::logic_error listing the races (an internal compiler error: a bug, not user input).
void verify_sync(const Program& p);

struct OverlapOptions {
  std::size_t queue_depth = spec::param::queue_depth;  // tasks pushed and not waited per channel / queue
  std::size_t max_in_flight = spec::param::token_fifo_depth / 2;
  std::size_t window = 24;  // how far ahead of the next launch in program order one may be pushed
};
// Reorders p's launches and places its waits (compiler/passes/schedule_overlap.cpp). p holds the
// launches in program order and only fence waits (A.sync); records the waits that blocked the
// stream in p.sync_notes.
void schedule_overlap(Program& p, const OverlapOptions& opt = {});

}  // namespace axcore::compiler
