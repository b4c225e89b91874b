// Dispatch-time values: SymInt arithmetic, guards, bind(), and binding == building concretely.
#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <regex>
#include <set>

#include "axcore/tap/bd.hpp"
#include "axcore/tap/pattern.hpp"
#include "expect_error.hpp"

namespace axcore::tap {
namespace {

using P = TensorAccessPattern;
using testing::expect_error;

SymInt V(const char* name) { return SymInt::param(name); }

TEST(TapSymInt, AffineArithmeticAndPrinting) {
  SymInt i = V("i"), n = V("n");
  EXPECT_EQ((256 * (i + 1)).str(), "256 * i + 256");
  EXPECT_EQ((i - i).str(), "0");
  EXPECT_TRUE((i - i).is_concrete());
  EXPECT_EQ((3 - 2 * n).str(), "-2 * n + 3");
  EXPECT_EQ(floordiv(4 * n + 8, 4).str(), "n + 2");  // exact: stays affine
  EXPECT_EQ(floordiv(n, 4).str(), "n // 4");
  EXPECT_EQ((3 * floordiv(n - 1, 4)).str(), "3 * ((n - 1) // 4)");
  EXPECT_EQ(mod(8 * n + 3, 4).str(), "3");  // the staged part divides
  EXPECT_EQ(mod(n, 4).str(), "n % 4");
  EXPECT_EQ((n * i).str(), "i * n");
  EXPECT_TRUE((n * i).same_as(i * n));
  EXPECT_EQ((floordiv(n, 4) * 2 + 1).eval({{"n", 10}}), 5);
  EXPECT_EQ(floordiv(-7, 2).value(), -4);  // Python floor semantics
  EXPECT_EQ(mod(-7, 2).value(), 1);
  EXPECT_EQ(mod(7, -2).value(), -1);
  EXPECT_EQ((i * n).params(), (std::vector<std::string>{"i", "n"}));
  EXPECT_EQ((i + n).substitute({{"n", 4}}).str(), "i + 4");
  expect_error<ValueError>([&] { (i + n).eval({{"i", 1}}); }, "parameter 'n' is not bound");
  expect_error<ValueError>([&] { floordiv(n, 0); }, "integer division or modulo by zero");
  expect_error<ValueError>([&] { floordiv(i, n).eval({{"i", 1}, {"n", 0}}); }, "integer division or modulo by zero");
  expect_error<ValueError>([] { SymInt::param("2x"); }, "parameter name '2x' is not an identifier");
  expect_error<TypeError>([&] { (i + 1).value("offset"); },
                          "offset is the dispatch-time value i + 1; bind() its parameters first");
  expect_error<ValueError>([] { SymInt(INT64_MAX) + 1; }, "integer overflow (the value exceeds 64 bits)");
}

TEST(TapSymbolic, SeedChunkIndexedByStagedArithmetic) {
  // chunks[start + tile] from the seed's dispatch-time sequence.
  P chunks = P::full({8 * 256}).partition(8);
  P tap = chunks[V("start") + V("tile")];
  EXPECT_TRUE(tap.is_symbolic());
  EXPECT_EQ(tap.str(), "TensorAccessPattern([2048], offset=256 * start + 256 * tile, sizes=[256], strides=[1])");
  ASSERT_EQ(tap.guards().size(), 4u);
  EXPECT_EQ(tap.guards()[1].message, "index start + tile is out of bounds for axis 0 with size 8");
  EXPECT_EQ(tap.bind({{"start", 2}, {"tile", 1}}), chunks[3]);
  EXPECT_EQ(tap.bind({{"start", 2}, {"tile", 1}}).str(), chunks[3].str());
  expect_error<GuardError>(
      [&] {
        tap.bind({{"start", 7}, {"tile", 1}});
      },
      "index start + tile is out of bounds for axis 0 with size 8");
  expect_error<ValueError>([&] { tap.bind({{"start", 7}}); }, "parameter 'tile' is not bound");
}

TEST(TapSymbolic, DispatchTimeShapes) {
  SymInt M = V("M");
  P tiles = P::full({M, 64}).tile({16, 16});
  EXPECT_EQ(tiles.str(),
            "TensorAccessPattern([M, 64], offset=0, sizes=[M // 16, 4, 16, 16], strides=[1024, 16, 64, 1])");
  EXPECT_EQ(tiles.bind({{"M", 128}}), P::full({128, 64}).tile({16, 16}));
  expect_error<GuardError>([&] { tiles.bind({{"M", 120}}); }, "dimension 0 of size M is not divisible by tile size 16");
  expect_error<GuardError>([&] { tiles.bind({{"M", 0}}); }, "Each tensor dimension must be >= 1 (dimensions=[M, 64])");
  // Structure stays concrete.
  expect_error<TypeError>([&] { tiles.merge(0); }, "merge() is a structural decision; it needs concrete sizes/strides");
  EXPECT_EQ(tiles.coalesce().rank(), 4);  // the staged pair is kept
  expect_error<TypeError>([&] { tiles.inverse(); },
                          "inverse() needs a concrete pattern, but TensorAccessPattern([M, 64], offset=0, sizes=[M // "
                          "16, 4, 16, 16], strides=[1024, 16, 64, 1]) has dispatch-time values; bind() them first");
  EXPECT_THROW(tiles.walk(), TypeError);
  EXPECT_THROW(tiles.gather(std::vector<int>(64)), TypeError);
  // Staged patterns are equal only to structurally identical ones.
  EXPECT_EQ(tiles, P::full({M, 64}).tile({16, 16}));
  EXPECT_NE(tiles, P::full({V("N"), 64}).tile({16, 16}));
  EXPECT_EQ(tiles.hash(), P::full({M, 64}).tile({16, 16}).hash());
}

TEST(TapSymbolic, ValueTooWideForItsFieldIsRefusedAtDispatch) {
  P p = P::full({2, V("K")})[Slice{{}, {}}].at({Slice{}, Slice{{}, 4}});
  P small = p.bind({{"K", 1000}});
  EXPECT_NO_THROW(lower_to_bds(small, 32, Engine::kCoreDma));
  expect_error<ValueError>(
      [&] {
        lower_to_bds(p.bind({{"K", 600000}}), 32, Engine::kCoreDma);
      },
      "dma_bd: Stride 1 is 600000 words, which does not fit the CoreDMA's 20-bit stride field (max 524287)");
}

// A message with every value in it (a number, a parameter, an expression of them) replaced by
// `#`: a guard's message shows the expression where the concrete check shows the number, so the
// two name the same check exactly when their templates are equal.
std::string message_template(const std::string& message, const Bindings& names) {
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    unsigned char c = static_cast<unsigned char>(message[i]);
    std::size_t j = i;
    if (std::isdigit(c)) {
      while (j < message.size() && std::isdigit(static_cast<unsigned char>(message[j]))) ++j;
      out += '#';
    } else if (std::isalpha(c) || c == '_') {
      while (j < message.size() && (std::isalnum(static_cast<unsigned char>(message[j])) || message[j] == '_')) ++j;
      std::string word = message.substr(i, j - i);
      out += names.count(word) ? "#" : word;
    } else {
      out += message[i];
      j = i + 1;
    }
    i = j;
  }
  static const std::regex kFold[] = {std::regex(R"((^|[ (\[=])-#)"), std::regex(R"(# (\+|-|\*|//|%) #)"),
                                     std::regex(R"(\(#\))")};
  static const char* kTo[] = {"$1#", "#", "#"};
  for (std::string before; before != out;) {
    before = out;
    for (std::size_t k = 0; k < 3; ++k) out = std::regex_replace(out, kFold[k], kTo[k]);
  }
  return out;
}

TEST(TapSymbolic, MessageTemplate) {
  Bindings names{{"M", 0}, {"i", 0}};
  EXPECT_EQ(message_template("index -1 is out of bounds for axis 0 with size M // 16", names),
            "index # is out of bounds for axis # with size #");
  EXPECT_EQ(message_template("index i is out of bounds for axis 0 with size 3 * ((M - 1) // 4) + 2", names),
            "index # is out of bounds for axis # with size #");
  EXPECT_EQ(message_template("Offset must be >= 0 (offset=-1)", names), "Offset must be >= # (offset=#)");
  EXPECT_EQ(message_template("All sizes must be >= 1, but got [M // 4, -2, 8]", names),
            "All sizes must be >= #, but got [#, #, #]");
  EXPECT_NE(message_template("tile_dims[1] must be >= 1", names),
            message_template("dimension 1 of size M is not divisible by tile size 2", names));
}

// A pipeline built once from parameters and once from the same values as ints.
using Value = std::function<SymInt(const char*)>;
using Pipeline = std::function<P(const Value&)>;

// The concrete build reached a staged index or slice bound with a negative value. NumPy would
// wrap it; a staged one cannot (its sign is unknown until bound), so the staged rule refuses it:
// the bound pattern's first failing guard is that index's or bound's range check.
struct NegativeStagedIndex {
  std::string name;
};

// `indices` names the parameters used as an index or slice bound: for those, a negative value
// is compared with the staged rule, not with NumPy's wrap of the same int.
void expect_bind_equals_concrete(const Pipeline& build, const std::vector<Bindings>& cases,
                                 const std::set<std::string>& indices) {
  P staged = build([](const char* name) { return SymInt::param(name); });
  int passed = 0, refused = 0, negative = 0;
  for (const Bindings& b : cases) {
    std::string label;
    for (const auto& [k, v] : b) label += k + "=" + std::to_string(v) + " ";
    std::optional<P> concrete;
    bool concrete_fails = false;
    std::string concrete_message;
    try {
      // Arguments are evaluated where the chain uses them (C++17 sequences `a.f` before `f`'s
      // arguments), so the throw happens exactly where the staged index is checked.
      concrete = build([&b, &indices](const char* name) {
        if (indices.count(name) && b.at(name) < 0) throw NegativeStagedIndex{name};
        return SymInt(b.at(name));
      });
    } catch (const ValueError& e) {
      concrete_fails = true;
      concrete_message = e.what();
    } catch (const NegativeStagedIndex& e) {
      ++negative;
      try {
        P bound = staged.bind(b);
        ADD_FAILURE() << label << "a negative staged " << e.name << " bound to " << bound;
      } catch (const GuardError& g) {
        std::string m = g.what();
        bool names_it = false;
        for (const char* kind : {"index ", "slice start ", "slice stop "})
          names_it |= m.rfind(kind + e.name + " is out of bounds for axis ", 0) == 0;
        EXPECT_TRUE(names_it) << label << "guard: " << m;
      }
      continue;
    }
    try {
      P bound = staged.bind(b);
      EXPECT_FALSE(concrete_fails) << label << "bound to " << bound << " but the concrete build fails";
      if (concrete) {
        EXPECT_EQ(bound, *concrete) << label;
        EXPECT_EQ(bound.walk(), concrete->walk()) << label;
      }
      ++passed;
    } catch (const GuardError& e) {
      EXPECT_TRUE(concrete_fails) << label << "guard failed: " << e.what();
      // The first failing guard is the check the concrete build fails first.
      EXPECT_EQ(message_template(e.what(), b), message_template(concrete_message, b))
          << label << "guard: " << e.what() << "; concrete: " << concrete_message;
      ++refused;
    }
  }
  // The grid exercises both outcomes (and the staged rule, where it draws negative indices).
  EXPECT_GT(passed, 0);
  EXPECT_GT(refused, 0);
  if (!indices.empty()) { EXPECT_GT(negative, 0); }
}

std::vector<Bindings> grid(const std::vector<std::string>& names, const std::vector<int64_t>& values) {
  std::vector<Bindings> out{{}};
  for (const auto& n : names) {
    std::vector<Bindings> next;
    for (const auto& b : out)
      for (int64_t v : values) {
        Bindings c = b;
        c[n] = v;
        next.push_back(c);
      }
    out = next;
  }
  return out;
}

// Non-negative index values: binding equals the concrete build of the same ints, whose NumPy
// rules agree there (the grid's bounds never pass the size, so no concrete bound clips). A
// negative index value: the staged rule (NegativeStagedIndex) refuses it at bind time.
TEST(TapSymbolic, BindingEqualsBuildingConcretely) {
  std::vector<int64_t> values{-1, 0, 1, 2, 3, 4, 6, 8, 12, 16};
  expect_bind_equals_concrete(
      [](const Value& v) {
        return P::full({v("M"), 8}).tile({v("m"), 4}).at({v("i"), 1});
      },
      grid({"M", "m", "i"}, values), {"i"});
  expect_bind_equals_concrete(
      [](const Value& v) {
        return P::full({16, 16}).at({Slice{v("a"), v("b")}, Slice{{}, {}, 2}}).repeat(v("r"));
      },
      grid({"a", "b", "r"}, values), {"a", "b"});
  expect_bind_equals_concrete([](const Value& v) { return P::full({v("N")}).partition(v("k"))[v("j")].split(0, 2); },
                              grid({"N", "k", "j"}, values), {"j"});
  expect_bind_equals_concrete(
      [](const Value& v) {
        return P({v("D"), 8}, v("o"), {2, v("s")}, {v("t"), 1}).permute({1, 0});
      },
      grid({"D", "o", "s", "t"}, {-1, 0, 1, 2, 4, 8}), {});
}

TEST(TapSymbolic, StagedIndicesDoNotWrap) {
  P chunks = P::full({8 * 256}).partition(8);
  EXPECT_EQ(chunks[-1], chunks[7]);  // a concrete index wraps
  P tap = chunks[V("i")];            // a staged one must be in [0, 8)
  EXPECT_EQ(tap.bind({{"i", 7}}), chunks[7]);
  expect_error<GuardError>([&] { tap.bind({{"i", -1}}); }, "index i is out of bounds for axis 0 with size 8");
  P p = P::full({16});
  EXPECT_EQ((p[Slice{{}, 20}]), p);  // a concrete bound clips
  P sl = p[Slice{V("a"), V("b")}];
  EXPECT_EQ(sl.bind({{"a", 12}, {"b", 16}}), (p[Slice{-4, {}}]));
  expect_error<GuardError>(
      [&] {
        sl.bind({{"a", -4}, {"b", 16}});
      },
      "slice start a is out of bounds for axis 0 with size 16");
  expect_error<GuardError>(
      [&] {
        sl.bind({{"a", 0}, {"b", -1}});
      },
      "slice stop b is out of bounds for axis 0 with size 16");
  expect_error<GuardError>(
      [&] {
        sl.bind({{"a", 0}, {"b", 20}});
      },
      "slice stop b is out of bounds for axis 0 with size 16");
  expect_error<GuardError>([&] { sl.bind({{"a", 9}, {"b", 9}}); }, "slice a:b of axis 0 (size 16) is empty");
}

TEST(TapSymbolic, ConcreteIndexOverAStagedSize) {
  // The index's sign is known, so it wraps: tiles[-1] is the last row of tiles for every M.
  SymInt M = V("M");
  P last = P::full({M, 64}).tile({16, 16})[-1];
  EXPECT_EQ(last.str(),
            "TensorAccessPattern([M, 64], offset=1024 * (M // 16) - 1024, sizes=[4, 16, 16], strides=[16, 64, 1])");
  for (int64_t m : {16, 48, 128}) {
    P concrete = P::full({m, 64}).tile({16, 16});
    EXPECT_EQ(last.bind({{"M", m}}), concrete[-1]) << m;
    EXPECT_EQ(last.bind({{"M", m}}), concrete[m / 16 - 1]) << m;
  }
  expect_error<GuardError>(
      [&] {
        P::full({M, 64}).tile({16, 16})[-2].bind({{"M", 16}});
      },
      "index -2 is out of bounds for axis 0 with size M // 16");
  expect_error<ValueError>(
      [] {
        P::full({16, 64}).tile({16, 16})[-2];
      },
      "index -2 is out of bounds for axis 0 with size 1");
  // A concrete bound over a staged size wraps but cannot clip (a min/max of a staged value is
  // not affine): it must land in [0, n], a guard.
  SymInt N = V("N");
  P tail = P::full({N})[Slice{-4, {}}];
  EXPECT_EQ(tail.bind({{"N", 16}}), (P::full({16})[Slice{12, {}}]));
  expect_error<GuardError>([&] { tail.bind({{"N", 2}}); }, "slice start -4 is out of bounds for axis 0 with size N");
  P head = P::full({N})[Slice{{}, 20}];
  EXPECT_EQ(head.bind({{"N", 32}}), (P::full({32})[Slice{{}, 20}]));
  expect_error<GuardError>([&] { head.bind({{"N", 16}}); }, "slice stop 20 is out of bounds for axis 0 with size N");
  EXPECT_EQ((P::full({N})[Slice{{}, -1}].bind({{"N", 16}})), (P::full({16})[Slice{{}, 15}]));
  expect_error<GuardError>(
      [&] {
        P::full({N})[Slice{20, {}}].bind({{"N", 16}});
      },
      "slice 20:N of axis 0 (size N) is empty");
}

}  // namespace
}  // namespace axcore::tap
