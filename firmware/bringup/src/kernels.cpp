// Per-unit smoke kernels: a datapath (spec::DatapathDesc, from cosim/stimulus) on core 0, its
// inputs brought into L1 and its output taken back through SysDMA, the output compared byte for
// byte with the common/ref units composed over the same L1 image (stim::reference_datapath). A
// device that refuses a unit's descriptor with DESC_UNITS lacks the unit: the step is SKIP with
// that reason, never PASS.
#include <axcore/num/pword.hpp>
#include <axcore/ref/dpu.hpp>
#include <axcore/ref/imc.hpp>
#include <optional>

#include <sstream>
#include "axcore/cosim/stimulus.hpp"

#include "ops.hpp"

namespace axcore::bringup::detail {
namespace {

using S::Dtype;
constexpr uint32_t kImageRows = 1024;  // the kernels use L1 rows below 1024 (64 KiB: fits every build)
constexpr uint32_t kInRow = 128;       // first input row of every kernel
constexpr uint32_t kLoadimcWord = 0x10, kDatapathWord = 0x100;  // CMD_MEM word addresses

using stim::Datapath;
using stim::dwpu_max_pool_2x2;
using stim::linear_walk;

// The host's copy of L1 rows [0, kImageRows): inputs pseudo-random, the output rows poisoned.
struct Image {
  std::vector<uint8_t> l1 = std::vector<uint8_t>(size_t{kImageRows} * 64, 0);
  Image(uint32_t seed, uint32_t in_rows, uint32_t out_row, uint32_t out_rows) {
    uint32_t x = seed * 2654435761u + 3;
    for (uint32_t i = 0; i < in_rows * 64; ++i)
      l1[kInRow * 64 + i] = static_cast<uint8_t>((x ^= x << 13, x ^= x >> 17, x ^= x << 5));
    for (uint32_t i = 0; i < out_rows * 64; ++i) l1[size_t{out_row} * 64 + i] = 0xA5;
  }
};

uint64_t fnv1a(std::span<const uint8_t> b) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (uint8_t c : b) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// The kernel's core-queue token; SKIP on DESC_UNITS, FAIL on any other error or a timeout.
S::Token wait_queue(Device& d, S::Queue q, const std::string& unit, const std::string& what) {
  const uint32_t row = S::core_row(0);
  uint32_t w = 0;
  try {
    w = d.wait_token(0, row, 0, S::param::core_queue_channel_base + static_cast<uint32_t>(q), 5'000'000);
  } catch (const device::TimeoutError& e) {
    throw StepFail(what + ": no completion token from queue " + std::string(S::to_string(q)) + " (" + e.what() + ")",
                   "core 0's command processor and the " + unit + " (CORE_STATUS, WDOG_STATUS, Q_STATUS)");
  }
  const auto tok = S::Token::decode_word(w);
  if (!tok.error) return tok;
  const uint32_t status = d.read32(reg(row, S::core::ERROR_STATUS.offset));
  const uint32_t info = d.read32(reg(row, S::core::ERROR_INFO.offset));
  d.write32(reg(row, S::core::ERROR_STATUS.offset), status);  // W1C: leave the core clean
  if (tok.code == S::ErrorCode::DESC_UNITS)
    throw StepSkip("this device has no " + unit + ": it refuses the " + what + " descriptor with DESC_UNITS");
  throw StepFail(what + ": task ended with " + std::string(S::to_string(tok.code)) + " (token " + hex(w) +
                     ", core 0 ERROR_INFO " + hex(info) + ")",
                 "the descriptor fields against spec/axcore.yaml and core 0's " + unit);
}

struct Run {
  const char* name;  // step name
  unsigned index;    // kernel_out slot
  const char* unit;  // what the device must have
  S::Queue queue;
  uint32_t in_rows, out_row, out_rows;
  Dtype out_dtype;
  const char* check;  // what to look at when the output differs
};

// Loads the image, runs the optional LoadIMC and the datapath, reads the output back and compares.
std::string run_kernel(Device& d, const Options& opt, const Run& k, const Datapath& dp,
                       const std::optional<S::LoadimcDesc>& load) {
  if (d.backend() == "regfile")
    throw StepSkip("the register-level device completes core tasks without running them (no datapath units)");
  Image img(opt.seed + 200 + k.index, k.in_rows, k.out_row, k.out_rows);
  const uint32_t row = S::param::shim_row, core_row = S::core_row(0);
  const Ddr r = ddr_regions(d);
  // Into L1: the input rows, then the poisoned output rows (a stale result cannot pass).
  for (const auto& [first, rows] : {std::pair{kInRow, k.in_rows}, std::pair{k.out_row, k.out_rows}}) {
    const uint32_t words = rows * 16;
    ddr_put_bytes(d, r.a, std::vector<uint8_t>(img.l1.begin() + first * 64, img.l1.begin() + (first + rows) * 64));
    transfer(d, row, 0, linear(d, {S::MemSel::DDR, r.a}, words), linear(d, {S::MemSel::L1, first * 64u, 0}, words),
             std::string(k.name) + ": L1 rows " + std::to_string(first) + ".. DDR -> L1");
  }
  ref::Imc imc;
  if (load) {
    d.block_write(reg(core_row, S::core::CMD_MEM.offset + 4 * kLoadimcWord), load->encode());
    d.write32(reg(core_row, S::core::Q_PUSH.at(static_cast<uint32_t>(S::Queue::LOADIMC))), push_word(kLoadimcWord, 5));
    wait_queue(d, S::Queue::LOADIMC, "LoadIMC", "LoadIMC");
    ref::run_loadimc(*load, img.l1, imc);
  }
  const auto w = dp.words();
  d.block_write(reg(core_row, S::core::CMD_MEM.offset + 4 * kDatapathWord), w);
  const uint64_t c0 = d.cycle();
  d.write32(reg(core_row, S::core::Q_PUSH.at(static_cast<uint32_t>(k.queue))), push_word(kDatapathWord, 6));
  wait_queue(d, k.queue, k.unit, std::string(k.unit) + " datapath");
  const uint64_t cycles = d.cycle() - c0;
  const uint32_t err = d.read32(reg(core_row, S::core::ERROR_STATUS.offset));
  if (err) throw StepFail(std::string(k.name) + ": core 0 ERROR_STATUS " + hex(err) + " after a clean token", k.check);

  const uint32_t out_words = k.out_rows * 16;
  const uint64_t out = kernel_out(d, k.index);
  transfer(d, row, 1, linear(d, {S::MemSel::L1, uint64_t{k.out_row} * 64, 0}, out_words),
           linear(d, {S::MemSel::DDR, out}, out_words), std::string(k.name) + ": output L1 -> DDR");
  const auto got = ddr_get_bytes(d, out, size_t{out_words} * 4);
  stim::reference_datapath(dp, img.l1, load ? &imc : nullptr);
  const std::span<const uint8_t> want(img.l1.data() + size_t{k.out_row} * 64, got.size());
  const size_t eb = num::element_bytes(k.out_dtype), lane_bytes = eb / 64;
  size_t bad = 0, first_bad = got.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ == 0) first_bad = i;
  if (bad) {
    std::ostringstream o;
    o << k.name << ": the output differs from common/ref in " << bad << " of " << got.size() << " bytes; first at "
      << S::to_string(k.out_dtype) << " element " << first_bad / eb << ", lane " << (first_bad % eb) / lane_bytes
      << ", byte " << first_bad % lane_bytes << ": read " << hex(got[first_bad], 2) << ", expected "
      << hex(want[first_bad], 2);
    throw StepFail(o.str(), k.check);
  }
  std::ostringstream o;
  o << got.size() / eb << " " << S::to_string(k.out_dtype) << "x64 elements equal to common/ref (output fnv "
    << hex(fnv1a(got), 16) << "), datapath " << cycles << " cycles push to token";
  return o.str();
}

spec::DpuInstr op(S::DpuOp o, uint32_t dst = 0, uint32_t a = 0, uint32_t b = 0, uint32_t imm = 0) {
  return ref::dpu_instr(o, ref::dpu_reg(dst), ref::dpu_reg(a), ref::dpu_reg(b), 0, imm);
}

}  // namespace

