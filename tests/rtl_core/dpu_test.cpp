// ax_dpu (tb_dpu) against common/num and common/ref: the float18 functions the lanes use
// (golden vectors of tests/num plus random and edge operands), reductions and LUTs through DPU
// programs on the golden vectors, random DPU programs bit for bit against ref::Dpu under random
// stream stalls, the validator against ref::validate_dpu on mutated programs, a loop-indexed
// register leaving the file at run time, and the one-instruction-per-cycle timing.
#include <gtest/gtest.h>

#include <axcore/num/lut.hpp>
#include <axcore/num/reduce.hpp>
#include <axcore/ref/dpu.hpp>
#include <axcore/ref/error.hpp>
#include <bit>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "Vtb_dpu.h"
#include "tb_util.hpp"

#ifndef AXCORE_NUM_GOLDEN_FILE
#error "AXCORE_NUM_GOLDEN_FILE must name tests/num/golden/float18_vectors.txt"
#endif

namespace {

namespace num = axcore::num;
namespace ref = axcore::ref;
namespace spec = axcore::spec;
using num::Float18;
using spec::DpuOp;
using spec::Dtype;
using spec::ErrorCode;

constexpr uint32_t kProgWord = spec::layout::datapath_desc::program;
constexpr std::size_t kMaxInstr = spec::param::dpu_max_instructions;

Float18 f18(uint32_t b) { return Float18::from_bits(b); }

// ---- the DUT ----
struct Dut {
  rtlcore::Sim<Vtb_dpu> sim;

  uint32_t op(unsigned sel, uint32_t a, uint32_t b, uint32_t c = 0) {
    sim->op_sel_i = sel;
    sim->op_a_i = a & Float18::kMask;
    sim->op_b_i = b & Float18::kMask;
    sim->op_c_i = c & Float18::kMask;
    sim.settle();
    return sim->op_r_o;
  }
  void write_word(uint32_t idx, uint32_t data) {
    sim->prog_wr_i = 1;
    sim->prog_idx_i = idx;
    sim->prog_data_i = data;
    sim.tick();
    sim->prog_wr_i = 0;
  }
  // Loads the program as the command processor would (descriptor word 0 first) and returns the
  // validator's code.
  ErrorCode load(const spec::DpuDesc& desc, const std::vector<spec::DpuInstr>& code, bool has_in1) {
    rtlcore::set_wide(sim->desc_i, desc.encode());
    sim->has_in1_i = has_in1;
    write_word(0, 0);
    for (std::size_t i = 0; i < code.size() && i < kMaxInstr; ++i) {
      const auto w = code[i].encode();
      write_word(kProgWord + 2 * static_cast<uint32_t>(i), w[0]);
      write_word(kProgWord + 2 * static_cast<uint32_t>(i) + 1, w[1]);
    }
    sim.settle();
    return static_cast<ErrorCode>(sim->prog_code_o);
  }
};

// ---- stream elements ----
template <class W>
void put_element(W& port, const num::AnyPword& p) {
  std::vector<uint8_t> bytes(num::element_bytes(p.dtype));
  num::store_element(p, bytes);
  for (std::size_t w = 0; w < 65; ++w) port[w] = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) port[i / 4] |= uint32_t{bytes[i]} << (8 * (i % 4));
}
template <class W>
num::AnyPword get_element(const W& port, Dtype d) {
  std::vector<uint8_t> bytes(num::element_bytes(d));
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(port[i / 4] >> (8 * (i % 4)));
  return num::load_element(d, bytes);
}

// A stream whose element i is made on first use (the reference and the RTL see the same data).
class LazyStream {
 public:
  explicit LazyStream(std::function<ref::Element(std::size_t)> make) : make_(std::move(make)) {}
  const ref::Element& at(std::size_t i) {
    while (made_.size() <= i) made_.push_back(make_(made_.size()));
    return made_[i];
  }

