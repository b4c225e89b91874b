// The IR verifier (verify.hpp): hand-built malformed prim_funcs and the message each gets, the
// pass manager running it between passes, and every example kernel through the whole pipeline
// (passes, lowering, emission) with the verifier after each pass.
#include <gtest/gtest.h>

#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/ops/op.hpp>
#include <axcore/compiler/verify.hpp>

#include "catalog.hpp"

namespace {

namespace cc = axcore::compiler;

cc::SourceLoc at(uint32_t line) { return cc::SourceLoc{"kernel.cpp", line, 1}; }

cc::Buffer buffer(const std::string& name, cc::Scope scope, cc::BufferRole role, std::vector<int64_t> shape = {4}) {
  auto b = std::make_shared<cc::BufferNode>();
  b->name = name;
  b->shape = std::move(shape);
  b->dtype = cc::DType::parse("float32x64");
  b->scope = scope;
  b->role = role;
  b->loc = at(1);
  return b;
}

cc::Expr load(const cc::Buffer& b, std::vector<cc::Expr> idx) {
  auto e = std::make_shared<cc::ExprNode>();
  e->kind = cc::ExprKind::Load;
  e->buf = b;
  e->dtype = b->dtype;
  e->args = std::move(idx);
  e->loc = at(5);
  return e;
}

cc::Stmt store(const cc::Buffer& dst, std::vector<cc::Expr> idx, cc::Expr value, int line) {
  auto s = cc::make_stmt(cc::StmtKind::Store, at(line));
  s->buf = dst;
  s->indices = std::move(idx);
  s->value = std::move(value);
  return s;
}

// def main(x: A.Buffer((4,), "float32x64", scope=A.DDR)):
//   y = A.alloc_buffer((4,), "float32x64", scope=A.L1)
//   with A.SysDMA():
//     for i in A.serial(4):
//       y[i] = x[i]
struct Kernel {
  cc::PrimFunc f;
  cc::Buffer x, y;
  cc::Stmt dma, loop;
  cc::Expr i;
};

Kernel well_formed() {
  Kernel k;
  k.f.name = "main";
  k.x = buffer("x", cc::Scope::DDR, cc::BufferRole::Input);
  k.y = buffer("y", cc::Scope::L1, cc::BufferRole::Local);
  k.f.params = {k.x};
  k.f.buffers = {k.y};
  k.loop = cc::make_stmt(cc::StmtKind::For, at(4));
  k.loop->var = std::make_shared<cc::VarNode>();
  k.loop->var->name = "i";
  k.loop->extent = 4;
  k.i = cc::make_var(k.loop->var, at(5));
  k.loop->body.push_back(store(k.y, {k.i}, load(k.x, {k.i}), 5));
  k.dma = cc::make_stmt(cc::StmtKind::Block, at(3));
  k.dma->unit = cc::Unit::SysDMA;
  k.dma->body.push_back(k.loop);
  k.f.body->body.push_back(k.dma);
  return k;
}

// The single problem verify_ir reports (its text, and the line it points at).
std::pair<std::string, int> only_problem(const cc::PrimFunc& f) {
  const auto p = cc::verify_ir(f);
  EXPECT_EQ(p.size(), 1u);
  if (p.empty()) return {"", 0};
  return {p.front().message, static_cast<int>(p.front().loc.line)};
}

TEST(IrVerifier, AcceptsAWellFormedKernel) { EXPECT_TRUE(cc::verify_ir(well_formed().f).empty()); }

TEST(IrVerifier, RefusesAnUndeclaredBuffer) {
  Kernel k = well_formed();
  k.f.buffers.clear();
  EXPECT_EQ(only_problem(k.f), std::make_pair(std::string("buffer y is not declared in the function"), 5));
}

TEST(IrVerifier, RefusesALoopVariableOutsideItsLoop) {
  Kernel k = well_formed();
  k.dma->body.push_back(store(k.y, {k.i}, load(k.x, {cc::make_int(0)}), 7));
  EXPECT_EQ(only_problem(k.f).first, "loop variable i is used outside the loop that binds it");
}

TEST(IrVerifier, RefusesALoopThatRebindsItsVariable) {
  Kernel k = well_formed();
  auto inner = std::make_shared<cc::StmtNode>(*k.loop);  // the same variable, nested
  k.loop->body = {inner};
  EXPECT_EQ(only_problem(k.f), std::make_pair(std::string("loop variable i is bound again inside its own loop"), 4));
}

TEST(IrVerifier, RefusesAnUndeclaredStream) {
  Kernel k = well_formed();
  auto s = std::make_shared<cc::StreamNode>();
  s->name = "s0";
  s->dtype = cc::DType::parse("float32x64");
  auto push = cc::make_stmt(cc::StmtKind::Push, at(9));
  push->stream = s;
  push->value = load(k.x, {cc::make_int(0)});
  k.f.body->body.push_back(push);
  EXPECT_EQ(only_problem(k.f),
            std::make_pair(std::string("a push to stream s0, which the function does not declare"), 9));
  k.f.streams.push_back(s);
  EXPECT_TRUE(cc::verify_ir(k.f).empty());
  k.f.streams.push_back(s);
  EXPECT_EQ(only_problem(k.f).first, "stream name 's0' is declared twice");
}

TEST(IrVerifier, RefusesATwiceDeclaredBufferName) {
  Kernel k = well_formed();
  k.f.buffers.push_back(buffer("x", cc::Scope::L1, cc::BufferRole::Local));
  EXPECT_EQ(only_problem(k.f).first, "buffer name 'x' is declared twice");
}

TEST(IrVerifier, RefusesAScopeThatContradictsTheRole) {
  Kernel k = well_formed();
  k.f.buffers.push_back(buffer("imc", cc::Scope::L1, cc::BufferRole::Imc));
  EXPECT_EQ(only_problem(k.f).first, "buffer imc has scope L1 for its role");
  k.f.buffers.back()->scope = cc::Scope::IMC;
  k.f.buffers.back()->imc_source = k.x;
  EXPECT_TRUE(cc::verify_ir(k.f).empty());
  k.y->imc_source = k.x;
  EXPECT_EQ(only_problem(k.f).first, "buffer y records the weight it was loaded from but is no IMC buffer");
}

TEST(IrVerifier, RefusesAWrongIndexCount) {
  Kernel k = well_formed();
  k.loop->body[0]->indices.push_back(cc::make_int(0));
  EXPECT_EQ(only_problem(k.f).first, "y has 1 dimensions but is indexed with 2");
}

TEST(IrVerifier, RefusesARegisterUsedBeforeItsDeclaration) {
  Kernel k = well_formed();
  auto r = buffer("r", cc::Scope::DPU_REGISTERS, cc::BufferRole::Register, {1});
  r->is_var = true;
  auto dp = cc::make_stmt(cc::StmtKind::Datapath, at(11));
  dp->body.push_back(store(r, {}, load(k.x, {cc::make_int(0)}), 12));
  auto decl = cc::make_stmt(cc::StmtKind::DeclReg, at(13));
  decl->buf = r;
  dp->body.push_back(decl);
  k.f.body->body.push_back(dp);
  EXPECT_EQ(only_problem(k.f),
            std::make_pair(std::string("register r is used before its A.var / A.array in this datapath"), 12));
  std::swap(dp->body[0], dp->body[1]);
  EXPECT_TRUE(cc::verify_ir(k.f).empty());
}

TEST(IrVerifier, RefusesAGeneratedIdOnTwoLaunches) {
  Kernel k = well_formed();
  k.dma->id = "tile1.t0.in.x";
  k.f.body->body.push_back(std::make_shared<cc::StmtNode>(*k.dma));
  EXPECT_TRUE(cc::verify_ir(k.f).empty());  // the author's id may tag several launches
  k.dma->id_generated = true;
  k.f.body->body.back()->id_generated = true;
  EXPECT_EQ(only_problem(k.f), std::make_pair(std::string("the generated id \"tile1.t0.in.x\" tags two launches"), 3));
}

TEST(IrVerifier, CheckIrNamesThePassAndTheLocation) {
  Kernel k = well_formed();
  k.f.buffers.clear();
  try {
    cc::check_ir(k.f, "pass 'tile-l1'");
    FAIL() << "check_ir accepted an undeclared buffer";
  } catch (const cc::CompileError& e) {
    EXPECT_EQ(e.loc().line, 5u);
    EXPECT_EQ(e.message(), "IR verifier, after pass 'tile-l1': buffer y is not declared in the function");
  }
}

// A pass that leaves the IR broken is caught right after it, by name; without verify_each the
// manager runs on.
TEST(IrVerifier, PassManagerVerifiesBetweenPasses) {
  cc::PassManager pm;
  pm.add("keep", [](cc::PrimFunc&) {}).add("forget-buffers", [](cc::PrimFunc& f) { f.buffers.clear(); });
  Kernel k = well_formed();
  EXPECT_NO_THROW((void)pm.run(k.f, false));
  k = well_formed();
  try {
    (void)pm.run(k.f, true);
    FAIL() << "the verifier did not run after forget-buffers";
  } catch (const cc::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("IR verifier, after pass 'forget-buffers': buffer y is not declared"),
              std::string::npos)
        << e.what();
  }
  k = well_formed();
  k.f.buffers.clear();
  try {
    (void)pm.run(k.f, true);
    FAIL() << "the verifier did not check the input";
  } catch (const cc::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("after the input"), std::string::npos) << e.what();
  }
}

