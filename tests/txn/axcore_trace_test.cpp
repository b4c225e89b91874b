// axcore streams written with AxcoreBuilder (the compiler's API) and traced with the layout
// generated from spec/: DMA pushes resolved to BD chains, core-queue pushes to descriptors.
#include <gtest/gtest.h>

#include <axcore/spec.hpp>

#include "axcore/txn/axcore_builder.hpp"
#include "axcore/txn/compare.hpp"
#include "axcore/txn/decode.hpp"
#include "axcore/txn/read_words.hpp"
#include "axcore/txn/trace.hpp"

using namespace axcore;
using namespace axcore::txn;
namespace dd = spec::layout::datapath_desc;

namespace {

std::vector<std::string> explained(const AxcoreBuilder& b) {
  std::vector<std::string> out;
  const std::string text = explain(b.words());
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    out.push_back(text.substr(start, nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

std::string trace_error(const std::vector<uint32_t>& words) {
  try {
    trace(words);
  } catch (const TraceError& e) { return e.what(); }
  return "no error";
}

spec::DmaBd linear_bd(uint32_t words, spec::MemSel mem = spec::MemSel::DDR, uint64_t addr = 0) {
  spec::DmaBd bd;
  bd.length = words;
  bd.mem = mem;
  bd.valid = 1;
  bd.addr_lo = static_cast<uint32_t>(addr);
  bd.addr_hi = static_cast<uint32_t>(addr >> 32);
  bd.d0_size = words;
  bd.d0_stride = 1;
  return bd;
}

spec::QueuePush push(uint32_t start, bool token = false, uint32_t repeat = 0, uint32_t tag = 0) {
  spec::QueuePush p;
  p.start = start;
  p.token = token;
  p.repeat = repeat;
  p.tag = tag;
  return p;
}

// A MVMEXE datapath: IFD0 -> MVM -> DPU (1 + 2 instructions) -> ODR.
std::vector<uint32_t> mvm_datapath(uint32_t id, uint32_t k_blocks = 4) {
  spec::DatapathDesc d;
  spec::DpHeader& h = d.header;
  h.kind = spec::DpKind::MVMEXE;
  h.has_ifd0 = h.has_main = h.has_dpu = h.has_odr = 1;
  h.id = id;
  spec::Walk in;
  in.dtype = spec::Dtype::INT8;
  in.cast_from = spec::Dtype::INT8;
  in.ndims = 2;
  in.d0_size = 4;
  in.d0_stride = 1;
  in.d1_size = 16;
  in.d1_stride = 4;
  d.ifd0 = in;
  spec::MvmDesc m;
  m.k_blocks = k_blocks;
  m.matrix_id = 1;
  m.ndims = 1;
  m.o0_size = 16;
  m.k_stride = 1;
  d.mvm = m;
  spec::DpuDesc dpu;
  dpu.init_len = 1;
  dpu.body_len = 2;
  dpu.in0_dtype = spec::Dtype::INT32;
  dpu.out_dtype = spec::Dtype::INT8;
  dpu.iterations = 16;
  d.dpu = dpu;
  spec::Walk out;
  out.base_row = 512;
  out.dtype = spec::Dtype::INT8;
  out.cast_from = spec::Dtype::INT32;
  out.ndims = 1;
  out.d0_size = 16;
  out.d0_stride = 1;
  d.odr = out;
  for (uint32_t i = 0; i < 3; ++i) {  // program words 0x100, 0x101, ... 0x105
    const std::array<uint32_t, 2> w{0x100 + 2 * i, 0x101 + 2 * i};
    d.program.push_back(spec::DpuInstr::decode(w));
  }
  return d.words();
}

}  // namespace

TEST(TxnAxcore, PatchedDdrPushWithTokenAndTag) {
  AxcoreBuilder b;
  b.write_bd(Tile::shim(), 0, linear_bd(256));
  b.patch_bd_address(Tile::shim(), 0, 1, 0x400);
  b.push_dma(Tile::shim(), Dir::MM2S, 0, push(0, true, 0, 5));
  b.wait_dma(Tile::shim(), Dir::MM2S, 0);
  EXPECT_EQ(explained(b), (std::vector<std::string>{"   0 push (0,0) MM2S ch0 token tag=5 ctrl=0x0: len=256 "
                                                    "@arg1+0x400 dims=[linear] outer=1",
                                                    "   1 wait (0,0) MM2S ch0 cols=1 rows=1"}));
  // The header names axcore; the patch targets the BD's addr_lo word.
  const auto words = b.words();
  const Decoded d = decode(words);
  EXPECT_EQ(d.header.device.dev_gen, spec::kTxnDevGen);
  EXPECT_EQ(d.header.device.num_rows, spec::core_row(spec::param::cores));
  EXPECT_EQ(std::get<DdrPatch>(d.ops[1].body).regaddr, spec::tile_addr(0, 0, spec::shim::DMA_BD.at(0) + 4));
  EXPECT_EQ(std::get<Write32>(d.ops[2].body).addr, spec::tile_addr(0, 0, spec::shim::DMA_MM2S_QUEUE.at(0)));
}

TEST(TxnAxcore, PatchSuppliesAddrLoAndAddrHi) {
  AxcoreBuilder b;
  const auto bd = linear_bd(64).encode();
  for (uint32_t i = 0; i < bd.size(); ++i)
    if (i != 1 && i != 2) b.write_reg(Tile::shim(), spec::shim::DMA_BD.at(3) + 4 * i, bd[i]);
  b.patch_bd_address(Tile::shim(), 3, 0, 0x1'0000'0000ull);
  b.push_dma(Tile::shim(), Dir::S2MM, 1, push(3));
  EXPECT_EQ(explained(b), std::vector<std::string>{
                              "   0 push (0,0) S2MM ch1 ctrl=0x0: len=64 @arg0+0x100000000 dims=[linear] outer=1"});
  // A later write of addr_lo replaces the patch; addr_hi then comes from nowhere.
  b.write_reg(Tile::shim(), spec::shim::DMA_BD.at(3) + 4, 0x80);
  b.push_dma(Tile::shim(), Dir::S2MM, 1, push(3));
  EXPECT_EQ(trace_error(b.words()),
            "the push at word 112 runs BD 3 of tile (0,0), but the stream never writes its words [2]");
}

TEST(TxnAxcore, MemTileWalkWithPaddingAndCoreL1) {
  AxcoreBuilder b;
  spec::DmaBd m = linear_bd(32, spec::MemSel::L2, 0x1000);
  m.d0_size = 8;
  m.d1_size = 4;
  m.d1_stride = 8;
  m.d0_pad_before = 1;
  m.d0_pad_after = 1;
  m.pad_value = 0xFFFF;
  b.write_bd(Tile::mem(), 31, m);
  b.push_dma(Tile::mem(), Dir::MM2S, 1, push(31));
  spec::DmaBd c = linear_bd(64, spec::MemSel::L1, 0x40);
  c.d0_size = 8;
  c.d1_size = 8;
  c.d1_stride = 16;  // every other row
  b.write_bd(Tile::core(0), 15, c);
  b.write_reg(Tile::core(0), spec::core::DMA_S2MM_CTRL.at(0), 4);
  b.push_dma(Tile::core(0), Dir::S2MM, 0, push(15));
  EXPECT_EQ(explained(b), (std::vector<std::string>{
                              "   0 push (0,1) MM2S ch1 ctrl=0x0: len=32 @L2:0x1000 dims=[8x1 4x8] outer=1 "
                              "pad=[1/1 0/0]",
                              "   1 push (0,2) S2MM ch0 ctrl=0x4: len=64 @L1[0]:0x40 dims=[8x1 8x16] outer=1"}));
  // The pad value is part of a padded transfer.
  AxcoreBuilder other;
  m.pad_value = 0;
  other.write_bd(Tile::mem(), 31, m).push_dma(Tile::mem(), Dir::MM2S, 1, push(31));
  const auto diffs = compare(b.words(), other.words());
  ASSERT_FALSE(diffs.empty());
  EXPECT_NE(diffs[0].find("(chain[0].pad_value: 65535 vs 0)"), std::string::npos) << diffs[0];
}

TEST(TxnAxcore, ChainLoopAndRepeatFold) {
  AxcoreBuilder b;
  spec::DmaBd a = linear_bd(16, spec::MemSel::DDR, 0x100), c = linear_bd(16, spec::MemSel::DDR, 0x200);
  a.use_next = 1;
  a.next_bd = 9;
  c.use_next = 1;
  c.next_bd = 8;
  b.write_bd(Tile::shim(), 8, a).write_bd(Tile::shim(), 9, c);
  b.push_dma(Tile::shim(), Dir::MM2S, 1, push(8));
  // Four runs of 64 words, each iterating on by 64: one transfer of 256 words.
  spec::DmaBd r = linear_bd(64, spec::MemSel::DDR, 0x1000);
  r.iter_size = 4;
  r.iter_stride = 64;
  b.write_bd(Tile::shim(), 1, r).push_dma(Tile::shim(), Dir::MM2S, 0, push(1, true, 3));
  EXPECT_EQ(explained(b), (std::vector<std::string>{
                              "   0 push (0,0) MM2S ch1 ctrl=0x0: len=16 @0x100 dims=[linear] outer=1 -> len=16 @0x200 "
                              "dims=[linear] outer=1 -> back to BD 0 of the chain",
                              "   1 push (0,0) MM2S ch0 token ctrl=0x0: len=256 @0x1000 dims=[linear] outer=1"}));
  // Started from iteration 1 the runs wrap around: no fold.
  r.iter_current = 1;
  AxcoreBuilder n;
  n.write_bd(Tile::shim(), 1, r).push_dma(Tile::shim(), Dir::MM2S, 0, push(1, true, 3));
  EXPECT_EQ(explained(n), std::vector<std::string>{"   0 push (0,0) MM2S ch0 repeat=3 token ctrl=0x0: len=64 "
                                                   "@0x1000 dims=[linear] outer=1 iter 4x64"});
}

TEST(TxnAxcore, CoreQueuePushRunsItsDescriptor) {
  AxcoreBuilder b;
  b.write_descriptor(0, 64, mvm_datapath(7));
  b.push_task(0, spec::Queue::MVMEXE, push(64, true));
  b.wait_task(0, spec::Queue::MVMEXE);
  spec::LoadimcDesc l;
  l.magic = spec::magic::loadimc;
  l.matrix_id = 1;
  l.d0_size = 4;
  l.d1_size = 1;
  l.base_row = 100;
  l.row_stride = 1;
  b.write_descriptor(0, 0, l.encode());
  b.push_task(0, spec::Queue::LOADIMC, push(0));
  spec::BarrierDesc bar;
  bar.magic = spec::magic::barrier;
  bar.barrier_id = 2;
  bar.core_mask = 1;
  b.write_descriptor(0, 8, bar.encode());
  b.push_task(0, spec::Queue::CTRL, push(8, false, 0, 3));
  EXPECT_EQ(explained(b), (std::vector<std::string>{
                              "   0 push (0,2) MVMEXE token ctrl=0x0: datapath MVMEXE id=7 units=ifd0,mvm,dpu,odr; "
                              "ifd0 INT8 [4x1 16x4] @r0; mvm k=4 matrix=1 tile=0 out=16; dpu 1+2 x16 -> INT8; "
                              "odr INT8<-INT32 [16x1] @r512",
                              "   1 wait (0,2) MVMEXE cols=1 rows=1",
                              "   2 push (0,2) LOADIMC ctrl=0x0: loadimc matrix=1 tiles=4x1 @t0 from r100 stride 1",
                              "   3 push (0,2) CTRL tag=3 ctrl=0x0: barrier id=2 cores=0x1"}));
  const Trace t = trace(b.words());
  EXPECT_EQ(t.events[0].channel, spec::param::core_queue_channel_base);
  EXPECT_EQ(t.events[1].channel, spec::param::core_queue_channel_base);
  ASSERT_TRUE(t.events[0].task);
  // the words the device reads (read_words.hpp): header 2 + ifd0 5 (word 0, d0/d1 sizes, two
  // strides, pad_value) + mvm 5 + dpu 2 + program 6 + odr 4 (one dimension)
  EXPECT_EQ(t.events[0].task->words.size(), 24u);
}

TEST(TxnAxcore, OnlyAWrite32ToAQueueRegisterIsAPush) {
  // A maskwrite32 or a blockwrite word reaching a core task queue or a DMA queue is state only.
  AxcoreBuilder b;
  b.write_descriptor(0, 64, mvm_datapath(7));
  b.write_bd(Tile::shim(), 0, linear_bd(8, spec::MemSel::DDR, 0x100));
  Writer& w = b.writer();
  const uint32_t core = spec::tile_addr(0, spec::core_row(0), 0), shim = spec::tile_addr(0, 0, 0);
  w.maskwrite32(core | spec::core::Q_PUSH.at(0), push(64, true).encode_word(), 0xFFFFFFFF);
  w.blockwrite(core | spec::core::Q_PUSH.at(0), std::array<uint32_t, 1>{push(64).encode_word()});
  w.maskwrite32(shim | spec::shim::DMA_MM2S_QUEUE.at(0), push(0).encode_word(), 0xFFFF);
  w.blockwrite(shim | spec::shim::DMA_MM2S_CTRL.at(0), std::array<uint32_t, 2>{0, push(0).encode_word()});
  EXPECT_TRUE(trace(b.words()).events.empty());
  b.push_task(0, spec::Queue::MVMEXE, push(64));
  const Trace t = trace(b.words());
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].kind, EventKind::PUSH);
}

TEST(TxnAxcore, DescriptorPlacementDoesNotMatterButItsContentDoes) {
  AxcoreBuilder a, b, c;
  a.write_descriptor(0, 64, mvm_datapath(7)).push_task(0, spec::Queue::MVMEXE, push(64, true));
  b.write_descriptor(0, 1000, mvm_datapath(7)).push_task(0, spec::Queue::MVMEXE, push(1000, true));
  c.write_descriptor(0, 64, mvm_datapath(7, 5)).push_task(0, spec::Queue::MVMEXE, push(64, true));
  EXPECT_EQ(compare(a.words(), b.words()), std::vector<std::string>{});
  const auto diffs = compare(a.words(), c.words());
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_NE(diffs[0].find("mvm k=4"), std::string::npos);
  EXPECT_NE(diffs[0].find("mvm k=5"), std::string::npos);
}

TEST(TxnAxcore, UnwrittenOrMisplacedDescriptorIsAnError) {
  AxcoreBuilder a;
  a.push_task(0, spec::Queue::MVMEXE, push(100));
  EXPECT_EQ(trace_error(a.words()),
            "the push at word 4 runs the MVMEXE descriptor at word 100 of tile (0,2), but the "
            "stream never writes its "
            "words [0]");
  // Header only: the DPU section it announces is missing.
  auto d = mvm_datapath(1);
  d.resize(dd::ifd1);
  AxcoreBuilder b;
  b.write_descriptor(0, 0, d).push_task(0, spec::Queue::MVMEXE, push(0));
  const std::string err = trace_error(b.words());
  EXPECT_TRUE(
      err.starts_with("the push at word 36 runs the MVMEXE descriptor at word 0 of tile (0,2), but the "
                      "stream never writes its words [52, 53, 54, 55, 56, 60, 61, 68, 69,"))
      << err;
  // the unwritten DPU section hides the program length, the ODR's word 0 (ndims 0) its dimensions
  // but the first
  EXPECT_TRUE(err.ends_with(" 61, 68, 69, 72, 78]")) << err;
  AxcoreBuilder c;
  c.push_task(0, spec::Queue::CTRL, push(spec::core::CMD_MEM.count + 5));
  EXPECT_EQ(trace_error(c.words()),
            "the push at word 4 runs the CTRL descriptor at word 16389 of tile (0,2), past the end "
            "of its 16384-word "
            "command memory");
  AxcoreBuilder e;
  e.write_bd(Tile::shim(), 0, linear_bd(4)).push_dma(Tile::shim(), Dir::MM2S, 0, push(20));
  EXPECT_EQ(trace_error(e.words()), "the push at word 24 runs BD 20 of tile (0,0), which has 16 BDs");
}

// The words the device reads (read_words.hpp), against the descriptor layout of spec/.
TEST(TxnAxcore, ReadWordsFollowUnitsDimensionsAndGuards) {
  auto set = [](const std::vector<bool>& r) {
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < r.size(); ++i)
      if (r[i]) out.push_back(i);
    return out;
  };
  spec::Walk w;
  w.ndims = 2;
  w.nguards = 1;
  EXPECT_EQ(set(walk_read_words(w)), (std::vector<uint32_t>{0, 1, 4, 5, 10, 11, 12, 13}));
  w.ndims = 5;
  w.nguards = 0;
  EXPECT_EQ(set(walk_read_words(w)), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 10}));
  const std::vector<uint32_t> dp = mvm_datapath(1);
  std::vector<uint32_t> expect{0, 1, 4, 5, 8, 9, 14, 52, 53, 54, 55, 56, 60, 61, 68, 69, 72, 78};
  for (uint32_t i = dd::program; i < dp.size(); ++i) expect.push_back(i);
  EXPECT_EQ(set(queue_read_words(spec::Queue::MVMEXE, dp)), expect);
  EXPECT_EQ(set(descriptor_read_words(dp)), expect);
  // the queue's rule, not the magic: a datapath queue reads a LoadIMC's words as a header's
  spec::LoadimcDesc l;
  l.magic = spec::magic::loadimc;
  EXPECT_EQ(set(descriptor_read_words(l.encode())), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(set(queue_read_words(spec::Queue::LOADIMC, l.encode())), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(set(queue_read_words(spec::Queue::DWPU, l.encode())), (std::vector<uint32_t>{0, 1}));
  spec::BarrierDesc bar;
  bar.magic = spec::magic::barrier;
  EXPECT_EQ(set(queue_read_words(spec::Queue::CTRL, bar.encode())), std::vector<uint32_t>{0});
  const uint32_t other = 0x42;
  EXPECT_EQ(set(descriptor_read_words(std::span(&other, 1))), std::vector<uint32_t>{0});
  EXPECT_EQ(set(bd_read_words(false)), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}));
  EXPECT_EQ(set(bd_read_words(true)), (std::vector<uint32_t>{0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}));
}

