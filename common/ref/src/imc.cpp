#include "axcore/ref/imc.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "axcore/num/int_cast.hpp"
#include "axcore/ref/error.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define AXCORE_MVM_X86 1
#else
#define AXCORE_MVM_X86 0
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

Imc& Imc::operator=(const Imc& o) {
  if (this == &o) return *this;
  if (watcher_)
    for (std::size_t t = 0; t < tiles_.size(); ++t) watcher_->tile_changing(t);
  tiles_ = o.tiles_;
  valid_ = o.valid_;
  matrix_id_ = o.matrix_id_;
  stale_reads = o.stale_reads;
  return *this;
}

bool Imc::watch(Watcher* w) {
  if (w && watcher_ && watcher_ != w) return false;
  watcher_ = w;
  return true;
}

void Imc::reset() {
  if (watcher_)
    for (std::size_t t = 0; t < tiles_.size(); ++t) watcher_->tile_changing(t);
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

// The tile-op kernels. Per lane the 64 products sum to at most 64 * 128 * 128 = 2^20, exact in
// int32 in any order; only the add into the accumulator wraps. Every kernel below computes that
// exactly, so all are bit-identical to the plain sum_k x[k] * tile[k][n] (tests/ref check it).
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

namespace {
using KernelFn = void (*)(num::PwordI32&, const num::PwordI8&, const Tile&);

#if AXCORE_MVM_X86
// AVX2: rows k and k + 1 interleaved byte-wise and sign-extended give (tile[k][n], tile[k+1][n])
// int16 pairs, and one madd with the broadcast pair (x[k], x[k+1]) adds both products into lane
// n's int32 (each pair sum |.| <= 2^15, no saturation in vpmaddwd).
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

#define AXCORE_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))
// Rows r .. r + 3 of a tile (r points at the first), sign bits flipped and interleaved into dwords
// (t[k][n], t[k+1][n], t[k+2][n], t[k+3][n]): the vpdpbusd operands u[0..3] (see below).
AXCORE_VNNI_TARGET inline void vnni_rows4(const int8_t* r, __m512i (&u)[4]) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i r0 = _mm512_xor_si512(_mm512_loadu_si512(r), flip);
  const __m512i r1 = _mm512_xor_si512(_mm512_loadu_si512(r + num::kLanes), flip);
  const __m512i r2 = _mm512_xor_si512(_mm512_loadu_si512(r + 2 * num::kLanes), flip);
  const __m512i r3 = _mm512_xor_si512(_mm512_loadu_si512(r + 3 * num::kLanes), flip);
  const __m512i ab_lo = _mm512_unpacklo_epi8(r0, r1), ab_hi = _mm512_unpackhi_epi8(r0, r1);
  const __m512i cd_lo = _mm512_unpacklo_epi8(r2, r3), cd_hi = _mm512_unpackhi_epi8(r2, r3);
  u[0] = _mm512_unpacklo_epi16(ab_lo, cd_lo);
  u[1] = _mm512_unpackhi_epi16(ab_lo, cd_lo);
  u[2] = _mm512_unpacklo_epi16(ab_hi, cd_hi);
  u[3] = _mm512_unpackhi_epi16(ab_hi, cd_hi);
}
// The four sums of vnni_rows4's lane order put back in lane order (a 4 x 4 transpose of 128-bit
// blocks) and added into acc (32-bit adds wrap: acc[n] = wrap_add(acc[n], sum[n])). (maskz with
// every lane: gcc 12's plain _mm512_shuffle_i32x4 trips -Wuninitialized on its internal undefined
// source)
AXCORE_VNNI_TARGET inline void vnni_add_sums(num::PwordI32& acc, __m512i s0, __m512i s1, __m512i s2, __m512i s3) {
  const __m512i t0 = _mm512_maskz_shuffle_i32x4(0xFFFF, s0, s1, 0x44);
  const __m512i t1 = _mm512_maskz_shuffle_i32x4(0xFFFF, s0, s1, 0xEE);
  const __m512i t2 = _mm512_maskz_shuffle_i32x4(0xFFFF, s2, s3, 0x44);
  const __m512i t3 = _mm512_maskz_shuffle_i32x4(0xFFFF, s2, s3, 0xEE);
  const __m512i out[4] = {
      _mm512_maskz_shuffle_i32x4(0xFFFF, t0, t2, 0x88), _mm512_maskz_shuffle_i32x4(0xFFFF, t0, t2, 0xDD),
      _mm512_maskz_shuffle_i32x4(0xFFFF, t1, t3, 0x88), _mm512_maskz_shuffle_i32x4(0xFFFF, t1, t3, 0xDD)};
  for (std::size_t i = 0; i < 4; ++i) {
    int32_t* p = acc.data() + 16 * i;
    _mm512_storeu_si512(p, _mm512_add_epi32(_mm512_loadu_si512(p), out[i]));
  }
}

// AVX-512 VNNI: vpdpbusd adds four unsigned x signed byte products into each int32 lane. The
// tile's bytes are made unsigned by flipping their sign bit (u = t + 128, 0..255) and x stays
// signed, so a lane sums x[k] * (t[k][n] + 128) = x[k] * t[k][n] + 128 * x[k]; the sums start at
// -128 * sum_k x[k] to take that back out. Every partial sum is within 64 * 128 * 255 < 2^21, so
// nothing saturates or wraps before the final add into the accumulator. Four rows k..k+3 are
// interleaved byte-wise (unpack 8 then 16 bits, within each 128-bit block) into dwords
// (t[k][n], t[k+1][n], t[k+2][n], t[k+3][n]); the block-local unpacks leave lane n = 16 b + 4 g + j
// in sum register g at dword 4 b + j, which a 4 x 4 transpose of 128-bit blocks puts back.
AXCORE_VNNI_TARGET void mvm_accumulate_avx512_vnni(num::PwordI32& acc, const num::PwordI8& x, const Tile& tile) {
  static_assert(num::kLanes == 64 && kTileRows % 4 == 0);
  int32_t xsum = 0;
  for (const int8_t v : x) xsum += v;
  // Two sets of four sums (rows k..k+3 and k+4..k+7), added at the end: each dpbusd chain is half
  // as long, so the kernel is bound by dpbusd throughput, not by its latency.
  const __m512i start = _mm512_set1_epi32(-128 * xsum), zero = _mm512_setzero_si512();
  __m512i s[8] = {start, start, start, start, zero, zero, zero, zero};  // the second set from 0
  for (std::size_t k = 0; k < kTileRows; k += 8) {
    for (std::size_t h = 0; h < 2; ++h) {
      uint32_t quad;
      std::memcpy(&quad, x.data() + k + 4 * h, sizeof quad);  // bytes x[k..k+3], little-endian as the rows' order
      const __m512i xx = _mm512_set1_epi32(static_cast<int>(quad));
      __m512i u[4];
      vnni_rows4(tile.data() + (k + 4 * h) * num::kLanes, u);
      __m512i* q = s + 4 * h;
      for (std::size_t g = 0; g < 4; ++g) q[g] = _mm512_dpbusd_epi32(q[g], u[g], xx);
    }
  }
  vnni_add_sums(acc, _mm512_add_epi32(s[0], s[4]), _mm512_add_epi32(s[1], s[5]), _mm512_add_epi32(s[2], s[6]),
                _mm512_add_epi32(s[3], s[7]));
}

// The VNNI kernel for N elements against one tile: each 4-row group is loaded, flipped and
// interleaved once, then feeds N chains of four sums (one set per element; N chains keep
// vpdpbusd busy without the single kernel's second set). N <= 3 keeps every register live.
template <std::size_t N>
AXCORE_VNNI_TARGET void mvm_accumulate_avx512_vnni_n(num::PwordI32* const* acc, const num::PwordI8* const* x,
                                                     const Tile& tile) {
  static_assert(num::kLanes == 64 && kTileRows % 4 == 0 && N >= 1 && N <= 3);
  __m512i s[N][4];
  for (std::size_t i = 0; i < N; ++i) {
    int32_t xsum = 0;
    for (const int8_t v : *x[i]) xsum += v;
    for (auto& v : s[i]) v = _mm512_set1_epi32(-128 * xsum);
  }
#pragma GCC unroll 16
  for (std::size_t k = 0; k < kTileRows; k += 4) {
    __m512i u[4];
    vnni_rows4(tile.data() + k * num::kLanes, u);
#pragma GCC unroll 3
    for (std::size_t i = 0; i < N; ++i) {
      uint32_t quad;
      std::memcpy(&quad, x[i]->data() + k, sizeof quad);
      const __m512i xx = _mm512_set1_epi32(static_cast<int>(quad));
      for (std::size_t g = 0; g < 4; ++g) s[i][g] = _mm512_dpbusd_epi32(s[i][g], u[g], xx);
    }
  }
  for (std::size_t i = 0; i < N; ++i) vnni_add_sums(*acc[i], s[i][0], s[i][1], s[i][2], s[i][3]);
}
#undef AXCORE_VNNI_TARGET
#endif

KernelFn kernel_fn(MvmKernel k) {
  switch (k) {
#if AXCORE_MVM_X86
    case MvmKernel::avx2: return mvm_accumulate_avx2;
    case MvmKernel::avx512_vnni: return mvm_accumulate_avx512_vnni;
#else
    case MvmKernel::avx2:
    case MvmKernel::avx512_vnni: break;
#endif
    case MvmKernel::portable: return mvm_accumulate_portable;
  }
  return mvm_accumulate_portable;
}

constexpr std::array kAllKernels{MvmKernel::portable, MvmKernel::avx2, MvmKernel::avx512_vnni};

MvmKernel chosen_at_start() {
  const char* env = std::getenv("AXCORE_MVM_KERNEL");
  if (env == nullptr || *env == '\0') {
    MvmKernel best = MvmKernel::portable;
    for (const MvmKernel k : kAllKernels)
      if (mvm_kernel_supported(k)) best = k;  // kAllKernels runs from slowest to fastest
    return best;
  }
  const std::string_view name(env);
  for (const MvmKernel k : kAllKernels) {
    if (name != to_string(k)) continue;
    if (!mvm_kernel_supported(k)) {
      throw std::runtime_error("AXCORE_MVM_KERNEL=" + std::string(name) + ": this CPU cannot run that kernel");
    }
    return k;
  }
  throw std::runtime_error("AXCORE_MVM_KERNEL=" + std::string(name) +
                           ": not a kernel (portable, avx2, avx512_vnni; unset = the fastest this CPU runs)");
}

struct Chosen {
  MvmKernel kernel;
  KernelFn fn;
};
Chosen& chosen() {
  static Chosen c = [] {
    const MvmKernel k = chosen_at_start();
    return Chosen{k, kernel_fn(k)};
  }();
  return c;
}
}  // namespace