// Lowering and emission are passes: timed in the one list, after the IR passes.
TEST(Pipeline, LowerAndEmitRunUnderThePassManager) {
  const auto r = cc::compile(axcore::examples::find_example("scale")->make().ir().main());
  std::vector<std::string> names;
  for (const auto& t : r.timings) names.push_back(t.name);
  ASSERT_GE(names.size(), 12u);
  const std::vector<std::string> want = {"block-predicates",
                                         "split-k",
                                         "partition-cores",
                                         "place-scopes",
                                         "tile-l1",
                                         "sink-and-unroll",
                                         "block-predicates-final",
                                         "drop-empty-loops",
                                         "infer-datapath-kinds",
                                         "fuse",
                                         "lower",
                                         "emit"};
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + static_cast<long>(want.size())), want);
}

// Every example kernel through the whole pipeline with the verifier before the first pass and
// after each, on one and on two cores (the multi-core partitioning); the lowered IR is well-formed.
TEST(Pipeline, EveryExampleKernelPassesTheVerifierAfterEveryPass) {
  for (const auto& e : axcore::examples::catalog())
    for (uint32_t cores : {1u, 2u}) {
      if (cores > e.max_cores) continue;
      cc::CompileOptions o;
      o.cores = cores;
      o.verify_each = true;
      const auto r = cc::compile(e.make().ir().main(), o);
      EXPECT_EQ(r.timings.back().name, "verify-ir") << e.name;
      EXPECT_TRUE(cc::verify_ir(*r.lowered).empty()) << e.name;
    }
}

