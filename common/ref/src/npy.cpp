#include "axcore/ref/npy.hpp"

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>

namespace axcore::ref {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

template <class T>
struct NpyType;
template <>
struct NpyType<float> {
  static constexpr const char* descr = "<f4";
  static constexpr const char* name = "float32";
};
template <>
struct NpyType<num::Float16> {
  static constexpr const char* descr = "<f2";
  static constexpr const char* name = "float16";
};
template <>
struct NpyType<int8_t> {
  static constexpr const char* descr = "|i1";
  static constexpr const char* name = "int8";
};
template <>
struct NpyType<int32_t> {
  static constexpr const char* descr = "<i4";
  static constexpr const char* name = "int32";
};

// A tiny parser of the header's Python dict literal.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view s) : s_(s) {}

  struct Header {
    std::string descr;
    bool fortran = false;
    Shape shape;
  };

  Header parse() {
    Header h;
    bool have_descr = false, have_fortran = false, have_shape = false;
    expect('{');
    for (;;) {
      skip_ws();
      if (peek() == '}') {
        ++pos_;
        break;
      }
      const std::string key = string_lit();
      expect(':');
      if (key == "descr") {
        h.descr = string_lit();
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran = boolean();
        have_fortran = true;
      } else if (key == "shape") {
        h.shape = tuple();
        have_shape = true;
      } else {
        error("unknown key '" + key + "'");
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != '}') {
        error("expected ',' or '}'");
      }
    }
    skip_ws();
    if (pos_ != s_.size()) error("text after the closing '}'");
    if (!have_descr || !have_fortran || !have_shape) error("missing one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    throw NpyError("npy: malformed header at character " + std::to_string(pos_) + ": " + what + " in \"" +
                   std::string(s_) + "\"");
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) error(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string string_lit() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"') error("expected a quoted string");
    ++pos_;
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != q) ++pos_;
    if (pos_ >= s_.size()) error("unterminated string");
    return std::string(s_.substr(start, pos_++ - start));
  }
  bool boolean() {
    skip_ws();
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    error("expected True or False");
  }
  Shape tuple() {
    expect('(');
    Shape shape;
    for (;;) {
      skip_ws();
      if (peek() == ')') {
        ++pos_;
        return shape;
      }
      if (peek() < '0' || peek() > '9') error("expected a dimension");
      std::size_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        const auto digit = static_cast<std::size_t>(peek() - '0');
        if (v > (std::numeric_limits<std::size_t>::max() - digit) / 10) error("dimension too large");
        v = v * 10 + digit;
        ++pos_;
      }
      shape.push_back(v);
      skip_ws();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ')') {
        error("expected ',' or ')'");
      }
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

template <class T>
AnyArray make_array(Shape shape, std::span<const uint8_t> data) {
  std::vector<T> v(data.size() / sizeof(T));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_same_v<T, num::Float16>) {
      v[i].bits = static_cast<uint16_t>(data[2 * i] | data[2 * i + 1] << 8);
    } else {
      using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint8_t>;
      U u = 0;
      for (std::size_t b = 0; b < sizeof(T); ++b) u = static_cast<U>(u | U{data[i * sizeof(T) + b]} << (8 * b));
      v[i] = std::bit_cast<T>(u);
    }
  }
  return NDArray<T>(std::move(shape), std::move(v));
}

}  // namespace

AnyArray parse_npy(std::span<const uint8_t> bytes) {
  if (bytes.size() < kMagicLen || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0) {
    throw NpyError("npy: not a .npy file (the first 6 bytes are not \\x93NUMPY)");
  }
  if (bytes.size() < kMagicLen + 2) throw NpyError("npy: truncated before the version bytes");
  const uint8_t major = bytes[6];
  std::size_t header_len = 0, prefix = 0;
  if (major == 1) {
    if (bytes.size() < 10) throw NpyError("npy: truncated inside the header length");
    header_len = bytes[8] | std::size_t{bytes[9]} << 8;
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw NpyError("npy: truncated inside the header length");
    header_len = bytes[8] | std::size_t{bytes[9]} << 8 | std::size_t{bytes[10]} << 16 | std::size_t{bytes[11]} << 24;
    prefix = 12;
  } else {
    throw NpyError("npy: format version " + std::to_string(major) + "." + std::to_string(bytes[7]) +
                   " is not supported (1.0, 2.0, 3.0)");
  }
  if (header_len > bytes.size() - prefix) {
    throw NpyError("npy: truncated: the header claims " + std::to_string(header_len) + " bytes, " +
                   std::to_string(bytes.size() - prefix) + " remain");
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + prefix), header_len);
  const HeaderParser::Header h = HeaderParser(text).parse();
  if (h.fortran) throw NpyError("npy: fortran_order is True; only C-order arrays are supported");
  std::size_t item = 0;
  std::string kind;
  if (h.descr == "<f4")
    kind = "f4", item = 4;
  else if (h.descr == "<f2")
    kind = "f2", item = 2;
  else if (h.descr == "|i1" || h.descr == "<i1")
    kind = "i1", item = 1;
  else if (h.descr == "<i4")
    kind = "i4", item = 4;
  else if (!h.descr.empty() && h.descr[0] == '>') {
    throw NpyError("npy: dtype '" + h.descr + "' is big-endian; only little-endian data is supported");
  } else {
    throw NpyError("npy: unsupported dtype '" + h.descr +
                   "' (supported: float32 '<f4', float16 '<f2', int8 '|i1', "
                   "int32 '<i4')");
  }
  std::size_t n = 0;
  try {
    n = shape_numel(h.shape);
  } catch (const std::overflow_error& e) { throw NpyError(std::string("npy: ") + e.what()); }
  if (n > std::numeric_limits<std::size_t>::max() / item)
    throw NpyError("npy: shape " + shape_str(h.shape) + " too large");
  const std::size_t need = n * item, have = bytes.size() - prefix - header_len;
  if (have < need) {
    throw NpyError("npy: truncated: shape " + shape_str(h.shape) + " of '" + h.descr + "' needs " +
                   std::to_string(need) + " data bytes, " + std::to_string(have) + " present");
  }
  if (have > need) {
    throw NpyError("npy: " + std::to_string(have - need) + " bytes after the data of shape " + shape_str(h.shape));
  }
  const auto data = bytes.subspan(prefix + header_len, need);
  if (kind == "f4") return make_array<float>(h.shape, data);
  if (kind == "f2") return make_array<num::Float16>(h.shape, data);
  if (kind == "i1") return make_array<int8_t>(h.shape, data);
  return make_array<int32_t>(h.shape, data);
}

