// The DDR behind the device's AXI4 master: a sparse byte store over the whole ddr_addr_bits
// space (64 KiB pages allocated on first write; never-written bytes read 0) with the timing of
// docs/timing.md: a read beat returns `latency` cycles after its address was accepted, a write
// is answered 2 cycles after its address. Host access (ddr_read/ddr_write) is immediate.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace axcore::rtl {

class DdrModel {
 public:
  explicit DdrModel(uint64_t size_bytes, uint32_t latency_cycles);

  uint64_t size() const { return size_; }
  uint32_t latency() const { return latency_; }
  void write(uint64_t addr, std::span<const uint8_t> bytes);  // throws std::out_of_range
  void read(uint64_t addr, std::span<uint8_t> bytes) const;   // throws std::out_of_range
  uint32_t read_word(uint64_t addr) const;
  void write_word(uint64_t addr, uint32_t value);

  // ---- AXI side, one call per cycle from the harness ----
  struct Beat {
    uint64_t due = 0;  // cycle the response is presented
    uint8_t id = 0;
    uint32_t data = 0;  // read data
  };
  void accept_read(uint64_t cycle, uint8_t id, uint64_t addr);
  void accept_write(uint64_t cycle, uint8_t id, uint64_t addr, uint32_t data, uint8_t strb);
  const Beat* read_response(uint64_t cycle) const;   // head R beat if due
  const Beat* write_response(uint64_t cycle) const;  // head B beat if due
  void pop_read() { r_.pop_front(); }
  void pop_write() { b_.pop_front(); }
  bool idle() const { return r_.empty() && b_.empty(); }
  uint64_t reads() const { return reads_; }
  uint64_t writes() const { return writes_; }

 private:
  static constexpr uint64_t kPage = 64 * 1024;
  void check(uint64_t addr, uint64_t n) const;
  uint8_t* page(uint64_t addr, bool create);
  const uint8_t* page(uint64_t addr) const;

  uint64_t size_;
  uint32_t latency_;
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
  std::deque<Beat> r_, b_;
  uint64_t reads_ = 0, writes_ = 0;
};

}  // namespace axcore::rtl
