#include "Vax_sys_tb_top.h"
#include "model.hpp"

namespace axcore::rtl {
std::unique_ptr<Model> make_model_sys(bool trace) { return std::make_unique<ModelOf<Vax_sys_tb_top>>(trace); }
}  // namespace axcore::rtl
