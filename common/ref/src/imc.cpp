#include "axcore/ref/imc.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

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

// AVX-512 VNNI: vpdpbusd adds four unsigned x signed byte products into each int32 lane. The
// tile's bytes are made unsigned by flipping their sign bit (u = t + 128, 0..255) and x stays
// signed, so a lane sums x[k] * (t[k][n] + 128) = x[k] * t[k][n] + 128 * x[k]; the sums start at
// -128 * sum_k x[k] to take that back out. Every partial sum is within 64 * 128 * 255 < 2^21, so
// nothing saturates or wraps before the final add into the accumulator. Four rows k..k+3 are
// interleaved byte-wise (unpack 8 then 16 bits, within each 128-bit block) into dwords
// (t[k][n], t[k+1][n], t[k+2][n], t[k+3][n]); the block-local unpacks leave lane n = 16 b + 4 g + j
// in sum register g at dword 4 b + j, which a 4 x 4 transpose of 128-bit blocks puts back.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void mvm_accumulate_avx512_vnni(num::PwordI32& acc,
                                                                                       const num::PwordI8& x,
                                                                                       const Tile& tile) {
  static_assert(num::kLanes == 64 && kTileRows % 4 == 0);
  int32_t xsum = 0;
  for (const int8_t v : x) xsum += v;
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  // Two sets of four sums (rows k..k+3 and k+4..k+7), added at the end: each dpbusd chain is half
  // as long, so the kernel is bound by dpbusd throughput, not by its latency.
  const __m512i start = _mm512_set1_epi32(-128 * xsum), zero = _mm512_setzero_si512();
  __m512i s[8] = {start, start, start, start, zero, zero, zero, zero};  // the second set from 0
  for (std::size_t k = 0; k < kTileRows; k += 8) {
    for (std::size_t h = 0; h < 2; ++h) {
      uint32_t quad;
      std::memcpy(&quad, x.data() + k + 4 * h, sizeof quad);  // bytes x[k..k+3], little-endian as the rows' order
      const __m512i xx = _mm512_set1_epi32(static_cast<int>(quad));
      const int8_t* r = tile.data() + (k + 4 * h) * num::kLanes;
      const __m512i r0 = _mm512_xor_si512(_mm512_loadu_si512(r), flip);
      const __m512i r1 = _mm512_xor_si512(_mm512_loadu_si512(r + num::kLanes), flip);
      const __m512i r2 = _mm512_xor_si512(_mm512_loadu_si512(r + 2 * num::kLanes), flip);
      const __m512i r3 = _mm512_xor_si512(_mm512_loadu_si512(r + 3 * num::kLanes), flip);
      const __m512i ab_lo = _mm512_unpacklo_epi8(r0, r1), ab_hi = _mm512_unpackhi_epi8(r0, r1);
      const __m512i cd_lo = _mm512_unpacklo_epi8(r2, r3), cd_hi = _mm512_unpackhi_epi8(r2, r3);
      __m512i* q = s + 4 * h;
      q[0] = _mm512_dpbusd_epi32(q[0], _mm512_unpacklo_epi16(ab_lo, cd_lo), xx);
      q[1] = _mm512_dpbusd_epi32(q[1], _mm512_unpackhi_epi16(ab_lo, cd_lo), xx);
      q[2] = _mm512_dpbusd_epi32(q[2], _mm512_unpacklo_epi16(ab_hi, cd_hi), xx);
      q[3] = _mm512_dpbusd_epi32(q[3], _mm512_unpackhi_epi16(ab_hi, cd_hi), xx);
    }
  }
  const __m512i s0 = _mm512_add_epi32(s[0], s[4]), s1 = _mm512_add_epi32(s[1], s[5]);
  const __m512i s2 = _mm512_add_epi32(s[2], s[6]), s3 = _mm512_add_epi32(s[3], s[7]);
  // (maskz with every lane: gcc 12's plain _mm512_shuffle_i32x4 trips -Wuninitialized on its
  // internal undefined source)
  const __m512i t0 = _mm512_maskz_shuffle_i32x4(0xFFFF, s0, s1, 0x44);
  const __m512i t1 = _mm512_maskz_shuffle_i32x4(0xFFFF, s0, s1, 0xEE);
  const __m512i t2 = _mm512_maskz_shuffle_i32x4(0xFFFF, s2, s3, 0x44);
  const __m512i t3 = _mm512_maskz_shuffle_i32x4(0xFFFF, s2, s3, 0xEE);
  const __m512i out[4] = {
      _mm512_maskz_shuffle_i32x4(0xFFFF, t0, t2, 0x88), _mm512_maskz_shuffle_i32x4(0xFFFF, t0, t2, 0xDD),
      _mm512_maskz_shuffle_i32x4(0xFFFF, t1, t3, 0x88), _mm512_maskz_shuffle_i32x4(0xFFFF, t1, t3, 0xDD)};
  for (std::size_t i = 0; i < 4; ++i) {  // 32-bit adds wrap: acc[n] = wrap_add(acc[n], sum[n])
    int32_t* p = acc.data() + 16 * i;
    _mm512_storeu_si512(p, _mm512_add_epi32(_mm512_loadu_si512(p), out[i]));
  }
}
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

std::size_t mvm_tile_index(const spec::MvmDesc& d, const std::array<uint32_t, 4>& o, uint32_t kb,
                           std::size_t imc_tiles) {
  const int64_t t = int64_t{d.tile_base} + int64_t{kb} * d.k_stride + int64_t{o[0]} * d.o0_tstride +
                    int64_t{o[1]} * d.o1_tstride + int64_t{o[2]} * d.o2_tstride + int64_t{o[3]} * d.o3_tstride;
  return checked_tile(t, imc_tiles, "MVM");
}

MvmRun::MvmRun(const spec::MvmDesc& d, Imc& imc) : d_(d), imc_(imc) {
  validate_mvm(d);
  sizes_ = out_sizes(d);
}

const Element* MvmRun::take(const Element& x) {
  if (x.value.dtype != spec::Dtype::INT8) {
    fail(ErrorCode::STREAM_DTYPE,
         std::string("MVM: input element is ") + std::string(spec::to_string(x.value.dtype)) + ", the MVM takes INT8");
  }
  const std::size_t t = mvm_tile_index(d_, o_, kb_, imc_.tiles());
  if (imc_.matrix_id() != d_.matrix_id || !imc_.valid(t)) ++imc_.stale_reads;
  mvm_accumulate(acc_, x.value.as_i8(), imc_.tile(t));
  if (++kb_ < d_.k_blocks) return nullptr;
  out_ = Element{num::AnyPword::of(acc_), false};
  acc_ = {};
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
