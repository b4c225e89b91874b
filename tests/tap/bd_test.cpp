// BD lowering: the seed's DMA rules, every legality message, engine limits, chains and repeats.
#include <gtest/gtest.h>

#include "axcore/tap/bd.hpp"
#include "expect_error.hpp"

namespace axcore::tap {
namespace {

using P = TensorAccessPattern;
using testing::expect_error;

const P kTiles = P::full({16, 16}).tile({4, 4});

TEST(TapBdSeed, TransposedBf16TileOnShimAndMemtile) {
  P t = kTiles.at({0, 0}).T();
  expect_error<ValueError>([&] { lower_to_bds(t, 16, Engine::kSysDma); },
                           "dma_bd: Stride 1 is 1 elements * 2 bytes = 2 bytes, which is not divisible by 4");
  expect_error<ValueError>([&] { lower_to_bds(t, 16, Engine::kMemDma); },
                           "dma_bd: For <32b width datatypes, inner-most dim stride must be 1");
  // 32-bit elements: the same transpose is a legal walk.
  BdTask task = lower_to_bds(t, 32, Engine::kMemDma);
  ASSERT_EQ(task.bds.size(), 1u);
  EXPECT_EQ(describe(task.bds[0], 0), "bd 0: len=16 addr=0x0 d0=4/16 d1=4/1 d2=1/0 d3=1/0 iter=0/0 next=-");
}

TEST(TapBdSeed, SubWordRules) {
  P every_other = P::full({16, 16}).at({Slice{}, Slice{{}, {}, 2}});
  expect_error<ValueError>([&] { lower_to_bds(every_other, 16, Engine::kSysDma); },
                           "dma_bd: For <32b width datatypes, inner-most dim stride must be 1");
  expect_error<ValueError>(
      [&] {
        lower_to_bds(P::full({16, 16}).at({Slice{}, Slice{{}, 3}}), 16, Engine::kMemDma);
      },
      "dma_bd: Size 0 is 3 elements * 2 bytes = 6 bytes, which is not divisible by 4");
  expect_error<ValueError>(
      [&] {
        lower_to_bds(P::full({16, 16}).at({Slice{}, Slice{{}, 6}}), 8, Engine::kCoreDma);
      },
      "dma_bd: Size 0 is 6 elements * 1 bytes = 6 bytes, which is not divisible by 4");
  expect_error<ValueError>(
      [&] {
        lower_to_bds(P::full({16, 16}).at({Slice{}, Slice{1, 3}}), 16, Engine::kMemDma);
      },
      "dma_bd: Offset is 1 elements * 2 bytes = 2 bytes, which is not divisible by 4");
  expect_error<ValueError>(
      [&] {
        lower_to_bds(P(std::vector<SymInt>{64}, 0, {4, 4}, {3, 1}), 8, Engine::kSysDma);
      },
      "dma_bd: Stride 1 is 3 elements * 1 bytes = 3 bytes, which is not divisible by 4");
  LowerOptions odd_base;
  odd_base.base_address = 6;
  expect_error<ValueError>([&] { lower_to_bds(P::full({16}), 32, Engine::kMemDma, odd_base); },
                           "dma_bd: base address 6 is not divisible by 4");
  expect_error<ValueError>([&] { lower_to_bds(P::full({16}), 12, Engine::kMemDma); },
                           "dma_bd: element width 12 bits is not supported (elements are 8, 16 or 32 bits)");
  expect_error<TypeError>([&] { lower_to_bds(P::full({SymInt::param("n")}), 32, Engine::kMemDma); },
                          "dma_bd: lowering needs a concrete pattern, but TensorAccessPattern([n], offset=0, "
                          "sizes=[n], strides=[1]) has dispatch-time values; bind() them first");
}

TEST(TapBdSeed, WordWalkOfSubWordData) {
  // A bf16 tile of 4 x 4: runs of 2 words, rows 8 words apart.
  LowerOptions o;
  o.base_address = 0x1000;
  BdTask task = lower_to_bds(kTiles.at({1, 2}), 16, Engine::kSysDma, o);
  ASSERT_EQ(task.bds.size(), 1u);
  EXPECT_EQ(describe(task.bds[0], 0), "bd 0: len=8 addr=0x1090 d0=2/1 d1=4/8 d2=1/0 d3=1/0 iter=0/0 next=-");
  P back = decode_task(task, {{16, 16}, 16, 0x1000}).at(0);
  EXPECT_EQ(back, kTiles.at({1, 2}));
}

TEST(TapBdPadding, EngineDirectionGranuleAndLimit) {
  P padded = P::full({8, 8}).pad(std::vector<PadPair>{{1, 1}, {2, 2}});
  expect_error<ValueError>([&] { lower_to_bds(padded, 32, Engine::kSysDma); },
                           "dma_bd: the SysDMA cannot pad (sysdma_padding = 0); pad on an engine whose *_padding is 1");
  LowerOptions s2mm;
  s2mm.direction = Direction::kS2mm;
  expect_error<ValueError>([&] { lower_to_bds(padded, 32, Engine::kMemDma, s2mm); },
                           "dma_bd: padding on an S2MM channel: only the emitting (MM2S) side pads");
  expect_error<ValueError>(
      [&] {
        lower_to_bds(P::full({8, 8}).pad(std::vector<PadPair>{{0, 0}, {1, 0}}), 16, Engine::kMemDma);
      },
      "dma_bd: Padding before of dim 0 is 1 elements * 2 bytes = 2 bytes, which is not divisible by 4");
  expect_error<ValueError>(
      [&] {
        lower_to_bds(P::full({8, 8}).pad(std::vector<PadPair>{{0, 300}, {0, 0}}), 32, Engine::kCoreDma);
      },
      "dma_bd: Padding after of dim 1 is 300, which exceeds dma_pad_max (255)");
  expect_error<ValueError>(
      [&] {
        lower_to_bds(P::full({8, 8}).pad(std::vector<PadPair>{{0, 0}, {2, 3}}), 16, Engine::kMemDma);
      },
      "dma_bd: Padding after of dim 0 is 3 elements * 2 bytes = 6 bytes, which is not divisible by 4");
  expect_error<ValueError>(
      [&] {
        lower_to_bds(P::full({8, 8}).pad(std::vector<PadPair>{{256, 0}, {0, 0}}), 32, Engine::kMemDma);
      },
      "dma_bd: Padding before of dim 1 is 256, which exceeds dma_pad_max (255)");
  EXPECT_NO_THROW(lower_to_bds(P::full({8, 8}).pad(std::vector<PadPair>{{255, 255}, {0, 0}}), 32, Engine::kMemDma));
  // Innermost padding counts in elements: 2 bf16 elements are 1 pad word, 510 are 255 (the limit).
  EXPECT_NO_THROW(lower_to_bds(P::full({8, 8}).pad(std::vector<PadPair>{{0, 0}, {510, 2}}), 16, Engine::kMemDma));
  expect_error<ValueError>(
      [&] {
        lower_to_bds(P::full({8, 8}).pad(std::vector<PadPair>{{0, 0}, {0, 512}}), 16, Engine::kMemDma);
      },
      "dma_bd: Padding after of dim 0 is 256, which exceeds dma_pad_max (255)");
  LowerOptions o;
  o.pad_value = 0xDEAD;
  BdTask task = lower_to_bds(P::full({8, 8}).pad(std::vector<PadPair>{{1, 1}, {2, 2}}), 16, Engine::kCoreDma, o);
  ASSERT_EQ(task.bds.size(), 1u);
  EXPECT_EQ(describe(task.bds[0], 0),
            "bd 0: len=32 addr=0x0 d0=4/1 d1=8/4 d2=1/0 d3=1/0 iter=0/0 pad=1:1,1:1,0:0,0:0 pad_value=57005 next=-");
  EXPECT_EQ(decode_task(task, {{8, 8}, 16, 0}).at(0), P::full({8, 8}).pad(std::vector<PadPair>{{1, 1}, {2, 2}}));
  // A padded dimension has to stay in the BD.
  P deep = P::full({2, 2, 2, 2, 2}).T().pad(std::vector<PadPair>{{1, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}});
  expect_error<ValueError>([&] { lower_to_bds(deep, 32, Engine::kMemDma); },
                           "dma_bd: Dimension 4 is padded, but only the 4 dimensions of one MemDMA BD can pad");
}

TEST(TapBdPadding, PaddedDimensionOfOneStepHasNoStride) {
  // A row of 8 int8 elements behind a padded block of one step: that dimension never moves, so
  // its element stride of 1 (not a whole word) is no reason to refuse the walk.
  P rows = P(std::vector<SymInt>{4, 8}, 0, {4, 1, 8}, {8, 1, 1}).pad(std::vector<PadPair>{{0, 0}, {1, 0}, {0, 0}});
  BdTask task = lower_to_bds(rows, 8, Engine::kMemDma);
  ASSERT_EQ(task.bds.size(), 1u);
  EXPECT_EQ(describe(task.bds[0], 0),
            "bd 0: len=8 addr=0x0 d0=2/1 d1=1/0 d2=4/2 d3=1/0 iter=0/0 pad=0:0,1:0,0:0,0:0 pad_value=0 next=-");
  EXPECT_EQ(decode_task(task, {{4, 8}, 8, 0}).at(0), rows);
  // The stride of a dimension that does step is still checked.
  P stepping = P(std::vector<SymInt>{4, 8}, 0, {2, 2, 8}, {16, 1, 1}).pad(std::vector<PadPair>{{0, 0}, {1, 0}, {0, 0}});
  expect_error<ValueError>([&] { lower_to_bds(stepping, 8, Engine::kMemDma); },
                           "dma_bd: Stride 1 is 1 elements * 1 bytes = 1 bytes, which is not divisible by 4");
}

TEST(TapBdLimits, FieldWidths) {
  // Too long for the CoreDMA's 12-bit size field: split into two dimensions that fit.
  BdTask split = lower_to_bds(P::full({5000}), 32, Engine::kCoreDma);
  ASSERT_EQ(split.bds.size(), 1u);
  EXPECT_EQ(describe(split.bds[0], 0), "bd 0: len=5000 addr=0x0 d0=2500/1 d1=2/2500 d2=1/0 d3=1/0 iter=0/0 next=-");
  EXPECT_EQ(decode_task(split, {{5000}, 32, 0}).at(0), P::full({5000}));
  expect_error<ValueError>(
      [&] { lower_to_bds(P::full({4099}), 32, Engine::kCoreDma); },
      "dma_bd: Size 0 is 4099 words, which does not fit the CoreDMA's 12-bit size field (max 4095)");
  EXPECT_NO_THROW(lower_to_bds(P::full({4099}), 32, Engine::kMemDma));
  P wide = P::full({2, 600000}).at({Slice{}, Slice{{}, 4}});
  expect_error<ValueError>(
      [&] { lower_to_bds(wide, 32, Engine::kCoreDma); },
      "dma_bd: Stride 1 is 600000 words, which does not fit the CoreDMA's 20-bit stride field (max 524287)");
  EXPECT_NO_THROW(lower_to_bds(wide, 32, Engine::kMemDma));
  expect_error<ValueError>(
      [&] { lower_to_bds(P::full({int64_t{1} << 24}), 32, Engine::kMemDma); },
      "dma_bd: Length is 16777216 words, which does not fit the 24-bit length field (max 16777215)");
}

TEST(TapBdChains, DeepWalksChainWhereAllowed) {
  // Sub-tiles of tiles: six dimensions after coalesce().
  P deep = kTiles.tile({1, 1, 2, 2}).coalesce();
  ASSERT_EQ(deep.rank(), 6);
  BdTask mem = lower_to_bds(deep, 32, Engine::kMemDma);
  EXPECT_EQ(mem.repeat, 3u);  // the outermost dimension is the queue repeat with iteration
  ASSERT_EQ(mem.bds.size(), 4u);
  EXPECT_EQ(describe(mem.bds[0], 0), "bd 0: len=16 addr=0x0 d0=2/1 d1=2/16 d2=2/2 d3=2/32 iter=4/64 next=1");
  EXPECT_EQ(describe(mem.bds[3], 3), "bd 3: len=16 addr=0x30 d0=2/1 d1=2/16 d2=2/2 d3=2/32 iter=4/64 next=-");
  EXPECT_EQ(task_walk(decode_task(mem, {{16, 16}, 32, 0})), deep.walk());
  LowerOptions one;
  one.single_bd = true;
  expect_error<ValueError>([&] { lower_to_bds(deep, 32, Engine::kMemDma, one); },
                           "dma_bd: the walk needs 6 dimensions, but one MemDMA BD holds 4 plus the repeat, and this "
                           "transfer must fit one BD");
  BdTask core = lower_to_bds(deep, 32, Engine::kCoreDma);
  EXPECT_EQ(core.bds.size(), 8u);
  EXPECT_EQ(task_walk(decode_task(core, {{16, 16}, 32, 0})), deep.walk());
  // Without the repeat the outermost dimension is chained too.
  LowerOptions no_repeat;
  no_repeat.use_repeat = false;
  no_repeat.first_bd = 4;
  BdTask flat = lower_to_bds(deep, 32, Engine::kMemDma, no_repeat);
  EXPECT_EQ(flat.repeat, 0u);
  EXPECT_EQ(flat.start_bd, 4u);
  EXPECT_EQ(flat.bds.size(), 16u);
  EXPECT_EQ(flat.bds.back().use_next, 0u);
  EXPECT_EQ(flat.bds.front().next_bd, 5u);
  EXPECT_EQ(task_walk(decode_task(flat, {{16, 16}, 32, 0})), deep.walk());
}

TEST(TapBdChains, ChainLengthLimit) {
  P ten = P::full(std::vector<SymInt>(10, 2)).T();  // no two dimensions merge
  expect_error<ValueError>([&] { lower_to_bds(ten, 32, Engine::kSysDma); },
                           "dma_bd: the walk needs a chain of 32 BDs from BD 0, but the SysDMA has 16");
  BdTask mem = lower_to_bds(ten, 32, Engine::kMemDma);
  EXPECT_EQ(mem.bds.size(), 32u);
  EXPECT_EQ(task_walk(decode_task(mem, {std::vector<int64_t>(10, 2), 32, 0})), ten.walk());
}

TEST(TapBdChains, RepeatBecomesQueueRepeat) {
  P rep = P::full({4, 4, 4}).T().repeat(5);
  BdTask task = lower_to_bds(rep, 32, Engine::kCoreDma);
  ASSERT_EQ(task.bds.size(), 1u);
  EXPECT_EQ(task.repeat, 4u);
  EXPECT_EQ(task.bds[0].iter_size, 0u);
  std::vector<P> back = decode_task(task, {{4, 4, 4}, 32, 0});
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0], rep);
  // More runs than a queue push repeats: refused where one BD is required, chained otherwise.
  LowerOptions one;
  one.single_bd = true;
  EXPECT_NO_THROW(lower_to_bds(P::full({4, 4, 4}).T().repeat(256), 32, Engine::kCoreDma, one));
  expect_error<ValueError>(
      [&] {
        lower_to_bds(P::full({4, 4, 4}).T().repeat(257), 32, Engine::kCoreDma, one);
      },
      "dma_bd: the walk needs 4 dimensions, but one CoreDMA BD holds 3 plus the repeat, and its "
      "outermost dimension of 257 runs exceeds the queue repeat (dma_repeat_max = 255, at most "
      "256 runs); this transfer must fit one BD");
  EXPECT_EQ(lower_to_bds(P::full({4, 4, 4}).T().repeat(256), 32, Engine::kCoreDma, one).repeat, 255u);
  expect_error<ValueError>(
      [&] {
        lower_to_bds(P::full({4, 4, 4}).T().repeat(300), 32, Engine::kCoreDma);
      },
      "dma_bd: the walk needs a chain of 300 BDs from BD 0, but the CoreDMA has 16");
}

