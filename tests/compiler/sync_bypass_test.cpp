// The guide's §6.1 pinned stream scopes, §6.4 A.bypass() and §12 A.sync(buffers=) / A.signals,
// lowered to what they say: the program each one compiles to (which feeder a pinned stream's
// block is, which unit a bypassed block leaves out, which launches a sync waits for). The
// programs run bit-exact on fsim, TLM and RTL in examples_e2e_test.cpp (stream_pins_bypass,
// sync_signals); their refusals are in test_contracts.cpp.
#include <gtest/gtest.h>

#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/printer.hpp>
#include <axcore/compiler/script.hpp>
#include <functional>
#include <string>
#include <vector>

#include "guide_kernels.hpp"

namespace ax = axcore::compiler;
namespace A = axcore::compiler::A;

namespace {

// The descriptors of a program's datapath tasks, in launch order.
std::vector<std::vector<uint32_t>> task_words(const ax::Program& p) {
  std::vector<std::vector<uint32_t>> out;
  for (const auto& s : p.steps)
    if (const auto* t = std::get_if<ax::Task>(&s)) out.push_back(t->words);
  return out;
}

// Index of the first launch whose name contains `name`.
std::size_t launch_named(const ax::Program& p, const std::string& name) {
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    if (const auto* t = std::get_if<ax::Transfer>(&p.steps[i]); t && t->name.find(name) != std::string::npos) return i;
    if (const auto* t = std::get_if<ax::Task>(&p.steps[i]); t && t->name.find(name) != std::string::npos) return i;
  }
  ADD_FAILURE() << "no launch named " << name;
  return p.steps.size();
}

// Position of the step waiting for launch `i` (steps.size() when none does).
std::size_t wait_of(const ax::Program& p, std::size_t i) {
  for (std::size_t k = 0; k < p.steps.size(); ++k)
    if (const auto* w = std::get_if<ax::Wait>(&p.steps[k]); w && w->launch == i) return k;
  return p.steps.size();
}

ax::CompileResult compile_in_order(const A::Module& m) {
  ax::CompileOptions o;
  o.overlap = false;  // the guide's default sync: the steps in program order
  return ax::compile(m.ir().main(), o);
}

// sync_signals with `sync` in place of its A.sync(waits=["load"], buffers=[a_l1]): two SysDMA
// copies tagged "load" (a -> a_l1, b -> b_l1), `sync`, then datapath dp1 reading a_l1.
A::Module two_loads(const std::function<void(const A::BufferHandle& a_l1)>& sync) {
  return axcore::examples::sync_signals(sync);
}

struct Order {
  std::size_t copy_a, copy_b, use_a;
  std::size_t wait_a, wait_b;
};
Order order_of(const ax::Program& p) {
  Order o{};
  o.copy_a = launch_named(p, "a -> a_l1");
  o.copy_b = launch_named(p, "b -> b_l1");
  o.use_a = launch_named(p, "dp1");
  o.wait_a = wait_of(p, o.copy_a);
  o.wait_b = wait_of(p, o.copy_b);
  return o;
}

}  // namespace

TEST(SyncBuffers, TheSyncWaitsOnlyForTheLaunchesTouchingItsBuffers) {
  // A.sync(waits=["load"], buffers=[a_l1]): a's copy is waited before use_a, b's is not.
  const auto r = compile_in_order(two_loads([](const A::BufferHandle& a_l1) { A::sync({"load"}, {}, {a_l1}); }));
  const Order o = order_of(r.program);
  EXPECT_LT(o.wait_a, o.use_a);
  EXPECT_GT(o.wait_b, o.use_a) << "b's copy runs beside use_a: the sync guards a_l1 only";
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front().str();
  // The same sync without buffers= waits for both copies, as the guide's waits= alone does.
  const auto all = compile_in_order(two_loads([](const A::BufferHandle&) { A::sync({"load"}); }));
  const Order w = order_of(all.program);
  EXPECT_LT(w.wait_a, w.use_a);
  EXPECT_LT(w.wait_b, w.use_a);
}

TEST(SyncBuffers, BuffersAloneWaitForEveryLaunchInFlightTouchingThem) {
  const auto r = compile_in_order(two_loads([](const A::BufferHandle& a_l1) { A::sync({}, {}, {a_l1}); }));
  const Order o = order_of(r.program);
  EXPECT_LT(o.wait_a, o.use_a);
  EXPECT_GT(o.wait_b, o.use_a);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Signals, AWaitOnASignalWaitsForWhatWasInFlightAtTheSignal) {
  // sync_signals: after A.signals("a_done"), A.waits("a_done") waits for b's copy and for ew_a —
  // both in flight at the signal — before out_b's datapath; no §14 warning (every dependency is
  // fenced by the author's syncs).
  const auto r = compile_in_order(axcore::examples::sync_signals());
  const auto& p = r.program;
  const std::size_t copy_a = launch_named(p, "a -> a_l1"), copy_b = launch_named(p, "b -> b_l1");
  const std::size_t ew_a = launch_named(p, "dp1"), dp_b = launch_named(p, "dp2");
  EXPECT_LT(wait_of(p, copy_a), ew_a);
  EXPECT_GT(wait_of(p, copy_b), ew_a) << "buffers=[a_l1] leaves b's copy in flight";
  EXPECT_LT(wait_of(p, copy_b), dp_b);
  EXPECT_LT(wait_of(p, ew_a), dp_b);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front().str();
  // The overlap scheduler keeps the author's fences: the default compile runs the same order.
  const auto d = ax::compile(axcore::examples::sync_signals().ir().main());
  EXPECT_TRUE(d.warnings.empty());
}

