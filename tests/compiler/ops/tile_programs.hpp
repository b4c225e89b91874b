// The guide's §11.2 and §12 programs, written with its tile handles (A::tiles with a body,
// buf.tile(handle, dim=N), buf[slot]) and operator calls, shared by the fsim tests
// (ops_tiles_test.cpp) and the TLM tests (ops_tlm_test.cpp).
#pragma once

#include <axcore/compiler/ops/op.hpp>
#include <axcore/compiler/script.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace axtest::tile_programs {

namespace A = axcore::compiler::A;
namespace ops = axcore::compiler::ops;
using Named = std::map<std::string, ops::ArgValue>;

// §11.2, as the guide writes it: C = A @ B of an (m, K) int8 input and a (K, N) int8 weight input,
// K split into IMC tiles accumulated through partial= (zeroed once with atomic.full), every tile
// copied into L1 and out again. `m_tile_max` bounds the M tiles (0: the guide's A.tiles(m)).
inline void k_split(A::Func& f, int64_t m, int64_t k_blocks, int64_t n_blocks, int64_t k_min, int64_t k_max,
                    int64_t m_tile_max = 0) {
  auto a_2d = f.input("a", {m, k_blocks}, "int8x64", A::DDR);
  auto b_2d = f.input("b", {k_blocks * 64, n_blocks}, "int8x64", A::DDR);
  auto c_2d = A::alloc_buffer({m, n_blocks}, "float32x64", A::DDR, "c");
  auto a_l1 = A::alloc_buffer({m, k_blocks}, "int8x64", A::L1, "a_l1");
  auto b_l1 = A::alloc_buffer({k_blocks * 64, n_blocks}, "int8x64", A::L1, "b_l1");
  auto c_l1 = A::alloc_buffer({m, n_blocks}, "float32x64", A::L1, "c_l1");
  auto imc = A::alloc_imc({k_blocks, n_blocks});
  A::tiles(m, {.tile_max = m_tile_max}, [&](const A::Tile& m_tile) {
    ops::invoke("atomic.full", {std::vector<int64_t>{m_tile.lanes, n_blocks}, 0.0},
                {{"output", c_l1.tile(m_tile, 0)}});                                         // zero the K sum
    ops::invoke("atomic.copy", {a_2d.tile(m_tile, 0)}, {{"output", a_l1.tile(m_tile, 0)}});  // the input tile in
    A::tiles(k_blocks, {.tile_min = k_min, .tile_max = k_max}, [&](const A::Tile& k_tile) {
      const A::Value k_rows = A::Ramp(k_tile.base * 64, 1, k_tile.lanes * 64);  // this K tile's weight rows
      ops::invoke("atomic.copy", {b_2d.tile(k_rows, 0)}, {{"output", b_l1.tile(k_rows, 0)}});
      A::tiles(n_blocks, {}, [&](const A::Tile& n_tile) {
        ops::invoke("atomic.load_imc", {b_l1.tile(k_rows, 0).tile(n_tile, 1), imc.tile(k_tile, 0).tile(n_tile, 1)});
        ops::invoke("atomic.matmul", {},
                    {{"matrix_ifd", a_l1.tile(m_tile, 0).tile(k_tile, 1)},
                     {"matrix_imc", imc.tile(k_tile, 0).tile(n_tile, 1)},
                     {"partial", c_l1.tile(m_tile, 0).tile(n_tile, 1)},
                     {"output", c_l1.tile(m_tile, 0).tile(n_tile, 1)}});
      });
    });
    ops::invoke("atomic.copy", {c_l1.tile(m_tile, 0)}, {{"output", c_2d.tile(m_tile, 0)}});  // the output tile out
  });
  A::output(c_2d);
}

// §12, the hand-written software pipeline: y = x @ W over n_tiles tiles of `rows` rows. With
// drain=2 the tile loop runs n_tiles + 2 steps; step s loads tile s into slot s % 2 of x_l1,
// computes tile s - 1 and stores tile s - 2, each stage gated by its where= predicate, tagged with
// its id and waited at the end of the step (the next step's stages read what this one wrote, and
// reuse its slots). drain=0 is the same program with the three stages on one tile per step.
inline void pipeline(A::Func& f, int64_t n_tiles, int64_t rows, int64_t k_blocks, int64_t n_blocks,
                     const A::BufferHandle& w, int64_t drain) {
  auto x = f.input("x", {n_tiles * rows, k_blocks}, "int8x64", A::DDR);
  auto y = A::alloc_buffer({n_tiles * rows, n_blocks}, "float32x64", A::DDR, "y");
  auto x_l1 = A::alloc_buffer({2, rows, k_blocks}, "int8x64", A::L1, "x_l1");  // one slot per in-flight step
  auto y_l1 = A::alloc_buffer({2, rows, n_blocks}, "float32x64", A::L1, "y_l1");
  auto imc = ops::invoke("atomic.load_imc", {w});
  auto tile_rows = [&](const A::Tile& t) { return A::Ramp(t.base * rows, 1, t.lanes * rows); };
  A::tiles(n_tiles, {.drain = drain}, [&](const A::Tile& t) {
    const A::Tile load = t.stage(0), compute = t.stage(1), store = t.stage(2);
    const bool is_load = t.is_load(), is_compute = t.is_compute(), is_store = t.is_store();
    ops::invoke("atomic.copy", {x.tile(tile_rows(load), 0)},
                Named{{"output", x_l1[load.slot()]}, {"id", std::string("load")}, {"where", is_load}});
    ops::invoke("atomic.matmul", {x_l1[compute.slot()], imc},
                Named{{"output", y_l1[compute.slot()]}, {"id", std::string("compute")}, {"where", is_compute}});
    ops::invoke("atomic.copy", {y_l1[store.slot()]},
                Named{{"output", y.tile(tile_rows(store), 0)}, {"id", std::string("store")}, {"where", is_store}});
    A::when(is_load, [] { A::waits("load"); });
    A::when(is_compute, [] { A::waits("compute"); });
    A::when(is_store, [] { A::waits("store"); });
  });
  A::output(y);
}

// An int8 (K, N) weight constant, values in -4..4.
inline A::BufferHandle weight(int64_t k, int64_t n_blocks, uint32_t seed) {
  std::vector<double> v(static_cast<std::size_t>(k * n_blocks * 64));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(static_cast<int>((i * 7 + seed * 13) % 9) - 4);
  return A::alloc_constant(v, "int8x64", A::DDR, {k, n_blocks}, "w");
}

}  // namespace axtest::tile_programs