// IFD0 -> ODR, no main unit: 16 int8x64 elements stored as int32x64 (the ODR's cast).
std::string kernel_copy(Device& d, const Options& opt) {
  Datapath dp;
  dp.header.kind = S::DpKind::MVMEXE;
  dp.header.has_ifd0 = dp.header.has_odr = 1;
  dp.ifd0 = linear_walk(kInRow, 16, Dtype::INT8, Dtype::INT8);
  dp.odr = linear_walk(256, 16, Dtype::INT32, Dtype::INT8);
  return "IFD0 -> ODR with an int8 -> int32 cast: " +
         run_kernel(d, opt,
                    {"copy", 0, "IFD0 -> ODR path", S::Queue::MVMEXE, 16, 256, 64, Dtype::INT32,
                     "core 0's IFD0 and ODR (walk counters, the ODR cast), tests/rtl_core walk test"},
                    dp, std::nullopt);
}

// LoadIMC + MVMEXE: C[M=4][N=128] int32 = A[M][K=128] int8 . B[K][N] int8 (4 IMC tiles).
std::string kernel_mvm(Device& d, const Options& opt) {
  constexpr uint32_t m = 4, kb = 2, nb = 2, w_row = 192, y_row = 512;
  S::LoadimcDesc l{};
  l.magic = S::magic::loadimc;
  l.matrix_id = 1;
  l.d0_size = kb;
  l.d1_size = nb;
  l.base_row = w_row;
  l.row_stride = 1;
  l.d0_astride = 64;
  l.d1_astride = 64 * kb;
  l.tile_base = 0;
  l.d0_tstride = 1;
  l.d1_tstride = kb;
  Datapath dp;
  dp.header.kind = S::DpKind::MVMEXE;
  dp.header.has_ifd0 = dp.header.has_main = dp.header.has_odr = 1;
  auto& x = dp.ifd0;
  x.dtype = x.cast_from = Dtype::INT8;
  x.base_row = kInRow;
  x.ndims = 3;
  x.d0_size = kb, x.d0_stride = 1;
  x.d1_size = nb, x.d1_stride = 0;
  x.d2_size = m, x.d2_stride = kb;
  dp.mvm = S::MvmDesc{};
  dp.mvm->k_blocks = kb;
  dp.mvm->matrix_id = 1;
  dp.mvm->ndims = 2;
  dp.mvm->k_stride = 1;
  dp.mvm->o0_size = nb, dp.mvm->o0_tstride = kb;
  dp.mvm->o1_size = m, dp.mvm->o1_tstride = 0;
  auto& y = dp.odr;
  y.cast_from = y.dtype = Dtype::INT32;
  y.base_row = y_row;
  y.ndims = 2;
  y.d0_size = nb, y.d0_stride = 4;
  y.d1_size = m, y.d1_stride = 4 * nb;
  const uint32_t in_rows = w_row + kb * nb * 64 - kInRow;
  return "LoadIMC (4 tiles) + MVM, M=4 K=128 N=128, " + std::to_string(m * kb * nb) + " tile-ops: " +
         run_kernel(d, opt,
                    {"mvm", 1, "MVM", S::Queue::MVMEXE, in_rows, y_row, m * nb * 4, Dtype::INT32,
                     "core 0's LoadIMC, IMC and MVM (tile index, k-block accumulation), tests/rtl_core mvm test"},
                    dp, l);
}

