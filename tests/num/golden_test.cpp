// axcore_num reproduces every golden vector in tests/num/golden/float18_vectors.txt (written by
// the independent oracle, golden_gen.cpp). The RTL DPU tests read the same file.
#include <gtest/gtest.h>

#include <bit>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "axcore/num/float18.hpp"
#include "axcore/num/lut.hpp"
#include "axcore/num/reduce.hpp"

#ifndef AXCORE_NUM_GOLDEN_FILE
#error "AXCORE_NUM_GOLDEN_FILE must name tests/num/golden/float18_vectors.txt"
#endif

namespace axcore::num {
namespace {

Float18 h18(const std::string& s) { return Float18::from_bits(static_cast<uint32_t>(std::stoul(s, nullptr, 16))); }

TEST(Golden, LibraryReproducesEveryVector) {
  std::ifstream in(AXCORE_NUM_GOLDEN_FILE);
  ASSERT_TRUE(in) << "cannot open " << AXCORE_NUM_GOLDEN_FILE;
  std::map<std::string, int> counts;
  std::map<std::size_t, PwordF18> tables;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::vector<std::string> f;
    for (std::string w; ss >> w;) f.push_back(w);
    const std::string& op = f[0];
    ++counts[op];
    uint32_t got = 0, want = 0;
    if (op == "cvt") {
      got = f18_from_float(std::bit_cast<float>(static_cast<uint32_t>(std::stoul(f[1], nullptr, 16)))).bits();
      want = h18(f[2]).bits();
    } else if (op == "add" || op == "sub" || op == "mul" || op == "min" || op == "max" || op == "prelu") {
      const Float18 a = h18(f[1]), b = h18(f[2]);
      const Float18 r = op == "add"   ? add(a, b)
                        : op == "sub" ? sub(a, b)
                        : op == "mul" ? mul(a, b)
                        : op == "min" ? min(a, b)
                        : op == "max" ? max(a, b)
                                      : prelu(a, b);
      got = r.bits();
      want = h18(f[3]).bits();
    } else if (op == "fma") {
      got = fma(h18(f[1]), h18(f[2]), h18(f[3])).bits();
      want = h18(f[4]).bits();
    } else if (op == "add_reduce" || op == "max_reduce" || op == "min_reduce") {
      ASSERT_EQ(f.size(), 66u) << lineno;
      PwordF18 v;
      for (std::size_t i = 0; i < 64; ++i) v[i] = h18(f[1 + i]);
      const PwordF18 r = op == "add_reduce" ? add_reduce(v) : op == "max_reduce" ? max_reduce(v) : min_reduce(v);
      for (Float18 x : r) ASSERT_EQ(x, r[0]);
      got = r[0].bits();
      want = h18(f[65]).bits();
    } else if (op == "table") {
      ASSERT_EQ(f.size(), 66u) << lineno;
      PwordF32 w;
      for (std::size_t i = 0; i < 64; ++i)
        w[i] = std::bit_cast<float>(static_cast<uint32_t>(std::stoul(f[2 + i], nullptr, 16)));
      tables[std::stoul(f[1])] = load_lut_table(w);
      continue;
    } else if (op == "lut") {
      const std::size_t n = std::stoul(f[1]);
      std::vector<PwordF18> chain;
      for (std::size_t i = 0; i < n; ++i) chain.push_back(tables.at(std::stoul(f[2 + i])));
      got = lut_eval(h18(f[2 + n]), chain).bits();
      want = h18(f[3 + n]).bits();
    } else {
      FAIL() << "line " << lineno << ": unknown vector kind " << op;
    }
    ASSERT_EQ(got, want) << "line " << lineno << ": " << line;
  }
  // The file is complete: every kind is present in the numbers golden_gen.cpp writes.
  EXPECT_EQ(counts["cvt"], 424);
  for (const char* op : {"add", "sub", "mul", "min", "max", "prelu"}) EXPECT_EQ(counts[op], 23 * 23 + 500) << op;
  EXPECT_EQ(counts["fma"], 1500);
  EXPECT_EQ(counts["add_reduce"], 30);
  EXPECT_EQ(counts["table"], 3);
  EXPECT_EQ(counts["lut"], 2 * 207);
}

}  // namespace
}  // namespace axcore::num