 private:
  std::function<ref::Element(std::size_t)> make_;
  std::vector<ref::Element> made_;
};

uint32_t random_lane(std::mt19937& rng, Dtype d) {
  const uint32_t r = rng(), kind = rng() % 20;
  auto fp = [&](int lo, int hi, int frac_bits, int bias, int exp_bits) -> uint32_t {
    const int e = lo + static_cast<int>(rng() % static_cast<uint32_t>(hi - lo + 1));
    const uint32_t be = static_cast<uint32_t>(std::clamp(e + bias, 1, (1 << exp_bits) - 2));
    return (r & 1u) << (frac_bits + exp_bits) | be << frac_bits | (rng() & ((1u << frac_bits) - 1));
  };
  switch (d) {
    case Dtype::INT8: return r & 0xFF;
    case Dtype::INT32:
      if (kind < 10) return static_cast<uint32_t>(static_cast<int32_t>(r % 601) - 300);
      if (kind < 15) return r;
      return (r & 1u ? 0xFFFFFFFFu : 1u) << (rng() % 31);
    case Dtype::FLOAT16:
      if (kind < 3) return r & 0xFFFF;
      return fp(-10, 10, 10, 15, 5);
    default:  // FLOAT32
      if (kind < 2) return r;
      if (kind == 2)
        return std::array<uint32_t, 6>{0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x80000000u, 0, 0x00000001u}[rng() % 6];
      if (kind == 3) return fp(-70, -58, 23, 127, 8);  // around float18's flush-to-zero limit
      if (kind == 4) return fp(60, 66, 23, 127, 8);    // around its overflow
      return fp(-12, 12, 23, 127, 8);
  }
}

num::AnyPword random_pword(std::mt19937& rng, Dtype d) {
  num::AnyPword p;
  p.dtype = d;
  for (auto& l : p.lanes) l = random_lane(rng, d) & num::lane_mask(d);
  return p;
}

// ---- a run of the DUT and of the reference ----
struct DpuRun {
  std::vector<ref::Element> out;
  ErrorCode err = ErrorCode::NONE;
  uint64_t cycles = 0, busy = 0, stall_in = 0, stall_out = 0, instructions = 0;
  std::size_t pops0 = 0, pops1 = 0;
};

DpuRun run_ref(const ref::DpuProgram& p, bool has_in1, LazyStream& s0, LazyStream& s1) {
  DpuRun r;
  ref::DpuIo io;
  io.pop = [&](unsigned s) { return s == 1 ? s1.at(r.pops1++) : s0.at(r.pops0++); };
  io.push = [&](const ref::Element& e) { r.out.push_back(e); };
  ref::Dpu dpu(p, ref::DpuConfig{has_in1});
  try {
    dpu.run(io);
  } catch (const ref::RefError& e) { r.err = e.code(); }
  r.instructions = dpu.instructions;
  return r;
}

