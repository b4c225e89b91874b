// The guide's operator call forms (docs/axscript.md, "Operator call forms"): positional and
// keyword binding as the guide writes its calls, the call keywords output=, id=, where=, core=,
// the guide's atomic.matmul / load_imc / full forms of §11.2, and register_op. Each runs on fsim
// and is compared bit for bit with the ref backend (harness.hpp), and checks the guide's meaning
// against an independent computation or the program's structure.
#include <axcore/num/float18.hpp>

#include "harness.hpp"

namespace {

using namespace axtest;
using ops::invoke;
namespace cc = axcore::compiler;
using Ints = std::vector<int64_t>;
std::string S(const char* s) { return s; }

ops::Tensor in(A::Func& f, const std::string& n, std::vector<int64_t> s, const std::string& dt) {
  s.back() /= 64;
  return f.input(n, s, dt, A::DDR);
}
// An int8 constant with a logical shape, values in -4..4.
ops::Tensor int8_const(const std::string& n, std::vector<int64_t> s, uint32_t seed) {
  std::size_t c = 1;
  for (auto d : s) c *= static_cast<std::size_t>(d);
  std::vector<double> v(c);
  for (std::size_t i = 0; i < c; ++i) v[i] = static_cast<double>(static_cast<int>((i * 7 + seed * 13) % 9) - 4);
  s.back() /= 64;
  return A::alloc_constant(v, "int8x64", A::DDR, s, n);
}

RunOutputs run(const A::Module& m, uint32_t seed = 3, double lo = -100, double hi = 100) {
  const auto b = cc::compile(m.ir().main()).bundle;
  return expect_matches_reference(m, random_inputs(b, seed, lo, hi));
}
const NDArray<float>& f32(const rt::RunResult& r, const std::string& name) {
  return std::get<NDArray<float>>(r.outputs.at(name));
}
double rf18(double v) { return axcore::num::to_double(axcore::num::f18_from_double(v)); }

// The graph node the reference runs for the call that wrote `out`.
const cc::PrimFunc::GraphNode* producer(const A::Module& m, const std::string& out) {
  for (const auto& n : m.ir().main().graph)
    if (!n.outputs.empty() && n.outputs[0] == out) return &n;
  return nullptr;
}

// Part II §2: axol.atomic.mul(inp, 2.0) is a scalar multiply — the number in the tensor
// argument's place binds `value` (also by name, other=2.0, an int, and through aten.mul_tensor).
TEST(OpsCallForms, ScalarInPlaceOfTheTensorArgument) {
  for (int form = 0; form < 4; ++form) {
    const A::Module m = module_of([&](A::Func& f) {
      auto x = in(f, "inp", {8, 64}, "float32x64");
      ops::Tensor y;
      if (form == 0) y = invoke("atomic.mul", {x, 2.0});
      if (form == 1) y = invoke("atomic.mul", {x}, {{"other", 2.0}});
      if (form == 2) y = invoke("atomic.mul", {x, int64_t{2}});
      if (form == 3) y = invoke("aten.mul_tensor", {x, 2.0});
      A::output(y);
    });
    const auto* n = producer(m, m.ir().main().outputs[0]->name);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->op, "mul");
    const auto r = run(m);
    const auto ins = random_inputs(cc::compile(m.ir().main()).bundle, 3, -100, 100);
    const auto& x = std::get<NDArray<float>>(ins.at("inp"));
    const auto& y = f32(r.device, m.ir().main().outputs[0]->name);
    for (std::size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(y.data()[i], static_cast<float>(rf18(rf18(x.data()[i]) * 2.0))) << "form " << form << " element " << i;
  }
}

// output= (guide §11.2, §12): the call writes the given buffer and returns it; the library's
// operators, a composite (aten forwarder) and a view (reshape, copied in) alike.
TEST(OpsCallForms, OutputWritesTheGivenBuffer) {
  const A::Module m = module_of([](A::Func& f) {
    auto x = in(f, "x", {4, 128}, "float32x64");
    auto a = A::alloc_buffer({4, 2}, "float32x64", A::L1_WEAK, "a");
    auto b = A::alloc_buffer({4, 2}, "float32x64", A::L1_WEAK, "b");
    auto c = A::alloc_buffer({8, 1}, "float32x64", A::L1_WEAK, "c");
    EXPECT_EQ(invoke("atomic.copy", {x}, {{"output", a}}).node(), a.node());
    EXPECT_EQ(invoke("aten.relu", {a}, {{"output", b}}).node(), b.node());
    EXPECT_EQ(invoke("atomic.reshape", {b, Ints{8, 64}}, {{"output", c}}).node(), c.node());
    A::output(c);
  });
  const auto r = run(m);
  const auto& y = f32(r.device, "c");
  EXPECT_EQ(rt::shape_of(r.device.outputs.at("c")), (axcore::ref::Shape{8, 64}));
  const auto ins = random_inputs(cc::compile(m.ir().main()).bundle, 3, -100, 100);
  const auto& x = std::get<NDArray<float>>(ins.at("x"));
  for (std::size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(y.data()[i], static_cast<float>(rf18(std::max(0.0f, x.data()[i])))) << i;
}

// Elementwise operators may update in place (output= one of their inputs); the guide's zero fill
// takes the buffer's own (packed) shape with output= (§11.2: full((m, n_blocks), 0.0, output=c)).
TEST(OpsCallForms, InPlaceAndFullOfTheOutputsShape) {
  const A::Module m = module_of([](A::Func& f) {
    auto x = in(f, "x", {3, 64}, "float32x64");
    auto acc = A::alloc_buffer({3, 1}, "float32x64", A::L1_WEAK, "acc");
    invoke("atomic.full", {Ints{3, 1}, 0.0}, {{"output", acc}});
    invoke("atomic.add", {acc, x}, {{"output", acc}});
    invoke("atomic.add", {acc, x}, {{"output", acc}});
    A::output(acc);
  });
  const auto r = run(m);
  const auto ins = random_inputs(cc::compile(m.ir().main()).bundle, 3, -100, 100);
  const auto& x = std::get<NDArray<float>>(ins.at("x"));
  const auto& y = f32(r.device, "acc");
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y.data()[i], static_cast<float>(rf18(rf18(x.data()[i]) * 2)));
}

// §11.2's split-K matmul as the guide writes it: the IMC destination as load_imc's second
// positional argument, atomic.matmul(matrix_ifd=, matrix_imc=, partial=, output=) accumulating
// K tiles into the zeroed output. Equal to the reference bit for bit, and to x @ W in float18.
TEST(OpsCallForms, MatmulSplitKWithPartial) {
  const int64_t m_rows = 5, k = 256, n = 128, kt = 128;
  const A::Module m = module_of([&](A::Func& f) {
    auto x = in(f, "x", {m_rows, k}, "int8x64");
    auto c = A::alloc_buffer({m_rows, n / 64}, "float32x64", A::L1_WEAK, "c");
    invoke("atomic.full", {Ints{m_rows, n / 64}, 0.0}, {{"output", c}});
    for (int64_t k0 = 0; k0 < k; k0 += kt) {
      auto xk = invoke("atomic.slice_tensor", {x}, {{"dim", int64_t{-1}}, {"start", k0}, {"end", k0 + kt}});
      auto wk = int8_const("w" + std::to_string(k0), {kt, n}, static_cast<uint32_t>(k0));
      auto imc = A::alloc_imc({kt / 64, n / 64}, "int8x4096", -1, "imc" + std::to_string(k0));
      EXPECT_EQ(invoke("atomic.load_imc", {wk, imc}).node(), imc.node());
      invoke("atomic.matmul", {}, {{"matrix_ifd", xk}, {"matrix_imc", imc}, {"partial", c}, {"output", c}});
    }
    A::output(c);
  });
  const auto r = run(m, 5, -20, 20);
  const auto in_x = random_inputs(cc::compile(m.ir().main()).bundle, 5, -20, 20);
  const auto& x = std::get<NDArray<int8_t>>(in_x.at("x"));
  const auto& y = f32(r.device, "c");
  std::vector<const cc::BufferNode*> ws;
  for (const auto& b : m.ir().main().buffers)
    if (b->name == "w0" || b->name == "w128") ws.push_back(b.get());
  ASSERT_EQ(ws.size(), 2u);
  for (int64_t i = 0; i < m_rows; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;  // float18 adds of the two K tiles' exact int32 products, in tile order
      for (int t = 0; t < 2; ++t) {
        int64_t p = 0;
        for (int64_t q = 0; q < kt; ++q)
          p += int64_t{x.data()[i * k + t * kt + q]} * static_cast<int64_t>(ws[t]->data[q * n + j]);
        sum = rf18(rf18(sum) + rf18(static_cast<double>(p)));
      }
      ASSERT_EQ(y.data()[i * n + j], static_cast<float>(sum)) << i << ", " << j;
    }
}

// id= (guide §12) tags every launch of the call (a linear is a LoadIMC and a datapath): none is
// waited after the call, so the elementwise datapath launched next runs beside the matmul, and
// A.waits("mm") waits for all of them.
TEST(OpsCallForms, IdTagsEveryLaunchOfTheCall) {
  const A::Module m = module_of([](A::Func& f) {
    auto x = in(f, "x", {16, 128}, "int8x64");
    auto y = in(f, "y", {16, 64}, "float32x64");
    auto mm = invoke("core.linear", {x, int8_const("w", {128, 128}, 1)}, {{"id", S("mm")}});
    auto ew = invoke("atomic.mul", {y, 0.5}, {{"id", S("ew")}});
    A::waits("mm");
    A::waits("ew");
    A::output(mm);
    A::output(ew);
  });
  cc::CompileOptions o;
  o.overlap = false;  // the guide's default sync: a wait after every launch not tagged
  const auto r = cc::compile(m.ir().main(), o);
  std::vector<std::size_t> mm_launches, ew_launches;
  for (std::size_t i = 0; i < r.program.steps.size(); ++i)
    if (const auto* t = std::get_if<cc::Task>(&r.program.steps[i])) {
      if (t->id == "mm") mm_launches.push_back(i);
      if (t->id == "ew") ew_launches.push_back(i);
    }
  ASSERT_EQ(mm_launches.size(), 2u);  // the LoadIMC and the MVMEXE datapath
  ASSERT_EQ(ew_launches.size(), 1u);
  // The datapath follows its own LoadIMC, both tagged "mm": one unit of work (§12), no §14
  // wait-after-both hazard between them.
  for (const auto& w : r.program.warnings) ADD_FAILURE() << w.message;
  std::size_t mm_waited = 0;
  for (std::size_t i = 0; i < r.program.steps.size(); ++i)
    if (const auto* w = std::get_if<cc::Wait>(&r.program.steps[i]); w && w->launch == mm_launches[1]) mm_waited = i;
  EXPECT_GT(mm_waited, ew_launches[0]) << "the matmul datapath was waited before the elementwise one was launched";
  run(m);
}

// core= runs the call on that core (A.AICore around it): each call's tasks on its core, the
// outputs equal the reference on a 2-core fsim.
TEST(OpsCallForms, CoreRunsTheCallOnThatCore) {
  const A::Module m = module_of([](A::Func& f) {
    A::output(invoke("atomic.mul", {in(f, "x", {4, 64}, "float32x64"), 2.0}, {{"core", int64_t{1}}}));
    A::output(invoke("atomic.add", {in(f, "y", {4, 64}, "float32x64"), 1.0}, {{"core", int64_t{0}}}));
  });
  cc::CompileOptions o;
  o.cores = 2;
  const auto r = cc::compile(m.ir().main(), o);
  std::set<uint32_t> cores;
  for (const auto& s : r.program.steps)
    if (const auto* t = std::get_if<cc::Task>(&s)) cores.insert(t->core);
  EXPECT_EQ(cores, (std::set<uint32_t>{0, 1}));
  EXPECT_NE(r.ir_lowered().find("with A.AICore(core=1):"), std::string::npos);
  rt::BackendConfig bc;
  bc.cores = 2;
  const auto in = random_inputs(r.bundle, 4, -100, 100);
  const auto dev = rt::make_backend("fsim", bc)->run(r.bundle, in, {});
  const auto ref = rt::make_backend("ref")->run(r.bundle, in, {});
  ASSERT_EQ(dev.outputs.size(), 2u);
  for (const auto& [k, v] : ref.outputs) EXPECT_EQ(rt::array_bytes(dev.outputs.at(k)), rt::array_bytes(v)) << k;
}

// where= (guide §10, §12) gates the call on a build-time condition: three of four steps add.
TEST(OpsCallForms, WhereGatesTheCall) {
  const A::Module m = module_of([](A::Func& f) {
    auto x = in(f, "x", {2, 64}, "float32x64");
    auto acc = A::alloc_buffer({2, 1}, "float32x64", A::L1_WEAK, "acc");
    invoke("atomic.full", {Ints{2, 1}, 0.0}, {{"output", acc}});
    for (int step = 0; step < 4; ++step) invoke("atomic.add", {acc, x}, {{"output", acc}, {"where", step != 2}});
    A::output(acc);
  });
  EXPECT_EQ(m.ir().main().graph.size(), 4u);  // the fill and three adds
  const auto r = run(m, 6, -8, 8);
  const auto ins = random_inputs(cc::compile(m.ir().main()).bundle, 6, -8, 8);
  const auto& x = std::get<NDArray<float>>(ins.at("x"));
  const auto& y = f32(r.device, "acc");
  for (std::size_t i = 0; i < x.size(); ++i) {
    double s = 0;
    for (int k = 0; k < 3; ++k) s = rf18(rf18(s) + rf18(x.data()[i]));
    ASSERT_EQ(y.data()[i], static_cast<float>(s)) << i;
  }
}

// §6.3 and §13 as the guide writes the calls: keyword arguments with tuples and scalars, the
// depthwise filters inputs in the guide's layout, NCHW -> NHWC, a slice by end= only, reshape to
// the buffer's (packed) shape, a per-channel (1, 1, C) subtraction. (§13's convolution with an
// input weight: OpsFsim.AtenWeightsAsInputs.)
TEST(OpsCallForms, GuideSection6_3And13Forms) {
  const A::Module m = module_of([](A::Func& f) {
    auto inp = f.input("inp", {10, 18, 2}, "int8x64");
    auto flt = f.input("flt", {2, 3, 3, 1}, "int8x64");  // (C_BLOCKS, KH, KW, 1)
    A::output(invoke("core.dw_convolution_2d", {inp, flt},
                     {{"stride", Ints{1, 1}}, {"dilation", Ints{1, 1}}, {"padding", Ints{0, 0}}}));
    auto seq = f.input("seq", {20, 1}, "int8x64");
    auto w1 = f.input("w1", {1, 5, 1}, "int8x64");  // (C_BLOCKS, K, 1)
    A::output(invoke("core.dw_convolution_1d", {seq, w1},
                     {{"stride", int64_t{1}}, {"dilation", int64_t{2}}, {"padding", int64_t{0}}}));
    A::output(invoke("core.dwpu_pool", {inp},
                     {{"pool_type", S("MAX")},
                      {"kernel", Ints{2, 2}},
                      {"stride", Ints{2, 2}},
                      {"dilation", Ints{1, 1}},
                      {"padding", int64_t{0}},
                      {"ceil_mode", true}}));
    auto arg0 = f.input("arg0", {1, 64, 6, 2}, "int8x64");  // NCHW, W packed (W = 128)
    auto b0 = invoke("aten.permute", {arg0}, {{"dims", Ints{0, 2, 3, 1}}});
    auto b1 = invoke("aten.slice_tensor", {b0}, {{"dim", int64_t{2}}, {"end", int64_t{96}}});
    auto b1f = invoke("atomic.dpu_cast", {b1, S("float32")});
    auto b3 = invoke("aten.reshape", {b1f}, {{"shape", Ints{1, 6 * 96, 1}}});  // (1, 6, 96, 1) -> (1, 576, 1)
    auto w_mean = f.input("w_mean", {1, 1, 1}, "float32x64");
    A::output(invoke("aten.sub_tensor", {b3, w_mean}));
  });
  EXPECT_EQ(m.ir().main().outputs.back()->shape, (Ints{1, 576, 1}));
  run(m, 11, -100, 100);
}

// register_op (guide §4.3) in C++: the guide's AtomicDpuCast — data, an output whose dtype picks
// the cast, a keyword-only core= it passes to its datapath — registered, called by name, listed.
ops::OpDef dpu_cast_def() {
  ops::OpDef d;
  d.name = "axol.atomic.guide_dpu_cast";
  d.doc = "the guide's §4.3 AtomicDpuCast";
  d.args = {{"data", ops::ArgKind::Tensor, true, {}, "int8, float16 or float32"},
            {"output", ops::ArgKind::Tensor, false, {}, "None: matches data", "", true},
            {"core", ops::ArgKind::Int, false, int64_t{-1}, "optional core"}};
  d.args[2].kw_only = true;
  d.check_given_output = false;  // a given output's dtype is the cast's target
  d.validate = [](const ops::Call& c) {
    const std::string dt = c.tensor("data").dtype();
    if (dt != "int8x64" && dt != "float16x64" && dt != "float32x64") c.refuse("data", "Unsupported input dtype");
  };
  d.infer_output = [](const ops::Call& c) {
    return ops::BufferInfo{c.tensor("data").shape(), c.tensor("data").dtype(), c.tensor("data").scope()};
  };
  d.implementation = [](const ops::Call& c, const ops::Tensor& out) {
    const ops::Tensor x = c.tensor("data");
    A::grid_nest(x.shape(), [&](const std::vector<A::Value>& i) {
      A::DatapathArgs dp;
      dp.core = static_cast<int>(c.i("core"));
      A::Datapath(dp, [&] {
        auto s = A::decl_stream(x.dtype());
        auto d18 = A::decl_stream(out.dtype());
        A::IFD(0, [&] { s.push(x.at(i)); });
        A::DPU([&] { d18.push(A::cast(s.pop(), out.dtype())); });
        A::ODR([&] { out.at(i) = d18.pop(); });
      });
    });
  };
  d.emulate = [](const ops::Call& c, const ops::Tensor& out) {
    return std::vector<cc::PrimFunc::GraphNode>{{"cast", {c.tensor("data").name()}, {out.name()}, {}, {}}};
  };
  return d;
}

TEST(OpsCallForms, RegisterOpInCpp) {
  const ops::OpDef& def = ops::register_op(dpu_cast_def(), true);
  EXPECT_EQ(def.name, "atomic.guide_dpu_cast");
  EXPECT_EQ(def.level, ops::Level::Atomic);
  EXPECT_EQ(ops::find_op("guide_dpu_cast"), &def);
  EXPECT_NE(ops::describe_ops().find("atomic.guide_dpu_cast — the guide's §4.3 AtomicDpuCast"), std::string::npos);
  // dpu_cast(x), dpu_cast(x, core=0), and an output of another dtype (int8: round and saturate)
  const A::Module m = module_of([](A::Func& f) {
    auto x = in(f, "x", {4, 128}, "float32x64");
    A::output(invoke("guide_dpu_cast", {x}));
    A::output(invoke("atomic.guide_dpu_cast", {x}, {{"core", int64_t{0}}}));
    auto q = A::alloc_buffer({4, 2}, "int8x64", A::L1_WEAK, "q");
    A::output(invoke("guide_dpu_cast", {x, q}));
  });
  run(m, 7, -300, 300);
  // Registering a name again replaces it; a name without a level, atomic=true off axol.atomic,
  // and an op without an implementation are refused.
  ops::OpDef again = dpu_cast_def();
  again.doc = "replaced";
  EXPECT_EQ(&ops::register_op(again, true), &def);
  EXPECT_EQ(def.doc, "replaced");
  ops::OpDef bad = dpu_cast_def();
  bad.name = "dpu_cast";
  EXPECT_THROW(ops::register_op(bad), std::invalid_argument);
  bad.name = "core.dpu_cast";
  EXPECT_THROW(ops::register_op(bad, true), std::invalid_argument);
  bad.implementation = nullptr;
  EXPECT_THROW(ops::register_op(bad), std::invalid_argument);
}

// Line-sensitive: each refusal stays on the line its __LINE__ names, so the formatter leaves these alone.
// clang-format off
void refused(const std::function<void(A::Func&, uint32_t&)>& body, const std::vector<std::string>& fragments) {
  expect_refused(body, fragments, "ops_call_forms_test.cpp");
}

TEST(OpsCallForms, WrongCallsAreRefusedAtTheCallersLine) {
  refused([](A::Func& f, uint32_t& l) { auto x = in(f, "x", {4, 64}, "float32x64"); auto o = A::alloc_buffer({4, 2}, "float32x64"); l = __LINE__; invoke("atomic.copy", {x}, {{"output", o}}); },
          {"atomic.copy: argument 'output'", "is (4, 2) float32x64, but atomic.copy writes (4, 1) float32x64"});
  refused([](A::Func& f, uint32_t& l) { auto x = in(f, "x", {4, 64}, "float32x64"); auto y = in(f, "y", {4, 64}, "float32x64"); l = __LINE__; invoke("atomic.copy", {x}, {{"output", y}}); },
          {"argument 'output'", "y is an input of the function"});
  refused([](A::Func& f, uint32_t& l) { auto x = in(f, "x", {64, 64}, "float32x64"); auto o = A::alloc_buffer({64, 1}, "float32x64"); invoke("atomic.copy", {x}, {{"output", o}}); l = __LINE__; invoke("atomic.transpose", {o, int64_t{0}, int64_t{1}}, {{"output", o}}); },
          {"argument 'output'", "is also the argument 'input': atomic.transpose does not update it in place"});
  refused([](A::Func& f, uint32_t& l) { auto x = in(f, "x", {4, 64}, "float32x64"); l = __LINE__; invoke("atomic.relu", {x}, {{"where", false}}); },
          {"atomic.relu: where= is false", "no output= to hold its result"});
  refused([](A::Func& f, uint32_t& l) { auto x = in(f, "x", {4, 64}, "float32x64"); l = __LINE__; invoke("atomic.relu", {x}, {{"where", S("later")}}); },
          {"where= takes a build-time condition (a bool), got a string"});
  refused([](A::Func& f, uint32_t& l) { auto x = in(f, "x", {4, 64}, "float32x64"); l = __LINE__; invoke("atomic.relu", {x}, {{"core", int64_t{-2}}}); },
          {"core= takes a core number >= 0"});
  refused([](A::Func& f, uint32_t& l) { auto x = in(f, "x", {4, 64}, "float32x64"); l = __LINE__; invoke("atomic.relu", {x}, {{"ids", S("a")}}); },
          {"atomic.relu has no argument 'ids' (did you mean 'id'?)", "every call takes id=, core=, where="});
  refused([](A::Func& f, uint32_t& l) { auto x = in(f, "x", {4, 64}, "float32x64"); l = __LINE__; invoke("atomic.mul", {x, 2.0}, {{"value", 3.0}}); },
          {"argument 'value' is given twice"});
  refused([](A::Func& f, uint32_t& l) { auto x = in(f, "x", {4, 64}, "float32x64"); ops::register_op(dpu_cast_def(), true); l = __LINE__; invoke("guide_dpu_cast", {x, int64_t{0}, int64_t{0}}); },
          {"atomic.guide_dpu_cast takes 2 positional arguments, got 3", "pass core by name (keyword-only)"});
  refused([](A::Func& f, uint32_t& l) { auto x = in(f, "x", {4, 64}, "int8x64"); auto imc = A::alloc_imc({1, 1}); auto w = int8_const("w", {64, 64}, 1); invoke("atomic.load_imc", {w, imc}); auto p = A::alloc_buffer({4, 2}, "float32x64"); l = __LINE__; invoke("atomic.matmul", {x, imc}, {{"partial", p}}); },
          {"atomic.matmul: argument 'partial'", "is (4, 2) float32x64, the product is (4, 1)"});
  // core= putting one buffer on two cores names the second call's line.
  refused([](A::Func& f, uint32_t& l) {
            auto a = invoke("atomic.mul", {in(f, "x", {4, 64}, "float32x64"), 2.0}, {{"core", int64_t{1}}});
            l = __LINE__; A::output(invoke("atomic.add", {a, 1.0}, {{"core", int64_t{0}}}));
            cc::CompileOptions two; two.cores = 2;
            (void)cc::compile(A::current_func(), two);
          },
          {"is used on core 1 and on core 0: a buffer lives in one core's L1"});
  // A wait on an id nothing is tagged with names the wait's line.
  refused([](A::Func& f, uint32_t& l) {
            auto x = in(f, "x", {4, 64}, "float32x64");
            A::output(invoke("atomic.relu", {x}, {{"id", S("r")}}));
            l = __LINE__; A::waits("q");
            (void)cc::compile(A::current_func());
          },
          {"A.sync waits on \"q\", which no launch before it is tagged with"});
}
// clang-format on

}  // namespace
