#include "axcore/compiler/passes.hpp"

namespace axcore::compiler {

PassManager& PassManager::add(std::string name, Fn fn) {
  passes_.emplace_back(std::move(name), std::move(fn));
  return *this;
}

std::vector<PassTiming> PassManager::run(PrimFunc& f) const {
  std::vector<PassTiming> t;
  for (const auto& [name, fn] : passes_) {
    const auto start = std::chrono::steady_clock::now();
    fn(f);
    t.push_back({name, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count()});
  }
  return t;
}

}  // namespace axcore::compiler
