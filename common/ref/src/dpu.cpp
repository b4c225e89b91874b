#include "axcore/ref/dpu.hpp"

#include <string>

#include "axcore/num/lut.hpp"
#include "axcore/num/reduce.hpp"
#include "axcore/ref/error.hpp"

namespace axcore::ref {

using num::Float18;
using num::PwordF18;
using spec::DpuIndex;
using spec::DpuOp;
using spec::ErrorCode;

DpuProgram DpuProgram::decode(const spec::DpuDesc& desc, std::span<const uint32_t> words) {
  const std::size_t n = std::size_t{desc.init_len} + desc.body_len;
  if (words.size() < 2 * n) {
    fail(ErrorCode::DPU_ILLEGAL, "DPU program: " + std::to_string(n) + " instructions need " + std::to_string(2 * n) +
                                     " words, " + std::to_string(words.size()) + " given");
  }
  DpuProgram p{desc, {}};
  for (std::size_t i = 0; i < n; ++i) p.code.push_back(spec::DpuInstr::decode(words.subspan(2 * i, 2)));
  return p;
}

uint32_t dpu_reg(uint32_t reg, DpuIndex index) { return spec::DpuOperand{reg, index}.encode_word(); }

spec::DpuInstr dpu_instr(DpuOp op, uint32_t dst, uint32_t a, uint32_t b, uint32_t c, uint32_t imm) {
  spec::DpuInstr in;
  in.op = op;
  in.dst = dst;
  in.a = a;
  in.b = b;
  in.c = c;
  in.imm = imm;
  return in;
}

namespace {

struct Uses {
  bool dst, a, b, c;
};
Uses uses(DpuOp op) {
  switch (op) {
    case DpuOp::POP: return {true, false, false, false};
    case DpuOp::PUSH: return {false, true, false, false};
    case DpuOp::MOV:
    case DpuOp::ADD_REDUCE:
    case DpuOp::MAX_REDUCE:
    case DpuOp::MIN_REDUCE: return {true, true, false, false};
    case DpuOp::ADD:
    case DpuOp::SUB:
    case DpuOp::MUL:
    case DpuOp::MIN:
    case DpuOp::MAX:
    case DpuOp::PRELU:
    case DpuOp::LUT: return {true, true, true, false};
    case DpuOp::FMA: return {true, true, true, true};
    default: return {false, false, false, false};
  }
}

uint32_t lut_chain(const spec::DpuInstr& in) { return in.imm == 0 ? 1 : in.imm; }

std::string where(const DpuProgram& p, std::size_t i) {
  const bool init = i < p.desc.init_len;
  return "DPU program: instruction " + std::to_string(i) + " (" + (init ? "init " : "body ") +
         std::to_string(init ? i : i - p.desc.init_len) + ", " +
         (static_cast<uint32_t>(p.code[i].op) <= static_cast<uint32_t>(DpuOp::ENDLOOP)
              ? std::string(spec::to_string(p.code[i].op))
              : "opcode " + std::to_string(static_cast<uint32_t>(p.code[i].op))) +
         "): ";
}

void check_stream_dtype(spec::Dtype d, const char* which) {
  if (!num::is_memory_dtype(d)) {
    fail(ErrorCode::STREAM_DTYPE, std::string("DPU: ") + which + " dtype " + std::to_string(static_cast<uint32_t>(d)) +
                                      " is not a stream dtype (INT8, INT32, FLOAT16, FLOAT32)");
  }
}

}  // namespace

void validate_dpu(const DpuProgram& p, const DpuConfig& cfg) {
  const std::size_t n = std::size_t{p.desc.init_len} + p.desc.body_len;
  if (n > spec::param::dpu_max_instructions) {
    fail(ErrorCode::DPU_ILLEGAL, "DPU program: " + std::to_string(n) + " instructions (at most " +
                                     std::to_string(spec::param::dpu_max_instructions) + ")");
  }
  if (p.code.size() != n) {
    fail(ErrorCode::DPU_ILLEGAL, "DPU program: init_len + body_len = " + std::to_string(n) + " but " +
                                     std::to_string(p.code.size()) + " instructions given");
  }
  check_stream_dtype(p.desc.in0_dtype, "in0");
  if (cfg.has_in1) check_stream_dtype(p.desc.in1_dtype, "in1");
  check_stream_dtype(p.desc.out_dtype, "out");
  std::size_t depth = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == p.desc.init_len && depth != 0) {
      fail(ErrorCode::DPU_ILLEGAL, "DPU program: init ends with " + std::to_string(depth) + " open LOOP(s)");
    }
    const spec::DpuInstr& in = p.code[i];
    if (static_cast<uint32_t>(in.op) > static_cast<uint32_t>(DpuOp::ENDLOOP)) {
      fail(ErrorCode::DPU_ILLEGAL, where(p, i) + "bad opcode");
    }
    const Uses u = uses(in.op);
    const std::array<std::pair<bool, uint32_t>, 4> ops{{{u.dst, in.dst}, {u.a, in.a}, {u.b, in.b}, {u.c, in.c}}};
    for (const auto& [used, field] : ops) {
      if (!used) continue;
      if ((field & 0x80) != 0) fail(ErrorCode::DPU_ILLEGAL, where(p, i) + "operand bit 7 is set");
      const spec::DpuOperand o = spec::DpuOperand::decode_word(field);
      if (o.reg >= kDpuRegisters) {
        fail(ErrorCode::DPU_ILLEGAL, where(p, i) + "register " + std::to_string(o.reg) + " (the DPU has " +
                                         std::to_string(kDpuRegisters) + ")");
      }
      if (static_cast<std::size_t>(o.index) > depth) {
        fail(ErrorCode::DPU_ILLEGAL, where(p, i) + "operand indexed by loop level " +
                                         std::to_string(static_cast<uint32_t>(o.index)) + " inside " +
                                         std::to_string(depth) + " open loop(s)");
      }
    }
    switch (in.op) {
      case DpuOp::POP: {
        const spec::DpuPop pop = spec::DpuPop::decode_word(in.imm);
        if (pop.own_dtype ? (pop.encode_word() != in.imm || !num::is_memory_dtype(pop.dtype)) : in.imm > 1)
          fail(ErrorCode::DPU_ILLEGAL, where(p, i) + "stream " + std::to_string(in.imm) +
                                           " (0 or 1, or with own_dtype one of INT8, INT32, FLOAT16, FLOAT32)");
        if (pop.stream == 1 && !cfg.has_in1)
          fail(ErrorCode::DPU_ILLEGAL, where(p, i) + "pops IFD1, which this datapath lacks");
        break;
      }
      case DpuOp::LUT: {
        if (in.imm > num::kLutMaxChain) {
          fail(ErrorCode::DPU_ILLEGAL, where(p, i) + "chains " + std::to_string(in.imm) + " tables (at most " +
                                           std::to_string(num::kLutMaxChain) + ")");
        }
        const spec::DpuOperand b = spec::DpuOperand::decode_word(in.b);
        if (b.index == DpuIndex::NONE && b.reg + lut_chain(in) > kDpuRegisters) {
          fail(ErrorCode::DPU_ILLEGAL, where(p, i) + "tables " + std::to_string(b.reg) + ".." +
                                           std::to_string(b.reg + lut_chain(in) - 1) + " leave the register file");
        }
        break;
      }
      case DpuOp::LOOP:
        if (in.imm < 1) fail(ErrorCode::DPU_ILLEGAL, where(p, i) + "LOOP count 0 (imm >= 1)");
        if (++depth > kDpuLoopDepth) {
          fail(ErrorCode::DPU_ILLEGAL, where(p, i) + "loops nest deeper than " + std::to_string(kDpuLoopDepth));
        }
        break;
      case DpuOp::ENDLOOP:
        if (depth == 0) fail(ErrorCode::DPU_ILLEGAL, where(p, i) + "ENDLOOP without an open LOOP");
        --depth;
        break;
      default: break;
    }
  }
  if (depth != 0) {
    fail(ErrorCode::DPU_ILLEGAL, "DPU program: " + std::string(p.desc.body_len != 0 ? "body" : "init") + " ends with " +
                                     std::to_string(depth) + " open LOOP(s)");
  }
}

