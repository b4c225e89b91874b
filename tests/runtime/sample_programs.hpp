// Hand-built bundles the backend tests run: a DMA copy DDR -> L1 -> DDR with padding (TXN only,
// expected output computed here by hand), and a linear + relu graph for the ref backend.
#pragma once

#include <cstdint>
#include <vector>

#include <axcore/spec.hpp>
#include "axcore/ref/ndarray.hpp"
#include "axcore/runtime/bundle.hpp"

namespace axcore::runtime::testing_support {

// A valid linear BD of `words` words at `addr` in `mem`, and a push that asks for a token.
spec::DmaBd linear_bd(spec::MemSel mem, uint32_t words, uint32_t addr = 0);
spec::QueuePush token_push(uint32_t start, uint32_t tag = 0);

// x: INT32 (8, 8) -> y: INT32 (8, 10), each row framed by one pad word before and after.
// Parameter "marker" (int32) is written into shim SCRATCH before the TXN plays.
inline constexpr uint32_t kCopyPad = 0x5A5A5A5A;
Bundle dma_copy_bundle();
ref::NDArray<int32_t> dma_copy_expected(const ref::NDArray<int32_t>& x);

// x: INT8 (2, 64), w: INT8 (64, 4) constant, scale FLOAT32 (4,) constant -> y = relu(linear) FLOAT32 (2, 4).
Bundle linear_relu_bundle();

}  // namespace axcore::runtime::testing_support
