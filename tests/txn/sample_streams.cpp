#include "sample_streams.hpp"

#include <axcore/spec.hpp>

#include "aie2_bd.hpp"
#include "axcore/txn/axcore_builder.hpp"
#include "axcore/txn/writer.hpp"

namespace txn_samples {

using namespace axcore;
using namespace axcore::txn;
using namespace aie2;

namespace {

template <std::size_t N>
void put_bd(Writer& w, uint32_t addr, const std::array<uint32_t, N>& words) {
  w.blockwrite(addr, words);
}

std::vector<uint32_t> aie2_memtile() {
  Writer w(Device::aie2());
  put_bd(w, tile(0, 1) | bd_addr(kMemBd, 0),
         MemBd{.length = 96,
               .addr = 0x400,
               .d0_wrap = 8,
               .d0_step = 0,
               .d1_wrap = 4,
               .d1_step = 7,
               .d2_step = 31,
               .d1_before = 1,
               .d1_after = 2,
               .use_next = true,
               .next = 1}
             .words());
  put_bd(w, tile(0, 1) | bd_addr(kMemBd, 1),
         MemBd{.length = 64,
               .addr = 0x1000,
               .d0_wrap = 4,
               .d0_step = 0,
               .d1_wrap = 4,
               .d1_step = 7,
               .d2_wrap = 4,
               .d2_step = 1,
               .d3_step = 63,
               .use_next = true,
               .next = 0}
             .words());
  w.write32(tile(0, 1) | mem_queue(true, 0), push_word(0, 1, true));
  w.tct(Dir::MM2S, 0, 1, 0);
  return w.words();
}

std::vector<uint32_t> aie2_core_and_verbatim() {
  Writer w(Device::aie2());
  w.loadpdi(0, 0x400, 0x1000).preempt(1).create_scratchpad(0, 4096);
  put_bd(w, tile(1, 2) | bd_addr(kCoreBd, 4),
         CoreBd{.length = 64,
                .addr = 0x800,
                .d0_wrap = 8,
                .d0_step = 0,
                .d1_wrap = 8,
                .d1_step = 15,
                .iter_wrap = 1,
                .iter_step = 127}
             .words());
  w.write32(tile(1, 2) | core_queue(false, 0), push_word(4));
  w.maskwrite32(tile(1, 2) | 0x1F000, 1, 0x3F);
  w.update_reg(0, 1, 2, 0x1D000);
  const uint32_t payload[] = {tile(0, 0) | 0x1D200, 1};
  w.custom(Opcode::READ_REGS, payload).custom(Opcode::RECORD_TIMER, std::span(payload, 1)).noop();
  return w.words();
}

spec::QueuePush push(uint32_t start, bool token) {
  spec::QueuePush p;
  p.start = start;
  p.token = token;
  return p;
}

std::vector<uint32_t> axcore_program() {
  AxcoreBuilder b;
  spec::DmaBd in;
  in.length = 1024;
  in.valid = 1;
  in.d0_size = 1024;
  in.d0_stride = 1;
  b.write_bd(Tile::shim(), 0, in).patch_bd_address(Tile::shim(), 0, 0, 0);
  spec::DmaBd l2 = in;
  l2.mem = spec::MemSel::L2;
  l2.addr_lo = 0x4000;
  b.write_bd(Tile::mem(), 0, l2);
  b.push_dma(Tile::mem(), Dir::S2MM, 0, push(0, false)).push_dma(Tile::shim(), Dir::MM2S, 0, push(0, true));
  b.wait_dma(Tile::shim(), Dir::MM2S, 0);
  spec::LoadimcDesc l;
  l.magic = spec::magic::loadimc;
  l.matrix_id = 1;
  l.d0_size = 2;
  l.d1_size = 2;
  l.row_stride = 1;
  l.d0_astride = 64;
  l.d1_astride = 128;
  l.d0_tstride = 1;
  l.d1_tstride = 2;
  b.write_descriptor(0, 16, l.encode()).push_task(0, spec::Queue::LOADIMC, push(16, true));
  b.wait_task(0, spec::Queue::LOADIMC);
  spec::BarrierDesc bar;
  bar.magic = spec::magic::barrier;
  bar.barrier_id = 1;
  bar.core_mask = 1;
  b.write_descriptor(0, 32, bar.encode()).push_task(0, spec::Queue::CTRL, push(32, true));
  b.wait_task(0, spec::Queue::CTRL);
  b.write_reg(Tile::core(0), spec::core::WDOG_LIMIT.offset, 1000);
  return b.words();
}

std::vector<uint32_t> bad_unwritten_bd() {
  Writer w(Device::aie2());
  w.write32(shim_queue(true, 0), push_word(5));
  return w.words();
}

}  // namespace

std::vector<uint32_t> aie2_static(uint32_t lock_value) {
  Writer w(Device::aie2());
  put_bd(w, bd_addr(kShimBd, 0), ShimBd{.length = 1024, .locks = {.acq_value = lock_value}}.words());
  w.ddr_patch(bd_addr(kShimBd, 0) + 4, 0, 0x1000);
  w.write32(shim_queue(true, 0), push_word(0, 0, true));
  put_bd(w, bd_addr(kShimBd, 1), ShimBd{.length = 64, .d0_wrap = 8, .d0_step = 15, .d2_step = 7}.words());
  w.ddr_patch(bd_addr(kShimBd, 1) + 4, 1, 0);
  w.write32(shim_queue(false, 0), push_word(1, 0, true));
  w.tct(Dir::MM2S, 0, 0, 0);
  w.tct(Dir::S2MM, 0, 0, 0);
  w.write32(tile(0, 2) | 0x400, 42);  // a runtime parameter
  return w.words();
}

std::vector<uint32_t> aie2_dynamic() {
  Writer w(Device::aie2());
  w.maskpoll32(0x1D230, 0, 0x7);  // room in the queue
  const auto a = ShimBd{.length = 256, .iter_wrap = 3, .iter_step = 255, .locks = {.acq_value = 1}}.words();
  for (uint32_t i = 0; i < 8; ++i)
    if (i != 1) w.write32(bd_addr(kShimBd, 9) + 4 * i, a[i]);  // the address word is left to the patch
  w.ddr_patch(bd_addr(kShimBd, 9) + 4, 0, 0x1000);
  w.write32(shim_queue(true, 0), push_word(9, 3, true));
  const auto b = ShimBd{.length = 64, .d0_wrap = 8, .d0_step = 15, .d1_wrap = 1, .d1_step = 99, .d2_step = 7}.words();
  put_bd(w, bd_addr(kShimBd, 14), b);
  w.ddr_patch(bd_addr(kShimBd, 14) + 4, 1, 0);
  w.write32(shim_queue(false, 0), push_word(14, 0, true));
  w.tct(Dir::MM2S, 0, 0, 0);
  w.tct(Dir::S2MM, 0, 0, 0);
  w.write32(tile(0, 2) | 0x400, 42);
  return w.words();
}

std::map<std::string, std::vector<uint32_t>> all() {
  std::map<std::string, std::vector<uint32_t>> s;
  s["aie2_static"] = aie2_static();
  s["aie2_dynamic"] = aie2_dynamic();
  s["aie2_static_lock2"] = aie2_static(2);
  s["aie2_memtile"] = aie2_memtile();
  s["aie2_core_verbatim"] = aie2_core_and_verbatim();
  s["axcore_program"] = axcore_program();
  s["bad_unwritten_bd"] = bad_unwritten_bd();
  auto op = aie2_static();
  op[4] = 0x33;  // no such opcode
  s["bad_opcode"] = op;
  auto past = aie2_static();
  past.resize(past.size() - 2);
  past[3] = static_cast<uint32_t>(4 * past.size());
  s["bad_past_end"] = past;
  return s;
}

}  // namespace txn_samples
