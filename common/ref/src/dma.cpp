#include "axcore/ref/dma.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "axcore/ref/error.hpp"

namespace axcore::ref {

using spec::ErrorCode;
namespace P = spec::param;

DmaEngine DmaEngine::sysdma() {
  return {"SysDMA", P::sysdma_bds, P::sysdma_dims, P::sysdma_size_bits, P::sysdma_stride_bits, P::sysdma_padding != 0};
}
DmaEngine DmaEngine::memdma() {
  return {"MemDMA", P::memdma_bds, P::memdma_dims, P::memdma_size_bits, P::memdma_stride_bits, P::memdma_padding != 0};
}
DmaEngine DmaEngine::coredma() {
  return {"CoreDMA",
          P::coredma_bds,
          P::coredma_dims,
          P::coredma_size_bits,
          P::coredma_stride_bits,
          P::coredma_padding != 0};
}

namespace {
struct Dims {
  std::array<uint32_t, 4> size, before, after;
  std::array<int32_t, 4> stride;
};
Dims dims_of(const spec::DmaBd& bd) {
  return {{bd.d0_size, bd.d1_size, bd.d2_size, bd.d3_size},
          {bd.d0_pad_before, bd.d1_pad_before, bd.d2_pad_before, bd.d3_pad_before},
          {bd.d0_pad_after, bd.d1_pad_after, bd.d2_pad_after, bd.d3_pad_after},
          {bd.d0_stride, bd.d1_stride, bd.d2_stride, bd.d3_stride}};
}
uint32_t unit(uint32_t s) { return s == 0 ? 1 : s; }
}  // namespace

uint64_t bd_byte_address(const spec::DmaBd& bd) { return uint64_t{bd.addr_hi} << 32 | bd.addr_lo; }

void validate_bd(const spec::DmaBd& bd, const DmaEngine& eng, DmaDir dir) {
  const std::string who = std::string(eng.name) + " BD: ";
  if (bd.valid == 0) fail(ErrorCode::BD_INVALID, who + "not valid");
  if (bd.mem == spec::MemSel::RESERVED || static_cast<uint32_t>(bd.mem) > 3) {
    fail(ErrorCode::BD_INVALID, who + "reserved mem select");
  }
  if (bd_byte_address(bd) % 4 != 0) {
    fail(ErrorCode::BD_MISALIGNED,
         who + "byte address " + std::to_string(bd_byte_address(bd)) + " is not a multiple of 4");
  }
  const Dims d = dims_of(bd);
  uint64_t product = 1;
  bool padded = false;
  for (std::size_t k = 0; k < 4; ++k) {
    product *= unit(d.size[k]);
    padded = padded || d.before[k] != 0 || d.after[k] != 0;
    if (k >= eng.dims && (d.size[k] > 1 || d.stride[k] != 0 || d.before[k] != 0 || d.after[k] != 0)) {
      fail(ErrorCode::BD_INVALID,
           who + "uses dimension " + std::to_string(k) + "; the engine has " + std::to_string(eng.dims));
    }
    if (d.size[k] >> eng.size_bits != 0) {
      fail(ErrorCode::BD_INVALID, who + "d" + std::to_string(k) + "_size " + std::to_string(d.size[k]) +
                                      " exceeds the engine's " + std::to_string(eng.size_bits) + "-bit sizes");
    }
    const int64_t lim = int64_t{1} << (eng.stride_bits - 1);
    if (d.stride[k] < -lim || d.stride[k] >= lim) {
      fail(ErrorCode::BD_INVALID, who + "d" + std::to_string(k) + "_stride " + std::to_string(d.stride[k]) +
                                      " exceeds the engine's " + std::to_string(eng.stride_bits) + "-bit strides");
    }
  }
  if (bd.length != product) {
    fail(ErrorCode::BD_INVALID,
         who + "length " + std::to_string(bd.length) + " != product of sizes " + std::to_string(product));
  }
  if (padded && (dir == DmaDir::S2MM || !eng.padding)) {
    fail(ErrorCode::PAD_ON_S2MM, who + (dir == DmaDir::S2MM ? "padding on a receiving (S2MM) channel"
                                                            : "padding on an engine that cannot pad"));
  }
}

DmaRuns dma_runs(const spec::DmaBd& bd, const DmaEngine& eng, DmaDir dir, uint32_t run) {
  validate_bd(bd, eng, dir);
  const Dims d = dims_of(bd);
  std::array<uint32_t, 4> ext{};
  uint64_t total = 1;
  for (std::size_t k = 0; k < 4; ++k) {
    ext[k] = d.before[k] + unit(d.size[k]) + d.after[k];
    total *= ext[k];
  }
  const uint32_t iters = bd.iter_size <= 1 ? 1 : bd.iter_size;
  const auto iter = static_cast<int64_t>((uint64_t{bd.iter_current} + run) % iters);
  const int64_t iter_offset = iter * bd.iter_stride;
  const int64_t base = static_cast<int64_t>(bd_byte_address(bd)) + 4 * iter_offset;
  DmaRuns out;
  out.e0 = ext[0];
  out.b0 = d.before[0];
  out.s0 = unit(d.size[0]);
  out.stride0 = d.stride[0];
  out.base.reserve(total / ext[0]);
  std::array<uint32_t, 4> j{};
  for (uint64_t n = 0; n < total; n += ext[0]) {
    bool outer_data = true;
    int64_t outer_words = 0;
    for (std::size_t k = 1; k < 4; ++k) {
      if (j[k] < d.before[k] || j[k] >= d.before[k] + unit(d.size[k])) outer_data = false;
      outer_words += (int64_t{j[k]} - d.before[k]) * d.stride[k];
    }
    out.base.push_back(outer_data ? base + 4 * outer_words : DmaRuns::kPadRun);
    if (outer_data) {  // a data word below address 0: the first in walk order
      const std::size_t r = out.base.size() - 1;
      for (uint32_t j0 = 0; std::min(out.first(r), out.last(r)) < 0 && j0 < out.s0; ++j0) {
        const int64_t addr = out.first(r) + 4 * int64_t{j0} * out.stride0;
        if (addr < 0) {
          fail(ErrorCode::ADDR_RANGE,
               std::string(eng.name) + " BD: walk reaches negative address " + std::to_string(addr));
        }
      }
    }
    for (std::size_t k = 1; k < 4; ++k) {
      if (++j[k] < ext[k]) break;
      j[k] = 0;
    }
  }
  return out;
}

std::vector<DmaWord> dma_walk(const spec::DmaBd& bd, const DmaEngine& eng, DmaDir dir, uint32_t run) {
  const DmaRuns runs = dma_runs(bd, eng, dir, run);
  std::vector<DmaWord> out;
  out.reserve(runs.size());
  for (uint64_t k = 0; k < runs.size(); ++k) out.push_back(runs.at(k));
  return out;
}

std::vector<uint32_t> dma_chain(std::span<const spec::DmaBd> bds, uint32_t start, const DmaEngine& eng) {
  std::vector<uint32_t> ids;
  uint32_t id = start;
  for (;;) {
    if (id >= bds.size() || id >= eng.bds) {
      fail(ErrorCode::BD_INVALID, std::string(eng.name) + ": BD " + std::to_string(id) + " does not exist (" +
                                      std::to_string(eng.bds) + " BDs)");
    }
    if (ids.size() == eng.bds) {
      fail(ErrorCode::BD_CHAIN_LOOP, std::string(eng.name) + ": the chain from BD " + std::to_string(start) +
                                         " runs more than " + std::to_string(eng.bds) + " BDs");
    }
    ids.push_back(id);
    if (bds[id].use_next == 0) return ids;
    id = bds[id].next_bd;
  }
}

namespace {
void check_range(uint64_t addr, uint64_t base, std::size_t size) {
  if (addr < base || addr - base + 4 > size) {
    fail(ErrorCode::ADDR_RANGE, "DMA word at byte address " + std::to_string(addr) + " outside memory [" +
                                    std::to_string(base) + ", " + std::to_string(base + size) + ")");
  }
}
}  // namespace

std::vector<uint32_t> mm2s_read(const spec::DmaBd& bd, const std::vector<DmaWord>& walk, ConstMemView mem) {
  std::vector<uint32_t> words;
  words.reserve(walk.size());
  for (const DmaWord& w : walk) {
    if (w.pad) {
      words.push_back(bd.pad_value);
      continue;
    }
    check_range(w.byte_addr, mem.base, mem.bytes.size());
    const std::size_t o = static_cast<std::size_t>(w.byte_addr - mem.base);
    words.push_back(uint32_t{mem.bytes[o]} | uint32_t{mem.bytes[o + 1]} << 8 | uint32_t{mem.bytes[o + 2]} << 16 |
                    uint32_t{mem.bytes[o + 3]} << 24);
  }
  return words;
}

void s2mm_write(const std::vector<DmaWord>& walk, std::span<const uint32_t> words, MemView mem) {
  if (words.size() != walk.size()) {
    throw std::invalid_argument("s2mm_write: " + std::to_string(words.size()) + " words for a walk of " +
                                std::to_string(walk.size()));
  }
  for (std::size_t i = 0; i < walk.size(); ++i) {
    if (walk[i].pad) throw std::invalid_argument("s2mm_write: an S2MM walk has no pad positions");
    check_range(walk[i].byte_addr, mem.base, mem.bytes.size());
    const std::size_t o = static_cast<std::size_t>(walk[i].byte_addr - mem.base);
    for (std::size_t b = 0; b < 4; ++b) mem.bytes[o + b] = static_cast<uint8_t>(words[i] >> (8 * b));
  }
}

}  // namespace axcore::ref
