// ScopedValue<T>: sets a variable for the lifetime of a scope and puts the old value back in its
// destructor (ops::TargetScope, the operator library's call location).
#pragma once

#include <utility>

namespace axcore::compiler {

template <class T>
class ScopedValue {
 public:
  ScopedValue(T& slot, T value) : slot_(slot), saved_(std::exchange(slot, std::move(value))) {}
  ~ScopedValue() { slot_ = std::move(saved_); }
  ScopedValue(const ScopedValue&) = delete;
  ScopedValue& operator=(const ScopedValue&) = delete;

 private:
  T& slot_;
  T saved_;
};

}  // namespace axcore::compiler
