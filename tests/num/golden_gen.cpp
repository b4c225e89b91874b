// Writes tests/num/golden/float18_vectors.txt: float18 golden vectors computed by the independent
// oracle (oracle.cpp), for the RTL DPU tests and as a frozen regression for axcore_num.
// Format (one vector per line, hex, float18 as 5 digits, float32 as 8; '#' comments):
//   cvt   <f32>  <f18>                          float32 -> float18
//   add|sub|mul|min|max|prelu  <a> <b> <r>
//   fma   <a> <b> <c> <r>                       rounded twice
//   add_reduce|max_reduce|min_reduce <v0> .. <v63> <r>
//   table <id> <w0> .. <w63>                    a packed LUT PWORD (float32)
//   lut   <n> <id0> .. <id(n-1)> <x> <r>        x through the chained tables
// Usage: num_golden_gen <out-file>. Regenerate only when the numerics change (docs/numerics.md).
#include <bit>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "axcore/num/lut.hpp"  // only to fit the tables; evaluation below is the oracle's
#include "oracle.hpp"

namespace o = axcore::num::oracle;

namespace {

double value(uint32_t b) {
  const double s = (b & 0x20000) != 0 ? -1.0 : 1.0;
  const uint32_t e = (b >> 10) & 0x7F, f = b & 0x3FF;
  if (e == 0) return s * 0.0;
  if (e == 0x7F) return f != 0 ? NAN : s * HUGE_VAL;
  return s * std::ldexp(1024.0 + f, static_cast<int>(e) - 73);
}
bool is_nan(uint32_t b) { return ((b >> 10) & 0x7F) == 0x7F && (b & 0x3FF) != 0; }

uint32_t lut_eval(uint32_t x, const std::vector<std::vector<uint32_t>>& t) {
  if (is_nan(x)) return o::kNan;
  std::size_t k = 0;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (value(t[i][0]) <= value(x)) k = i;
  const uint32_t u = o::mul(o::sub(x, t[k][0]), t[k][1]);
  std::size_t idx = 0;
  if (!is_nan(u)) {
    const double d = value(u);
    idx = d <= 0 ? 0 : (d >= 30 ? 30 : static_cast<std::size_t>(std::floor(d)));
  }
  return o::add(o::mul(t[k][2 + 2 * idx], x), t[k][3 + 2 * idx]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: num_golden_gen <out-file>\n");
    return 2;
  }
  std::FILE* out = std::fopen(argv[1], "w");
  if (out == nullptr) {
    std::perror(argv[1]);
    return 1;
  }
  std::fprintf(out, "# float18 golden vectors from tests/num/oracle.cpp (see tests/num/golden_gen.cpp)\n");
  const std::vector<uint32_t> edges = {0x00000, 0x20000, 0x00001, 0x203FF, 0x00400, 0x20400, 0x00401, 0x1FBFF,
                                       0x3FBFF, 0x1FBFE, 0x1FC00, 0x3FC00, 0x1FE00, 0x3FE01, 0x1FC01, 0x0FC00,
                                       0x2FC00, 0x0FC01, 0x10000, 0x0F800, 0x3F000, 0x01000, 0x1F000};
  std::mt19937 rng(5005);
  // Conversions: specials, ties, range edges, and random float32 bit patterns.
  std::vector<uint32_t> f32 = {0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000,
                               0x7FC00000, 0xFFC00001, 0x7F800001, 0x00000001, 0x80000001, 0x00800000,
                               0x7F7FFFFF, 0xFF7FFFFF, 0x3F801000, 0x3F803000, 0x3F801001, 0x3F800FFF,
                               0x5F7FF000, 0x5F7FEFFF, 0x20800000, 0x207FF800, 0x207FF7FF, 0xA07FF800};
  for (int i = 0; i < 400; ++i) f32.push_back(static_cast<uint32_t>(rng()));
  for (uint32_t b : f32)
    std::fprintf(out, "cvt %08x %05x\n", b, o::from_double(static_cast<double>(std::bit_cast<float>(b))));
  struct Op {
    const char* name;
    uint32_t (*f)(uint32_t, uint32_t);
  };
  const Op ops[] = {{"add", o::add}, {"sub", o::sub}, {"mul", o::mul},
                    {"min", o::min}, {"max", o::max}, {"prelu", o::prelu}};
  for (const Op& op : ops) {
    for (uint32_t a : edges)
      for (uint32_t b : edges) std::fprintf(out, "%s %05x %05x %05x\n", op.name, a, b, op.f(a, b));
    for (int i = 0; i < 500; ++i) {
      const uint32_t a = rng() & 0x3FFFF;
      uint32_t b = rng() & 0x3FFFF;
      if (i % 2 == 1) b = (b & 0x203FF) | (a & 0x1FC00);  // same exponent: cancellation
      std::fprintf(out, "%s %05x %05x %05x\n", op.name, a, b, op.f(a, b));
    }
  }
  for (int i = 0; i < 1500; ++i) {
    const uint32_t a = rng() & 0x3FFFF, b = rng() & 0x3FFFF;
    uint32_t c = rng() & 0x3FFFF;
    const int e = static_cast<int>(((a >> 10) & 0x7F) + ((b >> 10) & 0x7F)) - 63 + static_cast<int>(rng() % 5) - 2;
    if (i % 2 == 1) c = (c & 0x203FF) | static_cast<uint32_t>(e < 1 ? 1 : (e > 126 ? 126 : e)) << 10;
    std::fprintf(out, "fma %05x %05x %05x %05x\n", a, b, c, o::fma2(a, b, c));
  }
  // Reductions: random PWORDs (normal values of mixed magnitude), some with specials mixed in.
  std::normal_distribution<double> nd(0.0, 100.0);
  for (int t = 0; t < 30; ++t) {
    std::vector<uint32_t> v(64);
    for (auto& x : v) x = o::from_double(nd(rng) * std::ldexp(1.0, static_cast<int>(rng() % 13) - 6));
    if (t % 5 == 4) v[rng() % 64] = edges[rng() % edges.size()];
    struct R {
      const char* name;
      uint32_t (*f)(uint32_t, uint32_t);
    };
    for (const R& r : {R{"add_reduce", o::add}, R{"max_reduce", o::max}, R{"min_reduce", o::min}}) {
      std::vector<uint32_t> w = v;
      for (std::size_t n = 32; n >= 1; n /= 2)
        for (std::size_t i = 0; i < n; ++i) w[i] = r.f(w[2 * i], w[2 * i + 1]);
      std::fprintf(out, "%s", r.name);
      for (uint32_t x : v) std::fprintf(out, " %05x", x);
      std::fprintf(out, " %05x\n", w[0]);
    }
  }
  // LUTs: sigmoid on [-8, 8] (1 table) and exp on [-16, 0] (2 chained tables).
  using axcore::num::compute_chained_lut_params;
  using axcore::num::pack_lut_params_to_pword;
  std::vector<axcore::num::LutParams> tables;
  for (const auto& p : compute_chained_lut_params(-8, 8, 1, [](double x) { return 1 / (1 + std::exp(-x)); }))
    tables.push_back(p);
  for (const auto& p : compute_chained_lut_params(-16, 0, 2, [](double x) { return std::exp(x); })) tables.push_back(p);
  std::vector<std::vector<uint32_t>> regs;
  for (std::size_t id = 0; id < tables.size(); ++id) {
    const auto w = pack_lut_params_to_pword(tables[id]);
    std::fprintf(out, "table %zu", id);
    std::vector<uint32_t> reg;
    for (float f : w) {
      std::fprintf(out, " %08x", std::bit_cast<uint32_t>(f));
      reg.push_back(o::from_double(static_cast<double>(f)));
    }
    std::fprintf(out, "\n");
    regs.push_back(reg);
  }
  const std::vector<std::vector<std::size_t>> chains = {{0}, {1, 2}};
  std::uniform_real_distribution<double> ux(-20.0, 12.0);
  for (const auto& ch : chains) {
    std::vector<std::vector<uint32_t>> t;
    for (std::size_t id : ch) t.push_back(regs[id]);
    std::vector<uint32_t> xs = {0x00000, 0x20000, 0x1FC00, 0x3FC00, 0x1FE00, 0x0FC00, 0x2FC00};
    for (int i = 0; i < 200; ++i) xs.push_back(o::from_double(ux(rng)));
    for (uint32_t x : xs) {
      std::fprintf(out, "lut %zu", ch.size());
      for (std::size_t id : ch) std::fprintf(out, " %zu", id);
      std::fprintf(out, " %05x %05x\n", x, lut_eval(x, t));
    }
  }
  return std::fclose(out) == 0 ? 0 : 1;
}
