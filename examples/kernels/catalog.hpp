// The example kernels by name: what `axc compile NAME`, `axc examples`, axdemo and
// tests/compiler/examples_e2e_test.cpp build (each with the default compile options).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "guide_kernels.hpp"

namespace axcore::examples {

struct Example {
  std::string name;
  std::string doc;  // the guide section and what it computes
  std::function<A::Module()> make;
  // Over a million device cycles (its weights' DDR traffic): a minute on the Verilated RTL, so its
  // TLM + RTL test is in the slow tier.
  bool large = false;
  // The most cores it compiles for: l2_spill moves a weak buffer out of L1, which place-scopes does
  // on one core only (docs/compiler.md "Memory scopes and L2").
  uint32_t max_cores = 4;
};

const std::vector<Example>& catalog();
// nullptr when no example has this name.
const Example* find_example(const std::string& name);

}  // namespace axcore::examples
