// The TXN player (issue 8): plays every op of a TXN stream against a Device.
//   write32 / blockwrite / maskwrite32   -> write32 / block_write / mask_write32; only a write32
//                                           pushes, so a blockwrite or maskwrite32 reaching a queue
//                                           register is a PlayError (the TXN trace shows no push)
//   maskpoll32 (and maskpoll_busy)       -> poll32 with `poll_timeout_cycles`
//   ddr_patch                            -> the bound argument's device address + arg_plus, written
//                                           as the 64-bit value (regaddr <- lo, regaddr + 4 <- hi)
//   tct                                  -> Device::wait_token for every tile of the ncol x nrow block,
//                                           with a watchdog of `token_timeout_cycles`
//   noop, preempt                        -> nothing (axcore has no preemption levels)
//   loadpdi, create_scratchpad, update_reg, read_regs, record_timer, merge_sync -> PlayError (axcore
//                                           has no PDIs, scratchpads or firmware tables)
// A stream whose header names another device than the one it plays on is refused before any op.
// A TCT that times out names the task it waited for (the push that started it, or that no push
// preceded it) and carries the device's STATUS / ERROR / watchdog registers (status_report()); an
// error token names its error code and the tile's ERROR_INFO.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "axcore/device/device.hpp"

namespace axcore::runtime {

class PlayError : public device::DeviceError {
 public:
  PlayError(const std::string& msg, uint32_t word) : DeviceError(msg), word_(word) {}
  uint32_t word() const { return word_; }  // stream word of the op that failed

 private:
  uint32_t word_;
};

// A DDR_PATCH argument: the buffer bound to TXN argument index i is args[i].
struct ArgBinding {
  std::string name;
  uint64_t addr = 0;   // device (DDR) byte address
  uint64_t bytes = 0;  // size; a patch offset must stay inside it
};

struct PlayProgress {
  uint64_t op = 0, ops = 0;  // ops played so far, total
  uint64_t cycle = 0;        // device cycle now
  uint64_t waits = 0;        // TCTs completed
};

struct PlayOptions {
  uint64_t token_timeout_cycles = 50'000'000;
  uint64_t poll_timeout_cycles = 10'000'000;
  // Called after every TCT and every `progress_every_ops` ops.
  std::function<void(const PlayProgress&)> progress;
  uint64_t progress_every_ops = 4096;
};

struct PlayStats {
  uint64_t ops = 0, writes = 0, block_words = 0, mask_writes = 0, polls = 0, patches = 0, waits = 0, tokens = 0,
           noops = 0;
  uint64_t start_cycle = 0, end_cycle = 0;
  std::vector<uint32_t> token_words;  // in the order the waits claimed them
};

PlayStats play(device::Device& dev, std::span<const uint32_t> txn, std::span<const ArgBinding> args,
               const PlayOptions& opt = {});

// The device's STATUS, TOKEN_DROPPED, and per tile ERROR_STATUS / ERROR_INFO (decoded) /
// ERROR_ADDR, DMA channel status; per core CORE_STATUS, WDOG_STATUS, WDOG_WAITS, IMC_STATUS,
// Q_STATUS. Never pops a token. Registers the device cannot read are shown as "unreadable".
std::string status_report(device::Device& dev);

// The sticky status registers, read after a run (every backend that has a device): the counters
// and error bits that only grow until cleared — "shim.TOKEN_DROPPED", "<tile>.ERROR_STATUS" for
// shim, mem and every core, "coreN.WDOG_STATUS" and "coreN.IMC_STALE_READS" (MVM tile-ops that
// read IMC tiles outside their residency: the guide's §14 IMC reuse hazard). A register the
// device cannot read is left out.
using StickyStatus = std::map<std::string, uint64_t, std::less<>>;
StickyStatus read_sticky_status(device::Device& dev);
// "sticky status: IMC_STALE_READS 32 (core0 32), TOKEN_DROPPED 0, ERROR_STATUS 0, WDOG_STATUS 0":
// each counter summed over its tiles (each status register's bits OR-ed), the tiles where it is
// not zero in parentheses.
std::string sticky_line(const StickyStatus& s);
// What a non-zero sticky status means, one warning per register ("" lines left out).
std::vector<std::string> sticky_warnings(const StickyStatus& s);

}  // namespace axcore::runtime