std::string_view to_string(MvmKernel k) {
  switch (k) {
    case MvmKernel::portable: return "portable";
    case MvmKernel::avx2: return "avx2";
    case MvmKernel::avx512_vnni: return "avx512_vnni";
  }
  return "?";
}

bool mvm_kernel_supported(MvmKernel k) {
#if AXCORE_MVM_X86
  __builtin_cpu_init();  // safe even before libgcc's constructors ran (a static initializer's call)
  switch (k) {
    case MvmKernel::portable: return true;
    case MvmKernel::avx2: return __builtin_cpu_supports("avx2") != 0;
    case MvmKernel::avx512_vnni:
      return __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512bw") != 0 &&
             __builtin_cpu_supports("avx512vnni") != 0;
  }
  return false;
#else
  return k == MvmKernel::portable;
#endif
}

MvmKernel mvm_kernel() { return chosen().kernel; }

void set_mvm_kernel(MvmKernel k) {
  if (!mvm_kernel_supported(k)) {
    throw std::invalid_argument("set_mvm_kernel: this CPU cannot run the " + std::string(to_string(k)) + " kernel");
  }
  chosen() = Chosen{k, kernel_fn(k)};
}

void mvm_accumulate_with(MvmKernel k, num::PwordI32& acc, const num::PwordI8& x, const Tile& tile) {
  if (!mvm_kernel_supported(k)) {
    throw std::invalid_argument("mvm_accumulate_with: this CPU cannot run the " + std::string(to_string(k)) +
                                " kernel");
  }
  kernel_fn(k)(acc, x, tile);
}

}  // namespace detail