// p_in / p_out: probability that an input is offered / the output accepted in a cycle.
DpuRun run_dut(Dut& d, const ref::DpuProgram& p, bool has_in1, LazyStream& s0, LazyStream& s1, std::mt19937& rng,
               double p_in, double p_out, uint64_t limit = 200000) {
  EXPECT_EQ(d.load(p.desc, p.code, has_in1), ErrorCode::NONE);
  DpuRun r;
  std::bernoulli_distribution in(p_in), outp(p_out);
  d.sim->start_i = 1;
  d.sim.tick();
  d.sim->start_i = 0;
  for (uint64_t c = 1; c <= limit; ++c) {
    d.sim->in0_valid_i = in(rng);
    put_element(d.sim->in0_data_i, s0.at(r.pops0).value);
    d.sim->in1_valid_i = has_in1 && in(rng);
    put_element(d.sim->in1_data_i, s1.at(r.pops1).value);
    d.sim->out_ready_i = outp(rng);
    d.sim.settle();
    const uint32_t act = d.sim->act_o;
    r.busy += (act >> 2) & 1u;
    r.stall_in += (act >> 1) & 1u;
    r.stall_out += act & 1u;
    const bool pop0 = d.sim->in0_valid_i && d.sim->in0_ready_o, pop1 = d.sim->in1_valid_i && d.sim->in1_ready_o;
    if (d.sim->out_valid_o && d.sim->out_ready_i)
      r.out.push_back({get_element(d.sim->out_data_o, p.desc.out_dtype), false});
    const uint64_t e = d.sim->err_o;
    const bool done = d.sim->done_o;
    if ((e >> 37) & 1u) r.err = static_cast<ErrorCode>((e >> 32) & 0x1Fu);
    d.sim.tick();
    r.pops0 += pop0;
    r.pops1 += pop1;
    if (done || r.err != ErrorCode::NONE) {
      r.cycles = c;
      // drain what is still in the output FIFO
      for (int k = 0; k < 16; ++k) {
        d.sim->out_ready_i = 1;
        d.sim.settle();
        if (d.sim->out_valid_o) r.out.push_back({get_element(d.sim->out_data_o, p.desc.out_dtype), false});
        d.sim.tick();
      }
      d.sim->out_ready_i = 0;
      return r;
    }
  }
  ADD_FAILURE() << "the DPU did not finish in " << limit << " cycles";
  return r;
}

void expect_same(const DpuRun& rtl, const DpuRun& want, const std::string& what) {
  EXPECT_EQ(rtl.err, want.err) << what;
  EXPECT_EQ(rtl.pops0, want.pops0) << what;
  EXPECT_EQ(rtl.pops1, want.pops1) << what;
  ASSERT_EQ(rtl.out.size(), want.out.size()) << what;
  for (std::size_t i = 0; i < rtl.out.size(); ++i) {
    const auto& a = rtl.out[i].value;
    const auto& b = want.out[i].value;
    ASSERT_EQ(a.dtype, b.dtype);
    for (std::size_t n = 0; n < num::kLanes; ++n) {
      ASSERT_EQ(a.lanes[n], b.lanes[n]) << what << ": output " << i << " lane " << n;
    }
  }
}

// ---- random programs ----
using ref::dpu_instr;
using ref::dpu_reg;

struct ProgGen {
  std::mt19937& rng;
  bool in1;
  std::vector<spec::DpuInstr> code;
  std::vector<uint32_t> counts;  // open loops, outermost first

  uint32_t pick(uint32_t lo, uint32_t hi) { return lo + rng() % (hi - lo + 1); }
  uint32_t operand(uint32_t lo = 0, uint32_t hi = 23) {
    if (!counts.empty() && rng() % 3 == 0) {
      const auto lvl = pick(1, static_cast<uint32_t>(counts.size()));
      const uint32_t base = pick(16, 32 - counts[lvl - 1]);
      return dpu_reg(base, static_cast<spec::DpuIndex>(lvl));
    }
    return dpu_reg(pick(lo, hi));
  }
  void one() {
    static constexpr std::array<DpuOp, 14> kOps{
        DpuOp::MOV,   DpuOp::ADD, DpuOp::SUB,        DpuOp::MUL,        DpuOp::MIN,        DpuOp::MAX, DpuOp::FMA,
        DpuOp::PRELU, DpuOp::LUT, DpuOp::ADD_REDUCE, DpuOp::MAX_REDUCE, DpuOp::MIN_REDUCE, DpuOp::NOP, DpuOp::POP};
    const DpuOp op = kOps[rng() % kOps.size()];
    if (op == DpuOp::POP) {
      code.push_back(dpu_instr(op, operand(0, 19), 0, 0, 0, in1 && rng() % 2 ? 1 : 0));
    } else if (op == DpuOp::LUT) {
      const uint32_t base = rng() % 4 ? pick(24, 31) : pick(0, 31);
      const uint32_t n = pick(0, std::min<uint32_t>(8, 32 - base));
      code.push_back(dpu_instr(op, operand(0, 19), operand(0, 23), dpu_reg(base), 0, n));
    } else {
      code.push_back(dpu_instr(op, operand(0, 19), operand(), operand(), operand()));
    }
  }
  void block(int budget) {
    while (budget-- > 0 && code.size() < kMaxInstr - 12) {
      const uint32_t r = rng() % 10;
      if (r == 0 && counts.size() < 3) {
        const uint32_t n = pick(1, 4);
        code.push_back(dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, n));
        counts.push_back(n);
        block(static_cast<int>(pick(1, 4)));
        counts.pop_back();
        code.push_back(dpu_instr(DpuOp::ENDLOOP));
      } else if (r == 1) {
        code.push_back(dpu_instr(DpuOp::PUSH, 0, operand()));
      } else {
        one();
      }
    }
  }
};

