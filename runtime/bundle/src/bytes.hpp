// Little-endian byte encoding of bundle sections, and a reader that checks every length before it
// reads (a malformed bundle raises BundleError naming the section and the byte, never reads past
// the buffer or allocates more than the bytes left could describe).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "axcore/runtime/bundle.hpp"

namespace axcore::runtime::detail {

class ByteWriter {
 public:
  void u8(uint8_t v) { out_.push_back(v); }
  void u16(uint16_t v) { le(v, 2); }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    u64(bits);
  }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }
  void bytes(std::span<const uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void pad_to(std::size_t align) {
    while (out_.size() % align) out_.push_back(0);
  }
  std::vector<uint8_t>& data() { return out_; }

 private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t> out_;
};

class ByteReader {
 public:
  // `what` names the region in errors ("section BUFFERS"); `base` is its offset in the file.
  ByteReader(std::span<const uint8_t> b, std::string what, uint64_t base)
      : b_(b), what_(std::move(what)), base_(base) {}

  uint8_t u8() { return static_cast<uint8_t>(le(1, "a byte")); }
  uint16_t u16() { return static_cast<uint16_t>(le(2, "a 16-bit field")); }
  uint32_t u32() { return static_cast<uint32_t>(le(4, "a 32-bit field")); }
  uint64_t u64() { return le(8, "a 64-bit field"); }
  int32_t i32() { return static_cast<int32_t>(u32()); }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  double f64() {
    const uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, 8);
    return v;
  }
  std::string str(const char* field) {
    const uint32_t n = u32();
    need(n, field);
    std::string s(reinterpret_cast<const char*>(b_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  std::span<const uint8_t> bytes(uint64_t n, const char* field) {
    need(n, field);
    auto s = b_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  // A count of items each at least `min_bytes` long: refused when the rest cannot hold them.
  uint32_t count(const char* items, uint64_t min_bytes) {
    const uint64_t at = pos_;
    const uint32_t n = u32();
    if (min_bytes && n > left() / min_bytes)
      fail(at, std::to_string(n) + " " + items + " need at least " + std::to_string(uint64_t{n} * min_bytes) +
                   " bytes, " + std::to_string(left()) + " are left");
    return n;
  }
  uint64_t left() const { return b_.size() - pos_; }
  uint64_t pos() const { return pos_; }
  void finish() {
    if (left()) fail(pos_, std::to_string(left()) + " trailing bytes after its last entry");
  }
  [[noreturn]] void fail(uint64_t at, const std::string& msg) const {
    throw BundleError("bundle: " + what_ + " at byte " + std::to_string(base_ + at) + ": " + msg);
  }

 private:
  void need(uint64_t n, const char* field) {
    if (n > left())
      fail(pos_, std::string(field) + " of " + std::to_string(n) + " bytes runs past its end (" +
                     std::to_string(left()) + " bytes left)");
  }
  uint64_t le(int n, const char* field) {
    need(static_cast<uint64_t>(n), field);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t{b_[pos_ + i]} << (8 * i);
    pos_ += n;
    return v;
  }
  std::span<const uint8_t> b_;
  std::string what_;
  uint64_t base_;
  uint64_t pos_ = 0;
};

}  // namespace axcore::runtime::detail
