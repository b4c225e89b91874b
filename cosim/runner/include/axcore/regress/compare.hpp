// Compares the .npy outputs two backends wrote: same file names, dtypes and shapes, and values
// equal bit for bit (bit-exact) or within abs + rel * |reference| (tolerance).
#pragma once

#include <filesystem>
#include <string>

#include "axcore/regress/suite.hpp"

namespace axcore::regress {

struct OutputComparison {
  bool equal = false;
  std::size_t files = 0;     // output files compared
  std::size_t elements = 0;  // elements compared
  double max_abs_error = 0;
  std::string message;  // the first difference, e.g. "y.npy[3,17]: 0.5 vs 0.25"
};

OutputComparison compare_outputs(const std::filesystem::path& reference, const std::filesystem::path& other, Mode mode,
                                 double atol, double rtol);

}  // namespace axcore::regress