// IFD0 -> DPU -> ODR: y = x * x + x per lane, int8 in, float16 out, 16 iterations.
std::string kernel_dpu(Device& d, const Options& opt) {
  Datapath dp;
  dp.header.kind = S::DpKind::MVMEXE;
  dp.header.has_ifd0 = dp.header.has_dpu = dp.header.has_odr = 1;
  dp.ifd0 = linear_walk(kInRow, 16, Dtype::INT8, Dtype::INT8);
  dp.dpu.in0_dtype = Dtype::INT8;
  dp.dpu.in1_dtype = Dtype::INT8;
  dp.dpu.out_dtype = Dtype::FLOAT16;
  dp.dpu.iterations = 16;
  dp.program = {op(S::DpuOp::POP, 0), op(S::DpuOp::MUL, 1, 0, 0), op(S::DpuOp::ADD, 2, 1, 0), op(S::DpuOp::PUSH, 0, 2)};
  dp.dpu.body_len = static_cast<uint32_t>(dp.program.size());
  dp.odr = linear_walk(640, 16, Dtype::FLOAT16, Dtype::FLOAT16);
  return "DPU x*x+x int8 -> float16: " + run_kernel(d, opt,
                                                    {"dpu", 2, "DPU", S::Queue::MVMEXE, 16, 640, 32, Dtype::FLOAT16,
                                                     "core 0's DPU (sequencer, float18 ALU, the float16 cast)"},
                                                    dp, std::nullopt);
}

// IFD0 -> DWPU -> ODR: 2x2 max pooling, stride 2, over a 6x6 image of int8x64 pixels.
std::string kernel_dwpu(Device& d, const Options& opt) {
  const Datapath dp = dwpu_max_pool_2x2(kInRow, 768);
  return "DWPU 2x2/2 max pool over 6x6: " + run_kernel(d, opt,
                                                       {"dwpu", 3, "DWPU", S::Queue::DWPU, 36, 768, 36, Dtype::INT32,
                                                        "core 0's DWPU (window taps, the MAX reduction)"},
                                                       dp, std::nullopt);
}

}  // namespace axcore::bringup::detail
