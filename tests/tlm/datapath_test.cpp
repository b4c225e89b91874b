// Core datapaths built by hand from spec structs, run on the TLM and checked against the
// common/ref unit references composed over vectors (stim::reference_datapath).
#include <gtest/gtest.h>

#include <cstring>

#include "axcore/cosim/stimulus.hpp"
#include "axcore/num/float16.hpp"
#include "axcore/ref/imc.hpp"
#include "axcore/tlm/tlm_device.hpp"

namespace axcore {
namespace {

using spec::DpuOp;
using spec::Dtype;
using spec::Queue;

void fill(std::span<uint8_t> l1, uint32_t row, uint32_t rows, uint32_t seed) {
  for (uint32_t i = 0; i < rows * 64; ++i) l1[row * 64 + i] = static_cast<uint8_t>((i * 37 + seed * 11) ^ (i >> 6));
}

spec::DpuInstr op(DpuOp o, uint32_t dst = 0, uint32_t a = 0, uint32_t b = 0, uint32_t imm = 0) {
  return ref::dpu_instr(o, ref::dpu_reg(dst), ref::dpu_reg(a), ref::dpu_reg(b), 0, imm);
}

// Runs dp on core 0 from CMD_MEM word 0 and compares the whole L1 with the reference.
void run_and_compare(tlm::TlmDevice& d, const stim::Datapath& dp, Queue q, ref::Imc* ref_imc) {
  std::vector<uint8_t> expect(d.l1(0).begin(), d.l1(0).end());
  stim::reference_datapath(dp, expect, ref_imc);
  const auto words = dp.words();
  stim::write_cmd(d, 0, 0, words);
  stim::push_queue(d, 0, q, stim::push_word(0, 17));
  const auto tok = stim::wait_queue_token(d, 0, q);
  EXPECT_EQ(tok.error, 0u) << spec::to_string(tok.code);
  EXPECT_EQ(tok.tag, 17u);
  EXPECT_TRUE(std::equal(expect.begin(), expect.end(), d.l1(0).begin())) << "L1 differs from the reference";
}

TEST(TlmDatapath, ElementwiseDpuMatchesReference) {
  tlm::TlmDevice d;
  fill(d.l1(0), 0, 16, 1);
  // y: float16 values in [-4, 4).
  for (uint32_t i = 0; i < 16 * 64; ++i) {
    const uint16_t h = num::f16_from_double((static_cast<int>(i % 97) - 48) / 12.0).bits;
    d.l1(0)[100 * 64 + 2 * i] = static_cast<uint8_t>(h);
    d.l1(0)[100 * 64 + 2 * i + 1] = static_cast<uint8_t>(h >> 8);
  }
  stim::Datapath dp;
  dp.header.kind = spec::DpKind::MVMEXE;
  dp.header.has_ifd0 = dp.header.has_ifd1 = dp.header.has_dpu = dp.header.has_odr = 1;
  dp.ifd0 = stim::linear_walk(0, 16, Dtype::INT8, Dtype::INT8);
  dp.ifd1 = stim::linear_walk(100, 16, Dtype::FLOAT16, Dtype::FLOAT16);
  dp.dpu = spec::DpuDesc{};
  dp.dpu.in0_dtype = Dtype::INT8;
  dp.dpu.in1_dtype = Dtype::FLOAT16;
  dp.dpu.out_dtype = Dtype::FLOAT16;
  dp.dpu.iterations = 16;
  dp.program = {op(DpuOp::POP, 0, 0, 0, 0), op(DpuOp::POP, 1, 0, 0, 1), op(DpuOp::ADD, 2, 0, 1),
                op(DpuOp::MUL, 3, 2, 2),    op(DpuOp::MAX, 4, 3, 1),    op(DpuOp::PUSH, 0, 4)};
  dp.dpu.body_len = static_cast<uint32_t>(dp.program.size());
  dp.odr = stim::linear_walk(200, 16, Dtype::FLOAT16, Dtype::FLOAT16);
  run_and_compare(d, dp, Queue::MVMEXE, nullptr);
  EXPECT_EQ(d.counters(0, static_cast<unsigned>(spec::PerfUnit::MVM_DPU)).tasks, 1u);
}

// The IFD interleave hazard (guide §8.3): two logical streams a, b on one feeder (IFD1, one walk
// over a then b) popped as pairs (a_i, b_i) by the DPU. The feeder delivers a0..a3 b0..b3, so
// the pairs are really (a0, a1) (a2, a3) (b0, b1) (b2, b3): the TLM shows that wrong result
// (equal to the reference composition, unequal to the intended a_i - b_i), not a hidden fix.
TEST(TlmDatapath, IfdInterleaveHazardPairsElementsInWireOrder) {
  tlm::TlmDevice d;
  auto l1 = d.l1(0);
  fill(l1, 0, 4, 3);
  for (uint32_t seg = 0; seg < 2; ++seg)
    for (uint32_t i = 0; i < 4 * 64; ++i) {
      const uint16_t h = num::f16_from_double(static_cast<double>(seg * 100 + i % 64 + 8 * (i / 64))).bits;
      l1[(100 + 100 * seg) * 64 + 2 * i] = static_cast<uint8_t>(h);
      l1[(100 + 100 * seg) * 64 + 2 * i + 1] = static_cast<uint8_t>(h >> 8);
    }
  stim::Datapath dp;
  dp.header.kind = spec::DpKind::MVMEXE;
  dp.header.has_ifd0 = dp.header.has_ifd1 = dp.header.has_dpu = dp.header.has_odr = 1;
  dp.ifd0 = stim::linear_walk(0, 4, Dtype::INT8, Dtype::INT8);
  dp.ifd1 = stim::linear_walk(100, 4, Dtype::FLOAT16, Dtype::FLOAT16);  // segment a: rows 100.., b: rows 200..
  dp.ifd1.ndims = 2;
  dp.ifd1.d1_size = 2;
  dp.ifd1.d1_stride = 100;
  dp.dpu = spec::DpuDesc{};
  dp.dpu.in0_dtype = Dtype::INT8;
  dp.dpu.in1_dtype = Dtype::FLOAT16;
  dp.dpu.out_dtype = Dtype::FLOAT16;
  dp.dpu.iterations = 4;
  dp.program = {op(DpuOp::POP, 0, 0, 0, 0), op(DpuOp::POP, 1, 0, 0, 1), op(DpuOp::POP, 2, 0, 0, 1),
                op(DpuOp::SUB, 3, 1, 2), op(DpuOp::PUSH, 0, 3)};
  dp.dpu.body_len = static_cast<uint32_t>(dp.program.size());
  dp.odr = stim::linear_walk(300, 4, Dtype::FLOAT16, Dtype::FLOAT16);
  run_and_compare(d, dp, Queue::MVMEXE, nullptr);
  // What the author meant: a_i - b_i = -100 in every lane; what the wire order gives: a0 - a1 = -8.
  uint16_t first = 0;
  std::memcpy(&first, &l1[300 * 64], 2);
  EXPECT_EQ(num::to_double(num::Float16::from_bits(first)), -8.0);
  EXPECT_NE(num::to_double(num::Float16::from_bits(first)), -100.0);
}

struct Mvm {
  stim::Datapath dp;
  spec::LoadimcDesc load;
};

// x[M=8][K=128] int8 at rows 0.., W[K][N=128] at rows 64.., out int8 at rows 500..; the DPU
// scales the int32 result by a float32 scale popped once from IFD1 in its init preamble.
Mvm small_mvm(uint32_t matrix_id) {
  Mvm m;
  auto& l = m.load;
  l.magic = spec::magic::loadimc;
  l.matrix_id = matrix_id;
  l.d0_size = 2;  // kb
  l.d1_size = 2;  // n
  l.base_row = 64;
  l.row_stride = 2;
  l.d0_astride = 128;
  l.d1_astride = 1;
  l.d0_tstride = 1;
  l.d1_tstride = 2;
  auto& dp = m.dp;
  dp.header.kind = spec::DpKind::MVMEXE;
  dp.header.has_ifd0 = dp.header.has_ifd1 = dp.header.has_main = dp.header.has_dpu = dp.header.has_odr = 1;
  auto& w = dp.ifd0;
  w.dtype = w.cast_from = Dtype::INT8;
  w.ndims = 3;
  w.d0_size = 2, w.d0_stride = 1;  // kb
  w.d1_size = 2, w.d1_stride = 0;  // n
  w.d2_size = 8, w.d2_stride = 2;  // m
  dp.mvm = spec::MvmDesc{};
  dp.mvm->k_blocks = 2;
  dp.mvm->k_stride = 1;
  dp.mvm->matrix_id = matrix_id;
  dp.mvm->ndims = 2;
  dp.mvm->o0_size = 2, dp.mvm->o0_tstride = 2;
  dp.mvm->o1_size = 8;
  dp.ifd1 = stim::linear_walk(400, 1, Dtype::FLOAT32, Dtype::FLOAT32);
  dp.dpu = spec::DpuDesc{};
  dp.dpu.in0_dtype = Dtype::INT32;
  dp.dpu.in1_dtype = Dtype::FLOAT32;
  dp.dpu.out_dtype = Dtype::INT8;
  dp.dpu.iterations = 16;
  dp.program = {op(DpuOp::POP, 2, 0, 0, 1), op(DpuOp::POP, 0), op(DpuOp::MUL, 1, 0, 2), op(DpuOp::PUSH, 0, 1)};
  dp.dpu.init_len = 1;
  dp.dpu.body_len = 3;
  auto& o = dp.odr;
  o.base_row = 500;
  o.dtype = o.cast_from = Dtype::INT8;
  o.ndims = 2;
  o.d0_size = 2, o.d0_stride = 1;
  o.d1_size = 8, o.d1_stride = 2;
  return m;
}

void setup_mvm_l1(tlm::TlmDevice& d) {
  fill(d.l1(0), 0, 16, 2);
  fill(d.l1(0), 64, 256, 3);
  const float scale = 1.0f / 256;
  for (uint32_t i = 0; i < 64; ++i) std::memcpy(&d.l1(0)[400 * 64 + 4 * i], &scale, 4);
}

TEST(TlmDatapath, LoadImcMvmWithDpuEpilogueMatchesReference) {
  tlm::TlmDevice d;
  setup_mvm_l1(d);
  const Mvm m = small_mvm(7);
  ref::Imc imc;
  ref::run_loadimc(m.load, d.l1(0), imc);
  stim::write_cmd(d, 0, 1000, m.load.encode());
  stim::push_queue(d, 0, Queue::LOADIMC, stim::push_word(1000, 2));
  EXPECT_EQ(stim::wait_queue_token(d, 0, Queue::LOADIMC).error, 0u);
  const auto st =
      spec::core::ImcStatus::decode_word(d.read32(stim::addr(spec::core_row(0), spec::core::IMC_STATUS.offset)));
  EXPECT_EQ(st.matrix_id, 7u);
  EXPECT_EQ(st.valid_tiles, 4u);
  EXPECT_EQ(st.stale, 0u);
  run_and_compare(d, m.dp, Queue::MVMEXE, &imc);
  EXPECT_EQ(d.read32(stim::addr(spec::core_row(0), spec::core::IMC_STALE_READS.offset)), 0u);
}

TEST(TlmDatapath, NewResidencyMakesOldTilesStale) {
  tlm::TlmDevice d;
  setup_mvm_l1(d);
  const Mvm m = small_mvm(7);
  spec::LoadimcDesc other = m.load;  // another matrix, one tile: ends residency 7
  other.matrix_id = 8;
  other.d0_size = other.d1_size = 1;
  ref::Imc imc;
  ref::run_loadimc(m.load, d.l1(0), imc);
  ref::run_loadimc(other, d.l1(0), imc);
  stim::write_cmd(d, 0, 1000, m.load.encode());
  stim::write_cmd(d, 0, 1008, other.encode());
  stim::push_queue(d, 0, Queue::LOADIMC, stim::push_word(1000, 1));
  stim::push_queue(d, 0, Queue::LOADIMC, stim::push_word(1008, 2));
  stim::wait_queue_token(d, 0, Queue::LOADIMC);
  stim::wait_queue_token(d, 0, Queue::LOADIMC);
  run_and_compare(d, m.dp, Queue::MVMEXE, &imc);  // the reference reads the same stale data
  const uint32_t row = spec::core_row(0);
  EXPECT_EQ(d.read32(stim::addr(row, spec::core::IMC_STALE_READS.offset)), 32u);
  EXPECT_EQ(d.read32(stim::addr(row, spec::core::IMC_STALE_READS.offset)), imc.stale_reads);
  const auto st = spec::core::ImcStatus::decode_word(d.read32(stim::addr(row, spec::core::IMC_STATUS.offset)));
  EXPECT_EQ(st.matrix_id, 8u);
  EXPECT_EQ(st.valid_tiles, 1u);
  EXPECT_EQ(st.stale, 1u);
}

TEST(TlmDatapath, DwpuMaxPoolMatchesReference) {
  tlm::TlmDevice d;
  fill(d.l1(0), 0, 36, 5);
  run_and_compare(d, stim::dwpu_max_pool_2x2(0, 300), Queue::DWPU, nullptr);
  EXPECT_EQ(d.counters(0, static_cast<unsigned>(spec::PerfUnit::DWPU)).tasks, 1u);
}

// The DWPU ODR's lane transpose (walk transpose, A.vtrsp): IFD0 -> ODR over two int8 blocks
// stored interleaved, and a float16 block cast to float32, equal to the reference.
stim::Datapath transpose_dp(uint32_t n, Dtype in, Dtype out) {
  stim::Datapath dp;
  dp.header.kind = spec::DpKind::DWPU;
  dp.header.has_ifd0 = dp.header.has_odr = 1;
  dp.ifd0 = stim::linear_walk(0, n, in, in);
  dp.odr = stim::linear_walk(600, n, out, in);
  dp.odr.transpose = 1;
  return dp;
}

TEST(TlmDatapath, DwpuLaneTransposeMatchesReference) {
  tlm::TlmDevice d;
  fill(d.l1(0), 0, 256, 9);
  stim::Datapath dp = transpose_dp(128, Dtype::INT8, Dtype::INT8);
  dp.odr.ndims = 2;  // element i of block b at row 600 + 2 i + b
  dp.odr.d0_size = 64, dp.odr.d0_stride = 2;
  dp.odr.d1_size = 2, dp.odr.d1_stride = 1;
  run_and_compare(d, dp, Queue::DWPU, nullptr);
  std::vector<uint8_t> l1(d.l1(0).begin(), d.l1(0).end());
  for (uint32_t b = 0; b < 2; ++b)  // against the definition, not only the reference
    for (uint32_t i = 0; i < 64; ++i)
      for (uint32_t j = 0; j < 64; ++j)
        ASSERT_EQ(l1[(600 + 2 * i + b) * 64 + j], l1[(64 * b + j) * 64 + i]) << b << " " << i << " " << j;
  run_and_compare(d, transpose_dp(64, Dtype::FLOAT16, Dtype::FLOAT32), Queue::DWPU, nullptr);
}

// Refused with DESC_RANGE: a transpose on an IFD walk, on the MVMEXE datapath's ODR, and a walk
// length that is not a multiple of 64.
TEST(TlmDatapath, LaneTransposeRefusals) {
  tlm::TlmDevice d;
  auto refused = [&](const stim::Datapath& dp, Queue q) {
    stim::write_cmd(d, 0, 0, dp.words());
    stim::push_queue(d, 0, q, stim::push_word(0, 3));
    return stim::wait_queue_token(d, 0, q).code;
  };
  stim::Datapath dp = transpose_dp(63, Dtype::INT8, Dtype::INT8);
  EXPECT_EQ(refused(dp, Queue::DWPU), spec::ErrorCode::DESC_RANGE);
  dp = transpose_dp(64, Dtype::INT8, Dtype::INT8);
  dp.ifd0.transpose = 1;
  EXPECT_EQ(refused(dp, Queue::DWPU), spec::ErrorCode::DESC_RANGE);
  dp = transpose_dp(64, Dtype::INT8, Dtype::INT8);
  EXPECT_EQ(refused(dp, Queue::DWPU), spec::ErrorCode::NONE);
  stim::Datapath mm = small_mvm(1).dp;
  mm.odr.d1_size = 32;  // 64 stores: only the datapath kind is wrong
  mm.odr.transpose = 1;
  EXPECT_EQ(refused(mm, Queue::MVMEXE), spec::ErrorCode::DESC_RANGE);
}

}  // namespace
}  // namespace axcore
