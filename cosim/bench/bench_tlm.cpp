// TLM speed and timing: an MVM M=256, K=1152, N=256 (LoadIMC of 72 tiles + one MVMEXE datapath
// with a DPU epilogue) and a 1 MiB L2 -> L2 MemDMA copy. Prints simulated cycles, wall-clock,
// cycles/s and MVM cycles against the ideal MACs / 4096.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "axcore/cosim/stimulus.hpp"
#include "axcore/tlm/tlm_device.hpp"

using namespace axcore;

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int mvm(tlm::TlmDevice& d) {
  constexpr uint32_t M = 256, K = 1152, N = 256, KB = K / 64, NT = N / 64;
  constexpr uint32_t kX = 0, kW = M * KB, kScale = kW + K * NT, kOut = kScale + 4;
  auto l1 = d.l1(0);
  for (uint32_t i = 0; i < (kScale)*64; ++i) l1[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  const float scale = 1.0f / 4096;
  for (uint32_t i = 0; i < 64; ++i) std::memcpy(&l1[kScale * 64 + 4 * i], &scale, 4);
  spec::LoadimcDesc l;
  l.magic = spec::magic::loadimc;
  l.matrix_id = 1;
  l.d0_size = KB, l.d0_astride = 64 * NT, l.d0_tstride = 1;
  l.d1_size = NT, l.d1_astride = 1, l.d1_tstride = KB;
  l.base_row = kW, l.row_stride = NT;
  stim::Datapath dp;
  dp.header.kind = spec::DpKind::MVMEXE;
  dp.header.has_ifd0 = dp.header.has_ifd1 = dp.header.has_main = dp.header.has_dpu = dp.header.has_odr = 1;
  auto& w = dp.ifd0;
  w.base_row = kX, w.dtype = w.cast_from = spec::Dtype::INT8, w.ndims = 3;
  w.d0_size = KB, w.d0_stride = 1, w.d1_size = NT, w.d1_stride = 0, w.d2_size = M, w.d2_stride = KB;
  dp.mvm = spec::MvmDesc{};
  dp.mvm->k_blocks = KB, dp.mvm->k_stride = 1, dp.mvm->matrix_id = 1, dp.mvm->ndims = 2;
  dp.mvm->o0_size = NT, dp.mvm->o0_tstride = KB, dp.mvm->o1_size = M;
  dp.ifd1 = stim::linear_walk(kScale, 1, spec::Dtype::FLOAT32, spec::Dtype::FLOAT32);
  dp.dpu = spec::DpuDesc{};
  dp.dpu.in0_dtype = spec::Dtype::INT32, dp.dpu.in1_dtype = spec::Dtype::FLOAT32, dp.dpu.out_dtype = spec::Dtype::INT8;
  dp.dpu.iterations = M * NT, dp.dpu.init_len = 1, dp.dpu.body_len = 3;
  auto r = [](uint32_t x) { return ref::dpu_reg(x); };
  dp.program = {ref::dpu_instr(spec::DpuOp::POP, r(2), 0, 0, 0, 1), ref::dpu_instr(spec::DpuOp::POP, r(0)),
                ref::dpu_instr(spec::DpuOp::MUL, r(1), r(0), r(2)), ref::dpu_instr(spec::DpuOp::PUSH, 0, r(1))};
  dp.odr = stim::linear_walk(kOut, M * NT, spec::Dtype::INT8, spec::Dtype::INT8);
  stim::write_cmd(d, 0, 0, dp.words());
  stim::write_cmd(d, 0, 2000, l.encode());
  const uint64_t c0 = d.cycle();
  const auto t0 = std::chrono::steady_clock::now();
  stim::push_queue(d, 0, spec::Queue::LOADIMC, stim::push_word(2000, 1));
  const uint64_t c1 = d.cycle();
  stim::push_queue(d, 0, spec::Queue::MVMEXE, stim::push_word(0, 2));
  const auto tl = stim::wait_queue_token(d, 0, spec::Queue::LOADIMC);
  const auto tm = stim::wait_queue_token(d, 0, spec::Queue::MVMEXE);
  const double wall = seconds_since(t0);
  const uint64_t cycles = d.cycle() - c0;
  const double ideal = double(M) * K * N / 4096;
  const auto busy = d.counters(0, static_cast<unsigned>(spec::PerfUnit::MVM));
  std::printf("mvm M=%u K=%u N=%u: loadimc %s, mvm %s\n", M, K, N, tl.error ? "ERROR" : "ok",
              tm.error ? "ERROR" : "ok");
  std::printf("  total cycles %llu (LoadIMC + MVMEXE + host polling), wall %.3f s, %.3g cycles/s\n",
              static_cast<unsigned long long>(cycles), wall, cycles / wall);
  std::printf("  MVM unit busy %u stall_in %u stall_out %u cycles; ideal MACs/4096 = %.0f; MVM busy/ideal = %.4f\n",
              busy.busy, busy.stall_in, busy.stall_out, ideal, busy.busy / ideal);
  (void)c1;
  return tl.error || tm.error;
}

int dma(tlm::TlmDevice& d) {
  constexpr uint32_t kWords = 256 * 1024;  // 1 MiB
  const uint32_t row = spec::param::mem_row;
  stim::write_bd(d, row, 0, stim::linear_bd(spec::MemSel::L2, 0, 0xFFFF));
  spec::DmaBd src = stim::linear_bd(spec::MemSel::L2, 0, kWords);
  src.d0_size = 1024, src.d1_size = 256, src.d1_stride = 1024;
  spec::DmaBd dst = src;
  dst.addr_lo = 0x200000;
  stim::write_bd(d, row, 0, src);
  stim::write_bd(d, row, 1, dst);
  const uint64_t c0 = d.cycle();
  const auto t0 = std::chrono::steady_clock::now();
  stim::push_dma(d, row, false, 0, stim::push_word(1, 1));
  stim::push_dma(d, row, true, 0, stim::push_word(0, 2));
  const auto t = stim::wait_dma_token(d, row, false, 0);
  const double wall = seconds_since(t0);
  const uint64_t cycles = d.cycle() - c0;
  std::printf("dma 1 MiB L2 -> L2 (MemDMA, %u words): %s, %llu cycles (ideal %u), wall %.3f s, %.3g cycles/s\n", kWords,
              t.error ? "ERROR" : "ok", static_cast<unsigned long long>(cycles), kWords, wall, cycles / wall);
  return t.error;
}
}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "mvm";
  tlm::TlmDevice d;  // one device per process: pick the benchmark on the command line
  if (what == "mvm") return mvm(d);
  if (what == "dma") return dma(d);
  std::fprintf(stderr, "usage: bench_tlm [mvm|dma]\n");
  return 2;
}