void mvm_accumulate(num::PwordI32& acc, const num::PwordI8& x, const Tile& tile) { detail::chosen().fn(acc, x, tile); }

void mvm_accumulate_each(std::span<num::PwordI32* const> acc, std::span<const num::PwordI8* const> x,
                         const Tile& tile) {
  if (acc.size() != x.size())
    throw std::invalid_argument("mvm_accumulate_each: " + std::to_string(acc.size()) + " sums for " +
                                std::to_string(x.size()) + " elements");
  std::size_t i = 0;
#if AXCORE_MVM_X86
  if (detail::chosen().kernel == detail::MvmKernel::avx512_vnni) {
    for (; i + 3 <= x.size(); i += 3) detail::mvm_accumulate_avx512_vnni_n<3>(&acc[i], &x[i], tile);
    if (x.size() - i == 2) detail::mvm_accumulate_avx512_vnni_n<2>(&acc[i], &x[i], tile), i += 2;
  }
#endif
  for (; i < x.size(); ++i) mvm_accumulate(*acc[i], *x[i], tile);
}

std::size_t mvm_tile_index(const spec::MvmDesc& d, const std::array<uint32_t, 4>& o, uint32_t kb,
                           std::size_t imc_tiles) {
  const int64_t t = int64_t{d.tile_base} + int64_t{kb} * d.k_stride + int64_t{o[0]} * d.o0_tstride +
                    int64_t{o[1]} * d.o1_tstride + int64_t{o[2]} * d.o2_tstride + int64_t{o[3]} * d.o3_tstride;
  return checked_tile(t, imc_tiles, "MVM");
}

