// DMA buffer-descriptor walks (spec struct dma_bd), for SysDMA, MemDMA and CoreDMA.
//
// Dimensions d0 (innermost) .. d3; a size of 0 or 1 is a unit dimension. With padding, dim k
// has a padded extent P_k = before_k + size_k + after_k (d1 padding counts whole padded d0
// runs, and so on), and the walk visits the padded index space j_k in [0, P_k), innermost
// first: a position is data when before_k <= j_k < before_k + size_k for every k, at word
// address base + iter_offset + sum((j_k - before_k) * stride_k); any other position emits
// pad_value (MM2S only). The stream is prod(P_k) words; `length` must equal prod(size_k).
// Run r of a task (0 .. repeat) adds iter_offset = ((iter_current + r) mod max(iter_size, 1))
// * iter_stride words; the reference never writes iter_current back.
// Faults: valid = 0 or mem RESERVED or length mismatch or a field beyond the engine's widths /
// dimensions BD_INVALID; byte address not a multiple of 4 BD_MISALIGNED; padding on S2MM or on an
// engine without padding PAD_ON_S2MM; a data word outside the memory ADDR_RANGE; a chain that
// runs more BDs than the engine has BD_CHAIN_LOOP.
#pragma once

#include <axcore/spec.hpp>
#include <cstdint>
#include <span>
#include <vector>

namespace axcore::ref {

enum class DmaDir { MM2S, S2MM };

struct DmaEngine {
  const char* name;
  uint32_t bds, dims, size_bits, stride_bits;
  bool padding;
  static DmaEngine sysdma();
  static DmaEngine memdma();
  static DmaEngine coredma();
};

struct DmaWord {
  bool pad = false;
  uint64_t byte_addr = 0;  // data words only
};

void validate_bd(const spec::DmaBd& bd, const DmaEngine& eng, DmaDir dir);
uint64_t bd_byte_address(const spec::DmaBd& bd);
// The same walk as its d0 runs, without a list of words (the TLM's DMA walks every BD through
// this): stream position k is position j0 = k mod e0 of d0 run k / e0; it is data when the run
// is (every outer dimension's index inside its data) and b0 <= j0 < b0 + s0, at byte address
// base[k / e0] + 4 * (j0 - b0) * stride0.
struct DmaRuns {
  static constexpr int64_t kPadRun = INT64_MIN;  // a run of pads (an outer dimension's padding)
  uint32_t e0 = 1, b0 = 0, s0 = 1;               // d0: padded extent, pad before, size
  int32_t stride0 = 1;
  std::vector<int64_t> base;  // per d0 run: the byte address of its first data word, or kPadRun
  uint64_t size() const { return base.size() * e0; }
  DmaWord at(uint64_t k) const {
    const int64_t b = base[k / e0];
    const auto j0 = static_cast<uint32_t>(k % e0);
    if (b == kPadRun || j0 < b0 || j0 - b0 >= s0) return {true, 0};
    return {false, static_cast<uint64_t>(b + 4 * (int64_t{j0} - b0) * stride0)};
  }
  // The byte addresses of run r's first and last data word (not a pad run).
  int64_t first(std::size_t r) const { return base[r]; }
  int64_t last(std::size_t r) const { return base[r] + 4 * int64_t{s0 - 1} * stride0; }
};
DmaRuns dma_runs(const spec::DmaBd& bd, const DmaEngine& eng, DmaDir dir, uint32_t run = 0);
// The words one run of a BD moves, in stream order (padding included for MM2S).
std::vector<DmaWord> dma_walk(const spec::DmaBd& bd, const DmaEngine& eng, DmaDir dir, uint32_t run = 0);
// The BD ids a task starting at `start` runs, following use_next / next_bd.
std::vector<uint32_t> dma_chain(std::span<const spec::DmaBd> bds, uint32_t start, const DmaEngine& eng);

// A memory window: bytes [base, base + bytes.size()) of the address space the BD names.
struct MemView {
  std::span<uint8_t> bytes;
  uint64_t base = 0;
};
struct ConstMemView {
  std::span<const uint8_t> bytes;
  uint64_t base = 0;
};
// MM2S: the word stream (little-endian words; pad positions carry pad_value).
std::vector<uint32_t> mm2s_read(const spec::DmaBd& bd, const std::vector<DmaWord>& walk, ConstMemView mem);
// S2MM: writes `words` along the walk.
void s2mm_write(const std::vector<DmaWord>& walk, std::span<const uint32_t> words, MemView mem);

}  // namespace axcore::ref
