// Streaming through L1 (issue 21): a DDR weight made resident one group of K blocks at a time
// (group g + 1's copy runs while group g's LoadIMC writes the IMC), and a linear whose input and
// result do not fit L1 run a chunk of rows at a time through two input and two result slots
// (ping/pong: chunk c + 1's input copy and chunk c - 1's result copy run while chunk c computes).
// The copies are A.SysDMA blocks with no id; lower()'s overlap scheduler orders them only after
// what they touch (a slot is refilled after the datapath that read it, so reuse cannot race).
#include <algorithm>

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

namespace {
// The column-block image the last implementation made, for its operator's reference (emulate runs
// right after implementation): the graph reads the image, so the logical weight leaves the bundle.
struct LastImage {
  const BufferNode* root = nullptr;
  Tensor image;
};
thread_local LastImage g_last_image;
}  // namespace

void forget_image() { g_last_image = {}; }

std::vector<Node> weight_from_image(const Tensor& w, const std::string& stem, std::string& name) {
  if (!g_last_image.root || g_last_image.root != w.node()->root()) return {};
  const Tensor img = g_last_image.image;
  forget_image();
  const auto d = [](int64_t v) { return static_cast<double>(v); };
  const int64_t nb = img.shape()[0], k = img.shape()[1];
  // (NB, K * 64) -> (NB, K, 64) -> (K, NB, 64) -> the weight's logical shape.
  Node split = node("reshape", {img.name()}, {stem + "_wimg3"});
  split.num_attrs["shape"] = {d(nb), d(k), 64};
  Node swap = node("permute", {stem + "_wimg3"}, {stem + "_wimgt"});
  swap.num_attrs["dims"] = {1, 0, 2};
  Node back = node("reshape", {stem + "_wimgt"}, {stem + "_wlogical"});
  for (int64_t v : logical(w)) back.num_attrs["shape"].push_back(d(v));
  name = stem + "_wlogical";
  return {split, swap, back};
}

Tensor column_blocks(const Tensor& w) {
  if (!is_constant(w) || w.dtype() != "int8x64" || w.shape().size() != 2) return {};
  const std::vector<double>* v = nullptr;
  for (const BufferNode* b = w.node().get(); b && !v; b = b->alias_of.get())
    if (!b->data.empty()) v = &b->data;
  const int64_t k = w.shape()[0], nb = w.shape()[1];
  if (!v || static_cast<int64_t>(v->size()) != k * nb * 64) return {};
  std::vector<double> t(v->size());
  for (int64_t n = 0; n < nb; ++n)
    for (int64_t r = 0; r < k; ++r) std::copy_n(v->begin() + (r * nb + n) * 64, 64, t.begin() + (n * k + r) * 64);
  Tensor image = make_constant(w.name() + "_cb", {nb, k}, "int8x64", std::move(t));
  g_last_image = {w.node()->root(), image};
  return image;
}

ColumnPlan plan_columns(const Tensor& w, int64_t positions, int64_t kb, int64_t nb, int64_t cmax) {
  if (!in_ddr(w) || !is_constant(w) || nb < 2 || cmax < 2) return {cmax, {}};
  namespace P = spec::param;
  // Cycles per IMC tile: its LoadIMC rows, or its 4 KiB from DDR if that is slower; per tile-op.
  const double tile_load =
      std::max(64.0 * P::loadimc_cycles_per_row, 4096.0 / std::min<double>(P::axi_data_bytes, P::ddr_bytes_per_cycle));
  const double tile_op = 64.0 / P::mvm_rows_per_cycle;
  // An MVMEXE task's fixed cost: the token of its last LoadIMC reaching the host and its push,
  // its descriptor fetch (~100 words at one a cycle), the MVM/DPU/ODR pipeline's drain.
  constexpr double kTask = 250;
  // The host's serial part per chunk: the chunk's datapath descriptor (~100 words, 3 cycles a word
  // through AXI-Lite) and its copies' BDs. The TXN writes them while earlier chunks run.
  constexpr double kHost = 400;
  int64_t best = cmax;
  double best_t = 0;
  for (int64_t c = cmax; c >= 1; --c) {
    const int64_t pieces = (nb + c - 1) / c;
    if (c < cmax && pieces == (nb + c) / (c + 1)) continue;  // same pieces as a larger chunk
    double t = 0, prev_compute = 0;
    for (int64_t j = 0; j < pieces; ++j) {
      const int64_t cj = std::min(c, nb - j * c);
      const double load = tile_load * static_cast<double>(kb * cj);
      t += j == 0 ? load : std::max(load, prev_compute);
      prev_compute = tile_op * static_cast<double>(positions * kb * cj) + kTask;
    }
    t = std::max(t + prev_compute, kHost * static_cast<double>(pieces));
    if (c == cmax || t < best_t) best = c, best_t = t;
  }
  if (best >= cmax) return {cmax, {}};
  return {best, column_blocks(w)};
}

