#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "axcore/num/lut.hpp"
#include "axcore/num/reduce.hpp"
#include "axcore/ref/dpu.hpp"
#include "ref_test_util.hpp"

namespace axcore::ref {
namespace {

using num::Float18;
using num::PwordF18;
using num::PwordF32;
using spec::DpuIndex;
using spec::DpuOp;
using spec::Dtype;
using spec::ErrorCode;
using testing::expect_error;

uint32_t R(uint32_t r) { return dpu_reg(r); }
uint32_t RL(uint32_t r, int level) { return dpu_reg(r, static_cast<DpuIndex>(level)); }

DpuProgram program(std::vector<spec::DpuInstr> init, std::vector<spec::DpuInstr> body, uint32_t iterations,
                   Dtype in0 = Dtype::FLOAT32, Dtype out = Dtype::FLOAT32, Dtype in1 = Dtype::FLOAT32) {
  DpuProgram p;
  p.desc.init_len = static_cast<uint32_t>(init.size());
  p.desc.body_len = static_cast<uint32_t>(body.size());
  p.desc.in0_dtype = in0;
  p.desc.in1_dtype = in1;
  p.desc.out_dtype = out;
  p.desc.iterations = iterations;
  p.code = init;
  p.code.insert(p.code.end(), body.begin(), body.end());
  return p;
}

Element f32(const PwordF32& v) { return Element{num::AnyPword::of(v), false}; }
PwordF32 ramp(float a, float b) {
  PwordF32 v;
  for (std::size_t i = 0; i < 64; ++i) v[i] = a + b * static_cast<float>(i);
  return v;
}

// Runs p with stream 0 fed from s0, stream 1 from s1; returns the pushed elements.
std::vector<Element> run(const DpuProgram& p, std::vector<Element> s0, std::vector<Element> s1 = {},
                         DpuConfig cfg = {}) {
  VectorSource a(std::move(s0)), b(std::move(s1));
  VectorSink out;
  DpuIo io{[&](unsigned s) { return s == 0 ? a.pop() : b.pop(); }, out.fn()};
  run_dpu(p, cfg, io);
  EXPECT_EQ(a.remaining(), 0u);
  EXPECT_EQ(b.remaining(), 0u);
  return out.elems;
}

TEST(Dpu, ScaleByConstantFromIfd1) {
  // init: r1 = pop(IFD1); body: r0 = pop(main); r2 = r0 * r1; push r2.
  const auto p = program(
      {dpu_instr(DpuOp::POP, R(1), 0, 0, 0, 1)},
      {dpu_instr(DpuOp::POP, R(0)), dpu_instr(DpuOp::MUL, R(2), R(0), R(1)), dpu_instr(DpuOp::PUSH, 0, R(2))}, 3);
  PwordF32 scale;
  scale.fill(2.0f);
  const auto out = run(p, {f32(ramp(0.1f, 1.0f)), f32(ramp(1000.3f, 3.0f)), f32(ramp(-5.0f, 0.001f))}, {f32(scale)});
  ASSERT_EQ(out.size(), 3u);
  for (std::size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(out[1].value.as_f32()[i], 2.0f * num::rf18(1000.3f + 3.0f * static_cast<float>(i)));
    EXPECT_EQ(out[2].value.as_f32()[i], 2.0f * num::rf18(-5.0f + 0.001f * static_cast<float>(i)));
  }
}

TEST(Dpu, LoopIndexedRegistersAndReduction) {
  // Row sum of 4 blocks (guide §8.5): LOOP 4 { r[0 + i] = pop } ; r8 = r0;
  // LOOP 3 { r8 = r8 + r[1 + i] }; r9 = add_reduce(r8); push r9.
  const auto p =
      program({},
              {dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, 4), dpu_instr(DpuOp::POP, RL(0, 1)), dpu_instr(DpuOp::ENDLOOP),
               dpu_instr(DpuOp::MOV, R(8), R(0)), dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, 3),
               dpu_instr(DpuOp::ADD, R(8), R(8), RL(1, 1)), dpu_instr(DpuOp::ENDLOOP),
               dpu_instr(DpuOp::ADD_REDUCE, R(9), R(8)), dpu_instr(DpuOp::PUSH, 0, R(9))},
              2);
  std::vector<Element> in;
  std::mt19937 rng(4);
  std::normal_distribution<float> nd(0.0f, 50.0f);
  for (int i = 0; i < 8; ++i) {
    PwordF32 v;
    for (auto& x : v) x = nd(rng);
    in.push_back(f32(v));
  }
  const auto out = run(p, in);
  ASSERT_EQ(out.size(), 2u);
  for (std::size_t it = 0; it < 2; ++it) {
    PwordF18 acc = num::to_f18(in[it * 4].value);
    for (std::size_t j = 1; j < 4; ++j) {
      const PwordF18 x = num::to_f18(in[it * 4 + j].value);
      for (std::size_t l = 0; l < 64; ++l) acc[l] = num::add(acc[l], x[l]);
    }
    const float want = num::to_float(num::add_reduce(acc)[0]);
    for (std::size_t l = 0; l < 64; ++l) EXPECT_EQ(out[it].value.as_f32()[l], want);
  }
}

