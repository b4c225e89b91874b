// Out-of-line parts of Device that every backend shares (header-only: see device.hpp).
#pragma once

#include <algorithm>
#include <cstdio>

#include "axcore/spec.hpp"

namespace axcore::device {

inline uint32_t Device::wait_token(unsigned col, unsigned row, unsigned dir, unsigned channel,
                                   uint64_t timeout_cycles) {
  auto matches = [&](uint32_t word) {
    const auto t = spec::Token::decode_word(word);
    return t.col == col && t.row == row && t.dir == dir && t.channel == channel;
  };
  if (auto it = std::find_if(stash_.begin(), stash_.end(), matches); it != stash_.end()) {
    const uint32_t word = *it;
    stash_.erase(it);
    return word;
  }
  const uint64_t pop = spec::tile_addr(0, spec::param::shim_row, spec::shim::TOKEN_POP.offset);
  const uint64_t start = cycle();
  for (;;) {
    const uint32_t word = read32(pop);
    if (word >> 31) {
      if (matches(word)) return word;
      stash_.push_back(word);
      continue;  // drain before advancing the clock
    }
    if (cycle() - start >= timeout_cycles)
      throw TimeoutError("wait_token: no token from tile (" + std::to_string(col) + ", " + std::to_string(row) +
                         ") dir " + std::to_string(dir) + " channel " + std::to_string(channel) + " within " +
                         std::to_string(timeout_cycles) + " cycles");
    advance(poll_interval_cycles);
  }
}

inline UnitCounters Device::counters(unsigned core, unsigned perf_unit) {
  const uint32_t row = spec::core_row(core);
  auto rd = [&](const spec::Reg& r) { return read32(spec::tile_addr(0, row, r.at(perf_unit))); };
  return {rd(spec::core::PERF_BUSY), rd(spec::core::PERF_STALL_IN), rd(spec::core::PERF_STALL_OUT),
          rd(spec::core::PERF_TASKS)};
}

}  // namespace axcore::device
