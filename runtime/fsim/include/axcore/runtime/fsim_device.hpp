// fsim: a functional device for checking what the compiler emits before (and beside) the TLM and
// RTL models (backend name "fsim"). It is the register-level device (tokens, DMA through
// common/ref) with the core command queues executed by the common/ref unit references: a queue push
// decodes the descriptor from command memory and runs LoadIMC, or IFD0/IFD1 -> MVM|DWPU -> DPU ->
// ODR, over the core's L1 and IMC. Untimed (tasks complete a fixed number of cycles after they start).
#pragma once

#include <axcore/ref/imc.hpp>
#include <axcore/runtime/regfile_device.hpp>

namespace axcore::runtime {

class FsimDevice : public RegFileDevice {
 public:
  explicit FsimDevice(unsigned cores = 1);
  std::string_view backend() const override { return "fsim"; }
  void write32(uint64_t addr, uint32_t value) override;
  // IMC_STATUS and IMC_STALE_READS of a core read its common/ref Imc (the stale-read count of the
  // guide's §14 IMC reuse hazard, as the TLM and the RTL count it); the rest as the regfile.
  uint32_t read32(uint64_t addr) override;
  uint64_t tasks_run() const { return tasks_; }
  uint64_t tile_ops() const { return tile_ops_; }

 private:
  void run_task(unsigned core, unsigned queue, uint32_t start_word);
  std::vector<ref::Imc> imc_;
  uint64_t tasks_ = 0, tile_ops_ = 0;
};

}  // namespace axcore::runtime