struct Tables {
  std::map<int, std::vector<num::PwordF32>> by_n;  // exp over [-4, 4] in n chained tables
  Tables() {
    for (int n = 1; n <= 3; ++n) {
      for (const auto& t : num::compute_chained_lut_params(-4.0, 4.0, n, [](double x) { return std::exp(x); }))
        by_n[n].push_back(num::pack_lut_params_to_pword(t));
    }
  }
};
const Tables& tables() {
  static const Tables t;
  return t;
}

struct Case {
  ref::DpuProgram prog;
  bool has_in1 = false;
  std::vector<num::PwordF32> in1_tables;  // the first IFD1 elements
};

Case random_case(std::mt19937& rng) {
  Case c;
  c.has_in1 = rng() % 3 != 0;
  static constexpr std::array<Dtype, 4> kDt{Dtype::INT8, Dtype::INT32, Dtype::FLOAT16, Dtype::FLOAT32};
  auto& d = c.prog.desc;
  d.in0_dtype = kDt[rng() % 4];
  d.in1_dtype = kDt[rng() % 4];
  d.out_dtype = kDt[rng() % 4];
  d.iterations = 1 + rng() % 5;
  ProgGen g{rng, c.has_in1, {}, {}};
  if (c.has_in1 && rng() % 2) {  // fitted exp tables into r24.. from IFD1
    d.in1_dtype = Dtype::FLOAT32;
    const int n = 1 + static_cast<int>(rng() % 3);
    c.in1_tables = tables().by_n.at(n);
    for (int i = 0; i < n; ++i)
      g.code.push_back(dpu_instr(DpuOp::POP, dpu_reg(24 + static_cast<uint32_t>(i)), 0, 0, 0, 1));
    g.code.push_back(dpu_instr(DpuOp::POP, dpu_reg(0), 0, 0, 0, 0));
    g.code.push_back(dpu_instr(DpuOp::LUT, dpu_reg(1), dpu_reg(0), dpu_reg(24), 0, static_cast<uint32_t>(n)));
    g.code.push_back(dpu_instr(DpuOp::PUSH, 0, dpu_reg(1)));
  }
  for (uint32_t i = 0, k = rng() % 4; i < k; ++i) g.one();
  d.init_len = static_cast<uint32_t>(g.code.size());
  g.code.push_back(dpu_instr(DpuOp::POP, dpu_reg(0), 0, 0, 0, 0));
  g.block(static_cast<int>(g.pick(2, 14)));
  g.code.push_back(dpu_instr(DpuOp::PUSH, 0, g.operand()));
  d.body_len = static_cast<uint32_t>(g.code.size()) - d.init_len;
  c.prog.code = g.code;
  return c;
}

LazyStream stream_of(uint32_t seed, Dtype d, std::vector<num::PwordF32> head = {}) {
  return LazyStream([seed, d, head](std::size_t i) {
    if (i < head.size()) return ref::Element{num::AnyPword::of(head[i]), false};
    std::mt19937 r(seed * 7919u + static_cast<uint32_t>(i));
    return ref::Element{random_pword(r, d), false};
  });
}

// ---- tests ----

