// Every decoder error has a test: the exact message, and the word it names.
#include <gtest/gtest.h>

#include "axcore/txn/decode.hpp"
#include "axcore/txn/writer.hpp"

using namespace axcore::txn;

namespace {

// Expects decode(words) to throw DecodeError with `message` about word `word`.
void expect_error(const std::vector<uint32_t>& words, const std::string& message, std::size_t word) {
  try {
    decode(words);
    ADD_FAILURE() << "decoded without error; expected: " << message;
  } catch (const DecodeError& e) {
    EXPECT_EQ(std::string(e.what()), message);
    EXPECT_EQ(e.word(), word);
  }
}

std::vector<uint32_t> stream() {
  Writer w(Device::aie2());
  w.write32(0x1D004, 1).tct(Dir::S2MM, 0, 0, 0);
  return w.words();  // header 0-3, write32 4-9, tct 10-13
}

// Sets the header's byte count to the stream's length.
std::vector<uint32_t> sized(std::vector<uint32_t> w) {
  w[3] = 4 * static_cast<uint32_t>(w.size());
  return w;
}

}  // namespace

TEST(TxnDecodeErrors, ShorterThanHeader) {
  expect_error({}, "stream shorter than the 4-word TXN header", 0);
  expect_error({1, 2, 3}, "stream shorter than the 4-word TXN header", 0);
}

TEST(TxnDecodeErrors, HeaderSizeDisagrees) {
  auto w = stream();
  w.push_back(0);
  expect_error(w, "TXN header gives 56 bytes, the stream has 60", 3);
}

TEST(TxnDecodeErrors, UnknownOpcode) {
  auto w = stream();
  w[10] = 0x1234;  // low byte 0x34 is no TXN opcode
  expect_error(w, "unknown TXN opcode 0x1234 at word 10", 10);
  w[10] = 0x85;
  expect_error(w, "unknown TXN opcode 0x85 at word 10", 10);
}

TEST(TxnDecodeErrors, OpcodeWithoutKnownLayoutIsUnknown) {
  // TXN names these opcodes but gives them no word layout; the decoder does not handle them and
  // says so as the seed does for any opcode it does not handle.
  auto w = stream();
  const std::pair<uint32_t, const char*> cases[] = {{0x2, "0x2"}, {0x9, "0x9"}, {0xB, "0xb"},    {0xD, "0xd"},
                                                    {0xE, "0xe"}, {0xF, "0xf"}, {0x302, "0x302"}};
  for (const auto& [op, text] : cases) {
    w[10] = op;
    expect_error(w, std::string("unknown TXN opcode ") + text + " at word 10", 10);
  }
}

TEST(TxnDecodeErrors, OpRunsPastTheStream) {
  auto w = stream();
  w.resize(12);  // the tct at word 10 needs 4 words
  expect_error(sized(w), "the op at word 10 runs past the stream", 10);
  w.resize(11);  // not even its length word
  expect_error(sized(w), "the op at word 10 runs past the stream", 10);
  auto b = stream();
  b.resize(10);
  b.insert(b.end(), {1, 0, 0x1D000, 32, 7});  // blockwrite of 4 data words, 1 present
  expect_error(sized(b), "the op at word 10 runs past the stream", 10);
}

TEST(TxnDecodeErrors, OpCountDisagrees) {
  auto w = stream();
  w[2] = 3;
  expect_error(w, "TXN header counts 3 ops, the stream has 2", 2);
}

TEST(TxnDecodeErrors, MalformedOpLengths) {
  auto w = stream();
  w[11] = 20;
  expect_error(w, "the tct at word 10 gives 20 bytes, its layout has 16", 11);
  w = stream();
  w[9] = 28;
  expect_error(w, "the write32 at word 4 gives size 28, its layout has 24", 9);
  w = stream();
  w.resize(10);
  w.insert(w.end(), {1, 0, 0x1D000, 12});
  expect_error(sized(w), "the blockwrite at word 10 gives 12 bytes; a blockwrite is 16 + 4 n bytes", 13);
  w = stream();
  w.resize(10);
  w.insert(w.end(), {0x84, 0});  // a custom op of length 0 would never advance
  expect_error(sized(w), "the merge_sync at word 10 gives 0 bytes; a custom op is 8 + 4 n bytes", 11);
}
