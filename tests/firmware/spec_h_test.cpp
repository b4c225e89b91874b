// axfw/spec.h (the firmware's C header) against spec.hpp: every register of every tile, the
// parameters and the struct fields the firmware uses.
#include <axfw/spec.h>
#include <gtest/gtest.h>

#include <axcore/spec.hpp>
#include <string_view>
#include <vector>

namespace {

namespace S = axcore::spec;

struct Row {
  std::string_view name;
  uint32_t offset, count, stride, words, reset;
  S::Access access;
  uint32_t mask;
  bool memory;
};

#define AXFW_ROW(n, off, cnt, str, w, rst, acc, m, mem) Row{#n, off, cnt, str, w, rst, S::Access::acc, m, mem != 0},

template <size_t N>
void expect_same(const std::vector<Row>& c, const std::array<S::RegisterInfo, N>& cpp) {
  ASSERT_EQ(c.size(), cpp.size());
  for (size_t i = 0; i < N; ++i) {
    SCOPED_TRACE(std::string(cpp[i].name));
    EXPECT_EQ(c[i].name, cpp[i].name);
    EXPECT_EQ(c[i].offset, cpp[i].offset);
    EXPECT_EQ(c[i].count, cpp[i].count);
    EXPECT_EQ(c[i].stride, cpp[i].stride);
    EXPECT_EQ(c[i].words, cpp[i].words);
    EXPECT_EQ(c[i].reset, cpp[i].reset);
    EXPECT_EQ(c[i].access, cpp[i].access);
    EXPECT_EQ(c[i].mask, cpp[i].field_mask);
    EXPECT_EQ(c[i].memory, cpp[i].memory);
  }
}

TEST(FirmwareSpecHeader, RegisterTablesMatchSpecHpp) {
  expect_same(std::vector<Row>{AXC_SHIM_REGISTERS(AXFW_ROW)}, S::shim::kRegisters);
  expect_same(std::vector<Row>{AXC_MEM_REGISTERS(AXFW_ROW)}, S::mem::kRegisters);
  expect_same(std::vector<Row>{AXC_CORE_REGISTERS(AXFW_ROW)}, S::core::kRegisters);
}

TEST(FirmwareSpecHeader, IdentityParamsAndFields) {
  EXPECT_EQ((uint64_t{AXC_SPEC_HASH_HI} << 32) | AXC_SPEC_HASH_LO, S::kSpecHash);
  EXPECT_EQ(AXC_ID_MAGIC, S::kIdMagic);
  EXPECT_EQ(AXC_TXN_DEV_GEN, S::kTxnDevGen);
  EXPECT_EQ(AXC_TOKEN_FIFO_DEPTH, S::param::token_fifo_depth);
  EXPECT_EQ(AXC_FIRST_CORE_ROW, S::param::first_core_row);
  EXPECT_EQ(AXC_SHIM_TOKEN_POP_OFFSET, S::shim::TOKEN_POP.offset);
  EXPECT_EQ(AXC_CORE_Q_PUSH_OFFSET, S::core::Q_PUSH.offset);
  EXPECT_EQ(AXC_ERROR_CODE_WATCHDOG, static_cast<uint32_t>(S::ErrorCode::WATCHDOG));
  // A token built with spec.hpp decodes with the C field macros.
  S::Token t;
  t.col = 0;
  t.row = 3;
  t.dir = 1;
  t.channel = 9;
  t.tag = 0x55;
  t.error = 1;
  t.valid = 1;
  const uint32_t w = t.encode_word();
  auto f = [&](uint32_t lsb, uint32_t width) { return (w >> lsb) & ((1u << width) - 1); };
  EXPECT_EQ(f(AXC_TOKEN_ROW_LSB, AXC_TOKEN_ROW_WIDTH), 3u);
  EXPECT_EQ(f(AXC_TOKEN_DIR_LSB, AXC_TOKEN_DIR_WIDTH), 1u);
  EXPECT_EQ(f(AXC_TOKEN_CHANNEL_LSB, AXC_TOKEN_CHANNEL_WIDTH), 9u);
  EXPECT_EQ(f(AXC_TOKEN_TAG_LSB, AXC_TOKEN_TAG_WIDTH), 0x55u);
  EXPECT_EQ(f(AXC_TOKEN_ERROR_LSB, AXC_TOKEN_ERROR_WIDTH), 1u);
  EXPECT_EQ(f(AXC_TOKEN_VALID_LSB, AXC_TOKEN_VALID_WIDTH), 1u);
  EXPECT_EQ(AXC_DMA_BD_WORDS, 16u);
  EXPECT_EQ(AXC_DATAPATH_DESC_PROGRAM_WORD, 140u);
}

// The C header's address decode (the TXN player's queue check uses it) agrees with spec.hpp's.
TEST(FirmwareSpecHeader, AddressDecodeMatchesSpecHpp) {
  uint32_t x = 12345;
  for (int i = 0; i < 2000; ++i) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    const uint64_t addr = i % 100 == 0 ? (uint64_t{1} << 32) | x : x;
    const auto t = S::decode_addr(addr);
    ASSERT_EQ(axc_addr_in_window(addr) != 0, t.has_value());
    if (!t) continue;
    EXPECT_EQ(axc_addr_col(addr), t->col);
    EXPECT_EQ(axc_addr_row(addr), t->row);
    EXPECT_EQ(axc_addr_offset(addr), t->offset);
    EXPECT_EQ(axc_tile_kind(t->row), static_cast<unsigned>(t->kind));
    EXPECT_EQ(axc_tile_addr(t->col, t->row, t->offset), addr);
  }
  EXPECT_EQ(axc_tile_kind(AXC_SHIM_ROW), AXC_TILE_KIND_SHIM);
  EXPECT_EQ(axc_tile_kind(AXC_MEM_ROW), AXC_TILE_KIND_MEM);
  EXPECT_EQ(axc_tile_kind(AXC_FIRST_CORE_ROW + 1), AXC_TILE_KIND_CORE);
  for (uint32_t q = 0; q < AXC_CORE_Q_PUSH_COUNT; ++q) {
    const uint32_t off = S::core::Q_PUSH.at(q);
    EXPECT_TRUE(axc_reg_element(off, AXC_CORE_Q_PUSH_OFFSET, AXC_CORE_Q_PUSH_COUNT, AXC_CORE_Q_PUSH_STRIDE));
    EXPECT_FALSE(axc_reg_element(off + 4, AXC_CORE_Q_PUSH_OFFSET, AXC_CORE_Q_PUSH_COUNT, AXC_CORE_Q_PUSH_STRIDE));
  }
  EXPECT_FALSE(axc_reg_element(S::core::Q_PUSH.at(AXC_CORE_Q_PUSH_COUNT), AXC_CORE_Q_PUSH_OFFSET, AXC_CORE_Q_PUSH_COUNT,
                               AXC_CORE_Q_PUSH_STRIDE));
  EXPECT_EQ(axc_field(0xABCD1234u, 8, 8), 0x12u);
  EXPECT_EQ(axc_field(0xABCD1234u, 0, 32), 0xABCD1234u);
}

}  // namespace
