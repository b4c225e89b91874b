// Running a bundle: inputs and parameters checked against the bundle, buffers placed in device
// DDR, inputs/constants written in their device layout, parameters applied, the program TXN
// (program_txn: the bundle's TXN, any preloaded command streams folded in) played (player.hpp),
// outputs read back. Backends (backend.hpp) build on this.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "axcore/device/device.hpp"
#include "axcore/ref/npy.hpp"
#include "axcore/runtime/bundle.hpp"
#include "axcore/runtime/player.hpp"

namespace axcore::runtime {

// Input / parameter errors: missing, extra or mismatched (name, shape, dtype), saying what the
// bundle expects.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The backend or the configuration (e.g. the 4-core RTL model) is not in this build: nothing is
// wrong with the program; regressions report the job as skipped (axrun exits 3).
class UnavailableError : public RunError {
 public:
  using RunError::RunError;
};

using Arrays = std::map<std::string, ref::AnyArray, std::less<>>;

struct RunOptions {
  std::map<std::string, std::string, std::less<>> params;  // NAME -> VALUE as typed on the command line
  PlayOptions play;
  uint64_t idle_timeout_cycles = 10'000'000;
};

struct UnitUse {
  std::string name;  // "core0.mvm"
  device::UnitCounters counters;
};

// One DMA channel's byte counter (DMA_S2MM_BYTES / DMA_MM2S_BYTES) after a run.
struct DmaUse {
  std::string name;  // dma_channel_name: "sysdma.mm2s0", "memdma.s2mm1", "core0.dma.mm2s0"
  uint32_t row = 0, channel = 0;
  bool mm2s = false;
  uint64_t bytes = 0;
};
// The engine of a tile row and a channel: sysdma (shim), memdma (mem tile), coreN.dma.
std::string dma_channel_name(uint32_t row, bool mm2s, uint32_t channel);

struct RunResult {
  Arrays outputs;
  uint64_t cycles = 0;  // device cycles the run took (0 for ref)
  PlayStats play;
  std::vector<UnitUse> units;   // per core and perf unit, where the device counts
  uint64_t dma_bytes = 0;       // bytes DMA channels moved (sum of DMA_*_BYTES), where counted
  std::vector<DmaUse> dma;      // per channel, where counted
  uint64_t host_bytes_in = 0;   // bytes written into DDR before the run (inputs + constants)
  uint64_t host_bytes_out = 0;  // bytes read back
  std::map<std::string, uint64_t, std::less<>>
      buffer_addr;  // DDR offset of each buffer (device address = ddr_base() + it)
  // The sticky status registers after the run (player.hpp read_sticky_status: IMC_STALE_READS,
  // TOKEN_DROPPED, ERROR_STATUS, WDOG_STATUS per tile), where the device reads them; empty for ref.
  StickyStatus sticky;
  // IMC_STALE_READS summed over the cores: MVM tile-ops that computed with stale weights.
  uint64_t imc_stale_reads() const;
};

// Checks `inputs` against the bundle's INPUT buffers (RunError listing what was expected): an
// unknown name or a wrong dtype / shape, and, unless `allow_missing`, an input not given. It and
// param_bits refuse a bundle whose dispatch-time scalars are not bound (dispatch_call below).
void check_inputs(const Bundle& b, const Arrays& inputs, bool allow_missing = false);
// The 32-bit encodings of every parameter: defaults overridden by `values` (RunError for an
// unknown name or a value that does not parse as the parameter's type).
std::map<std::string, uint32_t, std::less<>> param_bits(const Bundle& b,
                                                        const std::map<std::string, std::string, std::less<>>& values);

// A call's --param values split for a bundle with dispatch-time scalars (bundle.hpp): the values
// of its scalars (integers, decimal or 0x hex) bound into the concrete bundle the call runs
// (bind_dispatch: a missing or out-of-range scalar or a failing guard is a DispatchError with its
// message, thrown before anything reaches a device), the other values left for param_bits. A
// static bundle comes back unchanged with every value. run_on_device and run_ref do this first.
struct DispatchedCall {
  Bundle bundle;
  std::map<std::string, std::string, std::less<>> params;
};
DispatchedCall dispatch_call(const Bundle& b, const std::map<std::string, std::string, std::less<>>& params);

// DDR placement: buffers in table order from `base`, each at its alignment.
std::map<std::string, uint64_t, std::less<>> place_buffers(const Bundle& b, uint64_t ddr_size, uint64_t base = 0x10000);

// The steps of a run, for hosts that play the TXN their own way (the firmware-in-the-loop runner):
using BufferAddrs = std::map<std::string, uint64_t, std::less<>>;  // DDR offset of each buffer
// The TXN's arguments by index: each argument buffer's device address (ddr_base + offset) and size;
// an index no buffer takes stays "(unbound)" (a patch of it is the player's error).
std::vector<ArgBinding> bind_arguments(const Bundle& b, uint64_t ddr_base, const BufferAddrs& at);
// Writes every INPUT (from `inputs`, checked by check_inputs) and CONSTANT buffer's device image at
// its offset; returns the bytes written.
uint64_t write_buffer_images(device::Device& dev, const Bundle& b, const Arrays& inputs, const BufferAddrs& at);
// Writes the parameter targets the program TXN does not carry (program_txn's `before`) and returns
// the TXN to play: the bundle's own words unless it preloads command streams or its TXN writes a
// parameter target (bundle.hpp).
std::vector<uint32_t> prepare_program(device::Device& dev, const Bundle& b, const ParamBits& bits);
// Reads every OUTPUT buffer back into `out`; returns the bytes read.
uint64_t read_outputs(device::Device& dev, const Bundle& b, const BufferAddrs& at, Arrays& out);

RunResult run_on_device(device::Device& dev, const Bundle& b, const Arrays& inputs, const RunOptions& opt = {});

}  // namespace axcore::runtime
