// DWPU: depthwise convolution and pooling per lane (spec struct dwpu_desc, enum dwpu_op).
//
// At start, weight_count int8x64 PWORDs are read from L1 rows weight_base_row .. + count - 1.
// For each output (o3 outermost .. o0 innermost, dims >= ndims are size 1):
//   group = sum(ok * ok_wstride); for t < taps: x = pop() (int8x64), per lane:
//     CONV     acc += x * w[group + t]   (int32, wrapping; group + t outside the buffer: DESC_RANGE)
//     MAX/MIN  acc = max/min over the taps (pads take the IFD pad value like any tap)
//     SUM      acc += x                  (int32, wrapping)
//     AVERAGE  acc = round_half_even(sum / divisor); divisor 0 -> the count of taps not flagged
//              pad (0 such taps -> 0). The sum includes pad taps' values (pad with 0).
//   push(acc) as int32x64.
#pragma once

#include <axcore/spec.hpp>
#include <span>
#include <vector>

#include "axcore/num/pword.hpp"
#include "axcore/ref/stream.hpp"

namespace axcore::ref {

// Checks op, taps (1..dwpu_max_taps), ndims (1..4), used sizes, weight_count (DESC_RANGE).
void validate_dwpu(const spec::DwpuDesc& d);
uint64_t dwpu_outputs(const spec::DwpuDesc& d);
std::vector<num::PwordI8> dwpu_load_weights(const spec::DwpuDesc& d, std::span<const uint8_t> l1);
// One output from its taps (in pop order) and the loaded weights.
num::PwordI32 dwpu_output(const spec::DwpuDesc& d, const std::vector<num::PwordI8>& weights, int64_t group,
                          std::span<const Element> taps);
void run_dwpu(const spec::DwpuDesc& d, std::span<const uint8_t> l1, const PopFn& pop, const PushFn& push);

}  // namespace axcore::ref
