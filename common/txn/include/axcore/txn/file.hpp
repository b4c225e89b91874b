// TXN files (insts.bin, .txn): little-endian 32-bit words.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace axcore::txn {

// Throws std::runtime_error naming the file when it cannot be read or is not whole words.
std::vector<uint32_t> load(const std::filesystem::path& path);
void save(const std::filesystem::path& path, std::span<const uint32_t> words);
// Bytes as little-endian words; a trailing partial word is dropped.
std::vector<uint32_t> words_of_bytes(std::span<const uint8_t> bytes);

}  // namespace axcore::txn