// Two modules built and compiled one after the other in one thread leave nothing behind: the IMC
// buffer atomic.load_imc filled records its weight itself (BufferNode::imc_source), so the weight
// goes with its module (a thread_local map keyed by the IMC node's address held it, and every
// IMC node's address, until the thread ended), and an IMC buffer of a later module that
// atomic.load_imc did not fill is refused by atomic.matmul whatever address it was given.
namespace A = axcore::compiler::A;
namespace ops = axcore::compiler::ops;

ops::Tensor int8_weight() {
  std::vector<double> v(64 * 64);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(static_cast<int>(i % 9) - 4);
  return A::alloc_constant(v, "int8x64", A::DDR, {64, 1}, "w");
}

TEST(Pipeline, NoImcSourceOutlivesItsModule) {
  std::weak_ptr<cc::BufferNode> weight, resident;
  for (int run = 0; run < 2; ++run) {
    A::Module m("first");
    A::Func f = m.prim_func("main");
    {
      A::Script s(f);
      auto x = f.input("x", {4, 1}, "int8x64", A::DDR);
      auto w = int8_weight();
      auto imc = ops::invoke("atomic.load_imc", {w});
      EXPECT_EQ(imc.node()->imc_source, w.node());
      A::output(ops::invoke("atomic.matmul", {x, imc}));
      weight = w.node();
      resident = imc.node();
    }
    const auto r = cc::compile(m.ir().main());
    EXPECT_FALSE(r.program.steps.empty());
  }
  EXPECT_TRUE(weight.expired()) << "the weight atomic.load_imc read outlived its module";
  EXPECT_TRUE(resident.expired());
  for (int k = 0; k < 16; ++k) {  // new IMC nodes, some at the addresses the first modules' had
    A::Module m("second");
    A::Func f = m.prim_func("main");
    A::Script s(f);
    auto x = f.input("x", {4, 1}, "int8x64", A::DDR);
    auto imc = A::alloc_imc({1, 1});
    try {
      (void)ops::invoke("atomic.matmul", {x, imc});
      FAIL() << "atomic.matmul took an IMC buffer atomic.load_imc never filled";
    } catch (const cc::CompileError& e) {
      EXPECT_NE(std::string(e.what()).find("is not a matrix made resident by atomic.load_imc"), std::string::npos)
          << e.what();
    }
  }
}

// Every example kernel, built and compiled twice in one thread, gives the same bundle byte for
// byte: the builder and the operator library number the names they generate (`buf3`,
// `w.view2`, `x.tile1`, `y_epi0`) from one counter per function (PrimFunc::generated_names),
// not on through the thread. (A thread-wide counter named vit_patch_embed's weight view
// `w_conv_hwio0.view208_cb1` the first time and `.view275_cb1` the second.)
TEST(Pipeline, ExampleKernelsCompileToTheSameBytesTwice) {
  for (const auto& e : axcore::examples::catalog()) {
    const auto first = axcore::runtime::encode_bundle(cc::compile(e.make().ir().main()).bundle);
    const auto second = axcore::runtime::encode_bundle(cc::compile(e.make().ir().main()).bundle);
    EXPECT_EQ(first, second) << e.name;
  }
}

}  // namespace
