// Writes the .npy fuzz seed corpus: ref_npy_corpus_gen tests/ref/corpus/npy
#include <filesystem>
#include <fstream>
#include <iostream>

#include "npy_samples.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ref_npy_corpus_gen DIR\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  for (const auto& [name, sample] : npy_samples::all()) {
    std::ofstream f(dir / (name + ".npy"), std::ios::binary);
    f.write(reinterpret_cast<const char*>(sample.bytes.data()), static_cast<std::streamsize>(sample.bytes.size()));
    if (!f) {
      std::cerr << "ref_npy_corpus_gen: cannot write " << (dir / (name + ".npy")) << "\n";
      return 1;
    }
  }
  return 0;
}