AnyArray load_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw NpyError("npy: cannot open '" + path + "'");
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  try {
    return parse_npy(bytes);
  } catch (const NpyError& e) { throw NpyError(std::string(e.what()) + " (file '" + path + "')"); }
}

namespace {
const char* any_name(const AnyArray& a) {
  switch (a.index()) {
    case 0: return "float32";
    case 1: return "float16";
    case 2: return "int8";
    default: return "int32";
  }
}
}  // namespace

template <class T>
NDArray<T> npy_as(AnyArray a, const std::string& what) {
  if (auto* p = std::get_if<NDArray<T>>(&a)) return std::move(*p);
  throw NpyError("npy: " + what + " holds " + any_name(a) + ", expected " + NpyType<T>::name);
}

template <class T>
std::vector<uint8_t> to_npy(const NDArray<T>& a) {
  std::string shape = "(";
  for (std::size_t i = 0; i < a.rank(); ++i)
    shape += std::to_string(a.dim(i)) + (a.rank() == 1 ? "," : (i + 1 < a.rank() ? ", " : ""));
  shape += ")";
  const std::string dict =
      std::string("{'descr': '") + NpyType<T>::descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Format 1.0 (a 2-byte header length) unless the header needs more, then 2.0 (4 bytes), as
  // NumPy writes; the header is padded so that the data starts on a 64-byte boundary.
  const auto padded = [&dict](std::size_t prefix) {
    std::string h = dict;
    h.append((64 - (prefix + dict.size() + 1) % 64) % 64, ' ');
    return h + '\n';
  };
  std::size_t prefix = 10;
  std::string header = padded(prefix);
  if (header.size() > 0xFFFF) header = padded(prefix = 12);
  if (header.size() > 0xFFFFFFFF) {
    throw NpyError("npy: header of " + std::to_string(dict.size()) + " bytes too long for format 2.0");
  }
  std::vector<uint8_t> out(kMagic, kMagic + kMagicLen);
  out.push_back(prefix == 10 ? 1 : 2);
  out.push_back(0);
  for (std::size_t b = 0; b < prefix - 8; ++b) { out.push_back(static_cast<uint8_t>(header.size() >> (8 * b))); }
  out.insert(out.end(), header.begin(), header.end());
  for (const T& v : a.data()) {
    uint32_t u = 0;
    if constexpr (std::is_same_v<T, num::Float16>)
      u = v.bits;
    else if constexpr (sizeof(T) == 4)
      u = std::bit_cast<uint32_t>(v);
    else
      u = std::bit_cast<uint8_t>(v);
    for (std::size_t b = 0; b < sizeof(T); ++b) out.push_back(static_cast<uint8_t>(u >> (8 * b)));
  }
  return out;
}

template <class T>
void save_npy(const std::string& path, const NDArray<T>& a) {
  const std::vector<uint8_t> bytes = to_npy(a);
  std::ofstream f(path, std::ios::binary);
  if (!f) throw NpyError("npy: cannot create '" + path + "'");
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw NpyError("npy: write to '" + path + "' failed");
}

void save_npy(const std::string& path, const AnyArray& a) {
  std::visit([&](const auto& arr) { save_npy(path, arr); }, a);
}

#define AXCORE_NPY_INSTANTIATE(T)                              \
  template NDArray<T> npy_as<T>(AnyArray, const std::string&); \
  template std::vector<uint8_t> to_npy<T>(const NDArray<T>&);  \
  template void save_npy<T>(const std::string&, const NDArray<T>&);
AXCORE_NPY_INSTANTIATE(float)
AXCORE_NPY_INSTANTIATE(num::Float16)
AXCORE_NPY_INSTANTIATE(int8_t)
AXCORE_NPY_INSTANTIATE(int32_t)
#undef AXCORE_NPY_INSTANTIATE

}  // namespace axcore::ref
