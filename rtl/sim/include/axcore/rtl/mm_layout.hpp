// The matmul layout the MVM and core-tile tests, the TLM/RTL agreement programs, the RTL bench
// and the runtime's hand-built matmul share: x rows, weight tiles and outputs in L1, and the
// LoadIMC / IFD0 / MVM / ODR descriptors of C = A . B for M rows, KB K-blocks, NB N-blocks
// (tile (nb, kb) = nb * KB + kb, its 64 weight rows at w_row + (nb * KB + kb) * 64).
// Header-only (spec and num): the Verilated testbenches include it without linking axcore::rtl.
#pragma once

#include <axcore/num/pword.hpp>
#include <axcore/spec.hpp>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rtlcore {

using axcore::spec::Dtype;
namespace spec = axcore::spec;

inline constexpr uint32_t kX0 = 0, kW0 = 5120, kY0 = 10240;

struct Matmul {
  uint32_t m, kb, nb;
  uint8_t matrix_id = 1, run_id = 1;
  Dtype out = Dtype::INT32;
  // First L1 rows of x, the weight tiles and y (the shared layout unless a program places its own),
  // and the dtype the ODR pops (the accumulators; a DPU epilogue's output dtype when one runs).
  uint32_t x_row = kX0, w_row = kW0, y_row = kY0;
  Dtype odr_from = Dtype::INT32;

  spec::LoadimcDesc load() const {
    spec::LoadimcDesc d{};
    d.magic = spec::magic::loadimc;
    d.matrix_id = matrix_id;
    d.d0_size = kb;
    d.d1_size = nb;
    d.base_row = w_row;
    d.row_stride = 1;
    d.d0_astride = 64;
    d.d1_astride = static_cast<int32_t>(64 * kb);
    d.tile_base = 0;
    d.d0_tstride = 1;
    d.d1_tstride = static_cast<int32_t>(kb);
    return d;
  }
  spec::Walk ifd() const {
    spec::Walk w{};
    w.dtype = w.cast_from = Dtype::INT8;
    w.base_row = x_row;
    w.ndims = 3;
    w.d0_size = kb;
    w.d0_stride = 1;
    w.d1_size = nb;
    w.d1_stride = 0;
    w.d2_size = m;
    w.d2_stride = static_cast<int32_t>(kb);
    return w;
  }
  spec::MvmDesc mvm() const {
    spec::MvmDesc d{};
    d.k_blocks = kb;
    d.matrix_id = run_id;
    d.ndims = 2;
    d.tile_base = 0;
    d.k_stride = 1;
    d.o0_size = nb;
    d.o0_tstride = static_cast<int32_t>(kb);
    d.o1_size = m;
    d.o1_tstride = 0;
    return d;
  }
  spec::Walk odr() const {
    spec::Walk w{};
    const auto r = static_cast<int32_t>(axcore::num::element_rows(out));
    w.cast_from = odr_from;
    w.dtype = out;
    w.base_row = y_row;
    w.ndims = 2;
    w.d0_size = nb;
    w.d0_stride = r;
    w.d1_size = m;
    w.d1_stride = r * static_cast<int32_t>(nb);
    return w;
  }
  std::size_t out_bytes() const { return std::size_t{m} * nb * axcore::num::element_bytes(out); }
};

// A LoadIMC of `tiles` consecutive tiles of matrix 1 from `tile_base`, tile t's 64 rows at
// base_row + 64 (t - tile_base) (the command processor's prefetch tests and agreement program).
inline spec::LoadimcDesc tile_load(uint32_t tiles, uint32_t tile_base, uint32_t base_row) {
  spec::LoadimcDesc l{};
  l.magic = spec::magic::loadimc;
  l.matrix_id = 1;
  l.d0_size = tiles;
  l.d1_size = 1;
  l.base_row = base_row;
  l.row_stride = 1;
  l.d0_astride = 64;
  l.tile_base = tile_base;
  l.d0_tstride = 1;
  return l;
}

// The MVMEXE datapath descriptor (header, IFD0, MVM, ODR) of `mm`.
inline spec::DatapathDesc datapath(const Matmul& mm) {
  spec::DatapathDesc d;
  d.header.kind = spec::DpKind::MVMEXE;
  d.header.has_ifd0 = d.header.has_main = d.header.has_odr = 1;
  d.header.id = 7;
  d.ifd0 = mm.ifd();
  d.mvm = mm.mvm();
  d.odr = mm.odr();
  return d;
}
inline std::vector<uint32_t> datapath_words(const Matmul& mm) { return datapath(mm).words(); }

}  // namespace rtlcore
