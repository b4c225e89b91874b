// A random DMA program as what the runtime runs: a bundle (x input arg 0, y output arg 1, the TXN
// that writes BDs, patches DDR addresses, pushes the task pairs and waits their tokens), the input
// array and the expected output, computed with the DMA reference of common/ref.
#pragma once

#include <cstdint>
#include <filesystem>

#include "axcore/ref/ndarray.hpp"
#include "axcore/runtime/bundle.hpp"
#include "program.hpp"

namespace axcore::rand {

spec::DmaBd to_bd(const Walk& w, const Place& p, uint32_t repeat, uint32_t pad_value, bool mm2s);

struct Built {
  runtime::Bundle bundle;
  ref::NDArray<int32_t> x;
  ref::NDArray<int32_t> y;  // expected
};
Built build(const Program& p);

// DIR/program.json, DIR/program.axb, DIR/inputs/x.npy, DIR/expected/y.npy.
void write_program(const Program& p, const std::filesystem::path& dir);

}  // namespace axcore::rand
