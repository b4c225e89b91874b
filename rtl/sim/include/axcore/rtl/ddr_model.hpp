// The DDR behind the device's AXI4 master: a sparse byte store over the whole ddr_addr_bits
// space (64 KiB pages allocated on first write; never-written bytes read 0) with the timing of
// docs/timing.md "Bridge and DDR model timing": AXI4 INCR bursts of `beat_bytes`-wide beats; a
// read burst's first R beat comes `latency` cycles after its AR was accepted, and every R beat
// at least ceil(beat_bytes / bytes_per_cycle) cycles after the previous one (reads in order);
// W beats are taken at the same rate; B comes 2 cycles after a burst's last W beat. Host access
// (read/write) is immediate.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace axcore::rtl {

class DdrModel {
 public:
  static constexpr unsigned kMaxBeatBytes = 64;
  DdrModel(uint64_t size_bytes, uint32_t latency_cycles, uint32_t bytes_per_cycle, uint32_t beat_bytes);

  uint64_t size() const { return size_; }
  uint32_t latency() const { return latency_; }
  uint32_t beat_bytes() const { return beat_; }
  uint32_t beat_cycles() const { return spacing_; }           // cycles per beat on each data path
  void write(uint64_t addr, std::span<const uint8_t> bytes);  // throws std::out_of_range
  void read(uint64_t addr, std::span<uint8_t> bytes) const;   // throws std::out_of_range

  // ---- AXI side, calls per cycle from the harness ----
  struct Beat {
    uint64_t due = 0;  // cycle the response is presented
    uint8_t id = 0;
    bool last = true;
    std::array<uint8_t, kMaxBeatBytes> data{};  // read data (beat_bytes used)
  };
  // AR accepted in `cycle`: len + 1 beats from `addr` (a multiple of beat_bytes), INCR.
  void accept_read(uint64_t cycle, uint8_t id, uint64_t addr, unsigned len);
  void accept_aw(uint64_t cycle, uint8_t id, uint64_t addr, unsigned len);
  bool w_ready(uint64_t cycle) const { return cycle >= w_free_; }
  // One W beat taken in `cycle` (after its burst's AW); strb bit b enables data[b].
  void accept_w(uint64_t cycle, std::span<const uint8_t> data, uint64_t strb, bool last);
  const Beat* read_response(uint64_t cycle) const;   // head R beat if due
  const Beat* write_response(uint64_t cycle) const;  // head B if due
  void pop_read() { r_.pop_front(); }
  void pop_write() { b_.pop_front(); }
  bool idle() const { return r_.empty() && b_.empty() && aw_.empty(); }
  uint64_t reads() const { return reads_; }    // read bursts accepted
  uint64_t writes() const { return writes_; }  // write bursts completed

 private:
  static constexpr uint64_t kPage = 64 * 1024;
  struct Aw {
    uint8_t id;
    uint64_t addr;
    unsigned beats, done;
  };
  void check(uint64_t addr, uint64_t n) const;
  uint8_t* page(uint64_t addr, bool create);
  const uint8_t* page(uint64_t addr) const;

  uint64_t size_;
  uint32_t latency_, beat_, spacing_;
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
  std::deque<Beat> r_, b_;
  std::deque<Aw> aw_;
  uint64_t r_free_ = 0;  // first cycle the next R beat may be presented
  uint64_t w_free_ = 0;  // first cycle the next W beat may be taken
  uint64_t reads_ = 0, writes_ = 0;
};

}  // namespace axcore::rtl
