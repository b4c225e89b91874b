// Piecewise-linear LUTs of the DPU (guide §7, spec dpu_op LUT).
//
// Packing — one PWORD of 64 float32 values per table:
//   lane 0: x_min    lane 1: inv_step (= 1 / segment width)
//   lanes 2 + 2j, 3 + 2j: slope_j, offset_j   for j = 0 .. 30   (31 segments)
// The table reaches the DPU as float32x64 and is cast to float18x64 when its register is
// loaded (POP), so every parameter is rounded to float18 before use.
//
// Evaluation of x against one table (every step rounded to float18, read with FTZ):
//   x NaN                  -> canonical NaN
//   t   = f18(x - x_min)
//   u   = f18(t * inv_step)
//   idx = 0 if u is NaN; else clamp(floor(u), 0, 30)  (u = +inf -> 30, u = -inf -> 0)
//   y   = f18(f18(slope_idx * x) + offset_idx)
// Chained tables (LUT imm = n, 1..8, tables in registers b .. b + n - 1): the table used is the
// last k with x_min_k <= x (float18 comparison), table 0 if there is none.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "axcore/num/pword.hpp"

namespace axcore::num {

inline constexpr std::size_t kLutSegments = spec::param::lut_segments;
inline constexpr std::size_t kLutMaxChain = spec::param::lut_max_chain;

struct LutParams {
  float x_min = 0.0f;
  float inv_step = 0.0f;
  std::array<float, kLutSegments> slope{};
  std::array<float, kLutSegments> offset{};
};

// How compute_chained_lut_params splits [x_min, x_max] among the tables.
enum class LutSpacing {
  Uniform,    // equal sub-ranges (the guide's behaviour)
  Geometric,  // sub-ranges in geometric progression; needs 0 < x_min (reciprocal, rsqrt)
};

// Weighted-error floor of the fit, relative to max |f| over the domain (see below).
inline constexpr double kLutRelFloor = 1.0 / 1024;

// Fits n_luts chained tables (1..8) of f over [x_min, x_max]. Table k starts at the float18
// rounding of its sub-range's lower bound, with inv_step = f18(31 / width). Each segment is
// fitted against exactly the float18 inputs that select it in hardware (after the parameters
// are rounded to float18), minimising the largest weighted error
// |lut(x) - f(x)| / max(|f(x)|, kLutRelFloor * max|f|): relative where f is large, absolute
// near its zeros.
// Throws std::invalid_argument on a bad range, n_luts, or a non-finite f on the range.
std::vector<LutParams> compute_chained_lut_params(double x_min, double x_max, int n_luts,
                                                  const std::function<double(double)>& f,
                                                  LutSpacing spacing = LutSpacing::Uniform);

// The float32x64 PWORD of one table, in the packing above.
PwordF32 pack_lut_params_to_pword(const LutParams& params);
LutParams unpack_lut_pword(const PwordF32& pword);
// The table register the DPU holds after POPping the packed table (float32 -> float18).
PwordF18 load_lut_table(const PwordF32& pword);
std::vector<PwordF18> load_lut_tables(std::span<const LutParams> params);

// Segment index `idx` of x in one table register (the steps above), and the table chosen from
// a chain. Exposed for tests and for the RTL comparison.
std::size_t lut_segment(Float18 x, const PwordF18& table);
std::size_t lut_select_table(Float18 x, std::span<const PwordF18> tables);
// Evaluates x against chained table registers (1..8 of them; std::invalid_argument otherwise).
Float18 lut_eval(Float18 x, std::span<const PwordF18> tables);
PwordF18 lut_eval(const PwordF18& x, std::span<const PwordF18> tables);

// Every float18 value in [lo, hi] (finite, canonical, each zero once as +0), ascending.
std::vector<Float18> f18_values_in(double lo, double hi);

}  // namespace axcore::num