Dpu::Dpu(DpuProgram program, DpuConfig cfg) : p_(std::move(program)), cfg_(cfg) {
  validate_dpu(p_, cfg_);
  settle();
}

void Dpu::settle() {
  for (;;) {
    if (phase_ == Phase::Init) {
      if (pc_ < p_.desc.init_len) return;
      phase_ = Phase::Body;
      iteration_ = 0;
      pc_ = p_.desc.init_len;
    }
    if (phase_ == Phase::Body) {
      const std::size_t end = std::size_t{p_.desc.init_len} + p_.desc.body_len;
      if (iteration_ >= p_.desc.iterations || p_.desc.body_len == 0) {
        phase_ = Phase::Done;
        return;
      }
      if (pc_ < end) return;
      ++iteration_;
      pc_ = p_.desc.init_len;
      continue;
    }
    return;
  }
}

std::size_t Dpu::resolve(uint32_t operand) const {
  const spec::DpuOperand o = spec::DpuOperand::decode_word(operand);
  std::size_t r = o.reg;
  if (o.index != DpuIndex::NONE) r += loops_[static_cast<std::size_t>(o.index) - 1].counter;
  if (r >= kDpuRegisters) {
    fail(ErrorCode::DPU_ILLEGAL, where(p_, pc_) + "register " + std::to_string(o.reg) +
                                     " + loop counter = " + std::to_string(r) + " leaves the register file");
  }
  return r;
}

