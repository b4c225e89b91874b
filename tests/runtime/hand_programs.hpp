// Hand-built programs for the timed backends (issue 8, "Done when"): bundles assembled with the
// bundle writer, the TXN builder, taplib's BD lowering and the spec's descriptor structs — no
// compiler. Each carries the operator graph the `ref` backend runs, so ref is the golden.
//   dma_pad_program     DDR -> L1 (SysDMA), L1 -> DDR (CoreDMA) through a taplib walk: x
//                       transposed and padded (y = pad(x^T), one pad word around each row and
//                       one pad row in front)
//   elementwise_program IFD0 -> DPU -> ODR: y = relu(x), float32 in, float16 out (DPU casts)
//   matmul_program      LoadIMC + MVMEXE (IFD0 -> MVM -> ODR): y = int8(x . w), the epilogue
//                       being the ODR's int32 -> int8 cast; descriptors from the bundle's command
//                       section (LoadIMC) and from the TXN (datapath); and the same with the
//                       epilogue on the DPU (int8(acc * scale + bias), IFD1 feeding scale, bias)
// Fault programs: an out-of-range BD (ADDR_RANGE error token), a task that never completes.
#pragma once

#include <cstdint>
#include <string>

#include "axcore/runtime/bundle.hpp"
#include "axcore/runtime/program.hpp"
#include "axcore/tap/pattern.hpp"

namespace axcore::runtime::testing_support {

struct HandProgram {
  std::string name;
  Bundle bundle;
  Arrays inputs;
};

inline constexpr uint32_t kPadWord = 0x7F7F0001;

// The L1 addresses the programs use (core 0), for the tests that look inside.
inline constexpr uint32_t kElemOutL1 = 0x1000;    // elementwise: y in L1
inline constexpr uint32_t kMatmulOutL1 = 0x2800;  // matmul: y in L1 (row 160)
inline constexpr uint32_t kMatmulM = 4, kMatmulK = 128, kMatmulN = 64;

// The CoreDMA walk of dma_pad over x (6, 10): x transposed, each of its rows padded by one word on
// both sides, one pad row in front.
inline constexpr uint32_t kPadRows = 6, kPadCols = 10;
tap::TensorAccessPattern dma_pad_walk();
HandProgram dma_pad_program();
HandProgram elementwise_program();
HandProgram matmul_program();
// The same matmul with its epilogue on the DPU: int8(acc * scale + bias), scale and bias per
// column (float32 constants popped from IFD1 by the DPU's init).
HandProgram matmul_dpu_epilogue_program();

// SysDMA MM2S ch1 reads L2 past its end: the TCT on it gets an ADDR_RANGE error token.
HandProgram out_of_range_bd_program();
// SysDMA S2MM ch1 is started and nothing ever feeds it: its TCT never gets a token.
HandProgram missing_token_program();

}  // namespace axcore::runtime::testing_support