ColumnLoader::ColumnLoader(const ColumnPlan& plan, int64_t nb, std::string tag)
    : wc_(plan.wc), chunk_(plan.chunk), nb_(nb), tag_(std::move(tag)) {}

// A chunk's LoadIMC writes one PWORD a cycle, the DDR's rate: loaded after one copy of the whole
// chunk it ends 64 cycles a tile after the copy. A chunk of more than 2 * kPieceTiles tiles is
// copied and loaded in pieces of about kPieceTiles tiles instead (each its own copy and LoadIMC,
// the column-block image's rows contiguous in DDR), so its LoadIMC follows its copy and only the
// last piece's rows come after it. Smaller chunks stay whole: their load hides under the previous
// chunk's compute, and a piece costs a copy's BD writes, a token and a push (mlp's 8-tile chunks in
// pieces of 4: 10 cycles slower on the RTL; pieces of 2 or 1 tiles: slower for vit_patch_embed too).
constexpr int64_t kPieceTiles = 4;

int64_t ColumnLoader::pieces(int64_t kbs, int64_t nbc) {
  const int64_t tiles = kbs * nbc;
  return tiles > 2 * kPieceTiles ? std::min(kbs, tiles / kPieceTiles) : 1;
}

void ColumnLoader::load(const Tensor& imc, int64_t nb0, int64_t nbc, int64_t kb0, int64_t kbs, int64_t row_block0) {
  const int64_t k = wc_.shape()[1];
  if (const int64_t n = pieces(kbs, nbc); n > 1 && kbs * 64 == k) {  // the chunk's whole K (not one tap of it)
    A::current_func().operator_notes.push_back(tag_ + ": column chunk " + std::to_string(nb0) + " (" +
                                               std::to_string(kbs * nbc) + " IMC tiles) copied and loaded in " +
                                               std::to_string(n) +
                                               " pieces, so its LoadIMC follows its copy (a chunk of more than " +
                                               std::to_string(2 * kPieceTiles) + " tiles)");
    load_streamed(wc_, imc, kb0, kbs, row_block0, nb0, nbc, tag_ + "_c" + std::to_string(nb0), true, n);
    unit0_ = nb0 + nbc, unit_cols_ = 0;  // the next chunk starts a copy of its own
    return;
  }
  if (nb0 >= unit0_ + unit_cols_) {
    // The next copy: the first chunk alone (the first LoadIMC starts soon), then copies of about
    // 64 KiB of whole chunks, each one contiguous DDR range of the column-block image (whole 4 KiB
    // bursts) into its own L1 buffer (dead after its LoadIMCs, so the rows are reused).
    const int64_t chunk_bytes = chunk_ * k * 64;
    const int64_t chunks = nb0 == 0 ? 1 : std::max<int64_t>(1, (32 << 10) / chunk_bytes);
    unit0_ = nb0;
    unit_cols_ = std::min(chunks * chunk_, nb_ - nb0);
    slot_ = A::alloc_buffer({unit_cols_ * k}, "int8x64", A::L1, tag_ + "_c" + std::to_string(nb0));
    slot_.node()->loc = call_loc();
    A::SysDMA([&] {
      for (auto [n, r] : A::grid(unit_cols_, k)) slot_(n * k + r) = wc_(nb0 ? n + nb0 : n, r);
    });
  }
  auto plus = [](const A::Value& v, int64_t d) { return d ? v + d : v; };
  const int64_t n0 = nb0 - unit0_;
  for (auto [kb, nb] : A::grid(kbs, nbc)) {
    A::LoadIMC([&] {
      const A::Value row = plus(nb, n0) * k + plus(kb, row_block0) * 64;
      imc(plus(kb, kb0), nb) = slot_(A::slice(row, row + 64));  // tile (kb, nb): 64 consecutive rows
    });
  }
}

void load_streamed(const Tensor& w, const Tensor& imc, int64_t kb0, int64_t kbs, int64_t row_block0, int64_t nb0,
                   int64_t nbc, const std::string& tag, bool block_major, int64_t groups) {
  if (!in_ddr(w)) {
    load_chunk(w, imc, kb0, kbs, row_block0, nb0, nbc, block_major);
    return;
  }
  // The group lands in L1 one IMC tile after the other (tile n's 64 rows contiguous): the copy
  // reads DDR row by row (whole bursts) and scatters each PWORD to its tile, so the LoadIMC walks
  // consecutive rows and rotates over the L1 banks. (Kept as DDR rows, a tile's rows would be nbc
  // apart: with nbc = l1_banks a tile holds one bank for 64 cycles and the next group's copy into
  // L1 waits on it bank by bank, twice as long: docs/timing.md "L1 banks".)
  if (groups <= 0) groups = weight_groups(kbs, nbc);
  const int64_t per = (kbs + groups - 1) / groups;
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
