// The checked-in corpus is what the sample builders produce, and every file either traces or
// fails with a library error naming a word (never a crash or another exception).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "axcore/txn/compare.hpp"
#include "axcore/txn/file.hpp"
#include "axcore/txn/trace.hpp"
#include "sample_streams.hpp"

using namespace axcore::txn;

namespace {
const std::filesystem::path kCorpus = AXCORE_TXN_CORPUS;
}

TEST(TxnCorpus, FilesAreCurrent) {
  for (const auto& [name, words] : txn_samples::all())
    EXPECT_EQ(load(kCorpus / (name + ".txn")), words) << name << ": run txn_corpus_gen " << kCorpus;
}

TEST(TxnCorpus, EveryFileTracesOrFailsCleanly) {
  std::size_t files = 0, traced = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus)) {
    ++files;
    const auto words = load(entry.path());
    try {
      const Trace t = trace(words);
      EXPECT_FALSE(t.events.empty()) << entry.path();
      EXPECT_EQ(compare(words, words), std::vector<std::string>{}) << entry.path();
      ++traced;
    } catch (const Error&) {
      // Samples fail only when meant to; fuzzer-found files (fuzz_*) may be any malformed stream.
      const std::string name = entry.path().filename().string();
      EXPECT_TRUE(name.starts_with("bad_") || name.starts_with("fuzz_")) << entry.path();
    }
  }
  EXPECT_GE(files, txn_samples::all().size());
  EXPECT_GE(traced, 6u);
}

TEST(TxnCorpus, DynamicAndStaticSamplesAreEquivalent) {
  EXPECT_EQ(compare(txn_samples::aie2_static(), txn_samples::aie2_dynamic()),
            std::vector<std::string>{});
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
    EXPECT_EQ(std::string(e.what()),
              path.string() + ": 9 bytes is not a whole number of 32-bit words");
  }
  std::filesystem::remove(path);
  EXPECT_THROW(load(dir / "txn_no_such_file.txn"), std::runtime_error);
}
