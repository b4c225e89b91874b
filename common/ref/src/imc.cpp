#include "axcore/ref/imc.hpp"

#include <algorithm>
#include <string>

#include "axcore/num/int_cast.hpp"
#include "axcore/ref/error.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define AXCORE_MVM_AVX2 1
#else
#define AXCORE_MVM_AVX2 0
#endif

namespace axcore::ref {

using spec::ErrorCode;

Imc::Imc(std::size_t tiles) : tiles_(tiles), valid_(tiles, false) {
  for (auto& t : tiles_) t.fill(0);
}

std::size_t Imc::valid_tiles() const {
  return static_cast<std::size_t>(std::count(valid_.begin(), valid_.end(), true));
}

void Imc::begin_residency(uint32_t matrix_id) {
  if (matrix_id == matrix_id_) return;
  std::fill(valid_.begin(), valid_.end(), false);
  matrix_id_ = matrix_id;
}

void Imc::reset() {
  for (auto& t : tiles_) t.fill(0);
  std::fill(valid_.begin(), valid_.end(), false);
  matrix_id_ = 0;
  stale_reads = 0;
}

namespace {
std::size_t checked_tile(int64_t t, std::size_t tiles, const char* who) {
  if (t < 0 || t >= static_cast<int64_t>(tiles)) {
    fail(ErrorCode::IMC_RANGE,
         std::string(who) + ": tile " + std::to_string(t) + " outside the IMC's " + std::to_string(tiles) + " tiles");
  }
  return static_cast<std::size_t>(t);
}
}  // namespace

void run_loadimc(const spec::LoadimcDesc& d, std::span<const uint8_t> l1, Imc& imc) {
  if (d.magic != spec::magic::loadimc) {
    fail(ErrorCode::DESC_MAGIC, "LoadIMC: magic " + std::to_string(d.magic) + " is not 0x1C");
  }
  if (d.d0_size == 0 || d.d1_size == 0) fail(ErrorCode::DESC_RANGE, "LoadIMC: d0_size and d1_size must be >= 1");
  imc.begin_residency(d.matrix_id);
  const std::size_t row_bytes = spec::param::l1_row_bytes;
  for (uint32_t t1 = 0; t1 < d.d1_size; ++t1) {
    for (uint32_t t0 = 0; t0 < d.d0_size; ++t0) {
      const std::size_t t = checked_tile(int64_t{d.tile_base} + int64_t{t0} * d.d0_tstride + int64_t{t1} * d.d1_tstride,
                                         imc.tiles(), "LoadIMC");
      const int64_t first = int64_t{d.base_row} + int64_t{t0} * d.d0_astride + int64_t{t1} * d.d1_astride;
      const int64_t last = first + int64_t{kTileRows - 1} * d.row_stride;
      if (first < 0 || (last + 1) * static_cast<int64_t>(row_bytes) > static_cast<int64_t>(l1.size())) {
        fail(ErrorCode::L1_RANGE, "LoadIMC: tile " + std::to_string(t) + " reads L1 rows " + std::to_string(first) +
                                      ".." + std::to_string(last) + ", outside L1 of " +
                                      std::to_string(l1.size() / row_bytes) + " rows");
      }
      Tile& tile = imc.tile(t);
      for (std::size_t r = 0; r < kTileRows; ++r) {
        const auto row = static_cast<std::size_t>(first + static_cast<int64_t>(r) * d.row_stride);
        for (std::size_t n = 0; n < num::kLanes; ++n) {
          tile[r * num::kLanes + n] = static_cast<int8_t>(l1[row * row_bytes + n]);
        }
      }
      imc.set_valid(t);
    }
  }
}

namespace {
std::array<uint32_t, 4> out_sizes(const spec::MvmDesc& d) {
  std::array<uint32_t, 4> s{d.o0_size, d.o1_size, d.o2_size, d.o3_size};
  for (std::size_t k = d.ndims; k < 4; ++k) s[k] = 1;
  return s;
}
}  // namespace

void validate_mvm(const spec::MvmDesc& d) {
  if (d.ndims < 1 || d.ndims > spec::param::mvm_out_dims) {
    fail(ErrorCode::DESC_RANGE, "MVM: ndims = " + std::to_string(d.ndims) + " (1..4 allowed)");
  }
  if (d.k_blocks < 1) fail(ErrorCode::DESC_RANGE, "MVM: k_blocks must be >= 1");
  const auto s = out_sizes(d);
  for (std::size_t k = 0; k < d.ndims; ++k) {
    if (s[k] == 0) fail(ErrorCode::DESC_RANGE, "MVM: o" + std::to_string(k) + "_size is 0 in a used dimension");
  }
}

uint64_t mvm_outputs(const spec::MvmDesc& d) {
  const auto s = out_sizes(d);
  return uint64_t{s[0]} * s[1] * s[2] * s[3];
}

// The tile-op kernel. Per lane the 64 products sum to at most 64 * 128 * 128 = 2^20, exact in
// int32 in any order; only the add into the accumulator wraps. Both versions below compute that
// exactly, so they are bit-identical to the plain sum_k x[k] * tile[k][n] (tests/ref check it).
namespace detail {

// Portable: row k outer, the 64 lanes inner (contiguous), which compilers vectorise.
void mvm_accumulate_portable(num::PwordI32& acc, const num::PwordI8& x, const Tile& tile) {
  std::array<int32_t, num::kLanes> sum{};
  for (std::size_t k = 0; k < kTileRows; ++k) {
    const int32_t xk = x[k];
    const int8_t* row = tile.data() + k * num::kLanes;
    for (std::size_t n = 0; n < num::kLanes; ++n) sum[n] += xk * int32_t{row[n]};
  }
  for (std::size_t n = 0; n < num::kLanes; ++n) acc[n] = num::wrap_add(acc[n], sum[n]);
}

#if AXCORE_MVM_AVX2
// AVX2: rows k and k + 1 interleaved byte-wise and sign-extended give (tile[k][n], tile[k+1][n])
// int16 pairs, and one madd with the broadcast pair (x[k], x[k+1]) adds both products into lane
// n's int32 (each pair sum |.| <= 2^15, no saturation in vpmaddwd).
namespace {
__attribute__((target("avx2"))) void mvm_accumulate_avx2(num::PwordI32& acc, const num::PwordI8& x, const Tile& tile) {
  static_assert(num::kLanes == 64 && kTileRows % 2 == 0);
  __m256i s[8];
  for (auto& v : s) v = _mm256_setzero_si256();
  for (std::size_t k = 0; k < kTileRows; k += 2) {
    const uint32_t pair =
        uint32_t{static_cast<uint16_t>(int16_t{x[k]})} | uint32_t{static_cast<uint16_t>(int16_t{x[k + 1]})} << 16;
    const __m256i xx = _mm256_set1_epi32(static_cast<int>(pair));
    const int8_t* r0 = tile.data() + k * num::kLanes;
    for (std::size_t c = 0; c < 4; ++c) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r0 + 16 * c));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r0 + num::kLanes + 16 * c));
      s[2 * c] = _mm256_add_epi32(s[2 * c], _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_unpacklo_epi8(a, b)), xx));
      s[2 * c + 1] =
          _mm256_add_epi32(s[2 * c + 1], _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_unpackhi_epi8(a, b)), xx));
    }
  }
  for (std::size_t i = 0; i < 8; ++i) {  // 32-bit adds wrap: acc[n] = wrap_add(acc[n], sum[n])
    auto* p = reinterpret_cast<__m256i*>(acc.data() + 8 * i);
    _mm256_storeu_si256(p, _mm256_add_epi32(_mm256_loadu_si256(p), s[i]));
  }
}
}  // namespace
#endif

