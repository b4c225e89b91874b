// The caller's source location, as the builder's diagnostics record it: std::source_location where
// the standard library provides it (GCC 12's libstdc++: every build of the project), else the same
// interface on the builtins GCC and clang share. clang 14 over libstdc++ 12 — clang-tidy — has no
// __builtin_source_location, so libstdc++'s <source_location> declares nothing there.
#pragma once

#include <cstdint>
#if __has_include(<source_location>)
#include <source_location>
#endif

namespace axcore::compiler {

#if defined(__cpp_lib_source_location)
using source_location = std::source_location;
#else
class source_location {
 public:
  // As a default argument, the builtins take the location of the call that uses the default.
  static constexpr source_location current(const char* file = __builtin_FILE(),
                                           const char* function = __builtin_FUNCTION(),
                                           std::uint_least32_t line = __builtin_LINE(),
                                           std::uint_least32_t column = __builtin_COLUMN()) noexcept {
    source_location l;
    l.file_ = file;
    l.function_ = function;
    l.line_ = line;
    l.column_ = column;
    return l;
  }
  constexpr source_location() noexcept = default;
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }
  constexpr std::uint_least32_t line() const noexcept { return line_; }
  constexpr std::uint_least32_t column() const noexcept { return column_; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  std::uint_least32_t line_ = 0;
  std::uint_least32_t column_ = 0;
};
#endif

}  // namespace axcore::compiler
