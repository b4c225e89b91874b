// The checked-in .npy seed corpus is what npy_samples builds, and every file in it parses or
// fails with the NpyError its name promises (the fuzz smoke test starts from these files).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <variant>

#include "axcore/ref/npy.hpp"
#include "npy_samples.hpp"

namespace axcore::ref {
namespace {

const std::filesystem::path kCorpus = AXCORE_NPY_CORPUS;

std::vector<uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(NpyCorpus, FilesAreCurrent) {
  for (const auto& [name, sample] : npy_samples::all()) {
    EXPECT_EQ(read_file(kCorpus / (name + ".npy")), sample.bytes) << name << ": run ref_npy_corpus_gen " << kCorpus;
  }
}

TEST(NpyCorpus, EveryFileParsesOrFailsAsNamed) {
  const auto samples = npy_samples::all();
  std::size_t valid = 0, rejected = 0;
  std::map<std::size_t, std::size_t> ranks;  // rank -> valid files of that rank
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus)) {
    const std::string name = entry.path().stem().string();
    const auto it = samples.find(name);
    ASSERT_NE(it, samples.end()) << entry.path() << " is not a sample: regenerate with ref_npy_corpus_gen";
    try {
      const AnyArray a = load_npy(entry.path().string());
      EXPECT_EQ(it->second.error, "") << name << " parsed";
      const auto saved = std::visit([](const auto& arr) { return to_npy(arr); }, a);
      if (name != "i1_v2") {  // the one hand-written file; the others are to_npy's own output
        EXPECT_EQ(saved, it->second.bytes) << name << ": re-saved bytes differ";
      }
      ++ranks[std::visit([](const auto& arr) { return arr.rank(); }, a)];
      ++valid;
    } catch (const NpyError& e) {
      EXPECT_NE(it->second.error, "") << name << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(it->second.error), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(entry.path().string()), std::string::npos) << "names the file";
      ++rejected;
    }
  }
  EXPECT_EQ(valid + rejected, samples.size());
  EXPECT_GE(rejected, 5u);  // truncated, magic, dtype, Fortran, header
  for (std::size_t r = 0; r < 4; ++r) EXPECT_GE(ranks[r], 4u) << "rank " << r << ": one file per dtype";
}

}  // namespace
}  // namespace axcore::ref
