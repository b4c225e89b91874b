#include "axcore/trace/record.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <sstream>
#include <stdexcept>
#include <vector>

using namespace axcore::trace;

TEST(TraceRecord, FormatParseRoundTrip) {
  Record r{42, 1000, 0, 2, Unit::MVM_ODR, Kind::MEM_WRITE, 0x1040, 256, 0xdeadbeefcafef00dULL, 0};
  const Record back = parse(format(r));
  EXPECT_TRUE(back.same_transaction(r));
  EXPECT_EQ(back.seq, 42u);
  EXPECT_EQ(back.cycle, 1000u);
}

TEST(TraceRecord, SameTransactionIgnoresCycleAndSeq) {
  Record a{1, 10, 0, 2, Unit::TOKEN, Kind::TOKEN, 0, 0, 0, 0x80000088};
  Record b = a;
  b.seq = 7;
  b.cycle = 99;
  EXPECT_TRUE(a.same_transaction(b));
  b.token ^= 1;
  EXPECT_FALSE(a.same_transaction(b));
}

TEST(TraceRecord, EveryUnitAndKindNameRoundTrips) {
  for (unsigned u = 0; u <= static_cast<unsigned>(Unit::TOKEN); ++u)
    EXPECT_EQ(parse_unit(to_string(static_cast<Unit>(u))), static_cast<Unit>(u));
  for (unsigned k = 0; k <= static_cast<unsigned>(Kind::REG_WRITE); ++k)
    EXPECT_EQ(parse_kind(to_string(static_cast<Kind>(k))), static_cast<Kind>(k));
  EXPECT_EQ(dma_unit(true, 1), Unit::DMA_MM2S1);
  EXPECT_EQ(dma_unit(false, 3), Unit::DMA_S2MM3);
  EXPECT_THROW(dma_unit(false, 4), std::out_of_range);
}

TEST(TraceRecord, ReaderRejectsMalformedLinesNamingThem) {
  std::istringstream bad("# axcore-trace v1\n1 2 0 2 mvm.odr mem_write 0x0 4 0x1\n");
  try {
    read_trace(bad);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("trace line 2"), std::string::npos) << e.what();
  }
  std::istringstream unit("# axcore-trace v1\n1 2 0 2 nosuch mem_write 0x0 4 0x1 0x0\n");
  EXPECT_THROW(read_trace(unit), std::invalid_argument);
  std::istringstream noheader("1 2 0 2 mvm.odr mem_write 0x0 4 0x1 0x0\n");
  EXPECT_THROW(read_trace(noheader), std::invalid_argument);
}

TEST(TraceRecord, WriterThenReader) {
  std::stringstream s;
  Writer w(s);
  for (uint64_t i = 0; i < 5; ++i) w.write(Record{i, i * 3, 0, 0, Unit::DMA_S2MM0, Kind::MEM_WRITE, i * 64, 64, i, 0});
  EXPECT_EQ(w.count(), 5u);
  auto recs = read_trace(s);
  ASSERT_EQ(recs.size(), 5u);
  EXPECT_EQ(recs[3].addr, 192u);
}

TEST(TraceRecord, Fnv1aKnownValues) {
  EXPECT_EQ(fnv1a64({}), 0xcbf29ce484222325ULL);
  const uint8_t a[] = {'a'};
  EXPECT_EQ(fnv1a64(a), 0xaf63dc4c8601ec8cULL);
}

// fnv1a64_each equals one fnv1a64 per buffer: equal and unequal lengths (the tails past the
// shortest of a group of four), empty buffers, counts that are not a multiple of four.
TEST(TraceRecord, Fnv1aEachEqualsOneCallPerBuffer) {
  std::vector<std::vector<uint8_t>> data;
  uint32_t x = 27;
  for (std::size_t len : {4096u, 4096u, 4096u, 4096u, 4096u, 0u, 7u, 64u, 65u, 1u, 4096u}) {
    std::vector<uint8_t> v(len);
    for (auto& b : v) b = static_cast<uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
    data.push_back(std::move(v));
  }
  for (std::size_t count = 0; count <= data.size(); ++count) {
    std::vector<std::span<const uint8_t>> bufs(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(count));
    std::vector<uint64_t> got(count);
    fnv1a64_each(bufs, got);
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(got[i], fnv1a64(bufs[i])) << count << " buffers, #" << i;
  }
  std::vector<uint64_t> one(1);
  EXPECT_THROW(fnv1a64_each({}, one), std::invalid_argument);
}

// The same with groups of 32 and more (the AVX-512 path, where the host has it: 32 chains side by
// side over the shortest buffer's whole 8-byte words, then each tail alone): lengths that differ
// by a few bytes, a short one inside a group, buffers that overlap and bytes of every value.
TEST(TraceRecord, Fnv1aEachInGroupsOf32EqualsOneCallPerBuffer) {
  std::vector<uint8_t> pool(80 * 4096);
  uint32_t x = 7;
  for (auto& b : pool) b = static_cast<uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
  std::vector<std::span<const uint8_t>> all;
  for (std::size_t i = 0; i < 75; ++i) {
    const std::size_t len = i == 40 ? 13 : 4096 - (i * 5) % 17;
    all.push_back(std::span<const uint8_t>(pool).subspan(i * 4093, len));
  }
  for (std::size_t count : {31u, 32u, 33u, 64u, 70u, 75u}) {
    const auto bufs = std::span(all).first(count);
    std::vector<uint64_t> got(count);
    fnv1a64_each(bufs, got);
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(got[i], fnv1a64(bufs[i])) << count << " buffers, #" << i;
  }
  // Groups of 8 to 31 (their last vector's spare lanes unused), 4 KiB tiles side by side as LoadIMC
  // hashes them (each 64-byte block staged before the gathers).
  std::vector<std::span<const uint8_t>> tiles;
  for (std::size_t i = 0; i < 72; ++i) tiles.push_back(std::span<const uint8_t>(pool).subspan(i * 4096, 4096));
  for (std::size_t count : {8u, 9u, 17u, 24u, 40u, 72u}) {
    const auto bufs = std::span(tiles).first(count);
    std::vector<uint64_t> got(count);
    fnv1a64_each(bufs, got);
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(got[i], fnv1a64(bufs[i])) << count << " tiles, #" << i;
  }
}