// The builder writes only the read words (one blockwrite per run of them); the tracer finds the
// descriptor and the BD complete, and shows the same task as a whole write.
TEST(TxnAxcore, BuilderWritesOnlyTheReadWords) {
  const std::vector<uint32_t> dp = mvm_datapath(7);
  AxcoreBuilder whole, read;
  whole.write_descriptor(0, 64, dp).push_task(0, spec::Queue::MVMEXE, push(64, true));
  read.write_descriptor(0, 64, dp, descriptor_read_words(dp)).push_task(0, spec::Queue::MVMEXE, push(64, true));
  EXPECT_EQ(compare(whole.words(), read.words()), std::vector<std::string>{});
  auto block_words = [](const AxcoreBuilder& b) {
    std::size_t n = 0;
    const std::vector<uint32_t> words = b.words();
    for (const Op& op : decode(words).ops)
      if (const auto* w = std::get_if<BlockWrite>(&op.body)) n += w->data.size();
    return n;
  };
  EXPECT_EQ(block_words(whole), dp.size());
  EXPECT_EQ(block_words(read), 24u);
  AxcoreBuilder bd;
  bd.write_bd_read_words(Tile::shim(), 0, linear_bd(8), true).patch_bd_address(Tile::shim(), 0, 0, 0x40);
  bd.push_dma(Tile::shim(), Dir::MM2S, 0, push(0));
  EXPECT_EQ(block_words(bd), 12u);
  EXPECT_EQ(trace(bd.words()).events.size(), 1u);
  AxcoreBuilder unpatched;
  unpatched.write_bd_read_words(Tile::shim(), 0, linear_bd(8), true).push_dma(Tile::shim(), Dir::MM2S, 0, push(0));
  EXPECT_NE(trace_error(unpatched.words()).find("never writes its words [1, 2]"), std::string::npos);
}

