#include "Vaxcore_top_c4.h"
#include "model.hpp"

namespace axcore::rtl {
std::unique_ptr<Model> make_model_c4(bool trace) { return std::make_unique<ModelOf<Vaxcore_top_c4>>(trace); }
}  // namespace axcore::rtl
