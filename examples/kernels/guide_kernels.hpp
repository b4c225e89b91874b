// The guide's programs written with the builder (guide §Part II, §6.2, §8.5).
#pragma once

#include <axcore/compiler/script.hpp>
#include <cstdint>

namespace axcore::examples {

namespace A = compiler::A;

// Part II §1: scale an (8, 1) float32x64 input by a constant 2.0, one datapath per element
// (sunk into the units).
A::Module scale();
// §6.2: out = inp @ W, inp (M, K_BLOCKS) int8x64, W (K, N_BLOCKS) int8x64 constant, float32 out.
// With bias: the §6.2 epilogue (a per-output-column float32 bias read in the DPU).
A::Module matmul(int64_t m, int64_t k_blocks, int64_t n_blocks, bool bias, uint32_t seed = 1);
// §8.5: a per-channel affine transform, scale and bias loaded once in A.init from IFD1.
A::Module dpu_affine(int64_t rows, float scale, float bias);
// §8.5: row sum over NB blocks with a register file, then add_reduce across the lanes.
A::Module row_sum(int64_t rows, int64_t nb);

}  // namespace axcore::examples
