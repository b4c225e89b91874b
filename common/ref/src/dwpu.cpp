#include "axcore/ref/dwpu.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "axcore/num/int_cast.hpp"
#include "axcore/ref/error.hpp"

namespace axcore::ref {

using spec::DwpuOp;
using spec::ErrorCode;

namespace {
std::array<uint32_t, 4> out_sizes(const spec::DwpuDesc& d) {
  std::array<uint32_t, 4> s{d.o0_size, d.o1_size, d.o2_size, d.o3_size};
  for (std::size_t k = d.ndims; k < 4; ++k) s[k] = 1;
  return s;
}
}  // namespace

void validate_dwpu(const spec::DwpuDesc& d) {
  if (static_cast<uint32_t>(d.op) > static_cast<uint32_t>(DwpuOp::AVERAGE)) {
    fail(ErrorCode::DESC_RANGE, "DWPU: op " + std::to_string(static_cast<uint32_t>(d.op)) + " is not a dwpu_op");
  }
  if (d.taps < 1 || d.taps > spec::param::dwpu_max_taps) {
    fail(ErrorCode::DESC_RANGE,
         "DWPU: taps = " + std::to_string(d.taps) + " (1.." + std::to_string(spec::param::dwpu_max_taps) + " allowed)");
  }
  if (d.ndims < 1 || d.ndims > spec::param::dwpu_out_dims) {
    fail(ErrorCode::DESC_RANGE, "DWPU: ndims = " + std::to_string(d.ndims) + " (1..4 allowed)");
  }
  const auto s = out_sizes(d);
  for (std::size_t k = 0; k < d.ndims; ++k) {
    if (s[k] == 0) fail(ErrorCode::DESC_RANGE, "DWPU: o" + std::to_string(k) + "_size is 0 in a used dimension");
  }
  if (d.weight_count > spec::param::dwpu_weight_pwords) {
    fail(ErrorCode::DESC_RANGE, "DWPU: weight_count = " + std::to_string(d.weight_count) + " exceeds the " +
                                    std::to_string(spec::param::dwpu_weight_pwords) + "-PWORD weight buffer");
  }
}

uint64_t dwpu_outputs(const spec::DwpuDesc& d) {
  const auto s = out_sizes(d);
  return uint64_t{s[0]} * s[1] * s[2] * s[3];
}

std::vector<num::PwordI8> dwpu_load_weights(const spec::DwpuDesc& d, std::span<const uint8_t> l1) {
  const std::size_t rb = spec::param::l1_row_bytes;
  if ((std::size_t{d.weight_base_row} + d.weight_count) * rb > l1.size()) {
    fail(ErrorCode::L1_RANGE, "DWPU: weights at rows " + std::to_string(d.weight_base_row) + ".." +
                                  std::to_string(d.weight_base_row + d.weight_count) + " leave L1");
  }
  std::vector<num::PwordI8> w(d.weight_count);
  for (std::size_t i = 0; i < w.size(); ++i) {
    w[i] = num::load_element(spec::Dtype::INT8, l1.subspan((d.weight_base_row + i) * rb, rb)).as_i8();
  }
  return w;
}

num::PwordI32 dwpu_output(const spec::DwpuDesc& d, const std::vector<num::PwordI8>& weights, int64_t group,
                          std::span<const Element> taps) {
  num::PwordI32 acc{};
  std::array<int64_t, num::kLanes> sum{};
  int64_t real_taps = 0;
  for (std::size_t t = 0; t < taps.size(); ++t) {
    if (taps[t].value.dtype != spec::Dtype::INT8) {
      fail(ErrorCode::STREAM_DTYPE, std::string("DWPU: input element is ") +
                                        std::string(spec::to_string(taps[t].value.dtype)) + ", the DWPU takes INT8");
    }
    const num::PwordI8 x = taps[t].value.as_i8();
    if (!taps[t].pad) ++real_taps;
    if (d.op == DwpuOp::CONV) {
      const int64_t wi = group + static_cast<int64_t>(t);
      if (wi < 0 || wi >= static_cast<int64_t>(weights.size())) {
        fail(ErrorCode::DESC_RANGE,
             "DWPU: weight " + std::to_string(wi) + " outside the " + std::to_string(weights.size()) + " loaded");
      }
      const num::PwordI8& w = weights[static_cast<std::size_t>(wi)];
      for (std::size_t n = 0; n < num::kLanes; ++n) acc[n] = num::wrap_add(acc[n], int32_t{x[n]} * w[n]);
      continue;
    }
    for (std::size_t n = 0; n < num::kLanes; ++n) {
      switch (d.op) {
        case DwpuOp::MAX: acc[n] = t == 0 ? x[n] : std::max<int32_t>(acc[n], x[n]); break;
        case DwpuOp::MIN: acc[n] = t == 0 ? x[n] : std::min<int32_t>(acc[n], x[n]); break;
        case DwpuOp::SUM: acc[n] = num::wrap_add(acc[n], x[n]); break;
        default: sum[n] += x[n]; break;  // AVERAGE
      }
    }
  }
  if (d.op == DwpuOp::AVERAGE) {
    const int64_t divisor = d.divisor != 0 ? int64_t{d.divisor} : real_taps;
    for (std::size_t n = 0; n < num::kLanes; ++n) acc[n] = divisor == 0 ? 0 : num::div_round_half_even(sum[n], divisor);
  }
  return acc;
}

void run_dwpu(const spec::DwpuDesc& d, std::span<const uint8_t> l1, const PopFn& pop, const PushFn& push) {
  validate_dwpu(d);
  const std::vector<num::PwordI8> w = dwpu_load_weights(d, l1);
  const auto s = out_sizes(d);
  std::vector<Element> taps(d.taps);
  std::array<uint32_t, 4> o{};
  for (o[3] = 0; o[3] < s[3]; ++o[3])
    for (o[2] = 0; o[2] < s[2]; ++o[2])
      for (o[1] = 0; o[1] < s[1]; ++o[1])
        for (o[0] = 0; o[0] < s[0]; ++o[0]) {
          const int64_t group = int64_t{o[0]} * d.o0_wstride + int64_t{o[1]} * d.o1_wstride +
                                int64_t{o[2]} * d.o2_wstride + int64_t{o[3]} * d.o3_wstride;
          for (auto& t : taps) t = pop();
          push(Element{num::AnyPword::of(dwpu_output(d, w, group, taps)), false});
        }
}

}  // namespace axcore::ref
