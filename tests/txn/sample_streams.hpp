// Named sample streams: the checked-in fuzz corpus (corpus/NAME.txn) and the CLI tests' inputs.
// `txn_corpus_gen DIR` writes them; TxnCorpus.FilesAreCurrent checks the checked-in copies.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace txn_samples {

// The dispatch-time and static emissions of the same two transfers (AIE2): equivalent.
std::vector<uint32_t> aie2_static(uint32_t lock_value = 1);
std::vector<uint32_t> aie2_dynamic();

// Name -> stream, every sample (valid and invalid ones).
std::map<std::string, std::vector<uint32_t>> all();

}  // namespace txn_samples