// Every add/sub/mul/min/max/prelu/fma golden vector of tests/num through the lane functions.
TEST(DpuTest, Float18OpsReproduceTheGoldenVectors) {
  Dut d;
  std::ifstream in(AXCORE_NUM_GOLDEN_FILE);
  ASSERT_TRUE(in) << AXCORE_NUM_GOLDEN_FILE;
  const std::map<std::string, unsigned> sel{{"add", 0}, {"sub", 1},   {"mul", 2}, {"min", 3},
                                            {"max", 4}, {"prelu", 5}, {"fma", 6}};
  std::size_t checked = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ss(line);
    std::vector<std::string> f;
    for (std::string w; ss >> w;) f.push_back(w);
    if (f.empty() || !sel.contains(f[0])) continue;
    auto h = [&](std::size_t i) { return static_cast<uint32_t>(std::stoul(f[i], nullptr, 16)); };
    const bool fma = f[0] == "fma";
    const uint32_t got = d.op(sel.at(f[0]), h(1), h(2), fma ? h(3) : 0);
    ASSERT_EQ(got, h(fma ? 4 : 3)) << line;
    ++checked;
  }
  EXPECT_GT(checked, 7000u);
}

// Random and edge operands against common/num for every lane function.
TEST(DpuTest, Float18OpsMatchNumOnRandomAndEdgeOperands) {
  Dut d;
  std::mt19937 rng(31);
  std::vector<uint32_t> edge{0x00000, 0x20000, 0x00001, 0x203FF, 0x00400, 0x20400, 0x00401, 0x1FBFF, 0x3FBFF,
                             0x1FC00, 0x3FC00, 0x1FE00, 0x3FFFF, 0x1FC01, 0x0FC00, 0x2FC00, 0x0FC01, 0x0FBFF,
                             0x10000, 0x0F800, 0x00800, 0x1F800, 0x0FFFF, 0x2FFFF, 0x01000, 0x11D00, 0x31D00};
  auto check = [&](uint32_t a, uint32_t b, uint32_t c) {
    const Float18 x = f18(a), y = f18(b), z = f18(c);
    ASSERT_EQ(d.op(0, a, b), num::add(x, y).bits()) << std::hex << a << " + " << b;
    ASSERT_EQ(d.op(1, a, b), num::sub(x, y).bits()) << std::hex << a << " - " << b;
    ASSERT_EQ(d.op(2, a, b), num::mul(x, y).bits()) << std::hex << a << " * " << b;
    ASSERT_EQ(d.op(3, a, b), num::min(x, y).bits()) << std::hex << "min " << a << " " << b;
    ASSERT_EQ(d.op(4, a, b), num::max(x, y).bits()) << std::hex << "max " << a << " " << b;
    ASSERT_EQ(d.op(5, a, b), num::prelu(x, y).bits()) << std::hex << "prelu " << a << " " << b;
    ASSERT_EQ(d.op(6, a, b, c), num::fma(x, y, z).bits()) << std::hex << "fma " << a << " " << b << " " << c;
    ASSERT_EQ(d.op(7, a, b), num::less_equal(x, y) ? 1u : 0u) << std::hex << a << " <= " << b;
    num::PwordF18 t{};
    t[0] = y;
    t[1] = z;
    ASSERT_EQ(d.op(8, a, b, c), num::lut_segment(x, t)) << std::hex << "segment " << a << " " << b << " " << c;
  };
  for (uint32_t a : edge)
    for (uint32_t b : edge) check(a, b, edge[(a ^ b) % edge.size()]);
  for (int i = 0; i < 30000; ++i) {
    const uint32_t a = rng() & Float18::kMask;
    uint32_t b = rng() & Float18::kMask;
    if (i % 2) b = (b & 0x203FF) | ((a & 0x1FC00) + ((rng() % 25) << 10) - (12u << 10)) % 0x20000;  // near exponents
    if (i % 7 == 0) b = a ^ Float18::kSignBit ^ (rng() % 8);                                        // cancellation
    check(a, b, rng() & Float18::kMask);
  }
}

