#include "hand_programs.hpp"

#include <random>

#include "axcore/num/pword.hpp"
#include "axcore/ref/dpu.hpp"
#include "axcore/rtl/mm_layout.hpp"
#include "axcore/runtime/buffer_image.hpp"
#include "axcore/tap/bd.hpp"
#include "axcore/txn/axcore_builder.hpp"
#include "sample_programs.hpp"

namespace axcore::runtime::testing_support {
namespace {

using txn::Dir;
using txn::Tile;

BufferDesc buffer(std::string name, BufferRole role, spec::Dtype d, std::vector<uint64_t> shape, uint32_t arg) {
  BufferDesc b;
  b.name = std::move(name);
  b.role = role;
  b.dtype = d;
  b.shape = std::move(shape);
  b.arg = arg;
  return b;
}

// A DMA BD walking `rows` runs of `row_words` words, contiguous (one MEM_WRITE record per run on
// an S2MM channel).
spec::DmaBd rows_bd(spec::MemSel mem, uint32_t rows, uint32_t row_words, uint32_t addr = 0) {
  spec::DmaBd bd = linear_bd(mem, rows * row_words, addr);
  bd.d0_size = row_words;
  bd.d1_size = rows;
  bd.d1_stride = static_cast<int32_t>(row_words);
  return bd;
}

// Moves `words` words from DDR argument `arg` into core 0's L1 at `l1` on SysDMA channel `ch`
// (BDs 2ch, 2ch + 1) and waits for both sides.
void ddr_to_l1(txn::AxcoreBuilder& t, uint32_t ch, uint32_t arg, uint32_t words, uint32_t l1) {
  const uint32_t rd = 2 * ch, wr = 2 * ch + 1;
  t.write_bd(Tile::shim(), rd, linear_bd(spec::MemSel::DDR, words)).patch_bd_address(Tile::shim(), rd, arg, 0);
  t.write_bd(Tile::shim(), wr, linear_bd(spec::MemSel::L1, words, l1));
  t.push_dma(Tile::shim(), Dir::S2MM, ch, token_push(wr, ch)).push_dma(Tile::shim(), Dir::MM2S, ch, token_push(rd, ch));
}
void wait_channel(txn::AxcoreBuilder& t, Tile tile, uint32_t ch) {
  t.wait_dma(tile, Dir::S2MM, ch).wait_dma(tile, Dir::MM2S, ch);
}

// Core 0's CoreDMA channel 0 copies `rows` x `row_words` words from L1 at `l1` to DDR argument
// `arg` (one MEM_WRITE record per row) and the stream waits for it.
void l1_to_ddr(txn::AxcoreBuilder& t, uint32_t arg, uint32_t rows, uint32_t row_words, uint32_t l1) {
  const Tile core = Tile::core(0);
  t.write_bd(core, 0, linear_bd(spec::MemSel::L1, rows * row_words, l1));
  t.write_bd(core, 1, rows_bd(spec::MemSel::DDR, rows, row_words)).patch_bd_address(core, 1, arg, 0);
  t.push_dma(core, Dir::S2MM, 0, token_push(1, 7)).push_dma(core, Dir::MM2S, 0, token_push(0, 7));
  wait_channel(t, core, 0);
}

// An MVMEXE datapath invocation (spec::DatapathDesc: IFD0, the optional MVM and DPU, ODR).
spec::DatapathDesc datapath(spec::DpHeader h, const spec::Walk& ifd0, const spec::MvmDesc* mvm,
                            const spec::DpuDesc* dpu, const std::vector<spec::DpuInstr>& program,
                            const spec::Walk& odr) {
  spec::DatapathDesc d;
  d.header = h;
  d.header.kind = spec::DpKind::MVMEXE;
  d.header.has_ifd0 = d.header.has_odr = 1;
  d.header.has_main = mvm != nullptr;
  d.header.has_dpu = dpu != nullptr;
  d.ifd0 = ifd0;
  if (mvm) d.mvm = *mvm;
  if (dpu) d.dpu = *dpu;
  d.odr = odr;
  d.program = program;
  return d;
}

spec::Walk walk(uint32_t base_row, spec::Dtype d) {
  spec::Walk w;
  w.base_row = base_row;
  w.dtype = w.cast_from = d;
  return w;
}

}  // namespace

tap::TensorAccessPattern dma_pad_walk() {
  return tap::TensorAccessPattern::full({int64_t{kPadRows}, int64_t{kPadCols}})
      .T()
      .pad(std::vector<tap::PadPair>{{1, 0}, {1, 1}});
}

HandProgram dma_pad_program() {
  constexpr uint32_t kRows = kPadRows, kCols = kPadCols, kL1 = 0x1000;
  // taplib lowers the walk to CoreDMA BDs (3 dims, padding on the emitting side).
  const auto pattern = dma_pad_walk();
  tap::LowerOptions lo;
  lo.direction = tap::Direction::kMm2s;
  lo.base_address = kL1;
  lo.mem = spec::MemSel::L1;
  lo.pad_value = kPadWord;
  lo.first_bd = 2;
  lo.use_repeat = false;
  const tap::BdTask task = tap::lower_to_bds(pattern, 32, tap::Engine::kCoreDma, lo);
  constexpr uint32_t kOutRows = kCols + 1, kOutCols = kRows + 2;

  txn::AxcoreBuilder t(1);
  ddr_to_l1(t, 0, 0, kRows * kCols, kL1);
  wait_channel(t, Tile::shim(), 0);
  const Tile core = Tile::core(0);
  for (size_t i = 0; i < task.bds.size(); ++i) t.write_bd(core, task.start_bd + static_cast<uint32_t>(i), task.bds[i]);
  t.write_bd(core, 1, rows_bd(spec::MemSel::DDR, kOutRows, kOutCols)).patch_bd_address(core, 1, 1, 0);
  spec::QueuePush walk_push = token_push(task.start_bd, 5);
  walk_push.repeat = task.repeat;
  t.push_dma(core, Dir::S2MM, 0, token_push(1, 5)).push_dma(core, Dir::MM2S, 0, walk_push);
  wait_channel(t, core, 0);

  HandProgram p;
  p.name = "dma_pad";
  Bundle& b = p.bundle;
  b.txn = t.words();
  b.buffers.push_back(buffer("x", BufferRole::INPUT, spec::Dtype::INT32, {kRows, kCols}, 0));
  b.buffers.push_back(buffer("y", BufferRole::OUTPUT, spec::Dtype::INT32, {kOutRows, kOutCols}, 1));
  b.graph.push_back({"transpose", {"x"}, {"xt"}, {}});
  GraphNode pad{"pad", {"xt"}, {"y"}, {}};
  pad.attrs["pads"] = std::vector<int64_t>{1, 0, 1, 1};
  pad.attrs["value_bits"] = int64_t{kPadWord};
  b.graph.push_back(pad);
  b.metadata["name"] = "hand.dma_pad";
  b.metadata["walk"] = pattern.str();

  ref::NDArray<int32_t> x({kRows, kCols});
  std::mt19937 rng(11);
  for (auto& v : x.data()) v = static_cast<int32_t>(rng());
  p.inputs.emplace("x", x);
  return p;
}

HandProgram elementwise_program() {
  constexpr uint32_t kN = 8;  // PWORDs
  txn::AxcoreBuilder t(1);
  ddr_to_l1(t, 0, 0, kN * 64, 0);  // float32x64 = 64 words
  wait_channel(t, Tile::shim(), 0);

  spec::Walk ifd0 = walk(0, spec::Dtype::FLOAT32);
  ifd0.ndims = 1;
  ifd0.d0_size = kN;
  ifd0.d0_stride = static_cast<int32_t>(num::element_rows(spec::Dtype::FLOAT32));
  spec::Walk odr = walk(kElemOutL1 / 64, spec::Dtype::FLOAT16);
  odr.ndims = 1;
  odr.d0_size = kN;
  odr.d0_stride = static_cast<int32_t>(num::element_rows(spec::Dtype::FLOAT16));
  spec::DpuDesc dpu;
  dpu.init_len = 0;
  dpu.body_len = 3;
  dpu.in0_dtype = spec::Dtype::FLOAT32;
  dpu.in1_dtype = spec::Dtype::FLOAT32;
  dpu.out_dtype = spec::Dtype::FLOAT16;
  dpu.iterations = kN;
  using Op = spec::DpuOp;
  const std::vector<spec::DpuInstr> relu = {
      ref::dpu_instr(Op::POP, ref::dpu_reg(1), 0, 0, 0, 0),                        // r1 = f18(pop(main))
      ref::dpu_instr(Op::MAX, ref::dpu_reg(1), ref::dpu_reg(1), ref::dpu_reg(0)),  // r0 stays +0
      ref::dpu_instr(Op::PUSH, 0, ref::dpu_reg(1)),                                // push(float16(r1))
  };
  spec::DpHeader h;
  h.id = 21;
  constexpr uint32_t kDesc = 0x100;
  t.write_descriptor(0, kDesc, datapath(h, ifd0, nullptr, &dpu, relu, odr).words());
  t.push_task(0, spec::Queue::MVMEXE, token_push(kDesc, 21)).wait_task(0, spec::Queue::MVMEXE);
  l1_to_ddr(t, 1, kN, 32, kElemOutL1);  // float16x64 = 32 words

  HandProgram p;
  p.name = "elementwise";
  Bundle& b = p.bundle;
  b.txn = t.words();
  b.buffers.push_back(buffer("x", BufferRole::INPUT, spec::Dtype::FLOAT32, {kN, 64}, 0));
  b.buffers.push_back(buffer("y", BufferRole::OUTPUT, spec::Dtype::FLOAT16, {kN, 64}, 1));
  b.graph.push_back({"relu", {"x"}, {"y"}, {}});
  b.metadata["name"] = "hand.elementwise_relu";

  ref::NDArray<float> x({kN, 64});
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  for (auto& v : x.data()) v = u(rng) + 1e-3f;  // no exact zeros (relu(-0) needs no opinion here)
  p.inputs.emplace("x", x);
  return p;
}

namespace {

// LoadIMC + MVMEXE. Epilogue: the ODR's int32 -> int8 cast, or (dpu) the DPU computing
// int8(float18(acc) * scale + bias) per column with scale and bias popped from IFD1 in its init.
HandProgram matmul(bool dpu_epilogue) {
  constexpr uint32_t M = kMatmulM, KB = kMatmulK / 64, NB = kMatmulN / 64;
  constexpr uint32_t kXRow = 0, kWRow = 16, kYRow = kMatmulOutL1 / 64, kEpiRow = 200;
  txn::AxcoreBuilder t(1);
  ddr_to_l1(t, 0, 0, M * kMatmulK / 4, kXRow * 64);         // x on SysDMA ch0
  ddr_to_l1(t, 1, 1, kMatmulK * kMatmulN / 4, kWRow * 64);  // w on ch1, at the same time
  wait_channel(t, Tile::shim(), 0);
  wait_channel(t, Tile::shim(), 1);
  if (dpu_epilogue) {
    ddr_to_l1(t, 0, 3, 64, kEpiRow * 64);        // scale, float32x64
    ddr_to_l1(t, 1, 4, 64, (kEpiRow + 4) * 64);  // bias, right after it
    wait_channel(t, Tile::shim(), 0);
    wait_channel(t, Tile::shim(), 1);
  }

  // The shared matmul layout (mm_layout.hpp) at this program's rows, ODR to int8 (popping the
  // DPU's int8 with the epilogue). Its weight tile (nb, kb) is the 64 L1 rows from
  // kWRow + (nb*KB + kb)*64: with one N-block those are w (K, N)'s own rows, as w lies dense.
  static_assert(NB == 1, "w (K, N) lies dense in L1: the layout's weight tiles are its rows for N = 64 only");
  rtlcore::Matmul mm{M, KB, NB};
  mm.out = spec::Dtype::INT8;
  mm.x_row = kXRow;
  mm.w_row = kWRow;
  mm.y_row = kYRow;
  mm.odr_from = dpu_epilogue ? spec::Dtype::INT8 : spec::Dtype::INT32;
  const spec::LoadimcDesc li = mm.load();
  const spec::Walk ifd0 = mm.ifd(), odr = mm.odr();
  const spec::MvmDesc mvm = mm.mvm();
  constexpr uint32_t kLoadWord = 0x10, kDpWord = 0x100;
  spec::DpHeader h;
  h.id = 31;
  spec::DpuDesc dpu;
  std::vector<spec::DpuInstr> prog;
  if (dpu_epilogue) {
    h.has_ifd1 = 1;
    spec::Walk ifd1 = walk(kEpiRow, spec::Dtype::FLOAT32);
    ifd1.ndims = 1;
    ifd1.d0_size = 2;
    ifd1.d0_stride = 4;
    dpu.init_len = 2;
    dpu.body_len = 4;
    dpu.in0_dtype = spec::Dtype::INT32;
    dpu.in1_dtype = spec::Dtype::FLOAT32;
    dpu.out_dtype = spec::Dtype::INT8;
    dpu.iterations = M * NB;
    using Op = spec::DpuOp;
    using ref::dpu_instr, ref::dpu_reg;
    prog = {dpu_instr(Op::POP, dpu_reg(2), 0, 0, 0, 1),  // init: r2 = scale, r3 = bias (IFD1)
            dpu_instr(Op::POP, dpu_reg(3), 0, 0, 0, 1),
            dpu_instr(Op::POP, dpu_reg(1), 0, 0, 0, 0),  // body: r1 = f18(acc)
            dpu_instr(Op::MUL, dpu_reg(1), dpu_reg(1), dpu_reg(2)),
            dpu_instr(Op::ADD, dpu_reg(1), dpu_reg(1), dpu_reg(3)),
            dpu_instr(Op::PUSH, 0, dpu_reg(1))};
    spec::DatapathDesc d = datapath(h, ifd0, &mvm, &dpu, prog, odr);
    d.ifd1 = ifd1;
    t.write_descriptor(0, kDpWord, d.words());
  } else {
    t.write_descriptor(0, kDpWord, datapath(h, ifd0, &mvm, nullptr, {}, odr).words());
  }
  t.push_task(0, spec::Queue::LOADIMC, token_push(kLoadWord, 30)).wait_task(0, spec::Queue::LOADIMC);
  t.push_task(0, spec::Queue::MVMEXE, token_push(kDpWord, 31)).wait_task(0, spec::Queue::MVMEXE);
  l1_to_ddr(t, 2, M, kMatmulN / 4, kYRow * 64);

  HandProgram p;
  p.name = dpu_epilogue ? "matmul_dpu" : "matmul";
  Bundle& b = p.bundle;
  b.txn = t.words();
  const auto liw = li.encode();
  b.commands.push_back({"matmul.loadimc", 0, kLoadWord, {liw.begin(), liw.end()}});
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> small(-4, 4);
  ref::NDArray<int8_t> x({M, kMatmulK}), w({kMatmulK, kMatmulN});
  for (auto& v : x.data()) v = static_cast<int8_t>(small(rng));
  for (auto& v : w.data()) v = static_cast<int8_t>(small(rng));
  b.constants.push_back({"w", array_bytes(w)});
  b.buffers.push_back(buffer("x", BufferRole::INPUT, spec::Dtype::INT8, {M, kMatmulK}, 0));
  BufferDesc wb = buffer("w", BufferRole::CONSTANT, spec::Dtype::INT8, {kMatmulK, kMatmulN}, 1);
  wb.constant = 0;
  b.buffers.push_back(wb);
  b.buffers.push_back(buffer("y", BufferRole::OUTPUT, spec::Dtype::INT8, {M, kMatmulN}, 2));
  if (dpu_epilogue) {
    ref::NDArray<float> scale({kMatmulN}), bias({kMatmulN});
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& v : scale.data()) v = 0.125f + u(rng) / 8;
    for (auto& v : bias.data()) v = 4 * u(rng);
    b.constants.push_back({"scale", array_bytes(scale)});
    b.constants.push_back({"bias", array_bytes(bias)});
    for (uint32_t i = 0; i < 2; ++i) {
      BufferDesc e = buffer(i ? "bias" : "scale", BufferRole::CONSTANT, spec::Dtype::FLOAT32, {kMatmulN}, 3 + i);
      e.constant = 1 + i;
      b.buffers.push_back(e);
    }
    b.graph.push_back({"linear", {"x", "w", "scale", "bias"}, {"y"}, {}});  // scale_bias, then int8
    b.metadata["name"] = "hand.loadimc_matmul_dpu_scale_bias_int8";
  } else {
    b.graph.push_back({"linear", {"x", "w"}, {"y"}, {}});  // out dtype: y's (INT8), the ODR cast
    b.metadata["name"] = "hand.loadimc_matmul_int8";
  }
  p.inputs.emplace("x", x);
  return p;
}

}  // namespace

