// The error kinds taplib raises, named after the seed's Python exceptions so that a message and
// its kind read the same in both. Every one carries the seed's message text.
#pragma once

#include <stdexcept>
#include <string>

namespace axcore::tap {

// Base of every taplib error.
class TapError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A value out of range or an operation that does not apply (Python's ValueError).
class ValueError : public TapError {
 public:
  using TapError::TapError;
};

// A dispatch-time guard that failed when its parameters were bound. The message is the one the
// guard was created with, fixed when the pattern was built.
class GuardError : public ValueError {
 public:
  using ValueError::ValueError;
};

// A value of the wrong kind, e.g. a staged value where a structural decision needs a concrete
// one (Python's TypeError).
class TypeError : public TapError {
 public:
  using TapError::TapError;
};

// A feature the operation does not cover, e.g. pictures of 3-D tensors.
class NotImplementedError : public TapError {
 public:
  using TapError::TapError;
};

}  // namespace axcore::tap
