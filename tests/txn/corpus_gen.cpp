// txn_corpus_gen DIR: writes every sample stream as DIR/NAME.txn (regenerates tests/txn/corpus).
#include <filesystem>
#include <iostream>

#include "axcore/txn/file.hpp"
#include "sample_streams.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: txn_corpus_gen DIR\n";
    return 2;
  }
  try {
    for (const auto& [name, words] : txn_samples::all())
      axcore::txn::save(std::filesystem::path(argv[1]) / (name + ".txn"), words);
  } catch (const std::exception& e) {
    std::cerr << "txn_corpus_gen: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
