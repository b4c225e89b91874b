#include "axcore/rtl/ddr_model.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "axcore/txn/text.hpp"

namespace axcore::rtl {

DdrModel::DdrModel(uint64_t size_bytes, uint32_t latency_cycles, uint32_t bytes_per_cycle, uint32_t beat_bytes)
    : size_(size_bytes), latency_(latency_cycles), beat_(beat_bytes) {
  if (latency_cycles == 0) throw std::invalid_argument("DdrModel: read latency must be >= 1 cycle");
  if (bytes_per_cycle == 0) throw std::invalid_argument("DdrModel: bytes per cycle must be >= 1");
  if (beat_bytes == 0 || beat_bytes > kMaxBeatBytes || (beat_bytes & (beat_bytes - 1)) != 0)
    throw std::invalid_argument("DdrModel: the AXI beat must be a power of two of at most 64 bytes, not " +
                                std::to_string(beat_bytes));
  spacing_ = (beat_bytes + bytes_per_cycle - 1) / bytes_per_cycle;
}

void DdrModel::check(uint64_t addr, uint64_t n) const {
  if (addr > size_ || n > size_ - addr) {
    throw std::out_of_range("DDR access [" + txn::hex(addr) + ", +" + std::to_string(n) + ") outside the " +
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

void DdrModel::accept_read(uint64_t cycle, uint8_t id, uint64_t addr, unsigned len) {
  ++reads_;
  uint64_t due = std::max<uint64_t>(cycle + latency_, r_free_);
  for (unsigned i = 0; i <= len; ++i, due += spacing_) {
    Beat b;
    b.due = due;
    b.id = id;
    b.last = i == len;
    read(addr + uint64_t{i} * beat_, std::span<uint8_t>(b.data.data(), beat_));
    r_.push_back(b);
  }
  r_free_ = due;
}

void DdrModel::accept_aw(uint64_t, uint8_t id, uint64_t addr, unsigned len) {
  check(addr, uint64_t{len + 1} * beat_);
  aw_.push_back({id, addr, len + 1, 0});
}

void DdrModel::accept_w(uint64_t cycle, std::span<const uint8_t> data, uint64_t strb, bool last) {
  if (aw_.empty()) throw std::logic_error("DdrModel: a W beat without its AW");
  Aw& a = aw_.front();
  const uint64_t at = a.addr + uint64_t{a.done} * beat_;
  uint8_t cur[kMaxBeatBytes];
  read(at, std::span<uint8_t>(cur, beat_));
  for (unsigned i = 0; i < beat_; ++i)
    if (strb >> i & 1) cur[i] = data[i];
  write(at, std::span<const uint8_t>(cur, beat_));
  w_free_ = cycle + spacing_;
  if (++a.done == a.beats || last) {
    if (!(a.done == a.beats && last)) throw std::logic_error("DdrModel: WLAST does not match the burst's AWLEN");
    Beat b;
    b.due = cycle + 2;
    b.id = a.id;
    b_.push_back(b);
    aw_.pop_front();
    ++writes_;
  }
}

const DdrModel::Beat* DdrModel::read_response(uint64_t cycle) const {
  return !r_.empty() && r_.front().due <= cycle ? &r_.front() : nullptr;
}

const DdrModel::Beat* DdrModel::write_response(uint64_t cycle) const {
  return !b_.empty() && b_.front().due <= cycle ? &b_.front() : nullptr;
}

}  // namespace axcore::rtl
