// IFD and ODR walks over an L1 byte image (spec struct `walk`).
//
// Counters i0..i5 (i0 innermost, fastest) run over d0..d5; dimensions at or above ndims are
// ignored (their counter stays 0). Element row = base_row + sum(ik * dk_stride); an element of
// dtype spans 1 (int8), 2 (float16) or 4 (int32/float32) consecutive 64-byte rows, lane n at
// byte n * lane_bytes. Guard g < nguards passes when 0 <= g_offset + sum(g_coefk * ik) < g_extent.
// IFD: all guards pass -> load the element, else push pad_value (its low lane bits) in every
// lane, flagged pad; the address of a padded element is never checked or read.
// ODR: pops one element per step; all guards pass -> cast cast_from -> dtype and store, else
// drop. With `transpose` (the DWPU ODR's lane transpose, A.vtrsp) it pops a block of 64
// elements, casts each to dtype and then stores (or drops) 64 walk steps: step 64b + i gets the
// element whose lane j is lane i of pop 64b + j (a 64 x 64 lane matrix of any L1 dtype). Descriptor faults raise
// DESC_RANGE before any access; an access outside L1 raises L1_RANGE at that element (earlier elements have been
// pushed/stored).
#pragma once

#include <array>
#include <axcore/spec.hpp>
#include <cstdint>
#include <span>
#include <vector>

#include "axcore/ref/stream.hpp"

namespace axcore::ref {

inline constexpr std::size_t kWalkDims = spec::param::walk_dims;
inline constexpr std::size_t kWalkGuards = spec::param::walk_guards;

enum class WalkRole { Ifd, Odr };

// Elements (pops in, stores out) of one lane-transpose block: PWORD lanes.
inline constexpr std::size_t kTransposeBlock = spec::param::pword_lanes;

// Checks ndims (1..6), nguards (0..3), used sizes >= 1, dtypes, transpose (ODR only, length a
// multiple of 64); throws RefError(DESC_RANGE).
void validate_walk(const spec::Walk& w, WalkRole role);
// The datapath-level rule: transpose only on the ODR of a DWPU datapath (DESC_RANGE).
void validate_odr_kind(spec::DpKind kind, const spec::Walk& odr);
// The walks IFD `feeder` (0 or 1) runs in one task, in order: its section, then the walk.segs
// seg sections after those of IFD0 (spec walk.segs, guide §8.3). DESC_RANGE when a seg section
// has segs of its own or the feeders take more than ifd_seg_walks; every walk validated as an IFD
// walk. `has_ifd1` false: IFD1's section is not looked at.
std::vector<spec::Walk> ifd_walks(const spec::DatapathDesc& d, unsigned feeder, bool has_ifd1);
// Elements the walk visits (product of the used sizes).
uint64_t walk_length(const spec::Walk& w);

struct WalkStep {
  std::array<uint32_t, kWalkDims> idx{};  // i0..i5
  int64_t row = 0;                        // first L1 row of the element
  bool guards_pass = true;
};

// Steps through a validated walk in hardware order. A step adds to the row and the guard sums
// what the counter that moves adds, less what the counters below it (back to 0) took away.
class WalkCursor {
 public:
  explicit WalkCursor(const spec::Walk& w, WalkRole role);
  bool done() const { return done_; }
  const WalkStep& step() const { return step_; }
  void advance();
  uint64_t index() const { return index_; }

 private:
  std::size_t ndims_ = 0, nguards_ = 0;
  std::array<uint32_t, kWalkDims> size_{};
  std::array<int64_t, kWalkDims> carry_row_{};                             // row change when counter k moves
  std::array<std::array<int64_t, kWalkDims>, kWalkGuards> carry_guard_{};  // guard g's sum change
  std::array<int64_t, kWalkGuards> guard_sum_{};
  std::array<uint32_t, kWalkGuards> extent_{};
  WalkStep step_;
  bool done_ = false;
  uint64_t index_ = 0;
};

// The element an IFD pushes at `step` (reads L1 if the guards pass).
Element ifd_element(const spec::Walk& w, const WalkStep& step, std::span<const uint8_t> l1);
// Stores (or drops) one popped element at `step`.
void odr_element(const spec::Walk& w, const WalkStep& step, const Element& popped, std::span<uint8_t> l1);
// Whether an element of w.dtype at `row` lies inside an L1 of l1_size bytes (ifd_element and
// odr_store fail with L1_RANGE where not).
bool element_in_l1(const spec::Walk& w, int64_t row, std::size_t l1_size);
// Stores (or drops) a value already of dtype w.dtype at `step` (a transposed element).
void odr_store(const spec::Walk& w, const WalkStep& step, const num::AnyPword& value, std::span<uint8_t> l1);
// The 64 elements a transpose block stores, from its 64 pops (each checked against cast_from,
// STREAM_DTYPE, and cast to dtype): lane j of element i = lane i of pop j.
std::vector<Element> transpose_block(const spec::Walk& w, std::span<const Element> pops);

// Whole walks.
void run_ifd(const spec::Walk& w, std::span<const uint8_t> l1, const PushFn& push);
void run_ifd(std::span<const spec::Walk> segments, std::span<const uint8_t> l1, const PushFn& push);
void run_odr(const spec::Walk& w, std::span<uint8_t> l1, const PopFn& pop);

}  // namespace axcore::ref