TEST(Dpu, NestedLoopCountersByLevel) {
  // LOOP 2 { LOOP 3 { LOOP 2 { r[L1] = r[L1] + r[10 + L3]... } } } checks the counters of each
  // level: r0/r1 accumulate r10 (x3 per level-2 pass) and r11, each pass of the inner loop.
  // r10 = 1, r11 = 100 are popped in init. Pushes r0, r1 at the end.
  const auto p =
      program({dpu_instr(DpuOp::POP, R(10)), dpu_instr(DpuOp::POP, R(11))},
              {dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, 2), dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, 3),
               dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, 2), dpu_instr(DpuOp::ADD, RL(0, 1), RL(0, 1), RL(10, 3)),
               dpu_instr(DpuOp::ADD, RL(20, 2), RL(20, 2), R(10)), dpu_instr(DpuOp::ENDLOOP), dpu_instr(DpuOp::ENDLOOP),
               dpu_instr(DpuOp::ENDLOOP), dpu_instr(DpuOp::PUSH, 0, R(0)), dpu_instr(DpuOp::PUSH, 0, R(1)),
               dpu_instr(DpuOp::PUSH, 0, R(20)), dpu_instr(DpuOp::PUSH, 0, R(22))},
              1);
  PwordF32 one, hundred;
  one.fill(1.0f);
  hundred.fill(100.0f);
  const auto out = run(p, {f32(one), f32(hundred)});
  ASSERT_EQ(out.size(), 4u);
  // r0 (outer counter 0) and r1 (outer counter 1) each get 3 x (1 + 100).
  EXPECT_EQ(out[0].value.as_f32()[0], 303.0f);
  EXPECT_EQ(out[1].value.as_f32()[5], 303.0f);
  // r20 + level-2 counter: r20, r21, r22 each get +1 twice per level-2 pass, 2 outer passes.
  EXPECT_EQ(out[2].value.as_f32()[0], 4.0f);
  EXPECT_EQ(out[3].value.as_f32()[0], 4.0f);
}

TEST(Dpu, EveryArithmeticOp) {
  // r0 = a, r1 = b, r2 = c from the main stream; then one op each, pushed in order.
  std::vector<spec::DpuInstr> body = {dpu_instr(DpuOp::POP, R(0)), dpu_instr(DpuOp::POP, R(1)),
                                      dpu_instr(DpuOp::POP, R(2))};
  const std::vector<DpuOp> ops = {DpuOp::MOV,        DpuOp::ADD,        DpuOp::SUB,        DpuOp::MUL,
                                  DpuOp::MIN,        DpuOp::MAX,        DpuOp::FMA,        DpuOp::PRELU,
                                  DpuOp::ADD_REDUCE, DpuOp::MAX_REDUCE, DpuOp::MIN_REDUCE, DpuOp::NOP};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    body.push_back(dpu_instr(ops[i], R(3 + static_cast<uint32_t>(i)), R(0), R(1), R(2)));
    if (ops[i] != DpuOp::NOP) body.push_back(dpu_instr(DpuOp::PUSH, 0, R(3 + static_cast<uint32_t>(i))));
  }
  const auto p = program({}, body, 1);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-20.0f, 20.0f);
  PwordF32 a, b, c;
  for (std::size_t i = 0; i < 64; ++i) {
    a[i] = u(rng);
    b[i] = u(rng);
    c[i] = u(rng);
  }
  const auto out = run(p, {f32(a), f32(b), f32(c)});
  ASSERT_EQ(out.size(), ops.size() - 1);
  const PwordF18 A = num::to_f18(num::AnyPword::of(a)), B = num::to_f18(num::AnyPword::of(b)),
                 C = num::to_f18(num::AnyPword::of(c));
  for (std::size_t l = 0; l < 64; ++l) {
    const float want[] = {num::to_float(A[l]),
                          num::to_float(num::add(A[l], B[l])),
                          num::to_float(num::sub(A[l], B[l])),
                          num::to_float(num::mul(A[l], B[l])),
                          num::to_float(num::min(A[l], B[l])),
                          num::to_float(num::max(A[l], B[l])),
                          num::to_float(num::add(num::mul(A[l], B[l]), C[l])),
                          num::to_float(num::prelu(A[l], B[l])),
                          num::to_float(num::add_reduce(A)[0]),
                          num::to_float(num::max_reduce(A)[0]),
                          num::to_float(num::min_reduce(A)[0])};
    for (std::size_t k = 0; k < 11; ++k) ASSERT_EQ(out[k].value.as_f32()[l], want[k]) << k << " lane " << l;
  }
}