// Reductions and LUTs of the golden file, each vector through a small DPU program
// (POP float32 -> op -> PUSH float32, exact both ways).
TEST(DpuTest, ReductionsAndLutsReproduceTheGoldenVectors) {
  Dut d;
  std::mt19937 rng(32);
  std::ifstream in(AXCORE_NUM_GOLDEN_FILE);
  ASSERT_TRUE(in);
  std::map<std::size_t, num::PwordF32> tabs;
  std::size_t checked = 0;
  auto f32_of = [](uint32_t b18) { return num::to_float(f18(b18)); };
  for (std::string line; std::getline(in, line);) {
    std::istringstream ss(line);
    std::vector<std::string> f;
    for (std::string w; ss >> w;) f.push_back(w);
    if (f.empty()) continue;
    auto h = [&](std::size_t i) { return static_cast<uint32_t>(std::stoul(f[i], nullptr, 16)); };
    Case c;
    c.prog.desc.in0_dtype = c.prog.desc.in1_dtype = c.prog.desc.out_dtype = Dtype::FLOAT32;
    c.prog.desc.iterations = 1;
    num::PwordF32 x{};
    uint32_t want = 0;
    if (f[0] == "table") {
      for (std::size_t i = 0; i < 64; ++i) tabs[std::stoul(f[1])][i] = std::bit_cast<float>(h(2 + i));
      continue;
    } else if (f[0] == "add_reduce" || f[0] == "max_reduce" || f[0] == "min_reduce") {
      const DpuOp op = f[0] == "add_reduce"   ? DpuOp::ADD_REDUCE
                       : f[0] == "max_reduce" ? DpuOp::MAX_REDUCE
                                              : DpuOp::MIN_REDUCE;
      for (std::size_t i = 0; i < 64; ++i) x[i] = f32_of(h(1 + i));
      want = h(65);
      c.prog.code = {dpu_instr(DpuOp::POP, dpu_reg(0)), dpu_instr(op, dpu_reg(1), dpu_reg(0)),
                     dpu_instr(DpuOp::PUSH, 0, dpu_reg(1))};
    } else if (f[0] == "lut") {
      const std::size_t n = std::stoul(f[1]);
      c.has_in1 = true;
      for (std::size_t i = 0; i < n; ++i) {
        c.in1_tables.push_back(tabs.at(std::stoul(f[2 + i])));
        c.prog.code.push_back(dpu_instr(DpuOp::POP, dpu_reg(8 + static_cast<uint32_t>(i)), 0, 0, 0, 1));
      }
      x.fill(f32_of(h(2 + n)));
      want = h(3 + n);
      c.prog.code.push_back(dpu_instr(DpuOp::POP, dpu_reg(0)));
      c.prog.code.push_back(dpu_instr(DpuOp::LUT, dpu_reg(1), dpu_reg(0), dpu_reg(8), 0, static_cast<uint32_t>(n)));
      c.prog.code.push_back(dpu_instr(DpuOp::PUSH, 0, dpu_reg(1)));
    } else {
      continue;
    }
    c.prog.desc.body_len = static_cast<uint32_t>(c.prog.code.size());
    LazyStream s0([&](std::size_t) { return ref::Element{num::AnyPword::of(x), false}; });
    LazyStream s1([&](std::size_t i) {
      return ref::Element{num::AnyPword::of(i < c.in1_tables.size() ? c.in1_tables[i] : num::PwordF32{}), false};
    });
    const DpuRun r = run_dut(d, c.prog, c.has_in1, s0, s1, rng, 1.0, 1.0);
    ASSERT_EQ(r.out.size(), 1u) << line;
    for (uint32_t lane : r.out[0].value.lanes)
      ASSERT_EQ(num::f18_from_float(std::bit_cast<float>(lane)).bits(), want) << line;
    ++checked;
  }
  EXPECT_EQ(checked, 90u + 414u);
}