namespace {
// acc -= x . tile (exact modulo 2^32, as every sum here)
void mvm_subtract(num::PwordI32& acc, const num::PwordI8& x, const Tile& tile) {
  num::PwordI32 p{};
  mvm_accumulate(p, x, tile);
  for (std::size_t n = 0; n < num::kLanes; ++n)
    acc[n] = static_cast<int32_t>(static_cast<uint32_t>(acc[n]) - static_cast<uint32_t>(p[n]));
}

// v.as_i8() == x (the low byte of every lane), without building the PWORD.
bool same_i8_portable(const num::AnyPword& v, const num::PwordI8& x) {
  bool same = true;
  for (std::size_t n = 0; n < num::kLanes; ++n) same &= static_cast<uint8_t>(v.lanes[n]) == static_cast<uint8_t>(x[n]);
  return same;
}
#if AXCORE_MVM_X86
__attribute__((target("avx512f,avx512bw"))) bool same_i8_avx512(const num::AnyPword& v, const num::PwordI8& x) {
  static_assert(num::kLanes == 64);
  const __m512i b = _mm512_loadu_si512(x.data());
  __m512i lanes = _mm512_setzero_si512();  // the low bytes of the 64 lanes, in order
  for (int i = 0; i < 4; ++i) {
    const __m128i q =
        _mm512_maskz_cvtepi32_epi8(0xFFFF, _mm512_loadu_si512(v.lanes.data() + 16 * i));  // (maskz: see above)
    lanes = _mm512_maskz_inserti32x4(0xFFFF, lanes, q, i);
  }
  return _mm512_cmpneq_epi8_mask(lanes, b) == 0;
}
#endif
bool same_i8(const num::AnyPword& v, const num::PwordI8& x) {
#if AXCORE_MVM_X86
  if (detail::mvm_kernel() == detail::MvmKernel::avx512_vnni) return same_i8_avx512(v, x);  // (avx512bw there)
#endif
  return same_i8_portable(v, x);
}
constexpr std::size_t kNoTile = SIZE_MAX;
constexpr uint64_t kPrefetchOps = 4;
}  // namespace

MvmRun::MvmRun(const spec::MvmDesc& d, Imc& imc, MvmLookahead* ahead) : d_(d), imc_(imc), ahead_(ahead) {
  validate_mvm(d);
  sizes_ = out_sizes(d);
  const std::array<int32_t, 4> tstride{d.o0_tstride, d.o1_tstride, d.o2_tstride, d.o3_tstride};
  uint64_t outs = 1;
  for (std::size_t k = 0; k < d.ndims; ++k) {
    if (tstride[k] == 0 && sizes_[k] > 1) {
      reuse_dim_ = k;
      break;
    }
    outs *= sizes_[k];
  }
  row_outs_ = outs;
  row_ops_ = outs * d.k_blocks;
  if (!ahead_ || reuse_dim_ == 4 || row_ops_ > kMaxRowOps || !imc_.watch(this)) ahead_ = nullptr;
}

