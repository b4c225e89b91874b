#include "axcore/ref/walk.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "axcore/ref/error.hpp"

namespace axcore::ref {

using spec::Dtype;
using spec::ErrorCode;

namespace {

uint32_t dim_size(const spec::Walk& w, std::size_t k) {
  const std::array<uint32_t, kWalkDims> s{w.d0_size, w.d1_size, w.d2_size, w.d3_size, w.d4_size, w.d5_size};
  return s[k];
}
int32_t dim_stride(const spec::Walk& w, std::size_t k) {
  const std::array<int32_t, kWalkDims> s{w.d0_stride, w.d1_stride, w.d2_stride, w.d3_stride, w.d4_stride, w.d5_stride};
  return s[k];
}
struct Guard {
  int32_t offset;
  uint32_t extent;
  std::array<int32_t, kWalkDims> coef;
};
Guard guard(const spec::Walk& w, std::size_t g) {
  switch (g) {
    case 0: return {w.g0_offset, w.g0_extent, {w.g0_coef0, w.g0_coef1, w.g0_coef2, w.g0_coef3, w.g0_coef4, w.g0_coef5}};
    case 1: return {w.g1_offset, w.g1_extent, {w.g1_coef0, w.g1_coef1, w.g1_coef2, w.g1_coef3, w.g1_coef4, w.g1_coef5}};
    default:
      return {w.g2_offset, w.g2_extent, {w.g2_coef0, w.g2_coef1, w.g2_coef2, w.g2_coef3, w.g2_coef4, w.g2_coef5}};
  }
}
const char* role_name(WalkRole r) { return r == WalkRole::Ifd ? "IFD walk" : "ODR walk"; }

// The L1 byte range of an element at `row`, checked.
std::size_t element_offset(const spec::Walk& w, int64_t row, std::size_t l1_size, const char* who) {
  if (!element_in_l1(w, row, l1_size)) {
    fail(ErrorCode::L1_RANGE, std::string(who) + ": element at row " + std::to_string(row) + " (" +
                                  std::to_string(num::element_bytes(w.dtype)) + " bytes) is outside L1 of " +
                                  std::to_string(l1_size) + " bytes");
  }
  return static_cast<std::size_t>(row) * spec::param::l1_row_bytes;
}

void check_popped(const spec::Walk& w, const Element& popped) {
  if (popped.value.dtype != w.cast_from) {
    fail(ErrorCode::STREAM_DTYPE,
         std::string("ODR: popped a ") + std::string(spec::to_string(popped.value.dtype)) +
             " element, the walk expects cast_from = " + std::string(spec::to_string(w.cast_from)));
  }
}

}  // namespace

bool element_in_l1(const spec::Walk& w, int64_t row, std::size_t l1_size) {
  const auto bytes = static_cast<int64_t>(num::element_bytes(w.dtype));
  return row >= 0 && row * static_cast<int64_t>(spec::param::l1_row_bytes) + bytes <= static_cast<int64_t>(l1_size);
}

void validate_walk(const spec::Walk& w, WalkRole role) {
  const char* who = role_name(role);
  if (w.ndims < 1 || w.ndims > kWalkDims) {
    fail(ErrorCode::DESC_RANGE,
         std::string(who) + ": ndims = " + std::to_string(w.ndims) + " (1.." + std::to_string(kWalkDims) + " allowed)");
  }
  if (w.nguards > kWalkGuards) {
    fail(ErrorCode::DESC_RANGE, std::string(who) + ": nguards = " + std::to_string(w.nguards) + " (0.." +
                                    std::to_string(kWalkGuards) + " allowed)");
  }
  for (std::size_t k = 0; k < w.ndims; ++k) {
    if (dim_size(w, k) == 0) {
      fail(ErrorCode::DESC_RANGE,
           std::string(who) + ": d" + std::to_string(k) + "_size is 0 in a used dimension (sizes are >= 1)");
    }
  }
  if (!num::is_memory_dtype(w.dtype)) {
    fail(ErrorCode::DESC_RANGE, std::string(who) + ": dtype " + std::to_string(static_cast<uint32_t>(w.dtype)) +
                                    " is not an L1 dtype (INT8, INT32, FLOAT16, FLOAT32)");
  }
  if (role == WalkRole::Ifd && w.cast_from != w.dtype) {
    fail(ErrorCode::DESC_RANGE, "IFD walk: cast_from must equal dtype (an IFD casts nothing)");
  }
  if (role == WalkRole::Odr && !num::is_memory_dtype(w.cast_from)) {
    fail(ErrorCode::DESC_RANGE, "ODR walk: cast_from " + std::to_string(static_cast<uint32_t>(w.cast_from)) +
                                    " is not a stream dtype (INT8, INT32, FLOAT16, FLOAT32)");
  }
  if (w.segs != 0 && role == WalkRole::Odr)
    fail(ErrorCode::DESC_RANGE, "ODR walk: segs = " + std::to_string(w.segs) + " (segments are an IFD's)");
  if (w.transpose && role == WalkRole::Ifd)
    fail(ErrorCode::DESC_RANGE, "IFD walk: transpose is set (the lane transpose is the DWPU ODR's)");
  if (w.transpose && walk_length(w) % kTransposeBlock != 0) {
    fail(ErrorCode::DESC_RANGE, "ODR walk: transpose needs a walk length that is a multiple of " +
                                    std::to_string(kTransposeBlock) + ", got " + std::to_string(walk_length(w)));
  }
}

std::vector<spec::Walk> ifd_walks(const spec::DatapathDesc& d, unsigned feeder, bool has_ifd1) {
  const std::array<const spec::Walk*, spec::param::ifd_seg_walks> pool{&d.seg0, &d.seg1};
  const uint32_t before = feeder == 0 ? 0 : d.ifd0.segs;
  const spec::Walk& first = feeder == 0 ? d.ifd0 : d.ifd1;
  const uint32_t taken = d.ifd0.segs + (has_ifd1 ? d.ifd1.segs : 0);
  if (taken > pool.size())
    fail(ErrorCode::DESC_RANGE, "IFD walks: " + std::to_string(taken) + " later segments (the descriptor has " +
                                    std::to_string(pool.size()) + " seg sections)");
  std::vector<spec::Walk> out{first};
  for (uint32_t k = 0; k < first.segs; ++k) out.push_back(*pool[before + k]);
  for (std::size_t k = 0; k < out.size(); ++k) {
    validate_walk(out[k], WalkRole::Ifd);
    if (k > 0 && out[k].segs != 0)
      fail(ErrorCode::DESC_RANGE, "IFD walk: a seg section has segs = " + std::to_string(out[k].segs) +
                                      " (only a feeder's own section names its segments)");
  }
  return out;
}

void validate_odr_kind(spec::DpKind kind, const spec::Walk& odr) {
  if (odr.transpose && kind != spec::DpKind::DWPU)
    fail(ErrorCode::DESC_RANGE, "ODR walk: transpose is set on a MVMEXE datapath (A.vtrsp is the DWPU datapath's)");
}

std::vector<Element> transpose_block(const spec::Walk& w, std::span<const Element> pops) {
  if (pops.size() != kTransposeBlock)
    throw std::invalid_argument("transpose_block: " + std::to_string(pops.size()) + " pops, a block is " +
                                std::to_string(kTransposeBlock));
  std::vector<Element> out(kTransposeBlock);
  for (std::size_t j = 0; j < kTransposeBlock; ++j) {
    check_popped(w, pops[j]);
    const num::AnyPword v = num::convert(pops[j].value, w.dtype);
    for (std::size_t i = 0; i < kTransposeBlock; ++i) {
      out[i].value.dtype = w.dtype;
      out[i].value.lanes[j] = v.lanes[i];
    }
  }
  return out;
}

uint64_t walk_length(const spec::Walk& w) {
  uint64_t n = 1;
  for (std::size_t k = 0; k < w.ndims && k < kWalkDims; ++k) n *= dim_size(w, k);
  return n;
}

WalkCursor::WalkCursor(const spec::Walk& w, WalkRole role) {
  validate_walk(w, role);
  ndims_ = w.ndims;
  nguards_ = w.nguards;
  int64_t below = 0;  // what the counters below k add at their last value
  std::array<int64_t, kWalkGuards> gbelow{};
  for (std::size_t k = 0; k < ndims_; ++k) {
    size_[k] = dim_size(w, k);
    carry_row_[k] = dim_stride(w, k) - below;
    below += int64_t{size_[k] - 1} * dim_stride(w, k);
    for (std::size_t g = 0; g < nguards_; ++g) {
      const int32_t c = guard(w, g).coef[k];
      carry_guard_[g][k] = c - gbelow[g];
      gbelow[g] += int64_t{size_[k] - 1} * c;
    }
  }
  step_.row = w.base_row;  // every counter 0
  for (std::size_t g = 0; g < nguards_; ++g) {
    const Guard gd = guard(w, g);
    guard_sum_[g] = gd.offset;
    extent_[g] = gd.extent;
    if (guard_sum_[g] < 0 || guard_sum_[g] >= int64_t{extent_[g]}) step_.guards_pass = false;
  }
}

void WalkCursor::advance() {
  if (done_) return;
  ++index_;
  for (std::size_t k = 0; k < ndims_; ++k) {
    if (++step_.idx[k] < size_[k]) {
      step_.row += carry_row_[k];
      step_.guards_pass = true;
      for (std::size_t g = 0; g < nguards_; ++g) {
        guard_sum_[g] += carry_guard_[g][k];
        if (guard_sum_[g] < 0 || guard_sum_[g] >= int64_t{extent_[g]}) step_.guards_pass = false;
      }
      return;
    }
    step_.idx[k] = 0;
  }
  done_ = true;
}

Element ifd_element(const spec::Walk& w, const WalkStep& step, std::span<const uint8_t> l1) {
  if (!step.guards_pass) return Element{num::AnyPword::splat(w.dtype, w.pad_value), true};
  const std::size_t off = element_offset(w, step.row, l1.size(), "IFD");
  return Element{num::load_element(w.dtype, l1.subspan(off, num::element_bytes(w.dtype))), false};
}

void odr_element(const spec::Walk& w, const WalkStep& step, const Element& popped, std::span<uint8_t> l1) {
  check_popped(w, popped);
  odr_store(w, step, num::convert(popped.value, w.dtype), l1);
}

void odr_store(const spec::Walk& w, const WalkStep& step, const num::AnyPword& value, std::span<uint8_t> l1) {
  if (!step.guards_pass) return;  // drop
  const std::size_t off = element_offset(w, step.row, l1.size(), "ODR");
  num::store_element(value, l1.subspan(off, num::element_bytes(w.dtype)));
}

void run_ifd(const spec::Walk& w, std::span<const uint8_t> l1, const PushFn& push) {
  for (WalkCursor c(w, WalkRole::Ifd); !c.done(); c.advance()) push(ifd_element(w, c.step(), l1));
}

void run_ifd(std::span<const spec::Walk> segments, std::span<const uint8_t> l1, const PushFn& push) {
  for (const spec::Walk& w : segments) run_ifd(w, l1, push);
}

void run_odr(const spec::Walk& w, std::span<uint8_t> l1, const PopFn& pop) {
  if (!w.transpose) {
    for (WalkCursor c(w, WalkRole::Odr); !c.done(); c.advance()) odr_element(w, c.step(), pop(), l1);
    return;
  }
  std::vector<Element> pops;
  for (WalkCursor c(w, WalkRole::Odr); !c.done();) {
    pops.clear();
    for (std::size_t j = 0; j < kTransposeBlock; ++j) pops.push_back(pop());
    for (const Element& e : transpose_block(w, pops)) {
      odr_store(w, c.step(), e.value, l1);
      c.advance();
    }
  }
}

}  // namespace axcore::ref
