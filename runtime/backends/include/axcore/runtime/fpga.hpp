// The `fpga` backend: the same register/DMA protocol over a board. A Board is the board's register
// window (device addresses col << 25 | row << 20 | offset) plus a physically contiguous DMA buffer
// the device reaches over its AXI master; FpgaDevice implements Device on top of it (cycles from the
// shim CYCLE_LO/HI registers, idle from shim STATUS.busy, DDR = the DMA buffer with flush before
// the device reads and invalidate before the host reads).
//
// Boards: UioBoard (/dev/uioN mmap of the register window; the DMA buffer from u-dma-buf or a
// reserved-memory region through /dev/mem) and FakeBoard (forwards to any Device — the TLM model,
// the RTL model, or the register-level device — and logs the exact register protocol a board sees
// to a file; replay_board_log() plays such a log into another Device and checks every read).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "axcore/device/device.hpp"

namespace axcore::runtime {

class Board {
 public:
  virtual ~Board() = default;
  virtual std::string describe() const = 0;
  virtual uint32_t read32(uint64_t addr) = 0;
  virtual void write32(uint64_t addr, uint32_t value) = 0;
  virtual std::span<uint8_t> dma_memory() = 0;                   // host mapping of the DMA buffer
  virtual uint64_t dma_phys() const = 0;                         // its device address
  virtual void flush(uint64_t offset, uint64_t bytes) = 0;       // host writes -> device
  virtual void invalidate(uint64_t offset, uint64_t bytes) = 0;  // device writes -> host
  virtual void wait_cycles(uint64_t cycles) = 0;                 // let the device run
  virtual unsigned cores() const = 0;
};

// A read/write shared mapping of a file or device node (RAII).
class Mapping {
 public:
  Mapping(const std::filesystem::path& path, uint64_t offset, uint64_t bytes, bool create = false);
  ~Mapping();
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  std::span<uint8_t> bytes() { return {static_cast<uint8_t*>(ptr_), size_}; }
  volatile uint32_t* words() { return static_cast<volatile uint32_t*>(ptr_); }
  uint64_t size() const { return size_; }

 private:
  int fd_ = -1;
  void* ptr_ = nullptr;
  uint64_t size_ = 0;
};

struct UioConfig {
  std::filesystem::path regs;  // /dev/uio0 (or any file to map, in tests)
  uint64_t regs_bytes = 0;     // 0: /sys/class/uio/uioN/maps/map0/size
  std::filesystem::path dma;   // /dev/udmabuf0, or /dev/mem with dma_phys set
  uint64_t dma_phys = 0;       // 0: /sys/class/u-dma-buf/<name>/phys_addr
  uint64_t dma_bytes = 0;      // 0: /sys/class/u-dma-buf/<name>/size
  uint64_t dma_offset = 0;     // mmap offset into `dma` (the physical address for /dev/mem)
};
// Parses "uio=/dev/uio0,dma=/dev/udmabuf0" or "uio=/dev/uio0,mem=0x70000000:0x10000000"
// (reserved-memory region at 0x70000000, 256 MiB). Throws DeviceError saying what it expected.
UioConfig parse_uio_config(std::string_view spec);

class UioBoard : public Board {
 public:
  explicit UioBoard(const UioConfig& cfg);
  std::string describe() const override;
  uint32_t read32(uint64_t addr) override;
  void write32(uint64_t addr, uint32_t value) override;
  std::span<uint8_t> dma_memory() override { return dma_->bytes(); }
  uint64_t dma_phys() const override { return phys_; }
  void flush(uint64_t, uint64_t) override;  // a full barrier: the buffers are mapped uncached
  void invalidate(uint64_t, uint64_t) override;
  void wait_cycles(uint64_t cycles) override;  // sleeps cycles / clock_mhz microseconds
  unsigned cores() const override { return cores_; }

 private:
  UioConfig cfg_;
  std::unique_ptr<Mapping> regs_, dma_;
  uint64_t phys_ = 0;
  unsigned cores_ = 1;
};

// Logs the protocol, one line per event, to `log` (format: docs/runtime.md "Board logs"):
//   W addr value | R addr value | T cycles | F offset bytes hash | I offset bytes hash
// Flushed bytes are appended to `log` + ".dma" so a replay can reproduce them.
class FakeBoard : public Board {
 public:
  FakeBoard(device::Device& backing, const std::filesystem::path& log);
  std::string describe() const override;
  uint32_t read32(uint64_t addr) override;
  void write32(uint64_t addr, uint32_t value) override;
  std::span<uint8_t> dma_memory() override { return dma_->bytes(); }
  uint64_t dma_phys() const override { return dev_.ddr_base(); }
  void flush(uint64_t offset, uint64_t bytes) override;
  void invalidate(uint64_t offset, uint64_t bytes) override;
  void wait_cycles(uint64_t cycles) override;
  unsigned cores() const override { return dev_.cores(); }
  uint64_t events() const { return events_; }

 private:
  device::Device& dev_;
  std::filesystem::path path_;
  std::ofstream log_, dma_log_;
  uint64_t dma_log_bytes_ = 0, events_ = 0;
  std::unique_ptr<Mapping> dma_;
};

class FpgaDevice : public device::Device {
 public:
  explicit FpgaDevice(std::unique_ptr<Board> board);
  std::string_view backend() const override { return "fpga"; }
  unsigned cores() const override { return board_->cores(); }
  uint32_t read32(uint64_t addr) override { return board_->read32(addr); }
  void write32(uint64_t addr, uint32_t value) override { board_->write32(addr, value); }
  uint64_t cycle() const override;
  void advance(uint64_t cycles) override { board_->wait_cycles(cycles); }
  void run_until_idle(uint64_t timeout_cycles) override;
  uint64_t ddr_size() const override { return board_->dma_memory().size(); }
  uint64_t ddr_base() const override { return board_->dma_phys(); }
  void ddr_write(uint64_t addr, std::span<const uint8_t> bytes) override;
  void ddr_read(uint64_t addr, std::span<uint8_t> bytes) override;
  void set_trace_sink(device::TraceSink) override {}  // a board reports no transaction trace
  Board& board() { return *board_; }

 private:
  void check(uint64_t addr, uint64_t n, const char* what) const;
  std::unique_ptr<Board> board_;
};

struct ReplayResult {
  uint64_t events = 0, reads = 0, writes = 0;
  std::vector<std::string> mismatches;  // "line N: R 0x40: the board read 0x.., the replay 0x.."
};
// Plays a FakeBoard log into `dev` (writes, waits, flushed DMA data) and compares every read and
// every invalidated DMA range. Stops collecting after `max_mismatches`.
ReplayResult replay_board_log(const std::filesystem::path& log, device::Device& dev, size_t max_mismatches = 10);

}  // namespace axcore::runtime
