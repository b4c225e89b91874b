// Named .npy samples: the checked-in fuzz seed corpus (corpus/npy/NAME.npy) and the tests' inputs.
// `ref_npy_corpus_gen DIR` writes them; NpyCorpus.FilesAreCurrent checks the checked-in copies.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace npy_samples {

// A .npy file as NumPy writes it, built by hand: magic, version major.0, the header length
// (2 bytes for 1.x, 4 for 2.x/3.x), `dict` padded with spaces and a '\n' to a 64-byte boundary,
// then `data`.
std::vector<uint8_t> hand_npy(const std::string& dict, const std::vector<uint8_t>& data, uint8_t major = 1);

struct Sample {
  std::vector<uint8_t> bytes;
  std::string error;  // "" for a valid file; else a part of the NpyError message it must raise
};

// Name -> sample: one valid file per dtype (f4, f2, i1, i4) and rank 0..3, a format 2.0 file, an
// empty array, and one file per rejection (truncated, wrong magic, unsupported dtype, big-endian,
// Fortran order, malformed headers, trailing bytes, unknown version); rejected ones are "bad_*".
std::map<std::string, Sample> all();

}  // namespace npy_samples
