#include "Vaxcore_top_c1.h"
#include "model.hpp"

namespace axcore::rtl {
std::unique_ptr<Model> make_model_c1(bool trace) { return std::make_unique<ModelOf<Vaxcore_top_c1>>(trace); }
}  // namespace axcore::rtl
