#include "npy_samples.hpp"

#include <bit>
#include <limits>

#include "axcore/ref/npy.hpp"

namespace npy_samples {

using axcore::num::Float16;
using axcore::ref::NDArray;
using axcore::ref::Shape;
using axcore::ref::shape_numel;
using axcore::ref::to_npy;

std::vector<uint8_t> hand_npy(const std::string& dict, const std::vector<uint8_t>& data, uint8_t major) {
  std::string header = dict;
  const std::size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<uint8_t> out{0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  for (std::size_t b = 0; b < prefix - 8; ++b) out.push_back(static_cast<uint8_t>(header.size() >> (8 * b)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

namespace {

// Element i of each dtype: ordinary values with the edge encodings among the first ones.
float f4(std::size_t i) {
  const float edge[] = {1.5f,
                        -0.0f,
                        std::numeric_limits<float>::quiet_NaN(),
                        -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::denorm_min(),
                        std::numeric_limits<float>::max()};
  return i < 6 ? edge[i] : static_cast<float>(i) * 0.25f - 3.0f;
}
Float16 f2(std::size_t i) {
  const uint16_t edge[] = {0x3C00, 0x8000, 0x7E00, 0xFC00, 0x0001, 0x7BFF};
  return Float16{i < 6 ? edge[i] : static_cast<uint16_t>(0x3000 + 0x111 * i)};
}
int8_t i1(std::size_t i) {
  const int8_t edge[] = {-1, -128, 127, 0};
  return i < 4 ? edge[i] : static_cast<int8_t>(i * 37);
}
int32_t i4(std::size_t i) {
  const int32_t edge[] = {0x12345678, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), -1};
  return i < 4 ? edge[i] : static_cast<int32_t>(i * 2654435761u);
}

template <class T>
std::vector<uint8_t> valid(const Shape& shape, T (*value)(std::size_t)) {
  std::vector<T> v(shape_numel(shape));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(i);
  return to_npy(NDArray<T>(shape, std::move(v)));
}

const std::string kDict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

std::string with(std::string dict, const std::string& from, const std::string& to) {
  return dict.replace(dict.find(from), from.size(), to);
}

}  // namespace

std::map<std::string, Sample> all() {
  std::map<std::string, Sample> s;
  const Shape shapes[] = {{}, {5}, {2, 3}, {2, 2, 3}};
  for (std::size_t rank = 0; rank < 4; ++rank) {
    const std::string r = "_rank" + std::to_string(rank);
    s["f4" + r] = {valid(shapes[rank], f4), ""};
    s["f2" + r] = {valid(shapes[rank], f2), ""};
    s["i1" + r] = {valid(shapes[rank], i1), ""};
    s["i4" + r] = {valid(shapes[rank], i4), ""};
  }
  s["i4_empty"] = {valid(Shape{3, 0}, i4), ""};
  // Version 2.0, double quotes, '<i1', no trailing comma.
  s["i1_v2"] = {hand_npy("{\"descr\": \"<i1\", \"fortran_order\": False, \"shape\": (3,)}", {0xFF, 0x80, 0x7F}, 2), ""};

  const std::vector<uint8_t> data24(24, 0x3F);  // (2, 3) of float32
  std::vector<uint8_t> truncated = hand_npy(kDict, data24);
  truncated.resize(truncated.size() - 3);
  s["bad_truncated"] = {truncated, "truncated: shape (2, 3) of '<f4' needs 24 data bytes, 21 present"};
  std::vector<uint8_t> header_cut = hand_npy(kDict, data24);
  header_cut.resize(40);
  s["bad_truncated_header"] = {header_cut, "truncated: the header claims 118 bytes, 30 remain"};
  std::vector<uint8_t> magic = hand_npy(kDict, data24);
  magic[1] = 'M';
  s["bad_magic"] = {magic, "not a .npy file"};
  s["bad_dtype"] = {hand_npy(with(kDict, "<f4", "<f8"), std::vector<uint8_t>(48)), "unsupported dtype '<f8'"};
  s["bad_dtype_big_endian"] = {hand_npy(with(kDict, "<f4", ">f4"), data24), "is big-endian"};
  s["bad_fortran"] = {hand_npy(with(kDict, "False", "True"), data24), "fortran_order is True"};
  s["bad_header_unterminated"] = {hand_npy("{'descr': '<f4, 'fortran_order': False", {}), "malformed header"};
  s["bad_header_missing_key"] = {hand_npy("{'descr': '<f4', 'shape': (2, 3), }", data24), "missing one of"};
  s["bad_header_dimension"] = {hand_npy(with(kDict, "(2, 3)", "(2, x)"), data24), "expected a dimension"};
  s["bad_trailing"] = {hand_npy(kDict, std::vector<uint8_t>(25, 0x3F)), "1 bytes after the data"};
  std::vector<uint8_t> version = hand_npy(kDict, data24);
  version[6] = 9;
  s["bad_version"] = {version, "format version 9.0"};
  return s;
}

}  // namespace npy_samples