TEST(Dpu, ChainedLutAndCasts) {
  // init: pop 2 tables (float32) into r4, r5; body: r0 = pop (int32); r1 = lut(r0, r4..r5);
  // push r1 as int8.
  const auto params = num::compute_chained_lut_params(-8, 8, 2, [](double x) { return 100 * std::tanh(x); });
  const auto p = program(
      {dpu_instr(DpuOp::POP, R(4), 0, 0, 0, 1), dpu_instr(DpuOp::POP, R(5), 0, 0, 0, 1)},
      {dpu_instr(DpuOp::POP, R(0)), dpu_instr(DpuOp::LUT, R(1), R(0), R(4), 0, 2), dpu_instr(DpuOp::PUSH, 0, R(1))}, 1,
      Dtype::INT32, Dtype::INT8);
  num::PwordI32 x;
  for (std::size_t i = 0; i < 64; ++i) x[i] = static_cast<int32_t>(i) / 4 - 8;
  const auto out = run(p, {Element{num::AnyPword::of(x), false}},
                       {f32(num::pack_lut_params_to_pword(params[0])), f32(num::pack_lut_params_to_pword(params[1]))});
  const auto tables = num::load_lut_tables(params);
  for (std::size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(out[0].value.as_i8()[i], num::to_int8(num::lut_eval(num::f18_from_int32(x[i]), tables)));
    EXPECT_NEAR(out[0].value.as_i8()[i], 100 * std::tanh(x[i]), 2.0);
  }
}

TEST(Dpu, StepApiCountsInstructions) {
  const auto p = program({dpu_instr(DpuOp::NOP)}, {dpu_instr(DpuOp::POP, R(0)), dpu_instr(DpuOp::PUSH, 0, R(0))}, 5,
                         Dtype::INT8, Dtype::INT8);
  Dpu d(p);
  EXPECT_EQ(d.phase(), Dpu::Phase::Init);
  VectorSource src(std::vector<Element>(5, Element{num::AnyPword::splat(Dtype::INT8, 7), false}));
  VectorSink out;
  DpuIo io{[&](unsigned) { return src.pop(); }, out.fn()};
  EXPECT_TRUE(d.step(io));
  EXPECT_EQ(d.phase(), Dpu::Phase::Body);
  d.run(io);
  EXPECT_TRUE(d.done());
  EXPECT_EQ(d.instructions, 11u);
  EXPECT_EQ(d.pops, 5u);
  EXPECT_EQ(d.pushes, 5u);
  EXPECT_EQ(out.elems[4].value.as_i8()[0], 7);
  // Zero iterations: only init runs.
  auto p0 = p;
  p0.desc.iterations = 0;
  Dpu d0(p0);
  d0.run(io);
  EXPECT_EQ(d0.instructions, 1u);
}

