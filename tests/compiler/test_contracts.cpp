// Every contract error of the guide (§4.2, §5.2, §6.2, §7, §8, §14) that this compiler checks:
// triggered, with its message (the guide's text where it quotes one) and the user's line.
#include <gtest/gtest.h>

#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/script.hpp>
#include <functional>
#include <vector>

namespace ax = axcore::compiler;
namespace A = axcore::compiler::A;

namespace {

struct Kernel {
  A::Module mod{"K"};
  A::Func f = mod.prim_func("main");
  A::BufferHandle in = f.input("inp", {4, 2}, "float32x64", A::DDR);
  A::BufferHandle q = f.input("q", {4, 2}, "int8x64", A::DDR);
};

// Builds (and compiles) `body`; returns the error it raised.
ax::CompileError error_of(const std::function<void(Kernel&)>& body) {
  Kernel k;
  try {
    {
      A::Script s(k.f);
      body(k);
    }
    (void)ax::compile(k.mod.ir().main());
  } catch (const ax::CompileError& e) { return e; }
  ADD_FAILURE() << "no CompileError";
  return ax::CompileError({}, "");
}

#define EXPECT_ERROR_AT(err, text, line_no)                                              \
  do {                                                                                   \
    const ax::CompileError& e_ = (err);                                                  \
    EXPECT_NE(e_.message().find(text), std::string::npos) << e_.what();                  \
    EXPECT_EQ(e_.loc().line, static_cast<uint32_t>(line_no)) << e_.what();               \
    EXPECT_NE(e_.loc().file.find("test_contracts.cpp"), std::string::npos) << e_.what(); \
  } while (0)

// A copy datapath whose DPU block is `dpu`.
void dpu_kernel(Kernel& k, const std::function<void(A::StreamHandle&, A::StreamHandle&)>& dpu) {
  auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
  for (auto [i, j] : A::grid(4, 2)) {
    A::Datapath([&] {
      auto a = A::decl_stream("float32x64");
      auto b = A::decl_stream("float32x64");
      A::IFD(0, [&] { a.push(k.in(i, j)); });
      A::DPU([&] { dpu(a, b); });
      A::ODR([&] { out(i, j) = b.pop(); });
    });
  }
  A::output(out);
}

// A copy datapath over (i, j) whose first statement is `guard(i, j)` (an A.where).
void where_kernel(Kernel& k, const std::function<void(const A::Value&, const A::Value&)>& guard) {
  auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
  for (auto [i, j] : A::grid(4, 2)) {
    A::Datapath([&] {
      guard(i, j);
      auto a = A::decl_stream("float32x64");
      A::IFD(0, [&] { a.push(k.in(i, j)); });
      A::ODR([&] { out(i, j) = a.pop(); });
    });
  }
  A::output(out);
}

// A matmul datapath where `mm` writes the MatMul block and `pushes` sets the IFD count.
void mm_kernel(Kernel& k, int64_t pushes,
               const std::function<void(A::StreamHandle&, A::StreamHandle&, A::BufferHandle&)>& mm) {
  auto w = A::alloc_constant(std::vector<double>(128 * 64, 1.0), "int8x64", A::DDR, {128, 1}, "w");
  auto imc = A::alloc_imc({2, 1});
  for (auto [kb] : A::grid(2)) A::LoadIMC([&] { imc(kb, 0) = w(A::slice(kb * 64, kb * 64 + 64), 0); });
  auto out = A::alloc_buffer({4, 1}, "int32x64", A::DDR, "out");
  for (auto [m] : A::grid(4)) {
    A::Datapath([&] {
      auto x = A::decl_stream("int8x64");
      auto y = A::decl_stream("int32x64");
      for (auto kb : A::serial(pushes)) A::IFD(0, [&] { x.push(k.q(m, kb)); });
      A::MatMul([&] { mm(x, y, imc); });
      A::ODR([&] { out(m, 0) = y.pop(); });
    });
  }
  A::output(out);
}

// One contract: the kernel that breaks it (it sets `line` to the line the error must name), the
// text the message must hold, and optionally a second part of the message and a part of the hint.
// A copy datapath over (i, j): stream `main` pinned to `pin0` (pushed by `ifd`), then a DPU pushing
// a stream pinned to `pin_out` (its push's line into *line), then the ODR.
void pin_kernel(Kernel&, const std::string& pin0, const std::string& pin_out,
                const std::function<void(A::StreamHandle&, const A::Value&, const A::Value&)>& ifd,
                int* line = nullptr) {
  auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
  for (auto [i, j] : A::grid(4, 2)) {
    A::Datapath([&] {
      auto a = A::decl_stream("float32x64", pin0);
      auto b = A::decl_stream("float32x64", pin_out);
      ifd(a, i, j);
      A::DPU([&] {
        if (line) *line = __LINE__ + 1;
        b.push(A::cast(a.pop(), "float18x64"));
      });
      A::ODR([&] { out(i, j) = b.pop(); });
    });
  }
  A::output(out);
}

// IFD -> (middle) -> ODR over (i, j); `ifd` replaces the IFD block, `odr_extra` runs first in the
// ODR block, `middle` gets the stream.
void copy_kernel(Kernel& k, const std::function<void()>& ifd, const std::function<void()>& odr_extra = {},
                 const std::function<void(A::StreamHandle&)>& middle = {}) {
  auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
  for (auto [i, j] : A::grid(4, 2)) {
    A::Datapath([&] {
      auto s = A::decl_stream("float32x64");
      A::IFD(1, [&] { A::bypass(); });
      ifd();
      A::IFD(0, [&] { s.push(k.in(i, j)); });
      if (middle) middle(s);
      A::ODR([&] {
        if (odr_extra) odr_extra();
        out(i, j) = s.pop();
      });
    });
  }
  A::output(out);
}

// The §8.5 affine transform (scale and bias preloaded in A.init from IFD1) whose loop body is
// `body(scale, acc, x)` after x = the input (acc an A.var; its line into *line when `var_in_init`).
void init_kernel(Kernel& k, const std::function<void(A::Reg&, A::Reg&, const A::Value&)>& body,
                 int* var_in_init = nullptr) {
  auto consts = A::alloc_constant(std::vector<double>(128, 0.5), "float32x64", A::DDR, {2}, "consts");
  auto out = A::alloc_buffer({4, 1}, "float32x64", A::DDR, "out");
  A::Datapath([&] {
    auto ifd0 = A::decl_stream("float32x64");
    auto ifd1 = A::decl_stream("float32x64");
    auto res = A::decl_stream("float32x64");
    A::IFD(0, [&] {
      for (auto i : A::serial(4)) ifd0.push(k.in(i, 0));
    });
    A::IFD(1, [&] {
      for (auto j : A::serial(2)) ifd1.push(consts(j));
    });
    A::DPU([&] {
      auto scale = A::array("float18x64", 1, "scale");
      auto bias = A::array("float18x64", 1, "bias");
      auto acc = A::var("float18x64", "acc");
      A::init([&] {
        scale[0] = A::cast(ifd1.pop(), "float18x64");
        if (var_in_init) {
          *var_in_init = __LINE__ + 1;
          acc = A::cast(ifd1.pop(), "float18x64");
        } else {
          bias[0] = A::cast(ifd1.pop(), "float18x64");
        }
      });
      for (auto i : A::serial(4)) {
        (void)i;
        auto x = A::var("float18x64", "x");
        x = A::cast(ifd0.pop(), "float18x64");
        if (!var_in_init) body(scale, acc, x);
        acc = x * scale[0];
        res.push(A::cast(acc + bias[0], "float32x64"));
      }
    });
    A::ODR([&] {
      for (auto i : A::serial(4)) out(i, 0) = res.pop();
    });
  });
  A::output(out);
}

struct Case {
  const char* name;
  const char* text;
  std::function<void(Kernel&, int& line)> body;
  const char* also = nullptr;
  const char* hint = nullptr;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> table = {
      {"IndexingAVarIsRefusedOnRead", "Cannot index v with [0]: it is a var (a.k.a. single element buffer)",
       [](Kernel& k, int& line) {
         dpu_kernel(k, [&](A::StreamHandle& a, A::StreamHandle& b) {
           auto v = A::var("float18x64", "v");
           v = A::cast(a.pop(), "float18x64");
           line = __LINE__ + 1;
           b.push(A::cast(A::Reg(v.node())[0], "float32x64"));
         });
       }},
      {"StoringIntoAVarWithAnIndexIsRefused", "Cannot store into v at 0",
       [](Kernel& k, int& line) {
         dpu_kernel(k, [&](A::StreamHandle& a, A::StreamHandle&) {
           auto v = A::var("float18x64", "v");
           line = __LINE__ + 1;
           v[0] = A::cast(a.pop(), "float18x64");
         });
       }},
      {"RegisterLiteralIndexIsCheckedAgainstTheSize", "reg[12] is out of range: reg was declared with size=8",
       [](Kernel& k, int& line) {
         dpu_kernel(k, [&](A::StreamHandle& a, A::StreamHandle&) {
           auto r = A::array("float18x64", 8, "reg");
           line = __LINE__ + 1;
           r[12] = A::cast(a.pop(), "float18x64");
         });
       }},
      {"AllocBufferRefusesTheRegisterScope", "A.alloc_buffer cannot allocate the register scope DPU_REGISTERS",
       [](Kernel&, int& line) {
         line = __LINE__ + 1;
         A::alloc_buffer({8}, "float18x64", A::DPU_REGISTERS);
       },
       nullptr, "A.array"},
      {"RegisterDeclaredInAnIfdBlockNamesTheBlock",
       "declare it inside a DPU block or on a Datapath, not in an IFD block",
       [](Kernel& k, int& line) {
         A::Datapath([&] {
           auto s = A::decl_stream("float32x64");
           A::IFD(0, [&] {
             line = __LINE__ + 1;
             (void)A::array("float18x64", 2, "r");
             s.push(k.in(0, 0));
           });
         });
       }},
      {"RegistersAreOnlyReadInDpuBlocks",
       "r is a DPU register: registers may only be read or written in a DPU block, and this is an ODR block",
       [](Kernel& k, int& line) {
         auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
         A::Datapath([&] {
           auto r = A::array("float18x64", 1, "r");
           auto s = A::decl_stream("float32x64");
           A::IFD(0, [&] { s.push(k.in(0, 0)); });
           A::ODR([&] {
             line = __LINE__ + 1;
             out(0, 0) = r[0];
           });
         });
       }},
      {"AccumulatorTakesNoIndex", "Cannot index acc",
       [](Kernel&, int& line) {
         A::Datapath([&] {
           A::MatMul([&] {
             auto acc = A::mvm_accumulator();
             line = __LINE__ + 1;
             (void)acc[0];
           });
         });
       }},
      {"TwoPushesInAnIfdBlockExpectASingleStreamPush", "Expected a single StreamPush",
       [](Kernel& k, int& line) {
         dpu_kernel(k, [&](A::StreamHandle& a, A::StreamHandle& b) {
           b.push(A::cast(A::cast(a.pop(), "float18x64"), "float32x64"));
         });
         A::Datapath([&] {
           auto s = A::decl_stream("float32x64");
           A::IFD(0, [&] {
             s.push(k.in(0, 0));
             line = __LINE__ + 1;
             s.push(k.in(0, 1));
           });
           A::ODR([&] { A::drop(s.pop()); });
         });
       }},
      // The error points at the IFD statement holding the non-affine address, not the loop header.
      {"NonAffineIfdAddressExpectsLinearIndex", "Expected linear index",
       [](Kernel& k, int& line) {
         auto out = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "out");
         auto flat = k.in.reshape({8, 1});
         for (auto [i] : A::grid(8)) {
           A::Datapath([&] {
             auto s = A::decl_stream("float32x64");
             line = __LINE__ + 1;
             A::IFD(0, [&] { s.push(flat((i * 5) % 8, 0)); });
             A::ODR([&] { out(i, 0) = s.pop(); });
           });
         }
         A::output(out);
       }},
      {"DataDependentIndexCannotMatchTypeHandle", "Cannot match type handle vs int32",
       [](Kernel& k, int& line) {
         auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
         A::Datapath([&] {
           auto s = A::decl_stream("float32x64");
           line = __LINE__ + 1;
           A::IFD(0, [&] { s.push(k.in(k.q(0, 0).value(), 0)); });
           A::ODR([&] { out(0, 0) = s.pop(); });
         });
       }},
      {"TwoOperationsInOneDpuStatementFailToParse", "Failed to parse TIR statement",
       [](Kernel& k, int& line) {
         auto c = A::alloc_constant(std::vector<double>(64, 1.0), "float32x64", A::DDR, {1});
         dpu_kernel(k, [&](A::StreamHandle& a, A::StreamHandle& b) {
           auto x = A::var("float18x64", "x");
           x = A::cast(a.pop(), "float18x64");
           line = __LINE__ + 1;
           b.push(A::cast(x * A::cast(c(0), "float18x64") + x, "float32x64"));
         });
       },
       "at most one arithmetic operation"},
      {"DpuOperandsMustBeFloat18", "mismatched types. float32x64 vs. float18x64",
       [](Kernel& k, int& line) {
         dpu_kernel(k, [&](A::StreamHandle& a, A::StreamHandle& b) {
           auto x = A::var("float18x64", "x");
           x = A::cast(a.pop(), "float18x64");
           line = __LINE__ + 1;
           b.push(A::cast(x + k.in(0, 0), "float32x64"));
         });
       }},
      {"DpuHasNoFloatLiterals", "There is no float18 literal",
       [](Kernel& k, int& line) {
         dpu_kernel(k, [&](A::StreamHandle& a, A::StreamHandle& b) {
           auto x = A::var("float18x64", "x");
           line = __LINE__ + 1;
           x = A::cast(a.pop(), "float18x64") * A::cast(A::float32(2.0), "float18x64");
           b.push(A::cast(x, "float32x64"));
         });
       }},
      {"MatMulBlockWithoutResetBreaksTheThreeStatementContract",
       "the MatMul block holds a reset, a reduction loop over acc += A.mvm_1x1(...), and a push of acc",
       [](Kernel& k, int& line) {
         mm_kernel(k, 2, [&](A::StreamHandle& x, A::StreamHandle& y, A::BufferHandle& imc) {
           auto acc = A::mvm_accumulator();
           line = __LINE__ + 1;
           for (auto kb : A::serial(2)) acc += A::mvm_1x1(x.pop(), imc(kb, 0));
           y.push(acc);
         });
       }},
      {"IfdAndMatMulCountsMustAgree", "IFD(num=0) pushes 4 elements but the MatMul pops 8",
       [](Kernel& k, int& line) {
         auto w = A::alloc_constant(std::vector<double>(128 * 64, 1.0), "int8x64", A::DDR, {128, 1}, "w");
         auto imc = A::alloc_imc({2, 1});
         for (auto [kb] : A::grid(2)) A::LoadIMC([&] { imc(kb, 0) = w(A::slice(kb * 64, kb * 64 + 64), 0); });
         auto out = A::alloc_buffer({4, 1}, "int32x64", A::DDR, "out");
         for (auto [m] : A::grid(4)) {
           A::Datapath([&] {
             auto x = A::decl_stream("int8x64");
             auto y = A::decl_stream("int32x64");
             A::IFD(0, [&] { x.push(k.q(m, 0)); });  // one push per output
             line = __LINE__ + 1;
             A::MatMul([&] {
               auto acc = A::mvm_accumulator();
               A::reset_accumulator(acc);
               for (auto kb : A::serial(2)) acc += A::mvm_1x1(x.pop(), imc(kb, 0));  // two pops
               y.push(acc);
             });
             A::ODR([&] { out(m, 0) = y.pop(); });
           });
         }
         A::output(out);
       }},
      {"MatMulCannotPopTheSideInput", "IFD(num=1) is the DPU's side input: the MatMul cannot pop",
       [](Kernel& k, int& line) {
         auto w = A::alloc_constant(std::vector<double>(64 * 64, 1.0), "int8x64", A::DDR, {64, 1}, "w");
         auto imc = A::alloc_imc({1, 1});
         A::LoadIMC([&] { imc(0, 0) = w(A::slice(0, 64), 0); });
         auto out = A::alloc_buffer({4, 1}, "int32x64", A::DDR, "out");
         A::Datapath([&] {
           auto x = A::decl_stream("int8x64");
           auto side = A::decl_stream("int8x64");
           auto y = A::decl_stream("int32x64");
           A::IFD(0, [&] { x.push(k.q(0, 0)); });
           A::IFD(1, [&] { side.push(k.q(0, 1)); });
           line = __LINE__ + 1;
           A::MatMul([&] {
             auto acc = A::mvm_accumulator();
             A::reset_accumulator(acc);
             for (auto kb : A::serial(1)) acc += A::mvm_1x1(side.pop(), imc(kb, 0));
             y.push(acc);
           });
           A::ODR([&] { out(0, 0) = y.pop(); });
         });
         A::output(out);
       }},
      {"ImcTileBudget",
       "IMC tile budget exceeded: A.alloc_imc((18, 8)) holds 144 tiles; one residency holds at most 128",
       [](Kernel&, int& line) {
         line = __LINE__ + 1;
         auto imc = A::alloc_imc({18, 8});
         auto w = A::alloc_constant(std::vector<double>(18 * 64 * 8 * 64, 0.0), "int8x64", A::DDR, {18 * 64, 8}, "w");
         for (auto [kb, nb] : A::grid(18, 8)) A::LoadIMC([&] { imc(kb, nb) = w(A::slice(kb * 64, kb * 64 + 64), nb); });
       }},
      {"LoadImcOfOneRowWouldNotConsumeTheWeightsStream", "mvmprg: Weights stream has not been fully consumed",
       [](Kernel&, int& line) {
         auto imc = A::alloc_imc({2, 1});
         auto w = A::alloc_constant(std::vector<double>(128 * 64, 0.0), "int8x64", A::DDR, {128, 1}, "w");
         for (auto [kb] : A::grid(2)) {
           line = __LINE__ + 1;
           A::LoadIMC([&] { imc(kb, 0) = w(kb, 0); });
         }
       }},
      {"IfdNumOutOfRange", "A.IFD(num=2) is out of range",
       [](Kernel& k, int& line) {
         auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
         A::Datapath([&] {
           auto s = A::decl_stream("float32x64");
           A::IFD(0, [&] { s.push(k.in(0, 0)); });
           line = __LINE__ + 1;
           A::IFD(2, [&] { s.push(k.in(0, 1)); });
           A::ODR([&] { out(0, 0) = s.pop(); });
         });
       }},
      {"DropOnlyInOdr", "A.drop(stream.pop()) is valid only in an ODR block",
       [](Kernel& k, int& line) {
         dpu_kernel(k, [&](A::StreamHandle& a, A::StreamHandle&) {
           line = __LINE__ + 1;
           A::drop(a.pop());
         });
       }},
      {"IfdCastsNothing", "an IFD block casts nothing",
       [](Kernel& k, int& line) {
         auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
         A::Datapath([&] {
           auto s = A::decl_stream("float32x64");
           line = __LINE__ + 1;
           A::IFD(0, [&] { s.push(A::cast(k.q(0, 0), "float32x64")); });
           A::ODR([&] { out(0, 0) = s.pop(); });
         });
       }},
      {"VtrspOnlyOnTheDwpuDatapath", "A.vtrsp is only available on the DWPU datapath (A.DP_DWPU), not on DP_MVMEXE",
       [](Kernel& k, int& line) {
         auto w = A::alloc_constant(std::vector<double>(128 * 64, 1.0), "int8x64", A::DDR, {128, 1}, "w");
         auto imc = A::alloc_imc({2, 1});
         for (auto [kb] : A::grid(2)) A::LoadIMC([&] { imc(kb, 0) = w(A::slice(kb * 64, kb * 64 + 64), 0); });
         auto out = A::alloc_buffer({64, 1}, "int32x64", A::DDR, "out");
         for (auto [m] : A::grid(64)) {
           A::Datapath([&] {
             auto x = A::decl_stream("int8x64");
             auto y = A::decl_stream("int32x64");
             for (auto kb : A::serial(2)) A::IFD(0, [&] { x.push(k.q(0, kb)); });
             A::MatMul([&] {
               auto acc = A::mvm_accumulator();
               A::reset_accumulator(acc);
               for (auto kb : A::serial(2)) acc += A::mvm_1x1(x.pop(), imc(kb, 0));
               y.push(acc);
             });
             line = __LINE__ + 1;
             A::ODR([&] { out(m, 0) = A::vtrsp(y.pop()); });
           });
         }
         A::output(out);
       }},
      {"VtrspTransposesBlocksOf64Stores", "A.vtrsp transposes blocks of 64 consecutive stores; this ODR stores 8",
       [](Kernel& k, int& line) {
         auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
         for (auto [i, j] : A::grid(4, 2)) {
           A::Datapath([&] {
             auto s = A::decl_stream("float32x64");
             A::IFD(0, [&] { s.push(k.in(i, j)); });
             line = __LINE__ + 1;
             A::ODR([&] { out(i, j) = A::vtrsp(s.pop()); });
           });
         }
         A::output(out);
       },
       nullptr, "a multiple of 64"},
      // §5 A.IntImm: an integer dtype of the device, a value that fits it.
      {"IntImmTakesAnIntegerDtype", "A.IntImm(\"float32\", 1): an integer immediate is int8, int32 or int64",
       [](Kernel& k, int& line) {
         dpu_kernel(k, [&](A::StreamHandle& a, A::StreamHandle& b) {
           line = __LINE__ + 1;
           b.push(A::cast(a.pop() + A::IntImm("float32", 1), "float32x64"));
         });
       }},
      {"IntImmValueFitsItsDtype", "A.IntImm(\"int8\", 200): the value does not fit int8",
       [](Kernel&, int& line) {
         line = __LINE__ + 1;
         (void)A::Broadcast(A::IntImm("int8", 200), 64);
       },
       nullptr, "-128..127"},
      // §8.5 A.buffer_store is the indexed store: an A.var takes none (the guide's text).
      {"BufferStoreIntoAVarWithAnIndexIsRefused", "Cannot store into v at 0",
       [](Kernel& k, int& line) {
         dpu_kernel(k, [&](A::StreamHandle& a, A::StreamHandle&) {
           auto v = A::var("float18x64", "v");
           line = __LINE__ + 1;
           A::buffer_store(v, A::cast(a.pop(), "float18x64"), {0});
         });
       }},
      // §7 dpu_reduce: the DPU's three lane reductions.
      {"DpuReduceTakesAddMaxOrMin", "A.dpu.ops.dpu_reduce(x, \"mul\"): the DPU reduces across the lanes by add",
       [](Kernel& k, int& line) {
         dpu_kernel(k, [&](A::StreamHandle& a, A::StreamHandle& b) {
           line = __LINE__ + 1;
           b.push(A::cast(A::dpu::dpu_reduce(A::cast(a.pop(), "float18x64"), "mul"), "float32x64"));
         });
       }},
      // §10 A.where: decided when the program is built, on the blocks it guards; refused otherwise.
      {"WhereReadsNoData", "A.where(inp[0, 0] < 1) reads inp[0, 0]: a block predicate is decided when the program",
       [](Kernel& k, int& line) {
         where_kernel(k, [&](const A::Value&, const A::Value&) {
           line = __LINE__ + 1;
           A::where(k.in(0, 0) < 1);
         });
       }},
      {"WhereBoundsOneLoopVariable", "bounds several loop variables at once",
       [](Kernel& k, int& line) {
         where_kernel(k, [&](const A::Value& i, const A::Value& j) {
           line = __LINE__ + 1;
           A::where(i + j < 3);
         });
       }},
      {"WhereComparesAffineBounds", "is not a bound on the loop variables",
       [](Kernel& k, int& line) {
         where_kernel(k, [&](const A::Value& i, const A::Value&) {
           line = __LINE__ + 1;
           A::where(i % 2 == 0);
         });
       }},
      {"WhereBoundsARange", "does not bound a loop variable to a range of its iterations",
       [](Kernel& k, int& line) {
         where_kernel(k, [&](const A::Value& i, const A::Value&) {
           line = __LINE__ + 1;
           A::where(A::Value(ax::make_binary(ax::ExprKind::Ne, i.expr(), ax::make_int(2))));
         });
       }},
      {"WhereUsesTheLoopsAroundTheBlock", "which is not a loop around this block",
       [](Kernel& k, int& line) {
         A::Value outer;
         for (auto [r] : A::grid(2)) outer = r;
         where_kernel(k, [&](const A::Value&, const A::Value&) {
           line = __LINE__ + 1;
           A::where(outer < 1);
         });
       }},
      {"WhereGuardsDatapathCoreDmaSysDmaOnly", "here it is in an LoadIMC block",
       [](Kernel&, int& line) {
         auto imc = A::alloc_imc({1, 1});
         auto w = A::alloc_constant(std::vector<double>(64 * 64, 1.0), "int8x64", A::DDR, {64, 1});
         A::LoadIMC([&] {
           line = __LINE__ + 1;
           A::where(1);
           imc(0, 0) = w(A::slice(0, 64), 0);
         });
       },
       nullptr, "A.when"},
      {"WhereIsWrittenInTheBlockNotInItsLoop", "here it is inside a loop",
       [](Kernel& k, int& line) {
         auto b = A::alloc_buffer({4, 2}, "float32x64", A::L1, "b");
         A::SysDMA([&] {
           for (auto r : A::serial(4)) {
             line = __LINE__ + 1;
             A::where(r < 2);
             b(r, 0) = k.in(r, 0);
           }
         });
       }},
      // §6 / §9.2 several blocks of one unit: each DPU block is a task of its own here.
      {"ADpuBlockThatPushesNothingIsRefusedBesideAnother", "this block's task would store nothing",
       [](Kernel& k, int& line) {
         auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
         for (auto [i, j] : A::grid(4, 2)) {
           A::Datapath([&] {
             auto a = A::decl_stream("float32x64");
             auto c = A::decl_stream("float32x64");
             auto d = A::decl_stream("float32x64");
             A::IFD(0, [&] { a.push(k.in(i, j)); });
             line = __LINE__ + 1;
             A::DPU([&] {
               auto r = A::var("float18x64", "r");
               r = A::cast(a.pop(), "float18x64");
             });
             A::IFD(0, [&] { c.push(k.in(i, j)); });
             A::DPU([&] { d.push(A::cast(c.pop(), "float32x64")); });
             A::ODR([&] { out(i, j) = d.pop(); });
           });
         }
         A::output(out);
       },
       nullptr, "push a result from every DPU block"},
      {"DpuBlocksPoppingOneFeedersStreamsOutOfOrderAreRefused", "this DPU block pops sb, but the block feeding it",
       [](Kernel& k, int& line) {
         auto out = A::alloc_buffer({4, 2, 2}, "float32x64", A::DDR, "out");
         for (auto [i, j] : A::grid(4, 2)) {
           A::Datapath([&] {
             auto sa = A::decl_stream("float32x64", "", "sa");
             auto sb = A::decl_stream("float32x64", "", "sb");
             auto d = A::decl_stream("float32x64");
             A::IFD(0, [&] { sa.push(k.in(i, j)); });
             A::IFD(0, [&] { sb.push(k.in(i, j)); });
             line = __LINE__ + 1;
             A::DPU([&] { d.push(A::cast(sb.pop(), "float32x64")); });
             A::DPU([&] { d.push(A::cast(sa.pop(), "float32x64")); });
             A::ODR([&] {
               for (auto h : A::serial(2)) out(i, j, h) = d.pop();
             });
           });
         }
         A::output(out);
       },
       "in the order written (§8.3)"},
      // §8.3: the guide's interleaved pops of two streams of one feeder, inside a DPU loop (unsunk).
      {"FeederSegmentsPoppedInterleavedInsideADpuLoopAreRefused", "two streams of one feeder (IFD(num=1)), interleaved",
       [](Kernel& k, int& line) {
         auto out = A::alloc_buffer({4, 1}, "float32x64", A::DDR, "out");
         A::Datapath([&] {
           auto s = A::decl_stream("float32x64");
           auto sa = A::decl_stream("float32x64", "IFD_1_STREAM", "sa");
           auto sb = A::decl_stream("float32x64", "IFD_1_STREAM", "sb");
           auto d = A::decl_stream("float32x64");
           A::IFD(0, [&] {
             for (auto i : A::serial(4)) s.push(k.in(i, 0));
           });
           A::IFD(1, [&] {
             for (auto i : A::serial(4)) sa.push(k.in(i, 0));
           });
           A::IFD(1, [&] {
             for (auto i : A::serial(4)) sb.push(k.in(i, 1));
           });
           A::DPU([&] {
             auto r = A::array("float18x64", 2, "r");
             for ([[maybe_unused]] auto i : A::serial(4)) {
               r[0] = A::cast(sa.pop(), "float18x64");
               line = __LINE__ + 1;
               r[1] = A::cast(sb.pop(), "float18x64");
               r[0] = r[0] + r[1];
               r[1] = A::cast(s.pop(), "float18x64");
               d.push(A::cast(r[0] + r[1], "float32x64"));
             }
           });
           A::ODR([&] {
             for (auto i : A::serial(4)) out(i, 0) = d.pop();
           });
         });
         A::output(out);
       },
       "it pops sa again after sb", "pop all of sa before the first sb.pop()"},
      // §8.3: a task's feeders run at most ifd_seg_walks later segments between them.
      {"MoreFeederSegmentsThanTheDescriptorHoldsAreRefused", "later segments between them (spec ifd_seg_walks)",
       [](Kernel& k, int& line) {
         auto out = A::alloc_buffer({4, 1}, "float32x64", A::DDR, "out");
         A::Datapath([&] {
           auto s = A::decl_stream("float32x64");
           std::vector<A::StreamHandle> side;
           for (int n = 0; n < 4; ++n) side.push_back(A::decl_stream("float32x64", "IFD_1_STREAM"));
           auto d = A::decl_stream("float32x64");
           A::IFD(0, [&] { s.push(k.in(0, 0)); });
           for (int n = 0; n < 4; ++n) A::IFD(1, [&] { side[static_cast<std::size_t>(n)].push(k.in(n, 1)); });
           line = __LINE__ + 1;
           A::DPU([&] {
             auto r = A::array("float18x64", 2, "r");
             r[0] = A::cast(s.pop(), "float18x64");
             for (auto& st : side) {
               r[1] = A::cast(st.pop(), "float18x64");
               r[0] = r[0] + r[1];
             }
             d.push(A::cast(r[0], "float32x64"));
           });
           A::ODR([&] { out(0, 0) = d.pop(); });
         });
         A::output(out);
       },
       "reads 1 segments from IFD(num=0) and 4 from IFD(num=1)", "(split it, §9.2)"},
      {"AnIfdBlockCutWhereItsWalkIsNotOneWalkIsRefused",
       "take its elements 3..7 in one task, and they are not one walk",
       [](Kernel& k, int& line) {
         auto out = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "out");
         A::Datapath([&] {
           auto a = A::decl_stream("float32x64");
           auto d = A::decl_stream("float32x64");
           line = __LINE__ + 1;
           A::IFD(0, [&] {
             for (auto [i, j] : A::grid(2, 4)) a.push(k.in(j, i));  // column-major: two runs of 4
           });
           A::DPU([&] {
             for ([[maybe_unused]] auto n : A::serial(3)) d.push(A::cast(a.pop(), "float32x64"));
           });
           A::DPU([&] {
             for ([[maybe_unused]] auto n : A::serial(5)) d.push(A::cast(a.pop(), "float32x64"));
           });
           A::ODR([&] {
             for (auto n : A::serial(8)) out(n, 0) = d.pop();
           });
         });
         A::output(out);
       }},
      // §6.1 pinned stream scopes: a pin binds the stream to its unit.
      {"PinnedStreamIsPushedByItsFeeder", "is pinned to IFD_1_STREAM",
       [](Kernel& k, int& line) {
         pin_kernel(k, "IFD_1_STREAM", "", [&](A::StreamHandle& a, const A::Value& i, const A::Value& j) {
           A::IFD(0, [&] {
             line = __LINE__ + 1;
             a.push(k.in(i, j));
           });
         });
       },
       "which binds it to IFD_0_STREAM", "A.IFD(num=1)"},
      {"PinnedDpuStreamIsNotAFeedersStream", "is pinned to DPU_STREAM",
       [](Kernel& k, int& line) {
         pin_kernel(k, "DPU_STREAM", "", [&](A::StreamHandle& a, const A::Value& i, const A::Value& j) {
           A::IFD([&] {
             line = __LINE__ + 1;
             a.push(k.in(i, j));
           });
         });
       }},
      {"PinnedMvmStreamIsTheMatMuls", "is pinned to MVM_STREAM",
       [](Kernel& k, int& line) {
         pin_kernel(
             k, "", "MVM_STREAM",
             [&](A::StreamHandle& a, const A::Value& i, const A::Value& j) { A::IFD(0, [&] { a.push(k.in(i, j)); }); },
             &line);
       },
       "which binds it to DPU_STREAM"},
      {"OdrStreamCannotBePinnedHere", "ODR_STREAM is an ODR's output stream",
       [](Kernel&, int& line) {
         line = __LINE__ + 1;
         (void)A::decl_stream("float32x64", "ODR_STREAM");
       }},
      {"AMemoryScopeIsNotAStreamScope", "scope=L1 is not a stream scope",
       [](Kernel&, int& line) {
         line = __LINE__ + 1;
         (void)A::decl_stream("float32x64", "L1");
       },
       "is a memory scope"},
      // §6.4 A.bypass().
      {"TheOdrCannotBeBypassed", "the ODR cannot be bypassed",
       [](Kernel& k, int& line) {
         copy_kernel(
             k, [&] {},
             [&] {
               line = __LINE__ + 1;
               A::bypass();
             });
       }},
      {"TheMainFeederCannotBeBypassed", "A.IFD(num=0) cannot be bypassed",
       [](Kernel& k, int& line) {
         copy_kernel(k, [&] {
           A::IFD(0, [&] {
             line = __LINE__ + 1;
             A::bypass();
           });
         });
       },
       nullptr, "A.IFD(num=1)"},
      {"BypassIsWrittenInAStreamUnit", "outside any unit block",
       [](Kernel&, int& line) {
         line = __LINE__ + 1;
         A::bypass();
       }},
      {"ABypassedBlockHoldsNothingElse", "this A.DPU block is bypassed (A.bypass() at",
       [](Kernel& k, int& line) {
         copy_kernel(
             k, [&] {}, {},
             [&](A::StreamHandle& s) {
               A::DPU([&] {
                 A::bypass();
                 line = __LINE__ + 1;
                 s.push(A::cast(s.pop(), "float18x64"));
               });
             });
       }},
      {"ABypassedMatMulLeavesNoMvmexeDatapath", "pinned to DP_MVMEXE but has no MatMul",
       [](Kernel& k, int& line) {
         auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
         line = __LINE__ + 1;
         A::Datapath(A::DP_MVMEXE, [&] {
           auto s = A::decl_stream("float32x64");
           A::IFD(0, [&] { s.push(k.in(0, 0)); });
           A::MatMul([&] { A::bypass(); });
           A::ODR([&] { out(0, 0) = s.pop(); });
         });
         A::output(out);
       }},
      // §8.5 / §14: the A.init rule.
      {"AnInitRegisterIsNotWrittenAgainInTheLoop", "scale[0] is written in A.init (at",
       [](Kernel& k, int& line) {
         init_kernel(k, [&](A::Reg& scale, A::Reg&, const A::Value& x) {
           line = __LINE__ + 1;
           scale[0] = x;
         });
       },
       "cannot be written again in the loop"},
      {"AnInitRegisterWrittenByALoopIndex", "scale[0] is written in A.init",
       [](Kernel& k, int& line) {
         init_kernel(k, [&](A::Reg& scale, A::Reg&, const A::Value& x) {
           for (auto j : A::serial(1)) {
             line = __LINE__ + 1;
             scale[j] = x;
           }
         });
       }},
      {"AVarIsNotFilledInInit", "must be an A.array",
       [](Kernel& k, int& line) {
         init_kernel(
             k, [](A::Reg&, A::Reg&, const A::Value&) {}, &line);
       }},
      // §12 A.sync(buffers=), A.signals.
      {"SyncBuffersGuardWhatTheLaunchesTouch", "no launch \"load\" names touches those buffers",
       [](Kernel& k, int& line) {
         auto a = A::alloc_buffer({4, 2}, "float32x64", A::L1, "a");
         auto other = A::alloc_buffer({4, 2}, "float32x64", A::L1, "other");
         A::SysDMA(
             [&] {
               for (auto [i, j] : A::grid(4, 2)) a(i, j) = k.in(i, j);
             },
             "load");
         line = __LINE__ + 1;
         A::sync({"load"}, {}, {other});
       }},
      {"AWaitNeedsATagOrASignal", "which no launch before it is tagged with (or signals)",
       [](Kernel&, int& line) {
         line = __LINE__ + 1;
         A::waits("ready");
         A::signals("ready");
       },
       nullptr, "A.signals(\"ready\")"},
  };
  return table;
}

}  // namespace

class CompilerContracts : public ::testing::TestWithParam<std::size_t> {};

TEST_P(CompilerContracts, ErrorNamesTheContractAndTheLine) {
  const Case& c = cases().at(GetParam());
  int line = 0;
  const auto e = error_of([&](Kernel& k) { c.body(k, line); });
  ASSERT_NE(line, 0) << c.name << ": the case sets no line";
  EXPECT_ERROR_AT(e, c.text, line);
  if (c.also) { EXPECT_NE(e.message().find(c.also), std::string::npos) << e.what(); }
  if (c.hint) { EXPECT_NE(e.hint().find(c.hint), std::string::npos) << e.hint(); }
}

INSTANTIATE_TEST_SUITE_P(Guide, CompilerContracts, ::testing::Range<std::size_t>(0, cases().size()),
                         [](const ::testing::TestParamInfo<std::size_t>& i) {
                           return std::string(cases().at(i.param).name);
                         });
