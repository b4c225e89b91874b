#include <array>
#include <axcore/spec.hpp>
#include <optional>

#include "axcore/runtime/bundle.hpp"
#include "axcore/runtime/trace_tools.hpp"

namespace axcore::runtime {

std::vector<trace::Unit> task_units(const std::vector<CommandStream>& cmd_mem, unsigned core, uint32_t word) {
  auto at = [&](uint32_t w) -> std::optional<uint32_t> {
    for (const auto& c : cmd_mem)
      if (c.core == core && w >= c.word && w - c.word < c.words.size()) return c.words[w - c.word];
    return std::nullopt;
  };
  const auto first = at(word);
  if (!first) return {};
  if ((*first & 0xFF) == spec::magic::loadimc) return {trace::Unit::LOADIMC};
  if ((*first & 0xFF) != spec::magic::datapath) return {};
  std::array<uint32_t, spec::DpHeader::kWords> hw{};
  for (uint32_t i = 0; i < hw.size(); ++i) hw[i] = at(word + i).value_or(0);
  const auto h = spec::DpHeader::decode(hw);
  using U = trace::Unit;
  const bool mvm = h.kind == spec::DpKind::MVMEXE;
  std::vector<U> u;
  if (h.has_ifd0) u.push_back(mvm ? U::MVM_IFD0 : U::DW_IFD0);
  if (h.has_ifd1) u.push_back(mvm ? U::MVM_IFD1 : U::DW_IFD1);
  if (h.has_main) u.push_back(mvm ? U::MVM : U::DWPU);
  if (h.has_dpu) u.push_back(mvm ? U::MVM_DPU : U::DW_DPU);
  if (h.has_odr) u.push_back(mvm ? U::MVM_ODR : U::DW_ODR);
  return u;
}

}  // namespace axcore::runtime