TEST(Dpu, DecodeFromWords) {
  const auto p =
      program({dpu_instr(DpuOp::POP, R(3), 0, 0, 0, 1)}, {dpu_instr(DpuOp::FMA, R(1), RL(2, 0), R(30), R(31), 0)}, 1);
  std::vector<uint32_t> words;
  for (const auto& in : p.code) {
    const auto w = in.encode();
    words.insert(words.end(), w.begin(), w.end());
  }
  const DpuProgram q = DpuProgram::decode(p.desc, words);
  ASSERT_EQ(q.code.size(), 2u);
  EXPECT_EQ(q.code[1].op, DpuOp::FMA);
  EXPECT_EQ(q.code[1].c, R(31));
  EXPECT_EQ(q.code[0].imm, 1u);
  words.pop_back();
  expect_error([&] { (void)DpuProgram::decode(p.desc, words); }, ErrorCode::DPU_ILLEGAL, "need 4 words");
}

TEST(Dpu, IllegalPrograms) {
  const auto pop = dpu_instr(DpuOp::POP, R(0));
  const auto push = dpu_instr(DpuOp::PUSH, 0, R(0));
  const auto loop = [](uint32_t n) { return dpu_instr(DpuOp::LOOP, 0, 0, 0, 0, n); };
  const auto end = dpu_instr(DpuOp::ENDLOOP);
  auto illegal = [](const DpuProgram& p, const std::string& text, DpuConfig cfg = {}) {
    expect_error([&] { Dpu d(p, cfg); }, ErrorCode::DPU_ILLEGAL, text);
  };
  illegal(program({}, {dpu_instr(static_cast<DpuOp>(17))}, 1), "bad opcode");
  illegal(program({}, {dpu_instr(static_cast<DpuOp>(63))}, 1), "opcode 63");
  illegal(program({}, {dpu_instr(DpuOp::MOV, R(0), 0x80)}, 1), "bit 7");
  illegal(program({}, {loop(0), end}, 1), "LOOP count 0");
  illegal(program({}, {loop(2), loop(2), loop(2), loop(2), end, end, end, end}, 1), "deeper than 3");
  illegal(program({}, {end}, 1), "ENDLOOP without an open LOOP");
  illegal(program({}, {loop(2), pop}, 1), "body ends with 1 open LOOP");
  illegal(program({loop(2)}, {end}, 1), "init ends with 1 open LOOP");
  illegal(program({}, {loop(2), dpu_instr(DpuOp::MOV, RL(0, 2), R(1)), end}, 1), "loop level 2 inside 1");
  illegal(program({}, {dpu_instr(DpuOp::MOV, RL(0, 1), R(1))}, 1), "loop level 1 inside 0");
  illegal(program({}, {dpu_instr(DpuOp::POP, R(0), 0, 0, 0, 2)}, 1), "stream 2");
  illegal(program({}, {dpu_instr(DpuOp::POP, R(0), 0, 0, 0, 1)}, 1), "lacks", DpuConfig{false});
  illegal(program({}, {dpu_instr(DpuOp::LUT, R(0), R(1), R(2), 0, 9)}, 1), "chains 9");
  illegal(program({}, {dpu_instr(DpuOp::LUT, R(0), R(1), R(28), 0, 5)}, 1), "tables 28..32");
  illegal(program(std::vector<spec::DpuInstr>(60, pop), std::vector<spec::DpuInstr>(61, push), 1), "121 instructions");
  auto p = program({}, {pop}, 1);
  p.code.push_back(push);
  illegal(p, "but 2 instructions");
  expect_error([&] { Dpu d(program({}, {push}, 1, Dtype::FLOAT32, Dtype::FLOAT18)); }, ErrorCode::STREAM_DTYPE,
               "out dtype 4");
  // Runtime: r30 + loop counter reaches 32 on the third pass.
  const auto rt = program({}, {loop(3), dpu_instr(DpuOp::MOV, RL(30, 1), R(0)), end}, 1);
  expect_error([&] { run(rt, {}); }, ErrorCode::DPU_ILLEGAL, "= 32 leaves the register file");
  // A popped element of the wrong dtype.
  expect_error(
      [&] {
        run(program({}, {pop}, 1, Dtype::INT32), {Element{num::AnyPword::splat(Dtype::INT8, 1), false}});
      },
      ErrorCode::STREAM_DTYPE, "popped INT8");
  // Unused operand fields are ignored: a NOP with garbage operands is legal.
  EXPECT_NO_THROW(Dpu(program({}, {dpu_instr(DpuOp::NOP, 0xFF, 0xFF, 0xFF, 0xFF, 0xFFFF)}, 1)));
}

}  // namespace
}  // namespace axcore::ref