HandProgram matmul_program() { return matmul(false); }
HandProgram matmul_dpu_epilogue_program() { return matmul(true); }

HandProgram out_of_range_bd_program() {
  txn::AxcoreBuilder t(1);
  t.write_bd(Tile::shim(), 2,
             linear_bd(spec::MemSel::L2, 128, spec::param::l2_bytes - 256));  // 512 B from 256 B before the end
  t.write_bd(Tile::shim(), 3, linear_bd(spec::MemSel::L1, 128));
  t.push_dma(Tile::shim(), Dir::S2MM, 1, token_push(3, 1)).push_dma(Tile::shim(), Dir::MM2S, 1, token_push(2, 2));
  t.wait_dma(Tile::shim(), Dir::MM2S, 1);
  HandProgram p;
  p.name = "out_of_range_bd";
  p.bundle.txn = t.words();
  p.bundle.metadata["name"] = "fault.out_of_range_bd";
  return p;
}

HandProgram missing_token_program() {
  txn::AxcoreBuilder t(1);
  t.write_bd(Tile::shim(), 4, linear_bd(spec::MemSel::L1, 16));
  t.push_dma(Tile::shim(), Dir::S2MM, 1, token_push(4, 9));  // its MM2S side is never started
  t.wait_dma(Tile::shim(), Dir::S2MM, 1);
  HandProgram p;
  p.name = "missing_token";
  p.bundle.txn = t.words();
  p.bundle.metadata["name"] = "fault.missing_token";
  return p;
}

}  // namespace axcore::runtime::testing_support