bool mvm_accumulate_has_simd() {
#if AXCORE_MVM_AVX2
  static const bool avx2 = [] {
    __builtin_cpu_init();  // safe even before libgcc's constructors ran (a static initializer's call)
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return avx2;
#else
  return false;
#endif
}

}  // namespace detail

void mvm_accumulate(num::PwordI32& acc, const num::PwordI8& x, const Tile& tile) {
#if AXCORE_MVM_AVX2
  if (detail::mvm_accumulate_has_simd()) return detail::mvm_accumulate_avx2(acc, x, tile);
#endif
  detail::mvm_accumulate_portable(acc, x, tile);
}

std::size_t mvm_tile_index(const spec::MvmDesc& d, const std::array<uint32_t, 4>& o, uint32_t kb,
                           std::size_t imc_tiles) {
  const int64_t t = int64_t{d.tile_base} + int64_t{kb} * d.k_stride + int64_t{o[0]} * d.o0_tstride +
                    int64_t{o[1]} * d.o1_tstride + int64_t{o[2]} * d.o2_tstride + int64_t{o[3]} * d.o3_tstride;
  return checked_tile(t, imc_tiles, "MVM");
}

void run_mvm(const spec::MvmDesc& d, Imc& imc, const PopFn& pop, const PushFn& push) {
  validate_mvm(d);
  const auto s = out_sizes(d);
  std::array<uint32_t, 4> o{};
  for (o[3] = 0; o[3] < s[3]; ++o[3])
    for (o[2] = 0; o[2] < s[2]; ++o[2])
      for (o[1] = 0; o[1] < s[1]; ++o[1])
        for (o[0] = 0; o[0] < s[0]; ++o[0]) {
          num::PwordI32 acc{};
          for (uint32_t kb = 0; kb < d.k_blocks; ++kb) {
            const Element x = pop();
            if (x.value.dtype != spec::Dtype::INT8) {
              fail(ErrorCode::STREAM_DTYPE, std::string("MVM: input element is ") +
                                                std::string(spec::to_string(x.value.dtype)) + ", the MVM takes INT8");
            }
            const std::size_t t = mvm_tile_index(d, o, kb, imc.tiles());
            if (imc.matrix_id() != d.matrix_id || !imc.valid(t)) ++imc.stale_reads;
            mvm_accumulate(acc, x.value.as_i8(), imc.tile(t));
          }
          push(Element{num::AnyPword::of(acc), false});
        }
}

}  // namespace axcore::ref
