// A bundle that uses every section, for bundle tests and the fuzz corpus.
#pragma once

#include "axcore/runtime/bundle.hpp"

namespace axcore::runtime::testing_support {
Bundle sample_bundle();
// sample_bundle() with a dispatch-time scalar M in [1, 16] (container 1.1): x is (M, 64), the BD's
// word 0 is valid | 4 * M (its length), and two guards (M % 4 == 0: "M must be a multiple of 4"; M != 12: "M
// cannot be 12"). Stored at M = 4, where it equals sample_bundle().
Bundle sample_dispatch_bundle();
// The index of the BD length word (the first word of the shim BD 0 blockwrite) in sample_bundle's TXN.
uint32_t sample_bd_length_word(const Bundle& b);
}  // namespace axcore::runtime::testing_support
