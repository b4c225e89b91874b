// Streaming through L1 (issue 21): a DDR weight made resident one group of K blocks at a time
// (group g + 1's copy runs while group g's LoadIMC writes the IMC), and a linear whose input and
// result do not fit L1 run a chunk of rows at a time through two input and two result slots
// (ping/pong: chunk c + 1's input copy and chunk c - 1's result copy run while chunk c computes).
// The copies are A.SysDMA blocks with no id; lower()'s overlap scheduler orders them only after
// what they touch (a slot is refilled after the datapath that read it, so reuse cannot race).
#include "mvm.hpp"

namespace axcore::compiler::ops::detail {

bool in_ddr(const Tensor& t) {
  const BufferNode& r = *t.node()->root();
  return r.role == BufferRole::Input || r.role == BufferRole::Constant || r.scope == Scope::DDR ||
         r.scope == Scope::DDR_WEAK;
}

int64_t weight_groups(int64_t kbs, int64_t nbc) {
  if (kbs * nbc <= 4) return 1;  // a few tiles: one copy, one LoadIMC
  return std::min<int64_t>(kbs, 8);
}

void load_streamed(const Tensor& w, const Tensor& imc, int64_t kb0, int64_t kbs, int64_t row_block0, int64_t nb0,
                   int64_t nbc, const std::string& tag, bool block_major) {
  if (!in_ddr(w)) {
    load_chunk(w, imc, kb0, kbs, row_block0, nb0, nbc, block_major);
    return;
  }
  // The group lands in L1 one IMC tile after the other (tile n's 64 rows contiguous): the copy
  // reads DDR row by row (whole bursts) and scatters each PWORD to its tile, so the LoadIMC walks
  // consecutive rows and rotates over the L1 banks. (Kept as DDR rows, a tile's rows would be nbc
  // apart: with nbc = l1_banks a tile holds one bank for 64 cycles and the next group's copy into
  // L1 waits on it bank by bank, twice as long: docs/timing.md "L1 banks".)
  const int64_t groups = weight_groups(kbs, nbc), per = (kbs + groups - 1) / groups;
  auto plus = [](const A::Value& v, int64_t k) { return k ? v + k : v; };
  for (int64_t g0 = 0; g0 < kbs; g0 += per) {
    const int64_t gk = std::min(per, kbs - g0), row0 = (row_block0 + g0) * 64, rows = gk * 64;
    const Tensor slot = A::alloc_buffer({nbc * rows}, "int8x64", A::L1, tag + "_k" + std::to_string(kb0 + g0));
    slot.node()->loc = call_loc();
    A::SysDMA([&] {
      if (block_major)  // (NB, K): the tile's rows already consecutive in DDR
        for (auto [n, k] : A::grid(nbc, rows)) slot(n * rows + k) = w(plus(n, nb0), plus(k, row0));
      else
        for (auto [k, n] : A::grid(rows, nbc)) slot(n * rows + k) = w(plus(k, row0), plus(n, nb0));
    });
    for (auto [kb, nb] : A::grid(gk, nbc)) {
      A::LoadIMC([&] {
        const A::Value row = nb * rows + kb * 64;
        imc(plus(kb, kb0 + g0), nb) = slot(A::slice(row, row + 64));  // tile (kb, nb): 64 consecutive rows
      });
    }
  }
}

int64_t stream_rows(const Tensor& x, const Tensor& w, const Tensor& out, int64_t nbc, uint64_t budget) {
  const int64_t kb = w.shape()[0] / 64;
  const uint64_t x_row = static_cast<uint64_t>(kb) * 64, y_row = static_cast<uint64_t>(nbc) * out.node()->dtype.bytes();
  const int64_t groups = weight_groups(kb, nbc);
  const uint64_t w_group = static_cast<uint64_t>((kb + groups - 1) / groups) * 64 * 64 * static_cast<uint64_t>(nbc);
  const uint64_t epi = 256 * static_cast<uint64_t>(nbc) + 1024;
  for (int64_t mc = 64; mc >= 1; mc /= 2)
    if (2 * static_cast<uint64_t>(mc) * (x_row + y_row) + groups * w_group + epi <= budget)
      return std::min<int64_t>(mc, x.shape()[0]);
  return 0;
}

void linear_rows_streamed(const Tensor& x, const Tensor& w, const Epilogue& e, const Tensor& out, int64_t chunk,
                          int64_t mc) {
  const int64_t m = x.shape()[0], kb = w.shape()[0] / 64, nb = w.shape()[1];
  BufferNode* root = out.node().get();
  while (root->alias_of) root = root->alias_of.get();
  root->scope = Scope::DDR;  // the result is written to DDR a chunk of rows at a time
  for (int64_t nb0 = 0; nb0 < nb; nb0 += chunk) {
    const int64_t nbc = std::min(chunk, nb - nb0);
    const std::string tag = out.name() + "_w" + std::to_string(nb0);
    MvmChunk c;
    c.k_blocks = kb;
    c.nb0 = nb0;
    c.nbc = nbc;
    c.out_nb0 = 0;  // the result slot holds this chunk's columns only
    c.imc = A::alloc_imc({kb, nbc}, "int8x4096", -1, tag);
    c.imc.node()->loc = call_loc();
    load_streamed(w, c.imc, 0, kb, 0, nb0, nbc, tag);
    Tensor xs[2], ys[2];
    for (int s = 0; s < 2; ++s) {
      xs[s] = A::alloc_buffer({mc, kb}, "int8x64", A::L1,
                              out.name() + "_n" + std::to_string(nb0) + "_x" + std::to_string(s));
      ys[s] = A::alloc_buffer({mc, nbc}, out.dtype(), A::L1,
                              out.name() + "_n" + std::to_string(nb0) + "_y" + std::to_string(s));
      xs[s].node()->loc = ys[s].node()->loc = call_loc();
    }
    Tensor consts;  // the epilogue constants, shared by every row chunk
    c.epi_cache = &consts;
    for (int64_t r0 = 0, k = 0; r0 < m; r0 += mc, ++k) {
      const int64_t rows = std::min(mc, m - r0);
      const Tensor& xsl = xs[k % 2];
      const Tensor& ysl = ys[k % 2];
      A::SysDMA([&] {
        for (auto [r, j] : A::grid(rows, kb)) xsl(r, j) = x(r0 ? r + r0 : r, j);
      });
      c.outer = {rows};
      c.ifd = [&](const A::StreamHandle& s) {
        A::grid_nest({rows, nbc, kb}, [&](const std::vector<A::Value>& i) { s.push(xsl(i[0], i[2])); });
      };
      mvm_chunk(c, e, ysl);
      A::SysDMA([&] {
        for (auto [r, n] : A::grid(rows, nbc)) out(r0 ? r + r0 : r, nb0 ? n + nb0 : n) = ysl(r, n);
      });
    }
  }
}

}  // namespace axcore::compiler::ops::detail
