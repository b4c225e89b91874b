// The checked-in corpus is what the sample builders produce, and every file either traces or
// fails with a library error naming a word (never a crash or another exception).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "axcore/txn/compare.hpp"
#include "axcore/txn/file.hpp"
#include "axcore/txn/trace.hpp"
#include "sample_streams.hpp"

using namespace axcore::txn;

namespace {
const std::filesystem::path kCorpus = AXCORE_TXN_CORPUS;

std::vector<uint8_t> bytes_of(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}
}  // namespace

TEST(TxnCorpus, FilesAreCurrent) {
  for (const auto& [name, words] : txn_samples::all())
    EXPECT_EQ(load(kCorpus / (name + ".txn")), words) << name << ": run txn_corpus_gen " << kCorpus;
}

TEST(TxnCorpus, EveryFileTracesOrFailsCleanly) {
  std::size_t files = 0, traced = 0;
  std::size_t fuzz_found = 0, fuzz_traced = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kCorpus)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    const bool from_fuzzer = entry.path().parent_path().filename() == "fuzz";
    fuzz_found += from_fuzzer;
    // The fuzzer reads its inputs as bytes (a trailing partial word dropped); samples are words.
    const auto words = from_fuzzer ? words_of_bytes(bytes_of(entry.path())) : load(entry.path());
    try {
      const Trace t = trace(words);
      EXPECT_TRUE(from_fuzzer || !t.events.empty()) << entry.path();
      fuzz_traced += from_fuzzer;
      EXPECT_EQ(compare(words, words), std::vector<std::string>{}) << entry.path();
      ++traced;
    } catch (const Error&) {
      // Samples fail only when meant to; fuzzer-found files (fuzz/) may be any malformed stream.
      const std::string name = entry.path().filename().string();
      EXPECT_TRUE(name.starts_with("bad_") || from_fuzzer) << entry.path();
    }
  }
  EXPECT_GE(files, txn_samples::all().size());
  EXPECT_GE(fuzz_found, 400u) << "the merged fuzzer corpus is checked in under corpus/fuzz/";
  EXPECT_GE(traced, 6u);
  // The merged corpus reaches the tracer, not only the decoder's error paths.
  EXPECT_GE(fuzz_traced, 50u);
  std::cout << files << " corpus files (" << fuzz_found << " from the fuzzer), " << traced << " trace (" << fuzz_traced
            << " from the fuzzer)\n";
}

TEST(TxnCorpus, DynamicAndStaticSamplesAreEquivalent) {
  EXPECT_EQ(compare(txn_samples::aie2_static(), txn_samples::aie2_dynamic()), std::vector<std::string>{});
  EXPECT_EQ(compare(txn_samples::aie2_static(2), txn_samples::aie2_dynamic()).size(), 1u);
}

TEST(TxnFile, LoadIsLittleEndianAndRefusesPartialWords) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto path = dir / "txn_file_test.txn";
  save(path, std::vector<uint32_t>{0x04030201u, 0xA0B0C0D0u});
  EXPECT_EQ(load(path), (std::vector<uint32_t>{0x04030201u, 0xA0B0C0D0u}));
  {
    std::ofstream f(path, std::ios::binary | std::ios::app);
    f.put('\x01');
  }
  try {
    load(path);
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ": 9 bytes is not a whole number of 32-bit words");
  }
  std::filesystem::remove(path);
  EXPECT_THROW(load(dir / "txn_no_such_file.txn"), std::runtime_error);
}