namespace {
template <class F>
[[gnu::always_inline]] inline PwordF18 lanewise(const PwordF18& a, const PwordF18& b, F f) {
  PwordF18 r;
  for (std::size_t i = 0; i < num::kLanes; ++i) r[i] = f(a[i], b[i]);
  return r;
}

// The two-operand lane operations, compiled for AVX-512 and AVX2 too (chosen once by CPUID: the
// 64-lane loops in 16 / 8 lanes a step instead of SSE2's 4). dpu.cpp is built with
// -ffp-contract=off, so every clone rounds each float32 operation as the default one does.
__attribute__((target_clones("avx512f", "avx2", "default"))) PwordF18 lane_op(DpuOp op, const PwordF18& a,
                                                                              const PwordF18& b) noexcept {
  switch (op) {
    case DpuOp::ADD: return lanewise(a, b, [](Float18 x, Float18 y) { return num::add(x, y); });
    case DpuOp::SUB: return lanewise(a, b, [](Float18 x, Float18 y) { return num::sub(x, y); });
    case DpuOp::MUL: return lanewise(a, b, [](Float18 x, Float18 y) { return num::mul(x, y); });
    case DpuOp::MIN: return lanewise(a, b, [](Float18 x, Float18 y) { return num::min(x, y); });
    case DpuOp::MAX: return lanewise(a, b, [](Float18 x, Float18 y) { return num::max(x, y); });
    default: return lanewise(a, b, [](Float18 x, Float18 y) { return num::prelu(x, y); });  // PRELU
  }
}
}  // namespace

void Dpu::execute(const spec::DpuInstr& in, const DpuIo& io) {
  auto reg = [&](uint32_t operand) -> const PwordF18& { return regs_[resolve(operand)]; };
  PwordF18 r;
  switch (in.op) {
    case DpuOp::NOP: ++pc_; return;
    case DpuOp::POP: {
      const std::size_t d = resolve(in.dst);
      const spec::DpuPop pop = spec::DpuPop::decode_word(in.imm);
      const Element e = io.pop(pop.stream);
      const spec::Dtype want = pop.own_dtype ? pop.dtype : pop.stream == 0 ? p_.desc.in0_dtype : p_.desc.in1_dtype;
      if (e.value.dtype != want) {
        fail(ErrorCode::STREAM_DTYPE, where(p_, pc_) + "popped " + std::string(spec::to_string(e.value.dtype)) +
                                          ", the program declares " + std::string(spec::to_string(want)));
      }
      regs_[d] = num::to_f18(e.value);
      ++pops;
      ++pc_;
      return;
    }
    case DpuOp::PUSH:
      io.push(Element{num::from_f18(reg(in.a), p_.desc.out_dtype), false});
      ++pushes;
      ++pc_;
      return;
    case DpuOp::MOV: r = reg(in.a); break;
    case DpuOp::ADD:
    case DpuOp::SUB:
    case DpuOp::MUL:
    case DpuOp::MIN:
    case DpuOp::MAX:
    case DpuOp::PRELU: r = lane_op(in.op, reg(in.a), reg(in.b)); break;
    case DpuOp::FMA: {
      const PwordF18 p = lane_op(DpuOp::MUL, reg(in.a), reg(in.b));
      r = lane_op(DpuOp::ADD, p, reg(in.c));
      break;
    }
    case DpuOp::LUT: {
      const std::size_t base = resolve(in.b);
      const std::size_t n = lut_chain(in);
      if (base + n > kDpuRegisters) {
        fail(ErrorCode::DPU_ILLEGAL, where(p_, pc_) + "tables " + std::to_string(base) + ".." +
                                         std::to_string(base + n - 1) + " leave the register file");
      }
      r = num::lut_eval(reg(in.a), std::span<const PwordF18>(regs_.data() + base, n));
      break;
    }
    case DpuOp::ADD_REDUCE: r = num::add_reduce(reg(in.a)); break;
    case DpuOp::MAX_REDUCE: r = num::max_reduce(reg(in.a)); break;
    case DpuOp::MIN_REDUCE: r = num::min_reduce(reg(in.a)); break;
    case DpuOp::LOOP:
      loops_.push_back(Loop{pc_ + 1, in.imm, 0});
      ++pc_;
      return;
    case DpuOp::ENDLOOP: {
      Loop& l = loops_.back();
      if (++l.counter < l.count) {
        pc_ = l.start;
      } else {
        loops_.pop_back();
        ++pc_;
      }
      return;
    }
  }
  regs_[resolve(in.dst)] = r;
  ++pc_;
}

bool Dpu::step(const DpuIo& io) {
  if (phase_ == Phase::Done) return false;
  execute(p_.code[pc_], io);
  ++instructions;
  settle();
  return phase_ != Phase::Done;
}

void Dpu::run(const DpuIo& io) {
  while (step(io)) {}
}

void run_dpu(const DpuProgram& p, const DpuConfig& cfg, const DpuIo& io) {
  Dpu d(p, cfg);
  d.run(io);
}

}  // namespace axcore::ref
