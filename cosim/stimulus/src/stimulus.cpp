#include "axcore/cosim/stimulus.hpp"

#include <stdexcept>

#include "axcore/num/float16.hpp"
#include "axcore/ref/dwpu.hpp"
#include "axcore/ref/walk.hpp"
#include "axcore/txn/read_words.hpp"

namespace axcore::stim {

void write_bd(device::Device& d, uint32_t row, uint32_t bd_index, const spec::DmaBd& bd) {
  const auto w = bd.encode();
  d.block_write(addr(row, spec::core::DMA_BD.at(bd_index)), w);
}

void push_dma(device::Device& d, uint32_t row, bool mm2s, uint32_t ch, const spec::QueuePush& p) {
  const uint32_t off = mm2s ? spec::core::DMA_MM2S_QUEUE.at(ch) : spec::core::DMA_S2MM_QUEUE.at(ch);
  d.write32(addr(row, off), p.encode_word());
}

spec::DmaBd linear_bd(spec::MemSel m, uint64_t a, uint32_t words, uint32_t core) {
  spec::DmaBd bd;
  bd.valid = 1;
  bd.mem = m;
  bd.core = core;
  bd.addr_lo = static_cast<uint32_t>(a);
  bd.addr_hi = static_cast<uint32_t>(a >> 32);
  bd.length = words;
  bd.d0_size = words;
  bd.d0_stride = 1;
  return bd;
}

void write_cmd(device::Device& d, unsigned core, uint32_t word_addr, std::span<const uint32_t> words) {
  d.block_write(addr(spec::core_row(core), spec::core::CMD_MEM.offset + 4 * word_addr), words);
}

void push_queue(device::Device& d, unsigned core, spec::Queue q, const spec::QueuePush& p) {
  d.write32(addr(spec::core_row(core), spec::core::Q_PUSH.at(static_cast<uint32_t>(q))), p.encode_word());
}

spec::QueuePush push_word(uint32_t start, uint32_t tag, bool token, uint32_t repeat) {
  spec::QueuePush p;
  p.start = start;
  p.tag = tag;
  p.token = token ? 1 : 0;
  p.repeat = repeat;
  return p;
}

spec::Walk linear_walk(uint32_t base_row, uint32_t n, spec::Dtype dt, spec::Dtype cast_from) {
  spec::Walk w;
  w.base_row = base_row;
  w.dtype = dt;
  w.cast_from = cast_from;
  w.ndims = 1;
  w.d0_size = n;
  w.d0_stride = static_cast<int32_t>(num::element_rows(dt));
  return w;
}

Datapath dwpu_max_pool_2x2(uint32_t x, uint32_t y) {
  Datapath dp;
  dp.header.kind = spec::DpKind::DWPU;
  dp.header.has_ifd0 = dp.header.has_main = dp.header.has_odr = 1;
  spec::Walk& w = dp.ifd0;  // (kw, kh, ow, oh) innermost first
  w.dtype = w.cast_from = spec::Dtype::INT8;
  w.base_row = x;
  w.ndims = 4;
  w.d0_size = 2, w.d0_stride = 1;
  w.d1_size = 2, w.d1_stride = 6;
  w.d2_size = 3, w.d2_stride = 2;
  w.d3_size = 3, w.d3_stride = 12;
  dp.dwpu = spec::DwpuDesc{};
  dp.dwpu->op = spec::DwpuOp::MAX;
  dp.dwpu->taps = 4;
  dp.dwpu->ndims = 1;
  dp.dwpu->o0_size = 9;
  dp.odr = linear_walk(y, 9, spec::Dtype::INT32, spec::Dtype::INT32);
  return dp;
}

Datapath dpu_f16(spec::DpKind kind, uint32_t n, uint32_t x, uint32_t y, bool square) {
  auto op = [](spec::DpuOp o, uint32_t dst, uint32_t a = 0, uint32_t b = 0) {
    return ref::dpu_instr(o, ref::dpu_reg(dst), ref::dpu_reg(a), ref::dpu_reg(b), 0, 0);
  };
  using spec::DpuOp;
  Datapath dp;
  dp.header.kind = kind;
  dp.header.has_ifd0 = dp.header.has_dpu = dp.header.has_odr = 1;
  dp.ifd0 = linear_walk(x, n, spec::Dtype::FLOAT16, spec::Dtype::FLOAT16);
  dp.dpu.in0_dtype = spec::Dtype::FLOAT16;
  dp.dpu.out_dtype = spec::Dtype::FLOAT16;
  dp.dpu.iterations = n;
  if (square)
    dp.program = {op(DpuOp::POP, 0), op(DpuOp::MUL, 1, 0, 0), op(DpuOp::PUSH, 0, 1)};
  else
    dp.program = {op(DpuOp::POP, 0), op(DpuOp::ADD, 1, 0, 0), op(DpuOp::MUL, 2, 1, 0), op(DpuOp::SUB, 3, 2, 0),
                  op(DpuOp::PUSH, 0, 3)};
  dp.dpu.body_len = static_cast<uint32_t>(dp.program.size());
  dp.odr = linear_walk(y, n, spec::Dtype::FLOAT16, spec::Dtype::FLOAT16);
  return dp;
}

std::vector<uint8_t> f16_elements(uint32_t n, uint32_t seed) {
  std::vector<uint8_t> b(std::size_t{n} * 128);
  for (std::size_t i = 0; i < b.size() / 2; ++i) {
    const uint16_t h = num::f16_from_double((static_cast<int>((i * 7 + seed) % 61) - 30) / 8.0).bits;
    b[2 * i] = static_cast<uint8_t>(h);
    b[2 * i + 1] = static_cast<uint8_t>(h >> 8);
  }
  return b;
}

TaskSpan& TaskSpans::of(uint32_t word) {
  for (auto& [w, s] : tasks)
    if (w == word) return s;
  tasks.push_back({word, {}});
  return tasks.back().second;
}

void TaskSpans::attach(device::Device& d, uint32_t row) {
  d.set_trace_sink([this, row](const trace::Record& r) {
    if (r.unit != trace::Unit::CMDPROC || r.row != row) return;
    TaskSpan& s = of(static_cast<uint32_t>(r.addr));
    if (r.kind == trace::Kind::TASK_START) s.start = r.cycle, s.started = true;
    if (r.kind == trace::Kind::TASK_DONE) s.done = r.cycle;
  });
}

Datapath split_ifd0(Datapath dp, uint32_t first) {
  if (dp.ifd0.ndims != 1 || first == 0 || first >= dp.ifd0.d0_size || dp.ifd0.segs != 0)
    throw std::invalid_argument("split_ifd0: a 1-D IFD0 walk without segments, split inside it");
  dp.seg0 = dp.ifd0;
  dp.seg0.d0_size = dp.ifd0.d0_size - first;
  dp.seg0.base_row = dp.ifd0.base_row + static_cast<uint32_t>(static_cast<int64_t>(first) * dp.ifd0.d0_stride);
  dp.ifd0.d0_size = first;
  dp.ifd0.segs = 1;
  return dp;
}

GarbledWords garble_unread_words(const Datapath& dp, spec::Queue q) {
  GarbledWords g{dp.words(), 0};
  const std::vector<bool> read = txn::queue_read_words(q, g.words);
  for (std::size_t i = 0; i < g.words.size(); ++i) {
    if (read[i])
      ++g.reads;
    else
      g.words[i] = 0xA5A5A5A5;
  }
  return g;
}

void reference_datapath(const Datapath& dp, std::span<uint8_t> l1, ref::Imc* imc) {
  ref::VectorSink s0, s1;
  ref::run_ifd(ref::ifd_walks(dp, 0, dp.header.has_ifd1), l1, s0.fn());  // each feeder with its segments
  if (dp.header.has_ifd1) ref::run_ifd(ref::ifd_walks(dp, 1, true), l1, s1.fn());
  std::vector<ref::Element> main = s0.elems;
  if (dp.header.has_main) {
    ref::VectorSource src(s0.elems);
    ref::VectorSink out;
    if (dp.mvm)
      ref::run_mvm(*dp.mvm, *imc, src.fn(), out.fn());
    else if (dp.dwpu)
      ref::run_dwpu(*dp.dwpu, l1, src.fn(), out.fn());
    else
      throw std::invalid_argument("reference_datapath: header.has_main without an mvm or dwpu section");
    main = out.elems;
  }
  if (dp.header.has_dpu) {
    ref::DpuProgram p{dp.dpu, dp.program};
    ref::VectorSource in0(main), in1(s1.elems);
    ref::VectorSink out;
    ref::DpuIo io{[&](unsigned s) { return s == 1 ? in1.pop() : in0.pop(); }, out.fn()};
    ref::run_dpu(p, ref::DpuConfig{dp.header.has_ifd1 != 0}, io);
    main = out.elems;
  }
  ref::VectorSource src(main);
  ref::run_odr(dp.odr, l1, src.fn());
}

spec::Token wait_queue_token(device::Device& d, unsigned core, spec::Queue q, uint64_t timeout) {
  return spec::Token::decode_word(d.wait_token(
      0, spec::core_row(core), 0, spec::param::core_queue_channel_base + static_cast<uint32_t>(q), timeout));
}

spec::Token wait_dma_token(device::Device& d, uint32_t row, bool mm2s, uint32_t ch, uint64_t timeout) {
  return spec::Token::decode_word(d.wait_token(0, row, mm2s ? 1 : 0, ch, timeout));
}

}  // namespace axcore::stim
