// IFD and ODR walks over an L1 byte image (spec struct `walk`).
//
// Counters i0..i5 (i0 innermost, fastest) run over d0..d5; dimensions at or above ndims are
// ignored (their counter stays 0). Element row = base_row + sum(ik * dk_stride); an element of
// dtype spans 1 (int8), 2 (float16) or 4 (int32/float32) consecutive 64-byte rows, lane n at
// byte n * lane_bytes. Guard g < nguards passes when 0 <= g_offset + sum(g_coefk * ik) < g_extent.
// IFD: all guards pass -> load the element, else push pad_value (its low lane bits) in every
// lane, flagged pad; the address of a padded element is never checked or read.
// ODR: pops one element per step; all guards pass -> cast cast_from -> dtype and store, else
// drop. Descriptor faults raise DESC_RANGE before any access; an access outside L1 raises
// L1_RANGE at that element (earlier elements have been pushed/stored).
#pragma once

#include <array>
#include <axcore/spec.hpp>
#include <cstdint>
#include <span>

#include "axcore/ref/stream.hpp"

namespace axcore::ref {

inline constexpr std::size_t kWalkDims = spec::param::walk_dims;
inline constexpr std::size_t kWalkGuards = spec::param::walk_guards;

enum class WalkRole { Ifd, Odr };

// Checks ndims (1..6), nguards (0..3), used sizes >= 1, dtypes; throws RefError(DESC_RANGE).
void validate_walk(const spec::Walk& w, WalkRole role);
// Elements the walk visits (product of the used sizes).
uint64_t walk_length(const spec::Walk& w);

struct WalkStep {
  std::array<uint32_t, kWalkDims> idx{};  // i0..i5
  int64_t row = 0;                        // first L1 row of the element
  bool guards_pass = true;
};

// Steps through a validated walk in hardware order.
class WalkCursor {
 public:
  explicit WalkCursor(const spec::Walk& w, WalkRole role);
  bool done() const { return done_; }
  const WalkStep& step() const { return step_; }
  void advance();
  uint64_t index() const { return index_; }

 private:
  void evaluate();
  spec::Walk w_;
  WalkStep step_;
  bool done_ = false;
  uint64_t index_ = 0;
};

// The element an IFD pushes at `step` (reads L1 if the guards pass).
Element ifd_element(const spec::Walk& w, const WalkStep& step, std::span<const uint8_t> l1);
// Stores (or drops) one popped element at `step`.
void odr_element(const spec::Walk& w, const WalkStep& step, const Element& popped, std::span<uint8_t> l1);

// Whole walks.
void run_ifd(const spec::Walk& w, std::span<const uint8_t> l1, const PushFn& push);
void run_odr(const spec::Walk& w, std::span<uint8_t> l1, const PopFn& pop);

}  // namespace axcore::ref
