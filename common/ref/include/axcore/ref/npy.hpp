// NumPy .npy files (format versions 1.0, 2.0, 3.0): float32 '<f4', float16 '<f2', int8 '|i1'
// (or '<i1'), int32 '<i4'; little-endian, C order only. Anything else — a truncated file, a
// wrong magic, another dtype, big-endian data, fortran_order True, trailing bytes, a malformed
// header — raises NpyError with a message saying what was found. The parser checks every
// length before it reads, so it never reads past the buffer.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "axcore/ref/ndarray.hpp"

namespace axcore::ref {

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using AnyArray = std::variant<NDArray<float>, NDArray<num::Float16>, NDArray<int8_t>, NDArray<int32_t>>;

AnyArray parse_npy(std::span<const uint8_t> bytes);
AnyArray load_npy(const std::string& path);
// The array if it holds T; NpyError naming both dtypes otherwise.
template <class T>
NDArray<T> npy_as(AnyArray a, const std::string& what = "array");
template <class T>
NDArray<T> load_npy_as(const std::string& path) {
  return npy_as<T>(load_npy(path), path);
}

// Format 1.0, or 2.0 when the header passes 65535 bytes (tens of thousands of axes), as NumPy
// writes; the data starts on a 64-byte boundary. parse_npy(to_npy(a)) is `a`, bit for bit
// (fuzzed by axnpy_fuzz, common/ref/fuzz).
template <class T>
std::vector<uint8_t> to_npy(const NDArray<T>& a);
template <class T>
void save_npy(const std::string& path, const NDArray<T>& a);
void save_npy(const std::string& path, const AnyArray& a);  // whichever dtype it holds

}  // namespace axcore::ref
