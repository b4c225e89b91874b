#include "axcore/txn/file.hpp"

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace axcore::txn {

std::vector<uint32_t> words_of_bytes(std::span<const uint8_t> b) {
  std::vector<uint32_t> w(b.size() / 4);
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] =
        uint32_t{b[4 * i]} | uint32_t{b[4 * i + 1]} << 8 | uint32_t{b[4 * i + 2]} << 16 | uint32_t{b[4 * i + 3]} << 24;
  return w;
}

std::vector<uint32_t> load(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open");
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw std::runtime_error(path.string() + ": read error");
  if (bytes.size() % 4 != 0)
    throw std::runtime_error(path.string() + ": " + std::to_string(bytes.size()) +
                             " bytes is not a whole number of 32-bit words");
  return words_of_bytes(bytes);
}

void save(const std::filesystem::path& path, std::span<const uint32_t> words) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(path.string() + ": cannot create");
  for (uint32_t w : words) {
    const char b[4] = {static_cast<char>(w & 0xFF), static_cast<char>((w >> 8) & 0xFF),
                       static_cast<char>((w >> 16) & 0xFF), static_cast<char>(w >> 24)};
    out.write(b, 4);
  }
  if (!out) throw std::runtime_error(path.string() + ": write error");
}

}  // namespace axcore::txn
