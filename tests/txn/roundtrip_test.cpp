// Writer -> decode -> writer is the identity for every op kind; the header is computed.
#include <gtest/gtest.h>

#include "axcore/txn/decode.hpp"
#include "axcore/txn/writer.hpp"

using namespace axcore::txn;

namespace {

const uint32_t kData[] = {0x11, 0x22, 0x33};
const uint32_t kPayload[] = {0xAB, 0xCD};

Writer every_op() {
  Writer w(Device::aie2());
  w.write32(0x0001D004, 0x400)
      .write32(0x1'2345'6788ull, 7)
      .maskwrite32(0x0221F000, 1, 0x3F)
      .maskpoll32(0x0001D220, 0, 0x1F)
      .maskpoll32(0x0001D228, 2, 0x3, true)
      .blockwrite(0x0231D020, kData)
      .tct(Dir::MM2S, 3, 1, 5, 2, 4)
      .ddr_patch(0x0001D004, 2, 0x1'0000'0400ull, 1)
      .loadpdi(9, 0x1000, 0x2'0000'0010ull)
      .preempt(3)
      .create_scratchpad(2, 0x8000)
      .update_reg(1, 2, 0xDEAD, 0x1D000)
      .noop()
      .custom(Opcode::READ_REGS, kPayload)
      .custom(Opcode::RECORD_TIMER, {})
      .custom(Opcode::MERGE_SYNC, kPayload);
  return w;
}

}  // namespace

TEST(TxnRoundTrip, HeaderIsComputed) {
  const Writer w = every_op();
  const auto words = w.words();
  const Header h = decode_header(words);
  EXPECT_EQ(h.num_ops, 16u);
  EXPECT_EQ(h.size, 4 * words.size());
  EXPECT_EQ(h.device, Device::aie2());
  // w0 = numRows << 24 | devGen << 16 | minor << 8 | major; w1 = numMemTileRows << 8 | numCols.
  EXPECT_EQ(words[0], 6u << 24 | 3u << 16 | 1u << 8 | 0u);
  EXPECT_EQ(words[1], 1u << 8 | 4u);
}

TEST(TxnRoundTrip, LayoutsAreTheTxnWords) {
  Writer w(Device::aie2());
  w.write32(0x1D004, 0x400)
      .maskwrite32(0x1F000, 1, 0x3F)
      .tct(Dir::S2MM, 1, 2, 3, 4, 5)
      .ddr_patch(0x1D004, 1, 0x400, 7)
      .loadpdi(5, 64, 0x10)
      .preempt(2)
      .create_scratchpad(3, 256)
      .update_reg(1, 2, 3, 4)
      .blockwrite(0x0231D020, kData);
  const auto s = w.words();
  // One op per row, as the TXN layouts list them.
  // clang-format off
  const std::vector<uint32_t> expect{
      0, 0, 0x1D004, 0, 0x400, 24,
      3, 0, 0x1F000, 0, 1, 0x3F, 28,
      0x80, 16, 0 | 2 << 8 | 1 << 16, 5 << 8 | 4 << 16 | 3u << 24,
      0x81, 48, 0, 0, 0, 7, 0x1D004, 0, 1, 0, 0x400, 0,
      8 | 5 << 16, 64, 0x10, 0,
      6 | 2 << 8,
      10 | 3 << 8, 256, 0, 0,
      12 | 1 << 8 | 2 << 16, 3, 4,
      1, 1 | 3 << 8, 0x0231D020, 16 + 12, 0x11, 0x22, 0x33};
  // clang-format on
  EXPECT_EQ(std::vector<uint32_t>(s.begin() + 4, s.end()), expect);
}

