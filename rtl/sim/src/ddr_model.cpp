#include "axcore/rtl/ddr_model.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace axcore::rtl {

DdrModel::DdrModel(uint64_t size_bytes, uint32_t latency_cycles) : size_(size_bytes), latency_(latency_cycles) {
  if (latency_cycles == 0) throw std::invalid_argument("DdrModel: read latency must be >= 1 cycle");
}

void DdrModel::check(uint64_t addr, uint64_t n) const {
  if (addr > size_ || n > size_ - addr) {
    throw std::out_of_range("DDR access [0x" + std::to_string(addr) + ", +" + std::to_string(n) + ") outside the " +
                            std::to_string(size_) + "-byte DDR");
  }
}

uint8_t* DdrModel::page(uint64_t addr, bool create) {
  auto it = pages_.find(addr / kPage);
  if (it != pages_.end()) return it->second.get();
  if (!create) return nullptr;
  auto p = std::make_unique<uint8_t[]>(kPage);  // value-initialised: zero
  uint8_t* raw = p.get();
  pages_.emplace(addr / kPage, std::move(p));
  return raw;
}

const uint8_t* DdrModel::page(uint64_t addr) const {
  auto it = pages_.find(addr / kPage);
  return it == pages_.end() ? nullptr : it->second.get();
}

void DdrModel::write(uint64_t addr, std::span<const uint8_t> bytes) {
  check(addr, bytes.size());
  for (size_t done = 0; done < bytes.size();) {
    const uint64_t a = addr + done;
    const size_t n = std::min<size_t>(bytes.size() - done, kPage - a % kPage);
    std::memcpy(page(a, true) + a % kPage, bytes.data() + done, n);
    done += n;
  }
}

void DdrModel::read(uint64_t addr, std::span<uint8_t> bytes) const {
  check(addr, bytes.size());
  for (size_t done = 0; done < bytes.size();) {
    const uint64_t a = addr + done;
    const size_t n = std::min<size_t>(bytes.size() - done, kPage - a % kPage);
    if (const uint8_t* p = page(a)) {
      std::memcpy(bytes.data() + done, p + a % kPage, n);
    } else {
      std::memset(bytes.data() + done, 0, n);
    }
    done += n;
  }
}

uint32_t DdrModel::read_word(uint64_t addr) const {
  uint8_t b[4];
  read(addr, b);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

void DdrModel::write_word(uint64_t addr, uint32_t value) {
  const uint8_t b[4] = {static_cast<uint8_t>(value), static_cast<uint8_t>(value >> 8),
                        static_cast<uint8_t>(value >> 16), static_cast<uint8_t>(value >> 24)};
  write(addr, b);
}

void DdrModel::accept_read(uint64_t cycle, uint8_t id, uint64_t addr) {
  ++reads_;
  r_.push_back({cycle + latency_, id, read_word(addr)});
}

void DdrModel::accept_write(uint64_t cycle, uint8_t id, uint64_t addr, uint32_t data, uint8_t strb) {
  ++writes_;
  uint32_t v = read_word(addr);
  for (unsigned b = 0; b < 4; ++b) {
    if (strb >> b & 1) v = (v & ~(0xFFu << 8 * b)) | (data & 0xFFu << 8 * b);
  }
  write_word(addr, v);
  b_.push_back({cycle + 2, id, 0});
}

const DdrModel::Beat* DdrModel::read_response(uint64_t cycle) const {
  return !r_.empty() && r_.front().due <= cycle ? &r_.front() : nullptr;
}

const DdrModel::Beat* DdrModel::write_response(uint64_t cycle) const {
  return !b_.empty() && b_.front().due <= cycle ? &b_.front() : nullptr;
}

}  // namespace axcore::rtl