MvmRun::~MvmRun() {
  if (!ahead_) return;
  imc_.watch(nullptr);
  ahead_->release();
}

// At the first tile-op of a row of dimension j (x is its element): rows o_j .. o_j + rows - 1
// read ahead and computed tile by tile.
void MvmRun::begin_block(const num::PwordI8& x) {
  const uint64_t rows = std::min<uint64_t>(kBlockRows, sizes_[reuse_dim_] - o_[reuse_dim_]);
  blk_first_ = op_;
  blk_q_ = blk_out_ = 0;
  blk_x_.resize(rows * row_ops_);
  blk_pre_.resize(rows * row_ops_);
  blk_tile_.resize(row_ops_);
  blk_acc_.assign(rows * row_outs_, num::PwordI32{});
  // Tile-op q's tile: the row's outputs from o_ (dims below j), kb fastest.
  std::array<uint32_t, 4> o = o_;
  uint32_t kb = 0;
  for (uint64_t q = 0; q < row_ops_; ++q) {
    const int64_t t = int64_t{d_.tile_base} + int64_t{kb} * d_.k_stride + int64_t{o[0]} * d_.o0_tstride +
                      int64_t{o[1]} * d_.o1_tstride + int64_t{o[2]} * d_.o2_tstride + int64_t{o[3]} * d_.o3_tstride;
    // (a tile outside the IMC: that tile-op faults when it comes)
    blk_tile_[q] = t < 0 || t >= static_cast<int64_t>(imc_.tiles()) ? kNoTile : static_cast<std::size_t>(t);
    if (++kb < d_.k_blocks) continue;
    kb = 0;
    for (std::size_t k = 0; k < reuse_dim_; ++k) {
      if (++o[k] < sizes_[k]) break;
      o[k] = 0;
    }
  }
  // The elements: this one, then the rest read ahead (in the order the run pops them).
  blk_x_[0] = x;
  const uint64_t read = 1 + ahead_->fetch(op_ + 1, std::span(blk_x_).subspan(1));
  for (uint64_t p = 0, q = 0; p < blk_x_.size(); ++p, q = q + 1 == row_ops_ ? 0 : q + 1)
    blk_pre_[p] = p < read && blk_tile_[q] != kNoTile;
  std::array<num::PwordI32*, kBlockRows> acc{};
  std::array<const num::PwordI8*, kBlockRows> xs{};
  const Imc& imc = imc_;
  for (uint64_t q = 0, out = 0, kbq = 0; q < row_ops_; ++q) {
    std::size_t n = 0;
    for (uint64_t r = 0; r < rows; ++r) {
      const uint64_t p = r * row_ops_ + q;
      if (!blk_pre_[p]) continue;
      acc[n] = &blk_acc_[r * row_outs_ + out];
      xs[n++] = &blk_x_[p];
    }
    if (n) mvm_accumulate_each(std::span(acc).first(n), std::span(xs).first(n), imc.tile(blk_tile_[q]));
    if (++kbq == d_.k_blocks) kbq = 0, ++out;
  }
  block_ops_ += blk_x_.size();
}

void MvmRun::tile_changing(std::size_t t) {
  for (uint64_t p = op_ - blk_first_; p < blk_x_.size(); ++p) {  // the tile-ops not taken yet
    const uint64_t q = p % row_ops_;
    if (!blk_pre_[p] || blk_tile_[q] != t) continue;
    mvm_subtract(blk_acc_[(p / row_ops_) * row_outs_ + q / d_.k_blocks], blk_x_[p], std::as_const(imc_).tile(t));
    blk_pre_[p] = 0;
  }
}

