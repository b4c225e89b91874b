// Constrained-random datapath programs (issue 10 §3): kernels written with the compiler's builder
// and compiled to a bundle, with the expected outputs computed here, independently of the compiler,
// from common/num (float18) and plain int8 x int8 -> int32 arithmetic.
//   matmul: out (M, N) int32 = x (M, K) int8 @ W (K, N) int8 — random M, K blocks and N blocks (the
//           K/N splits of the IMC tiles), weights loaded by LoadIMC, the MVM accumulates over the K
//           blocks, the ODR stores int32 (no DPU).
//   dpu:    out (R, 1) float32 = a random chain of DPU operations per element: x = float18(input),
//           then one arithmetic statement per op (add, sub, mul, min, max, prelu, fma) against
//           per-lane constants that the A.init preamble loads once from IFD(num=1), optionally a
//           cross-lane reduction, then the cast back to float32.
// The program is plain data (JSON) like the DMA programs, so a failing one is saved and rebuilt.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "axcore/runtime/bundle.hpp"

namespace axcore::rand {

enum class DpKind { MATMUL, DPU };

struct DpuStep {
  std::string op;  // add sub mul min max prelu fma
  uint32_t c = 0;  // constant index (fma: c and c2 are the multiplier and addend)
  uint32_t c2 = 0;
};

struct DatapathProgram {
  uint64_t seed = 0;
  uint32_t cores = 1;
  DpKind kind = DpKind::MATMUL;
  // matmul
  int64_t m = 1, k_blocks = 1, n_blocks = 1;
  // dpu
  int64_t rows = 1;
  uint32_t consts = 1;
  std::vector<DpuStep> steps;
  std::string reduce;  // "", add, max, min
};

DatapathProgram generate_datapath(uint64_t seed, uint32_t cores, DpKind kind);
DpKind dp_kind_from_string(const std::string& s);  // "matmul" / "dpu"; throws naming the choices
const char* to_string(DpKind k);

nlohmann::json to_json(const DatapathProgram& p);
DatapathProgram datapath_from_json(const nlohmann::json& j);  // throws std::runtime_error naming the field
bool is_datapath_json(const nlohmann::json& j);               // has "kind": matmul / dpu

std::vector<std::string> coverage_points(const DatapathProgram& p);
// Every point a program of this kind can hit.
std::vector<std::string> coverage_space(DpKind kind);
std::string summary(const DatapathProgram& p);

// Compiles the kernel, makes the inputs and the expected outputs, and writes DIR/program.json,
// DIR/program.axb, DIR/inputs/*.npy, DIR/expected/*.npy, DIR/coverage.json.
void write_datapath_program(const DatapathProgram& p, const std::filesystem::path& dir);

// Seeded random inputs for any bundle: DIR/NAME.npy for every INPUT buffer in its logical shape
// and dtype (int8 / int32 uniform over their range, float16 / float32 uniform in [-4, 4) rounded).
std::vector<std::filesystem::path> write_inputs(const runtime::Bundle& b, uint64_t seed,
                                                const std::filesystem::path& dir);

// Smaller variants of a failing program, smallest edit first (for the reducer).
std::vector<DatapathProgram> shrink_candidates(const DatapathProgram& p);

}  // namespace axcore::rand
