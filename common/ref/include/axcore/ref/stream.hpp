// Stream elements between units and the pull/push interface the unit references use, so that a
// TLM model can hand in its FIFOs (blocking inside the callbacks) and a test can hand in vectors.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <vector>

#include "axcore/num/pword.hpp"

namespace axcore::ref {

// One stream element: a PWORD of the stream's dtype. `pad` is set on an element an IFD pushed
// because a guard failed (its lanes hold the pad value); the DWPU's AVERAGE with divisor 0
// counts only elements without it. Every other consumer ignores the flag.
struct Element {
  num::AnyPword value;
  bool pad = false;
  friend bool operator==(const Element&, const Element&) = default;
};

using PopFn = std::function<Element()>;
using PushFn = std::function<void(const Element&)>;

// A vector-backed source and sink for tests and the ref backend.
class VectorSource {
 public:
  explicit VectorSource(std::vector<Element> elems) : elems_(std::move(elems)) {}
  Element pop() {
    if (next_ >= elems_.size()) throw std::out_of_range("VectorSource: stream ran dry");
    return elems_[next_++];
  }
  PopFn fn() {
    return [this] { return pop(); };
  }
  std::size_t remaining() const { return elems_.size() - next_; }

 private:
  std::vector<Element> elems_;
  std::size_t next_ = 0;
};

class VectorSink {
 public:
  PushFn fn() {
    return [this](const Element& e) { elems.push_back(e); };
  }
  std::vector<Element> elems;
};

}  // namespace axcore::ref