const Element* MvmRun::take(const Element& x) {
  if (x.value.dtype != spec::Dtype::INT8) {
    fail(ErrorCode::STREAM_DTYPE,
         std::string("MVM: input element is ") + std::string(spec::to_string(x.value.dtype)) + ", the MVM takes INT8");
  }
  // (in a block, tile-op q's tile is the block's: the same sum, the rows' dimension adds 0)
  const bool in_block = op_ - blk_first_ < blk_x_.size() && blk_tile_[blk_q_] != kNoTile;
  const std::size_t t = in_block ? blk_tile_[blk_q_] : mvm_tile_index(d_, o_, kb_, imc_.tiles());
  if (imc_.matrix_id() != d_.matrix_id || !imc_.valid(t)) ++imc_.stale_reads;
  const Imc& imc = imc_;
  num::PwordI32* acc = &acc_;
  // (a block's first element is never marked built_as_fetched: the last fetch ended before it)
  if (ahead_ && op_ - blk_first_ >= blk_x_.size() && kb_ == 0 && sizes_[reuse_dim_] - o_[reuse_dim_] >= 2 &&
      std::all_of(o_.begin(), o_.begin() + static_cast<std::ptrdiff_t>(reuse_dim_), [](uint32_t v) { return v == 0; }))
    begin_block(x.value.as_i8());
  if (const uint64_t p = op_ - blk_first_; p < blk_x_.size()) {  // in the block
    const uint64_t q = blk_q_;
    acc = &blk_acc_[blk_out_];
    // (the block's elements were read ahead some hundred tiles ago: bring the next ones back in)
    if (p + kPrefetchOps < blk_x_.size()) __builtin_prefetch(blk_x_[p + kPrefetchOps].data());
    // (an element its producer found equal to the copy read ahead carries no lanes: the copy is x)
    const bool as_read = ahead_->built_as_fetched(op_);
    if (!blk_pre_[p]) {
      mvm_accumulate(*acc, as_read ? blk_x_[p] : x.value.as_i8(), imc.tile(t));
    } else if (blk_tile_[q] != t || (!as_read && !same_i8(x.value, blk_x_[p]))) {  // not what was read ahead
      mvm_subtract(*acc, blk_x_[p], imc.tile(blk_tile_[q]));
      mvm_accumulate(*acc, as_read ? blk_x_[p] : x.value.as_i8(), imc.tile(t));
    }
    blk_q_ = q + 1 == row_ops_ ? 0 : q + 1;
    if (kb_ + 1 == d_.k_blocks) ++blk_out_;  // the outputs of a block's rows follow each other in blk_acc_
  } else {
    mvm_accumulate(acc_, x.value.as_i8(), imc.tile(t));
  }
  ++op_;
  if (++kb_ < d_.k_blocks) return nullptr;
  out_ = Element{num::AnyPword::of(*acc), false};
  if (acc == &acc_) acc_ = {};  // (a block's sums are each used once)
  kb_ = 0;
  // The next output: o0 fastest.
  for (std::size_t k = 0; k < 4; ++k) {
    if (++o_[k] < sizes_[k] || k == 3) break;
    o_[k] = 0;
  }
  return &out_;
}

void run_mvm(const spec::MvmDesc& d, Imc& imc, const PopFn& pop, const PushFn& push) {
  for (MvmRun run(d, imc); !run.done();)
    if (const Element* y = run.take(pop())) push(*y);
}

namespace {
// (n - 1) * step into [lo, hi]
void widen(TileSpan& s, uint32_t n, int32_t step) {
  const int64_t e = int64_t{n == 0 ? 0 : n - 1} * step;
  (e < 0 ? s.lo : s.hi) += e;
}
}  // namespace

TileSpan mvm_tile_span(const spec::MvmDesc& d) {
  TileSpan s{d.tile_base, d.tile_base};
  widen(s, d.k_blocks, d.k_stride);
  const std::array<uint32_t, 4> n{d.o0_size, d.o1_size, d.o2_size, d.o3_size};
  const std::array<int32_t, 4> step{d.o0_tstride, d.o1_tstride, d.o2_tstride, d.o3_tstride};
  for (std::size_t k = 0; k < 4 && k < d.ndims; ++k) widen(s, n[k], step[k]);
  return s;
}

TileSpan loadimc_tile_span(const spec::LoadimcDesc& d) {
  TileSpan s{d.tile_base, d.tile_base};
  widen(s, d.d0_size, d.d0_tstride);
  widen(s, d.d1_size, d.d1_tstride);
  return s;
}

bool imc_tasks_apart(bool has_mvm, const spec::MvmDesc& m, const spec::LoadimcDesc& l) {
  return !has_mvm || (m.matrix_id == l.matrix_id && mvm_tile_span(m).apart(loadimc_tile_span(l)));
}

}  // namespace axcore::ref
