// A register-level device: the spec's register map as a recorded register file, with the token
// protocol and the DMA engines behind it, but no datapaths. Backend name "regfile".
//
// - Every register of spec/axcore.yaml answers with its reset value and access rule (RO writes are
//   ignored, W1C clears, TOKEN_POP pops, WO reads 0); an address no register covers throws
//   DeviceError. Every access is recorded (log()) with the cycle it happened in.
// - DMA queue pushes run their BD chains through common/ref (validate, walk, pad, iterate) over
//   DDR, L2 and per-core L1 images: MM2S channel n feeds S2MM channel n of the same tile through a
//   word FIFO. A BD fault ends the task with an error token, sets the tile's ERROR_* registers.
// - Core queue pushes (Q_PUSH) are not executed: a task completes `core_task_cycles` after it
//   starts (queue order), so the player's token protocol can be exercised. `hang()` makes a
//   channel's tasks never complete (the missing-token fault).
// - Host register accesses cost the contract's 3 (write) / 4 (read) cycles.
// The fpga fake board and the player tests use it; it is not a timing model.
#pragma once

#include <array>
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "axcore/device/device.hpp"

namespace axcore::runtime {

struct RegFileOptions {
  unsigned cores = 1;
  uint64_t ddr_bytes = 64ull << 20;
  uint64_t core_task_cycles = 100;
};

struct RegAccess {
  uint64_t cycle = 0;
  bool write = false;
  uint64_t addr = 0;
  uint32_t value = 0;  // written, or read back
};

class RegFileDevice : public device::Device {
 public:
  explicit RegFileDevice(RegFileOptions opt = {});

  std::string_view backend() const override { return "regfile"; }
  unsigned cores() const override { return opt_.cores; }
  uint32_t read32(uint64_t addr) override;
  void write32(uint64_t addr, uint32_t value) override;
  uint64_t cycle() const override { return cycle_; }
  void advance(uint64_t cycles) override;
  void run_until_idle(uint64_t timeout_cycles) override;
  uint64_t ddr_size() const override { return ddr_.size(); }
  void ddr_write(uint64_t addr, std::span<const uint8_t> bytes) override;
  void ddr_read(uint64_t addr, std::span<uint8_t> bytes) override;
  void set_trace_sink(device::TraceSink sink) override { sink_ = std::move(sink); }

  // Tasks pushed to (col, row, dir, channel) from now on never complete.
  void hang(unsigned col, unsigned row, unsigned dir, unsigned channel);
  const std::vector<RegAccess>& log() const { return log_; }
  std::vector<uint8_t>& l1(unsigned core) { return l1_.at(core); }
  std::vector<uint8_t>& l2() { return l2_; }
  // Words moved by DMA (both directions), for summaries.
  uint64_t dma_words() const { return dma_words_; }

 private:
  using ChanKey = std::tuple<unsigned, unsigned, unsigned, unsigned>;  // col, row, dir, channel
  struct Task {
    uint32_t push = 0;
    uint64_t ready_at = 0;  // core tasks: completion cycle once started
    bool started = false;
  };
  struct Chan {
    std::deque<Task> queue;
    std::deque<uint32_t> fifo;  // MM2S -> S2MM words (S2MM channel keys hold them)
    uint32_t done = 0;
    bool error = false, busy = false;
    uint32_t cur_bd = 0;
    uint64_t bytes = 0;
  };

  const spec::RegisterInfo* find(uint64_t addr) const;
  uint32_t stored(uint64_t addr) const;
  uint32_t computed_read(uint64_t addr, const spec::RegisterInfo& r);
  void push(ChanKey k, uint32_t word);
  void step();
  void deliver_tokens();
  bool run_dma(ChanKey k, const Task& t);
  void finish(ChanKey k, uint32_t push, spec::ErrorCode code, uint32_t detail, uint64_t at);
  void record(const RegAccess& a) { log_.push_back(a); }
  bool idle() const;

  RegFileOptions opt_;
  uint64_t cycle_ = 0;
  std::map<uint64_t, uint32_t> regs_;
  std::map<ChanKey, Chan> chans_;
  std::set<ChanKey> hung_;
  std::multimap<uint64_t, uint32_t> pending_tokens_;  // cycle -> token word
  std::deque<uint32_t> tokens_;
  uint32_t tokens_dropped_ = 0;
  std::vector<uint8_t> ddr_, l2_;
  std::vector<std::vector<uint8_t>> l1_;
  std::vector<RegAccess> log_;
  device::TraceSink sink_;
  uint64_t dma_words_ = 0, seq_ = 0;
};

}  // namespace axcore::runtime
