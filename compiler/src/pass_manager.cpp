#include "axcore/compiler/passes.hpp"

#include "axcore/compiler/verify.hpp"

namespace axcore::compiler {

PassManager& PassManager::add(std::string name, Fn fn) {
  passes_.emplace_back(std::move(name), std::move(fn));
  return *this;
}

std::vector<PassTiming> PassManager::run(PrimFunc& f, bool verify_each) const {
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point from) {
    return std::chrono::duration<double, std::milli>(Clock::now() - from).count();
  };
  std::vector<PassTiming> t;
  double verify_ms = 0;
  auto verify = [&](const std::string& after) {
    const auto start = Clock::now();
    check_ir(f, after);
    verify_ms += ms(start);
  };
  if (verify_each) verify("the input");
  for (const auto& [name, fn] : passes_) {
    const auto start = Clock::now();
    fn(f);
    t.push_back({name, ms(start)});
    if (verify_each) verify("pass '" + name + "'");
  }
  if (verify_each) t.push_back({"verify-ir", verify_ms});
  return t;
}

}  // namespace axcore::compiler
