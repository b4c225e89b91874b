// Errors of the TXN library. Each names the stream word it is about.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace axcore::txn {

class Error : public std::runtime_error {
 public:
  Error(const std::string& message, std::size_t word) : std::runtime_error(message), word_(word) {}
  std::size_t word() const { return word_; }

 private:
  std::size_t word_;
};

// The stream's words are malformed (header, opcode, op extent).
class DecodeError : public Error {
 public:
  using Error::Error;
};

// The ops decode but do not describe what the hardware runs (e.g. a push of an unwritten BD).
class TraceError : public Error {
 public:
  using Error::Error;
};

}  // namespace axcore::txn
