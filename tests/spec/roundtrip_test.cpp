// Every field of every generated struct (descriptors and register fields) round-trips through the
// C++ encode/decode/parse helpers, lands on the bits the YAML gives it, and refuses values that do
// not fit; parse() refuses every bit outside the fields.
#include <gtest/gtest.h>

#include <axcore/spec.hpp>
#include <random>
#include <tuple>

#include "yaml_view.hpp"

namespace spec = axcore::spec;
using spec_test::YField;

namespace {

const spec_test::YamlView& yaml() {
  static const auto v = spec_test::read_yaml(AXCORE_SPEC_YAML_PATH);
  return v;
}

uint32_t raw_bits(const std::vector<uint32_t>& w, const YField& f) {
  const uint32_t m = f.width >= 32 ? 0xFFFFFFFFu : (1u << f.width) - 1;
  return (w[f.word] >> f.lsb) & m;
}

// A random legal value of the field: any unsigned/signed value of its width, or an enum value.
int64_t random_value(const YField& f, std::mt19937_64& rng) {
  if (!f.enum_name.empty()) {
    const auto& vals = yaml().enum_values.at(f.enum_name);
    return vals[rng() % vals.size()];
  }
  if (f.is_signed) {
    const int64_t lo = -(int64_t{1} << (f.width - 1)), hi = (int64_t{1} << (f.width - 1)) - 1;
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  }
  return static_cast<int64_t>(rng() & (f.width >= 32 ? 0xFFFFFFFFull : (1ull << f.width) - 1));
}

uint32_t as_raw(const YField& f, int64_t v) {
  const uint32_t m = f.width >= 32 ? 0xFFFFFFFFu : (1u << f.width) - 1;
  return static_cast<uint32_t>(v) & m;
}

template <typename T>
void check_struct() {
  SCOPED_TRACE(std::string(T::kName));
  const auto it = yaml().structs.find(std::string(T::kName));
  ASSERT_NE(it, yaml().structs.end()) << "generated struct with no YAML twin";
  const auto& yf = it->second;
  ASSERT_EQ(yf.size(), T::kFields.size());
  const auto yw = yaml().struct_words.find(std::string(T::kName));
  EXPECT_EQ(T::kWords, yw == yaml().struct_words.end() ? 1u : yw->second);
  for (size_t i = 0; i < yf.size(); ++i) {
    EXPECT_EQ(T::kFields[i].name, yf[i].name);
    EXPECT_EQ(T::kFields[i].word, yf[i].word) << yf[i].name;
    EXPECT_EQ(T::kFields[i].lsb, yf[i].lsb) << yf[i].name;
    EXPECT_EQ(T::kFields[i].width, yf[i].width) << yf[i].name;
    EXPECT_EQ(T::kFields[i].is_signed, yf[i].is_signed) << yf[i].name;
  }
  std::mt19937_64 rng(0xA5C0 + T::kFields.size());
  // Each field alone: only its bits are set, and it decodes back.
  for (size_t i = 0; i < yf.size(); ++i) {
    T t{};
    const int64_t v = yf[i].enum_name.empty() ? (yf[i].is_signed ? -1 : static_cast<int64_t>(as_raw(yf[i], -1)))
                                              : yaml().enum_values.at(yf[i].enum_name).back();
    t.set(i, v);
    const auto w = t.encode();
    const std::vector<uint32_t> words(w.begin(), w.end());
    for (size_t j = 0; j < yf.size(); ++j)
      EXPECT_EQ(raw_bits(words, yf[j]), j == i ? as_raw(yf[i], v) : 0u)
          << "field " << yf[i].name << " leaks into " << yf[j].name;
    EXPECT_EQ(T::decode(w).get(i), v) << yf[i].name;
  }
  // All fields at once, random values.
  for (int trial = 0; trial < 200; ++trial) {
    T t{};
    std::vector<int64_t> vals;
    for (size_t i = 0; i < yf.size(); ++i) {
      vals.push_back(random_value(yf[i], rng));
      t.set(i, vals.back());
    }
    const auto w = t.encode();
    const std::vector<uint32_t> words(w.begin(), w.end());
    for (size_t i = 0; i < yf.size(); ++i) ASSERT_EQ(raw_bits(words, yf[i]), as_raw(yf[i], vals[i])) << yf[i].name;
    const T back = T::decode(w);
    ASSERT_TRUE(back == t);
    // parse() takes what encode() wrote (a random magic aside: X_desc structs check theirs)
    try {
      ASSERT_TRUE(T::parse(w) == t);
    } catch (const spec::ParseError& e) {
      ASSERT_NE(std::string(e.what()).find(": magic "), std::string::npos) << e.what();
    }
    for (size_t i = 0; i < yf.size(); ++i) ASSERT_EQ(back.get(i), vals[i]) << yf[i].name;
  }
  // parse() refuses every bit outside the fields.
  std::vector<uint32_t> used(T::kWords, 0);
  for (const auto& f : yf) used[f.word] |= (f.width >= 32 ? 0xFFFFFFFFu : (1u << f.width) - 1) << f.lsb;
  for (uint32_t wi = 0; wi < T::kWords; ++wi)
    for (uint32_t bit = 0; bit < 32; ++bit) {
      if (used[wi] >> bit & 1) continue;
      std::array<uint32_t, T::kWords> w{};
      w[wi] = 1u << bit;
      EXPECT_THROW((void)T::parse(w), spec::ParseError) << "word " << wi << " bit " << bit;
    }
  // Values that do not fit are refused, never truncated.
  for (size_t i = 0; i < yf.size(); ++i) {
    if (!yf[i].enum_name.empty() || yf[i].width >= 32) continue;
    T t{};
    t.set(i, yf[i].is_signed ? (int64_t{1} << (yf[i].width - 1)) : (int64_t{1} << yf[i].width));
    EXPECT_THROW(t.encode(), spec::FieldRangeError) << yf[i].name;
    if (!yf[i].is_signed) {
      T n{};
      n.set(i, -1);
      EXPECT_THROW(n.encode(), spec::FieldRangeError) << yf[i].name;
    }
  }
}

template <typename Tuple, size_t... I>
void check_all(std::index_sequence<I...>) {
  (check_struct<std::tuple_element_t<I, Tuple>>(), ...);
}

}  // namespace

TEST(SpecRoundTrip, EveryFieldOfEveryStructAndRegister) {
  check_all<spec::AllStructs>(std::make_index_sequence<std::tuple_size_v<spec::AllStructs>>{});
}

TEST(SpecRoundTrip, EveryYamlStructIsGenerated) {
  size_t generated = std::tuple_size_v<spec::AllStructs>;
  EXPECT_EQ(generated, yaml().structs.size());
}

TEST(SpecRoundTrip, RefusesShortBuffers) {
  std::array<uint32_t, 3> w{};
  EXPECT_THROW(spec::DmaBd{}.encode_to(w), std::length_error);
  EXPECT_THROW(spec::DmaBd::decode(w), std::length_error);
}