// Random legal programs (every opcode, nested loops with indexed operands, LUT chains of fitted
// and of random tables, IFD1 pops, all stream dtypes) bit for bit against ref::Dpu.
TEST(DpuTest, RandomProgramsMatchTheReference) {
  Dut d;
  std::mt19937 rng(33);
  std::size_t outputs = 0, errors = 0;
  for (int t = 0; t < 250; ++t) {
    const Case c = random_case(rng);
    const auto seed = static_cast<uint32_t>(rng());
    LazyStream a0 = stream_of(seed, c.prog.desc.in0_dtype),
               a1 = stream_of(seed + 1, c.prog.desc.in1_dtype, c.in1_tables);
    LazyStream b0 = stream_of(seed, c.prog.desc.in0_dtype),
               b1 = stream_of(seed + 1, c.prog.desc.in1_dtype, c.in1_tables);
    const DpuRun want = run_ref(c.prog, c.has_in1, a0, a1);
    const double p_in = t % 3 == 0 ? 1.0 : 0.6, p_out = t % 4 == 0 ? 1.0 : 0.5;
    const DpuRun got = run_dut(d, c.prog, c.has_in1, b0, b1, rng, p_in, p_out);
    expect_same(got, want, "program " + std::to_string(t));
    if (HasFatalFailure()) return;
    outputs += want.out.size();
    errors += want.err != ErrorCode::NONE;
    if (p_in == 1.0 && p_out == 1.0 && want.err == ErrorCode::NONE) {
      EXPECT_EQ(got.busy, want.instructions) << "program " << t;
      EXPECT_EQ(got.stall_in + got.stall_out, 0u) << "program " << t;
    }
  }
  std::printf("random DPU programs: 250, %zu output elements compared, %zu ended with a run-time error\n", outputs,
              errors);
  EXPECT_GT(outputs, 500u);
}

// Mutated programs: the validator's verdict equals ref::validate_dpu's.
TEST(DpuTest, ValidatorAgreesWithTheReference) {
  Dut d;
  std::mt19937 rng(34);
  std::map<ErrorCode, int> seen;
  for (int t = 0; t < 400; ++t) {
    Case c = random_case(rng);
    auto& code = c.prog.code;
    auto& desc = c.prog.desc;
    for (int m = 0, k = 1 + static_cast<int>(rng() % 2); m < k; ++m) {
      auto& in = code[rng() % code.size()];
      switch (rng() % 9) {
        case 0: in.op = static_cast<DpuOp>(rng() % 20); break;
        case 1: in.dst = rng() & 0xFF; break;
        case 2: in.a = (in.a & 0x1F) | ((rng() % 4) << 5); break;
        case 3: in.b = rng() & 0xFF; break;
        case 4: in.imm = rng() % 10; break;
        case 5: in.op = DpuOp::ENDLOOP; break;
        case 6:
          in.op = DpuOp::LOOP;
          in.imm = rng() % 3;
          break;
        case 7: desc.in1_dtype = static_cast<Dtype>(rng() % 8); break;
        default: {  // move the init / body boundary
          const auto n = desc.init_len + desc.body_len;
          desc.init_len = rng() % (n + 1);
          desc.body_len = n - desc.init_len;
        }
      }
    }
    if (t % 50 == 0) {  // too long
      while (code.size() <= kMaxInstr) code.push_back(dpu_instr(DpuOp::NOP));
      desc.body_len = static_cast<uint32_t>(code.size()) - desc.init_len;
    }
    ErrorCode want = ErrorCode::NONE;
    try {
      ref::validate_dpu(c.prog, ref::DpuConfig{c.has_in1});
    } catch (const ref::RefError& e) { want = e.code(); }
    ++seen[want];
    ASSERT_EQ(d.load(desc, code, c.has_in1), want) << "case " << t;
  }
  EXPECT_GT(seen[ErrorCode::NONE], 20);
  EXPECT_GT(seen[ErrorCode::DPU_ILLEGAL], 100);
  EXPECT_GT(seen[ErrorCode::STREAM_DTYPE], 5);
}

