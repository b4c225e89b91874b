// Internal to axcore_bringup: what every step uses to drive the device through its registers and
// DMA engines (BDs, queue pushes, token waits, DDR words), the step outcomes, and the DDR layout
// the steps and the injected faults agree on.
#pragma once

#include <axcore/spec.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "axcore/bringup/bringup.hpp"

namespace axcore::bringup::detail {

namespace S = spec;
using device::Device;

// A step failed: what went wrong and what to check on the board.
struct StepFail : std::runtime_error {
  StepFail(const std::string& what, std::string chk) : std::runtime_error(what), check(std::move(chk)) {}
  std::string check;
};
// The device lacks what the step needs: the reason, reported as SKIP.
// The step ran and its figure is below what the spec promises (not a failure): WARN.
struct StepWarn : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct StepSkip : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string hex(uint64_t v, int w = 8);
inline uint64_t reg(uint32_t row, uint32_t off) { return S::tile_addr(0, row, off); }

struct Loc {
  S::MemSel mem;
  uint64_t addr;  // DDR: offset from ddr_base; L2/L1: byte address
  uint32_t core = 0;
};
S::DmaBd linear(const Device& d, const Loc& l, uint32_t words);
void write_bd(Device& d, uint32_t row, uint32_t bd, const S::DmaBd& v);
uint32_t push_word(uint32_t start, uint32_t tag);
// Waits for the token of (row, dir, ch); StepFail on a timeout or an error token.
uint32_t wait(Device& d, uint32_t row, uint32_t dir, uint32_t ch, const std::string& what,
              uint64_t timeout = 2'000'000);
// MM2S (src) -> S2MM (dst) on channel `ch` of the DMA engine in `row`, BDs 2ch / 2ch+1.
void transfer(Device& d, uint32_t row, uint32_t ch, const S::DmaBd& src, const S::DmaBd& dst, const std::string& what);

void ddr_put(Device& d, uint64_t off, const std::vector<uint32_t>& w);
std::vector<uint32_t> ddr_get(Device& d, uint64_t off, size_t n);
void ddr_put_bytes(Device& d, uint64_t off, const std::vector<uint8_t>& b);
std::vector<uint8_t> ddr_get_bytes(Device& d, uint64_t off, size_t n);
// StepFail naming the differing words and the bits read 1-for-0 / 0-for-1.
void compare(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want, const std::string& what,
             const std::string& check);

// DDR scratch regions of the tests, below the top 2 MiB (the firmware mailbox's place).
struct Ddr {
  uint64_t a, b, c;
};
Ddr ddr_regions(const Device& d);
// Where datapath kernel k (0 = copy, 1 = mvm, 2 = dpu, 3 = dwpu) leaves its output in DDR.
constexpr uint64_t kKernelOutBytes = 0x10000;
inline uint64_t kernel_out(const Device& d, unsigned k) { return ddr_regions(d).c + k * kKernelOutBytes; }

// The datapath kernel steps (kernels.cpp).
std::string kernel_copy(Device& d, const Options& opt);
std::string kernel_mvm(Device& d, const Options& opt);
std::string kernel_dpu(Device& d, const Options& opt);
std::string kernel_dwpu(Device& d, const Options& opt);

}  // namespace axcore::bringup::detail
