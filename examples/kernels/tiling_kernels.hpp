// Kernels of the tiling / DMA passes (guide §11.2, §12) with their operands in DDR, and the
// pseudo-random inputs they run on: what tests/compiler's pass tests and the drain benchmark
// (examples/bench/passes_pipeline_bench.cpp) build.
#pragma once

#include <axcore/compiler/script.hpp>
#include <axcore/ref/ndarray.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace axcore::examples {

namespace A = compiler::A;

// out[i, j] = inp[i, j] * c[j] (float32x64, the DPU in float18), rows x cols blocks, all in DDR;
// c[j] lane l is 0.5 + 0.25 * ((j * 64 + l) % 7). The rows loop is written A.tiles(rows, bounds)
// when `tiles` is given, else as an ordinary A.grid.
A::Module scale_rows(int64_t rows, int64_t cols, std::optional<compiler::TileBounds> tiles);

// A `shape` array of values in [lo, hi) from a linear congruential sequence seeded with `seed`
// (the same array for the same arguments on every platform).
template <class T>
ref::NDArray<T> pseudo(ref::Shape s, uint32_t seed, double lo, double hi) {
  ref::NDArray<T> a(s);
  uint32_t x = seed;
  for (std::size_t i = 0; i < a.size(); ++i) {
    x = x * 1103515245u + 12345u;
    a.data()[i] = static_cast<T>(lo + (hi - lo) * ((x >> 8) % 10000) / 10000.0);
  }
  return a;
}

}  // namespace axcore::examples
