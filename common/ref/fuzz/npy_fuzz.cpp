// libFuzzer target over the .npy reader (clang, ASan/UBSan). Properties, besides "no crash":
//  - a rejected input raises NpyError (the documented error) with a message starting "npy: ",
//    never another exception;
//  - an accepted array saves (to_npy) to bytes that parse to the same dtype, shape and values,
//    whose data part is the input's data part byte for byte, and which save again unchanged;
//  - npy_as<T> returns the array for its own dtype and raises NpyError for the other three.
// Each input runs twice: as given, and with the header length fixed up to end at the first '\n'
// after the prefix, so that mutations of the header text reach the dict parser.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <span>
#include <type_traits>
#include <variant>
#include <vector>

#include "axcore/ref/npy.hpp"

namespace {

using namespace axcore::ref;
using axcore::num::Float16;

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "npy_fuzz: property failed: %s\n", what);
    std::abort();
  }
}

template <class T>
bool rejects_as(const AnyArray& a) {
  try {
    (void)npy_as<T>(a);
    return false;
  } catch (const NpyError&) { return true; }
}

void check_npy_as(const AnyArray& a) {
  const bool ok[4] = {!rejects_as<float>(a), !rejects_as<Float16>(a), !rejects_as<int8_t>(a), !rejects_as<int32_t>(a)};
  for (std::size_t i = 0; i < 4; ++i) require(ok[i] == (i == a.index()), "npy_as accepts exactly the held dtype");
}

void run(std::span<const uint8_t> bytes) {
  AnyArray a;
  try {
    a = parse_npy(bytes);
  } catch (const NpyError& e) {
    require(std::strncmp(e.what(), "npy: ", 5) == 0, "an NpyError message starts with 'npy: '");
    return;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "npy_fuzz: parse_npy raised a non-NpyError: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "npy_fuzz: parse_npy raised a non-exception\n");
    std::abort();
  }
  const std::vector<uint8_t> saved = std::visit([](const auto& arr) { return to_npy(arr); }, a);
  const AnyArray b = parse_npy(saved);
  require(b.index() == a.index(), "re-parse keeps the dtype");
  std::visit(
      [&](const auto& arr) {
        using A = std::decay_t<decltype(arr)>;
        const A& other = std::get<A>(b);
        require(other.shape() == arr.shape(), "re-parse keeps the shape");
        require(other.size() == arr.size(), "re-parse keeps the element count");
        const std::size_t data_bytes = arr.size() * sizeof(typename A::value_type);
        // Bitwise: NaN payloads and the sign of zero are values too.
        require(data_bytes == 0 || std::memcmp(other.data().data(), arr.data().data(), data_bytes) == 0,
                "re-parse keeps every value's bits");
        require(data_bytes <= bytes.size() && data_bytes <= saved.size(), "data fits in both files");
        require(std::memcmp(bytes.data() + bytes.size() - data_bytes, saved.data() + saved.size() - data_bytes,
                            data_bytes) == 0,
                "the saved data bytes are the input's data bytes");
        require(to_npy(other) == saved, "saving the re-parsed array gives the same bytes");
      },
      a);
  check_npy_as(a);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  run({data, size});
  // The header length fixed up: the prefix is 10 bytes for format 1.x, 12 for 2.x and 3.x.
  if (size >= 12 && std::memcmp(data, "\x93NUMPY", 6) == 0 && data[6] >= 1 && data[6] <= 3) {
    const std::size_t prefix = data[6] == 1 ? 10 : 12;
    const void* nl = std::memchr(data + prefix, '\n', size - prefix);
    if (!nl) return 0;
    const std::size_t len = static_cast<std::size_t>(static_cast<const uint8_t*>(nl) - data) + 1 - prefix;
    std::vector<uint8_t> fixed(data, data + size);
    for (std::size_t i = 0; i < prefix - 8; ++i) fixed[8 + i] = static_cast<uint8_t>(len >> (8 * i));
    if (fixed != std::vector<uint8_t>(data, data + size)) run(fixed);
  }
  return 0;
}
