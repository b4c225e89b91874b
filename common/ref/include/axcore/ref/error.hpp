// The error every unit reference raises: a clear message plus the spec error code the hardware
// reports for the same fault (a TLM model turns it into an error token).
#pragma once

#include <axcore/spec.hpp>
#include <stdexcept>
#include <string>

namespace axcore::ref {

class RefError : public std::runtime_error {
 public:
  RefError(spec::ErrorCode code, const std::string& what)
      : std::runtime_error(std::string(spec::to_string(code)) + ": " + what), code_(code) {}
  spec::ErrorCode code() const { return code_; }

 private:
  spec::ErrorCode code_;
};

[[noreturn]] inline void fail(spec::ErrorCode code, const std::string& what) { throw RefError(code, what); }

}  // namespace axcore::ref