TEST(TxnRoundTrip, EncodeDecodeEncodeIsIdentityForEveryOpKind) {
  const auto words = every_op().words();
  const Decoded d = decode(words);
  ASSERT_EQ(d.ops.size(), 16u);
  Writer typed(d.header.device), verbatim(d.header.device);
  for (const Op& op : d.ops) {
    typed.add(op.body);
    verbatim.append(op);
  }
  EXPECT_EQ(typed.words(), words);
  EXPECT_EQ(verbatim.words(), words);

  // Each op's fields read back as written.
  EXPECT_EQ(std::get<Write32>(d.ops[1].body), (Write32{0x1'2345'6788ull, 7}));
  EXPECT_EQ(std::get<MaskPoll32>(d.ops[4].body), (MaskPoll32{0x1D228, 2, 3, true}));
  const auto& bw = std::get<BlockWrite>(d.ops[5].body);
  EXPECT_EQ(bw.col, 1u);
  EXPECT_EQ(bw.row, 3u);
  EXPECT_EQ(std::vector<uint32_t>(bw.data.begin(), bw.data.end()), (std::vector<uint32_t>{0x11, 0x22, 0x33}));
  EXPECT_EQ(std::get<Tct>(d.ops[6].body), (Tct{Dir::MM2S, 3, 1, 5, 2, 4}));
  EXPECT_EQ(std::get<DdrPatch>(d.ops[7].body), (DdrPatch{1, 0x1D004, 2, 0x1'0000'0400ull}));
  EXPECT_EQ(std::get<LoadPdi>(d.ops[8].body), (LoadPdi{9, 0x1000, 0x2'0000'0010ull}));
  EXPECT_EQ(std::get<Preempt>(d.ops[9].body).level, 3u);
  EXPECT_EQ(std::get<CreateScratchpad>(d.ops[10].body), (CreateScratchpad{2, 0x8000}));
  EXPECT_EQ(std::get<UpdateReg>(d.ops[11].body), (UpdateReg{1, 2, 0xDEAD, 0x1D000}));
  EXPECT_EQ(d.ops[12].opcode, Opcode::NOOP);
  EXPECT_EQ(std::get<CustomOp>(d.ops[15].body).opcode, Opcode::MERGE_SYNC);
  EXPECT_EQ(d.ops[15].words.size(), 4u);
}

TEST(TxnRoundTrip, DecodeDispatchesOnTheLowByteAndKeepsTheRest) {
  // aie-rt puts the tile in the op header's upper bytes: `opcode & 0xFF` still decodes it.
  std::vector<uint32_t> s{0, 0, 1, 0, 0x00020100u, 0, 0x1D004, 0, 5, 24};
  s[0] = Device::aie2().num_rows << 24 | 3 << 16 | 1 << 8;
  s[1] = 1 << 8 | 4;
  s[3] = 4 * static_cast<uint32_t>(s.size());
  const Decoded d = decode(s);
  ASSERT_EQ(d.ops.size(), 1u);
  EXPECT_EQ(std::get<Write32>(d.ops[0].body), (Write32{0x1D004, 5}));
  Writer verbatim(d.header.device);
  verbatim.append(d.ops[0]);
  EXPECT_EQ(verbatim.words(), s);
}

TEST(TxnRoundTrip, WriterRefusesValuesThatDoNotFit) {
  Writer w(Device::aie2());
  EXPECT_THROW(w.tct(Dir::S2MM, 0, 0, 256), std::out_of_range);
  EXPECT_THROW(w.loadpdi(0x10000, 0, 0), std::out_of_range);
  EXPECT_THROW(w.preempt(1u << 24), std::out_of_range);
  EXPECT_THROW(w.update_reg(256, 0, 0, 0), std::out_of_range);
  EXPECT_THROW(w.custom(Opcode::TCT, {}), std::invalid_argument);
  EXPECT_EQ(w.op_count(), 0u);
  EXPECT_EQ(w.words().size(), 4u);  // refused ops leave nothing behind
  Device big = Device::aie2();
  big.num_rows = 300;
  EXPECT_THROW(Writer(big).words(), std::out_of_range);
}