// A loop-indexed register that leaves the file stops the DPU with DPU_ILLEGAL when reached;
// what it pushed before is out.
TEST(DpuTest, IndexedRegisterLeavingTheFileIsDpuIllegal) {
  Dut d;
  std::mt19937 rng(35);
  ref::DpuProgram p;
  p.desc.in0_dtype = p.desc.out_dtype = Dtype::INT32;
  p.desc.iterations = 1;
  p.code = {dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, 4), dpu_instr(DpuOp::POP, dpu_reg(0)),
            dpu_instr(DpuOp::PUSH, 0, dpu_reg(0)),
            dpu_instr(DpuOp::MOV, dpu_reg(30, spec::DpuIndex::LOOP1), dpu_reg(0)), dpu_instr(DpuOp::ENDLOOP)};
  p.desc.body_len = static_cast<uint32_t>(p.code.size());
  LazyStream a0 = stream_of(5, Dtype::INT32), a1 = stream_of(6, Dtype::INT8);
  LazyStream b0 = stream_of(5, Dtype::INT32), b1 = stream_of(6, Dtype::INT8);
  const DpuRun want = run_ref(p, false, a0, a1);
  ASSERT_EQ(want.err, ErrorCode::DPU_ILLEGAL);
  const DpuRun got = run_dut(d, p, false, b0, b1, rng, 1.0, 1.0);
  expect_same(got, want, "indexed register");
  EXPECT_EQ(got.out.size(), 3u);
}

// docs/timing.md: one instruction per cycle, LOOP/ENDLOOP one each, the last element enters the
// output stream dpu_latency cycles after its PUSH; done the cycle after.
TEST(DpuTest, OneInstructionPerCycle) {
  Dut d;
  std::mt19937 rng(36);
  ref::DpuProgram p;
  p.desc.in0_dtype = Dtype::INT32;
  p.desc.in1_dtype = Dtype::FLOAT32;
  p.desc.out_dtype = Dtype::INT8;
  p.desc.iterations = 40;
  p.code = {dpu_instr(DpuOp::POP, dpu_reg(5), 0, 0, 0, 1),  // init: a bias from IFD1
            dpu_instr(DpuOp::POP, dpu_reg(0)),
            dpu_instr(DpuOp::ADD, dpu_reg(1), dpu_reg(0), dpu_reg(5)),
            dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, 2),
            dpu_instr(DpuOp::MUL, dpu_reg(1), dpu_reg(1), dpu_reg(1)),
            dpu_instr(DpuOp::ENDLOOP),
            dpu_instr(DpuOp::PUSH, 0, dpu_reg(1))};
  p.desc.init_len = 1;
  p.desc.body_len = 6;
  LazyStream a0 = stream_of(7, Dtype::INT32), a1 = stream_of(8, Dtype::FLOAT32);
  LazyStream b0 = stream_of(7, Dtype::INT32), b1 = stream_of(8, Dtype::FLOAT32);
  const DpuRun want = run_ref(p, true, a0, a1);
  const DpuRun got = run_dut(d, p, true, b0, b1, rng, 1.0, 1.0);
  expect_same(got, want, "timing");
  const uint64_t instr = 1 + 40 * (2 + 1 + 2 * 2 + 1);
  EXPECT_EQ(want.instructions, instr);
  EXPECT_EQ(got.busy, instr);
  EXPECT_EQ(got.cycles, instr + spec::param::dpu_latency + 1);
  std::printf("DPU: %llu instructions, done %llu cycles after the start (dpu_latency %u)\n",
              static_cast<unsigned long long>(instr), static_cast<unsigned long long>(got.cycles),
              static_cast<unsigned>(spec::param::dpu_latency));
}

}  // namespace