TEST(TapBdDecode, Errors) {
  spec::DmaBd bd;
  DecodeOptions o{{16}, 32, 0};
  expect_error<ValueError>([&] { decode_bd(bd, o); }, "dma_bd: the BD is not valid (BD_INVALID)");
  bd.valid = 1;
  bd.length = 5;
  bd.d0_size = 4;
  bd.d0_stride = 1;
  expect_error<ValueError>([&] { decode_bd(bd, o); }, "dma_bd: length is 5 words, but the sizes give 4 (BD_INVALID)");
  bd.length = 4;
  bd.d1_stride = -2;
  expect_error<ValueError>([&] { decode_bd(bd, o); }, "dma_bd: Stride 1 is -2 words; a walk's strides are >= 0");
  bd.d1_stride = 0;
  bd.addr_lo = 2;
  expect_error<ValueError>([&] { decode_bd(bd, o); }, "dma_bd: address 2 is not divisible by 4 (BD_MISALIGNED)");
  bd.addr_lo = 0;
  expect_error<ValueError>(
      [&] {
        decode_bd(bd, {{16}, 32, 64});
      },
      "dma_bd: address 0 is below the tensor's base address 64");
  std::vector<spec::DmaBd> table(3, bd);
  table[0].use_next = 1;
  table[0].next_bd = 1;
  table[1].use_next = 1;
  table[1].next_bd = 0;
  expect_error<ValueError>([&] { decode_chain(table, 0, 0, o); },
                           "dma_bd: the chain from BD 0 loops back to BD 0 (BD_CHAIN_LOOP)");
  table[1].next_bd = 7;
  expect_error<ValueError>([&] { decode_chain(table, 0, 0, o); },
                           "dma_bd: the chain from BD 0 names BD 7, but there are 3");
}

TEST(TapBdDecode, WrappingIteration) {
  // iteration wrap 2 over 4 runs starting at 1: offsets 1, 0, 1, 0 times 4 words.
  spec::DmaBd bd;
  bd.valid = 1;
  bd.length = 4;
  bd.d0_size = 4;
  bd.d0_stride = 1;
  bd.iter_size = 2;
  bd.iter_current = 1;
  bd.iter_stride = 4;
  std::vector<spec::DmaBd> table{bd};
  std::vector<P> walks = decode_chain(table, 0, 3, {{8}, 32, 0});
  ASSERT_EQ(walks.size(), 4u);
  EXPECT_EQ(to_list(task_walk(walks)), "[4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3]");
}

}  // namespace
}  // namespace axcore::tap
