// A bundle that uses every section, for bundle tests and the fuzz corpus.
#pragma once

#include "axcore/runtime/bundle.hpp"

namespace axcore::runtime::testing_support {
Bundle sample_bundle();
}