TEST(Signals, ASignalMarksOnlyWhatIsInFlightAtIt) {
  // Nothing in flight at the signal (every launch before it waited): the wait on it waits for
  // nothing more, and a launch after the signal is not part of it.
  A::Module mod("Signal");
  A::Func f = mod.prim_func("main");
  auto a = f.input("a", {4, 1}, "float32x64", A::DDR);
  {
    A::Script script(f);
    auto a_l1 = A::alloc_buffer({4, 1}, "float32x64", A::L1, "a_l1");
    auto out = A::alloc_buffer({4, 1}, "float32x64", A::DDR, "out");
    A::signals("start");
    A::SysDMA(
        [&] {
          for (auto i : A::serial(4)) a_l1(i, 0) = a(i, 0);
        },
        "load");
    A::waits("start");
    A::waits("load");
    for (auto [i] : A::grid(4)) {
      A::Datapath([&] {
        auto s = A::decl_stream("float32x64");
        A::IFD(0, [&] { s.push(a_l1(i, 0)); });
        A::ODR([&] { out(i, 0) = s.pop(); });
      });
    }
    A::output(out);
  }
  const auto r = compile_in_order(mod);
  const std::size_t copy = launch_named(r.program, "a -> a_l1");
  const std::size_t w = wait_of(r.program, copy);
  // Waited once, by A.waits("load") — the step right after the copy is not a wait for it.
  EXPECT_LT(w, launch_named(r.program, "dp1"));
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Bypass, ABypassedUnitLowersAsIfItWereOmitted) {
  const auto build = [](bool written_out) {
    A::Module mod("Copy");
    A::Func f = mod.prim_func("main");
    auto inp = f.input("inp", {8, 1}, "float32x64", A::DDR);
    A::Script script(f);
    auto out = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "out");
    for (auto [i] : A::grid(8)) {
      A::Datapath([&] {
        auto s = A::decl_stream("float32x64");
        A::IFD(0, [&] { s.push(inp(i, 0)); });
        if (written_out) {
          A::IFD(1, [] { A::bypass(); });
          A::MatMul([] { A::bypass(); });
          A::DPU([] { A::bypass(); });
        }
        A::ODR([&] { out(i, 0) = s.pop(); });
      });
    }
    A::output(out);
    return mod;
  };
  const auto bypassed = ax::compile(build(true).ir().main()), omitted = ax::compile(build(false).ir().main());
  ASSERT_EQ(task_words(bypassed.program).size(), 1u);
  EXPECT_EQ(task_words(bypassed.program), task_words(omitted.program));
  // A bypassed MatMul leaves a DP_DWPU datapath (kind inference does not count it).
  const auto& t = std::get<ax::Task>(bypassed.program.steps[launch_named(bypassed.program, "dp1")]);
  EXPECT_EQ(t.queue, axcore::spec::Queue::DWPU);
  EXPECT_NE(ax::dump(build(true).ir()).find("A.bypass()"), std::string::npos);
}

TEST(StreamPins, ThePinBindsTheStreamAndPicksTheFeederOfAnIfdWithoutNum) {
  // stream_pins_bypass's first datapath, with the pins and A.IFD() without num, against the same
  // datapath written with explicit feeders and no pins: the same descriptor.
  const auto build = [](bool pinned) {
    A::Module mod("Pins");
    A::Func f = mod.prim_func("main");
    auto inp = f.input("inp", {8, 1}, "float32x64", A::DDR);
    auto wts = f.input("wts", {8, 1}, "float32x64", A::DDR);
    A::Script script(f);
    auto out = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "out");
    for (auto [i] : A::grid(8)) {
      A::Datapath([&] {
        auto x = A::decl_stream("float32x64", pinned ? "IFD_0_STREAM" : "");
        auto w = A::decl_stream("float32x64", pinned ? "IFD_1_STREAM" : "");
        auto d = A::decl_stream("float32x64", pinned ? "DPU_STREAM" : "");
        if (pinned) {
          A::IFD([&] { x.push(inp(i, 0)); });
          A::IFD([&] { w.push(wts(i, 0)); });  // without num: the pin decides
        } else {
          A::IFD(0, [&] { x.push(inp(i, 0)); });
          A::IFD(1, [&] { w.push(wts(i, 0)); });
        }
        A::DPU([&] { d.push(A::cast(x.pop(), "float18x64") * A::cast(w.pop(), "float18x64")); });
        A::ODR([&] { out(i, 0) = d.pop(); });
      });
    }
    A::output(out);
    return mod;
  };
  const auto pinned = ax::compile(build(true).ir().main()), plain = ax::compile(build(false).ir().main());
  EXPECT_EQ(task_words(pinned.program), task_words(plain.program));
  const std::string text = ax::dump(build(true).ir());
  EXPECT_NE(text.find("with A.IFD(num=1):"), std::string::npos) << text;
  EXPECT_NE(text.find("scope=\"IFD_1_STREAM\""), std::string::npos) << text;
}