TEST(TxnAxcore, DescriptorWithTheWrongMagicIsShown) {
  AxcoreBuilder b;
  const uint32_t word = 0x42;
  b.write_descriptor(0, 0, std::span(&word, 1)).push_task(0, spec::Queue::DWPU, push(0));
  EXPECT_EQ(explained(b),
            std::vector<std::string>{"   0 push (0,2) DWPU ctrl=0x0: descriptor magic 0x42, the DWPU queue runs 0xd9"});
}

TEST(TxnAxcore, BuilderChecksIndices) {
  AxcoreBuilder b;
  EXPECT_THROW(b.write_bd(Tile::shim(), 16, linear_bd(4)), std::out_of_range);
  EXPECT_NO_THROW(b.write_bd(Tile::mem(), 31, linear_bd(4)));
  EXPECT_THROW(b.push_dma(Tile::core(0), Dir::S2MM, 2, push(0)), std::out_of_range);
  EXPECT_THROW(b.push_task(1, spec::Queue::MVMEXE, push(0)), std::out_of_range);
  EXPECT_THROW(b.write_descriptor(0, spec::core::CMD_MEM.count - 1, mvm_datapath(1)), std::out_of_range);
  EXPECT_THROW(AxcoreBuilder(0), std::out_of_range);
  EXPECT_NO_THROW(AxcoreBuilder(spec::param::max_cores).push_task(3, spec::Queue::CTRL, push(0)));
  spec::DmaBd bad = linear_bd(4);
  bad.length = 1u << 24;
  EXPECT_THROW(b.write_bd(Tile::shim(), 0, bad), spec::FieldRangeError);
}
