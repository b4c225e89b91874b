// The reference DPU: an interpreter of spec::DpuInstr programs (spec dpu_desc, dpu_instr,
// dpu_operand, dpu_op, dpu_index). The TLM models run it and the RTL DPU is compared with it.
//
// State: 32 (dpu_registers) float18x64 registers, all +0 when the Dpu is built. The init
// preamble (instructions [0, init_len)) runs once, then the body ([init_len, init_len +
// body_len)) runs `iterations` times. Each instruction is one op on whole registers, lane-wise
// unless it is a reduction, every result rounded to float18 (num/float18.hpp).
//   POP   dst = to_f18(pop(imm))          imm 0 = main input (in0_dtype), 1 = IFD1 (in1_dtype); with
//         spec dpu_pop own_dtype the element is of the imm's dtype instead (a later segment of
//         another dtype on its feeder, guide §8.3)
//   PUSH  push(cast(a, out_dtype))
//   MOV dst = a;  ADD/SUB/MUL/MIN/MAX dst = a op b;  FMA dst = f18(f18(a*b) + c)
//   PRELU dst = a >= 0 ? a : a*b;  LUT dst = lut(a, registers b .. b + max(imm,1) - 1)
//   ADD_REDUCE/MAX_REDUCE/MIN_REDUCE dst = broadcast(tree over a's lanes) (num/reduce.hpp)
//   LOOP imm  run the instructions up to the matching ENDLOOP imm times (imm >= 1)
// Sources are read before dst is written, so dst may equal any source.
// Operands: bits [4:0] reg, [6:5] index mode, bit 7 must be 0. Mode LOOPk adds the counter
// (0-based) of the k-th enclosing loop counted from the outermost; the register must exist.
// Loops nest up to 3 deep and must close inside the section (init or body) that opens them.
// Operand fields an op does not use are ignored.
// Illegal programs raise RefError(DPU_ILLEGAL) with the instruction; a register index that
// leaves the file through a loop counter raises it when executed. Stream dtypes outside
// INT8/INT32/FLOAT16/FLOAT32, or a popped element of another dtype, raise STREAM_DTYPE.
#pragma once

#include <array>
#include <axcore/spec.hpp>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "axcore/num/pword.hpp"
#include "axcore/ref/stream.hpp"

namespace axcore::ref {

inline constexpr std::size_t kDpuRegisters = spec::param::dpu_registers;
inline constexpr std::size_t kDpuLoopDepth = spec::param::dpu_loop_depth;

struct DpuProgram {
  spec::DpuDesc desc;                // init_len, body_len, dtypes, iterations
  std::vector<spec::DpuInstr> code;  // init then body: init_len + body_len instructions
  // From the program words (2 per instruction) that follow the datapath descriptor.
  static DpuProgram decode(const spec::DpuDesc& desc, std::span<const uint32_t> words);
};

struct DpuConfig {
  bool has_in1 = true;  // the datapath has IFD1: POP imm 1 is legal
};

// Static checks (everything but loop-indexed register ranges); throws RefError.
void validate_dpu(const DpuProgram& p, const DpuConfig& cfg = {});

// Operand encodings, for assemblers and tests.
uint32_t dpu_reg(uint32_t reg, spec::DpuIndex index = spec::DpuIndex::NONE);
spec::DpuInstr dpu_instr(spec::DpuOp op, uint32_t dst = 0, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0,
                         uint32_t imm = 0);

struct DpuIo {
  std::function<Element(unsigned stream)> pop;  // 0 = main input, 1 = IFD1
  PushFn push;
};

class Dpu {
 public:
  enum class Phase { Init, Body, Done };

  explicit Dpu(DpuProgram program, DpuConfig cfg = {});
  // Executes one instruction (LOOP and ENDLOOP count as one). Returns false once finished.
  bool step(const DpuIo& io);
  void run(const DpuIo& io);

  Phase phase() const { return phase_; }
  bool done() const { return phase_ == Phase::Done; }
  uint64_t iteration() const { return iteration_; }
  std::size_t pc() const { return pc_; }
  const std::array<num::PwordF18, kDpuRegisters>& registers() const { return regs_; }
  uint64_t instructions = 0, pops = 0, pushes = 0;

 private:
  struct Loop {
    std::size_t start;  // first instruction of the loop body
    uint32_t count, counter;
  };
  std::size_t resolve(uint32_t operand) const;
  void execute(const spec::DpuInstr& in, const DpuIo& io);
  void settle();  // moves to the next phase/iteration when the PC leaves the current section

  DpuProgram p_;
  DpuConfig cfg_;
  std::array<num::PwordF18, kDpuRegisters> regs_{};
  std::vector<Loop> loops_;
  Phase phase_ = Phase::Init;
  uint64_t iteration_ = 0;
  std::size_t pc_ = 0;
};

// Runs a whole program.
void run_dpu(const DpuProgram& p, const DpuConfig& cfg, const DpuIo& io);

}  // namespace axcore::ref
