#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include "axcore/ref/layout.hpp"
#include "axcore/ref/npy.hpp"
#include "npy_samples.hpp"
#include "op_test_util.hpp"

namespace axcore::ref {
namespace {

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

using npy_samples::hand_npy;

void expect_npy_error(const std::vector<uint8_t>& b, const std::string& text) {
  try {
    (void)parse_npy(b);
    ADD_FAILURE() << "accepted; expected an error containing: " << text;
  } catch (const NpyError& e) { EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what(); }
}

TEST(Npy, ReadsHandWrittenFiles) {
  // float32 (2, 3): 1..6
  std::vector<uint8_t> data;
  for (int i = 1; i <= 6; ++i) {
    const float f = static_cast<float>(i);
    const auto u = std::bit_cast<uint32_t>(f);
    for (int b = 0; b < 4; ++b) data.push_back(static_cast<uint8_t>(u >> (8 * b)));
  }
  const auto a =
      npy_as<float>(parse_npy(hand_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data)));
  EXPECT_EQ(a.shape(), (Shape{2, 3}));
  EXPECT_EQ(a({1, 2}), 6.0f);
  // int8 1-D, version 2.0, double-quoted keys, no trailing comma.
  const auto b = npy_as<int8_t>(
      parse_npy(hand_npy("{\"descr\": \"|i1\", \"fortran_order\": False, \"shape\": (3,)}", {0xFF, 0x80, 0x7F}, 2)));
  EXPECT_EQ(b.data(), (std::vector<int8_t>{-1, -128, 127}));
  // A 0-d int32 scalar.
  const auto c = npy_as<int32_t>(
      parse_npy(hand_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", {0x78, 0x56, 0x34, 0x12})));
  EXPECT_EQ(c.rank(), 0u);
  EXPECT_EQ(c.data()[0], 0x12345678);
  // float16 and an empty array.
  const auto d =
      npy_as<num::Float16>(parse_npy(hand_npy("{'descr': '<f2', 'fortran_order': False, 'shape': (1, 0), }", {})));
  EXPECT_EQ(d.size(), 0u);
}

template <class T>
void roundtrip(const NDArray<T>& a) {
  const std::vector<uint8_t> b = to_npy(a);
  EXPECT_EQ(b.size() % 64, (a.size() * sizeof(T)) % 64);  // header is 64-byte aligned
  const NDArray<T> r = npy_as<T>(parse_npy(b));
  EXPECT_EQ(r.shape(), a.shape());
  ASSERT_EQ(r.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(r.data()[i] == a.data()[i]);
}

TEST(Npy, RoundTripsEveryDtype) {
  roundtrip(NDArray<float>(Shape{2, 2, 3}, {1, -2, 3.5f, 0, 1e30f, -0.0f, 7, 8, 9, 10, 11, 12}));
  roundtrip(NDArray<int8_t>(Shape{5}, {1, -1, 127, -128, 0}));
  roundtrip(NDArray<int32_t>(Shape{1, 2}, {INT32_MIN, INT32_MAX}));
  roundtrip(NDArray<num::Float16>(Shape{2}, {num::Float16{0x3C00}, num::Float16{0xFC00}}));
  roundtrip(NDArray<float>(Shape{}, {42.0f}));
  const auto path =
      (std::filesystem::temp_directory_path() / ("axcore_npy_" + std::to_string(::getpid()) + ".npy")).string();
  const NDArray<int32_t> a(Shape{3, 1}, {4, 5, 6});
  save_npy(path, a);
  EXPECT_EQ(load_npy_as<int32_t>(path).data(), a.data());
  try {
    (void)load_npy_as<float>(path);
    ADD_FAILURE() << "dtype mismatch accepted";
  } catch (const NpyError& e) {
    EXPECT_NE(std::string(e.what()).find("holds int32, expected float32"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
  EXPECT_THROW((void)load_npy(path), NpyError);
}

// NumPy's rule: format 1.0 while the header fits its 2-byte length, 2.0 beyond (a shape of
// tens of thousands of axes); the reader takes both back.
TEST(Npy, WritesFormat2OnlyWhenTheHeaderNeedsIt) {
  const auto small = to_npy(NDArray<int8_t>(Shape(1000, 1), {7}));
  EXPECT_EQ(small[6], 1);
  EXPECT_EQ(small.size() % 64, 1u);
  const NDArray<int8_t> a(Shape(30000, 1), {-5});
  const auto b = to_npy(a);
  ASSERT_GT(b.size(), 0x10000u);
  EXPECT_EQ(b[6], 2);
  EXPECT_EQ(b[7], 0);
  const std::size_t header_len = b[8] | std::size_t{b[9]} << 8 | std::size_t{b[10]} << 16 | std::size_t{b[11]} << 24;
  EXPECT_GT(header_len, 0xFFFFu);
  EXPECT_EQ((12 + header_len) % 64, 0u);
  EXPECT_EQ(b.size(), 12 + header_len + 1);
  const auto r = npy_as<int8_t>(parse_npy(b));
  EXPECT_EQ(r.shape(), a.shape());
  EXPECT_EQ(r.data(), a.data());
}

TEST(Npy, RejectsTruncatedFilesAtEveryLength) {
  const auto good = to_npy(NDArray<float>(Shape{4, 4}, 1.5f));
  for (std::size_t n = 0; n < good.size(); ++n) {
    const std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_THROW((void)parse_npy(cut), NpyError) << n;
  }
  const std::vector<uint8_t> cut(good.begin(), good.end() - 4);
  expect_npy_error(cut, "truncated: shape (4, 4) of '<f4' needs 64 data bytes, 60 present");
}

TEST(Npy, RejectsWrongMagic) {
  auto b = to_npy(NDArray<int8_t>(Shape{2}, 0));
  b[1] = 'M';
  expect_npy_error(b, "not a .npy file");
  expect_npy_error(bytes_of("PK\x03\x04 a zip file"), "not a .npy file");
}

TEST(Npy, RejectsUnsupportedDtypes) {
  expect_npy_error(hand_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", std::vector<uint8_t>(8)),
                   "unsupported dtype '<f8'");
  expect_npy_error(hand_npy("{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", std::vector<uint8_t>(2)),
                   "unsupported dtype '<u2'");
  expect_npy_error(hand_npy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", std::vector<uint8_t>(4)),
                   "big-endian");
}

TEST(Npy, RejectsFortranOrder) {
  expect_npy_error(hand_npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", std::vector<uint8_t>(16)),
                   "fortran_order is True");
}

TEST(Npy, RejectsMalformedHeadersAndTrailingBytes) {
  expect_npy_error(hand_npy("{'descr': '<f4', 'shape': (1,), }", std::vector<uint8_t>(4)), "missing one of");
  expect_npy_error(hand_npy("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", std::vector<uint8_t>(4)),
                   "expected True or False");
  expect_npy_error(hand_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, x), }", std::vector<uint8_t>(4)),
                   "expected a dimension");
  expect_npy_error(hand_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", std::vector<uint8_t>(4)),
                   "unknown key 'x'");
  expect_npy_error(hand_npy("{'descr': '<f4, 'fortran_order': False", {}), "malformed header");
  expect_npy_error(hand_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", {}),
                   "dimension too large");
  expect_npy_error(
      hand_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", {}),
      "more elements than fit");
  expect_npy_error(hand_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::vector<uint8_t>(5)),
                   "1 bytes after the data");
  auto b = to_npy(NDArray<int8_t>(Shape{2}, 0));
  b[6] = 9;
  expect_npy_error(b, "format version 9.0");
  b = to_npy(NDArray<int8_t>(Shape{2}, 0));
  b[8] = 0xFF;  // header length beyond the file
  b[9] = 0xFF;
  expect_npy_error(b, "the header claims 65535 bytes");
}

TEST(Npy, RandomCorruptionNeverCrashes) {
  const auto good = to_npy(NDArray<int32_t>(Shape{3, 5}, 7));
  std::mt19937 rng(17);
  int accepted = 0;
  for (int t = 0; t < 20000; ++t) {
    auto b = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) b[rng() % b.size()] = static_cast<uint8_t>(rng());
    if (rng() % 4 == 0) b.resize(rng() % b.size());
    try {
      (void)parse_npy(b);
      ++accepted;
    } catch (const NpyError&) {}
  }
  EXPECT_GT(accepted, 0);  // data-only edits still parse
}

TEST(Layout, PackLastAxisPadsToPwords) {
  NDArray<int8_t> a(Shape{2, 70});
  for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<int8_t>(i % 100);
  const auto p = pack_pwords(a, -1, int8_t{-5});
  EXPECT_EQ(p.shape(), (Shape{2, 2, 64}));
  EXPECT_EQ(p({0, 0, 0}), 0);
  EXPECT_EQ(p({0, 1, 5}), 69);
  EXPECT_EQ(p({0, 1, 6}), -5);
  EXPECT_EQ(p({1, 1, 63}), -5);
  EXPECT_EQ(p({1, 0, 3}), a({1, 3}));
  EXPECT_EQ(unpack_pwords(p, -1, 70).data(), a.data());
  EXPECT_THROW(unpack_pwords(p, -1, 129), std::invalid_argument);
}

TEST(Layout, PackInnerAxisAppendsLanes) {
  // (C=3, W=130) packed along W: (3, 3 blocks, 64 lanes).
  NDArray<float> a(Shape{3, 130});
  for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<float>(i);
  const auto p = pack_pwords(a, 1);
  EXPECT_EQ(p.shape(), (Shape{3, 3, 64}));
  EXPECT_EQ(p({2, 2, 1}), a({2, 129}));
  EXPECT_EQ(p({2, 2, 2}), 0.0f);
  // Packing axis 0 of (130, 2): (3 blocks, 2, 64 lanes).
  NDArray<int32_t> b(Shape{130, 2});
  for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = static_cast<int32_t>(i);
  const auto q = pack_pwords(b, 0);
  EXPECT_EQ(q.shape(), (Shape{3, 2, 64}));
  EXPECT_EQ(q({1, 1, 0}), b({64, 1}));
  EXPECT_EQ(unpack_pwords(q, 0, 130).data(), b.data());
}

// Random ranks, extents and axes against index arithmetic written here (testing::flat):
// out[..., b, ..., l] = a[..., b * 64 + l, ...] for b * 64 + l < n, the pad value beyond;
// unpack_pwords inverts it; the axis may be given from the end.
TEST(Layout, RandomPackUnpackAgainstStrides) {
  std::mt19937 rng(19);
  for (int t = 0; t < 300; ++t) {
    const std::size_t rank = 1 + rng() % 4, ax = rng() % rank;
    Shape s(rank);
    for (std::size_t k = 0; k < rank; ++k) s[k] = k == ax ? 1 + rng() % 200 : 1 + rng() % 4;
    NDArray<int32_t> a(s);
    for (auto& v : a.data()) v = static_cast<int32_t>(rng() % 1000);
    const int axis = rng() % 2 == 0 ? static_cast<int>(ax) : static_cast<int>(ax) - static_cast<int>(rank);
    const auto p = pack_pwords(a, axis, int32_t{-7});
    Shape ps = s;
    ps[ax] = (s[ax] + 63) / 64;
    ps.push_back(64);
    ASSERT_EQ(p.shape(), ps);
    std::vector<std::size_t> idx(rank + 1, 0), src(rank);
    for (std::size_t i = 0; i < p.size(); ++i) {
      for (std::size_t k = 0; k < rank; ++k) src[k] = idx[k];
      src[ax] = idx[ax] * 64 + idx[rank];
      const int32_t want = src[ax] < s[ax] ? a.data()[testing::flat(s, src)] : -7;
      ASSERT_EQ(p.data()[testing::flat(ps, idx)], want) << t << " " << i;
      next_index(idx, ps);
    }
    ASSERT_EQ(unpack_pwords(p, axis, s[ax]).data(), a.data()) << t;
    ASSERT_EQ(unpack_pwords(p, axis, s[ax]).shape(), s) << t;
  }
}

TEST(NDArrayBasics, IndexingAndErrors) {
  NDArray<int32_t> a(Shape{2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(a({1, 0}), 3);
  EXPECT_THROW(a({2, 0}), std::out_of_range);
  EXPECT_THROW(a({0}), std::out_of_range);
  EXPECT_THROW(NDArray<int32_t>(Shape{2, 2}, {1, 2, 3}), std::invalid_argument);
  EXPECT_EQ(shape_str(Shape{5}), "(5,)");
  EXPECT_EQ(shape_str(Shape{}), "()");
  EXPECT_THROW(norm_axis(2, 2), std::invalid_argument);
  EXPECT_EQ(norm_axis(-1, 3), 2u);
}

}  // namespace
}  // namespace axcore::ref
