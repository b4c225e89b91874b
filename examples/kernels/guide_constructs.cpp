// The guide's constructs that no whole program of guide_kernels.cpp uses, each written as the
// guide writes it (§4.4 loop forms, §5 A.IntImm, §8.4 / §8.5 A.buffer_store and store-or-drop).
#include <functional>
#include <string>
#include <vector>

#include <axcore/num/lut.hpp>

#include "guide_kernels.hpp"

namespace axcore::examples {
namespace {
// One PWORD per entry of `blocks`, lane l of block b: a value in [-1.5, 1.5] that float18 rounds.
std::vector<double> lane_values(int64_t blocks, double step) {
  std::vector<double> v;
  for (int64_t b = 0; b < blocks; ++b)
    for (int l = 0; l < 64; ++l) v.push_back(-1.5 + step * static_cast<double>((l * 7 + b * 13) % 31));
  return v;
}
// A constant PWORD holding `v` in every lane (a DPU operand comes from a buffer, §7).
A::BufferHandle splat(double v, const std::string& name) {
  return A::alloc_constant(std::vector<double>(64, v), "float32x64", A::DDR, {1}, name);
}
}  // namespace

A::Module loop_forms() {
  A::Module mod("LoopForms");
  A::Func f = mod.prim_func("main");
  const std::vector<int64_t> shape = {2, 3, 2};  // (H, W, C_BLOCKS): a rank the code does not spell out
  auto inp = f.input("inp", shape, "float32x64", A::DDR);
  auto rows = f.input("rows", {3, 4}, "float32x64", A::DDR);
  A::Script script(f);
  auto scale = A::alloc_constant(lane_values(2, 0.0973), "float32x64", A::DDR, {2}, "scale");
  auto out = A::alloc_buffer(shape, "float32x64", A::DDR, "out");
  auto out_rows = A::alloc_buffer({3, 4}, "float32x64", A::DDR, "out_rows");
  // for vars in A.grid(*shape, always_tuple=True): spatial, ch = vars[:-1], vars[-1]
  A::grid_nest(shape, [&](const std::vector<A::Value>& vars) {
    const A::Value ch = vars.back();  // sliced by position: the same code for any number of axes
    A::Datapath([&] {
      auto ifd = A::decl_stream("float32x64");
      auto dpu = A::decl_stream("float32x64");
      A::IFD(0, [&] { ifd.push(inp.at(vars)); });
      A::DPU([&] { dpu.push(A::cast(ifd.pop(), "float18x64") * A::cast(scale(ch), "float18x64")); });
      A::ODR([&] { out.at(vars) = dpu.pop(); });
    });
  });
  // §9.2: for u in A.unroll(2): for i in A.serial(4): one datapath — the unroll is the opt-out of
  // sinking, so u stays a copy per iteration (two datapaths) and only i streams through the units.
  for (auto u : A::unroll(2)) {
    for (auto i : A::serial(4)) {
      A::Datapath([&] {
        auto ifd = A::decl_stream("float32x64");
        auto dpu = A::decl_stream("float32x64");
        A::IFD(0, [&] { ifd.push(rows(u, i)); });
        A::DPU([&] { dpu.push(A::cast(ifd.pop(), "float18x64") * A::cast(scale(u), "float18x64")); });
        A::ODR([&] { out_rows(u, i) = dpu.pop(); });
      });
    }
  }
  // The two-argument form, A.unroll(2, 3): row 2 copied as it is (IFD -> ODR, §6.4).
  for (auto u : A::unroll(2, 3)) {
    for (auto i : A::serial(4)) {
      A::Datapath([&] {
        auto s = A::decl_stream("float32x64");
        A::IFD(0, [&] { s.push(rows(u, i)); });
        A::ODR([&] { out_rows(u, i) = s.pop(); });
      });
    }
  }
  A::output(out);
  A::output(out_rows);
  return mod;
}

A::Module int_imm_store() {
  A::Module mod("IntImmStore");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {6, 1}, "int8x64", A::DDR);
  A::Script script(f);
  auto scale = A::alloc_constant(lane_values(1, 0.0911), "float32x64", A::DDR, {1}, "scale");
  auto out = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "out");
  for (auto [i] : A::grid(8)) {  // the 6 input rows reversed, then two rows of padding
    A::Datapath([&] {
      auto ifd = A::decl_stream("int8x64");
      auto dpu = A::decl_stream("float32x64");
      A::IFD(0, [&] {
        ifd.push(A::if_then_else(A::all({i < A::IntImm("int32", 6)}), inp(A::IntImm("int32", 5) - i, 0),
                                 A::Broadcast(A::IntImm("int8", -7), 64)));
      });
      A::DPU([&] {
        auto regs = A::array("float18x64", 2, "regs");
        A::buffer_store(regs, A::cast(ifd.pop(), "float18x64"), {A::IntImm("int32", 0)});  // §8.5's form
        A::buffer_store(regs, regs[0] * A::cast(scale(0), "float18x64"), {1});
        dpu.push(A::cast(regs[1], "float32x64"));
      });
      A::ODR([&] { A::buffer_store(out, dpu.pop(), {i, 0}); });
    });
  }
  A::output(out);
  return mod;
}

A::Module store_or_drop() {
  A::Module mod("StoreOrDrop");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {4, 4}, "float32x64", A::DDR);
  A::Script script(f);
  auto two = splat(2.0, "two");
  auto out = A::alloc_buffer({4, 3}, "float32x64", A::DDR, "out");
  for (auto [r, c] : A::grid(4, 4)) {  // the pipeline computes 4 columns; the ODR keeps 3, mirrored
    A::Datapath([&] {
      auto ifd = A::decl_stream("float32x64");
      auto dpu = A::decl_stream("float32x64");
      A::IFD(0, [&] { ifd.push(inp(r, c)); });
      A::DPU([&] { dpu.push(A::cast(ifd.pop(), "float18x64") * A::cast(two(0), "float18x64")); });
      A::ODR([&] {
        A::If(
            c < 3, [&] { out(r, 2 - c) = dpu.pop(); },  // selects store or drop
            [&] { A::drop(dpu.pop()); });               // surplus positions are dropped
      });
    });
  }
  A::output(out);
  return mod;
}

A::Module dpu_reduce_fma() {
  A::Module mod("DpuReduceFma");
  A::Func f = mod.prim_func("main");
  constexpr int64_t NB = 3;
  auto inp = f.input("inp", {4, NB}, "float32x64", A::DDR);
  A::Script script(f);
  auto k = splat(0.75, "k");
  auto out = A::alloc_buffer({4, 2}, "float32x64", A::DDR, "out");
  for (auto [r] : A::grid(4)) {
    A::Datapath([&] {
      auto ifd = A::decl_stream("float32x64");
      auto dpu = A::decl_stream("float32x64");
      for (auto j : A::serial(NB)) A::IFD(0, [&] { ifd.push(inp(r, j)); });
      A::DPU([&] {
        auto x = A::array("float18x64", NB, "x");  // the row, one register per block
        auto hi = A::var("float18x64", "hi");
        auto lo = A::var("float18x64", "lo");
        auto s = A::var("float18x64", "s");
        for (auto j : A::serial(NB)) x[j] = A::cast(ifd.pop(), "float18x64");
        hi = x[0];  // combine the blocks elementwise (a running A.max / A.min) ...
        for (auto j : A::serial(1, NB)) hi = A::max(hi, x[j]);
        lo = x[0];
        for (auto j : A::serial(1, NB)) lo = A::min(lo, x[j]);
        hi = A::dpu::dpu_reduce(hi, "max");  // ... then reduce across the lanes
        lo = A::dpu::dpu_reduce(lo, "min");
        s = A::dpu::dpu_reduce(x[0], "add");
        dpu.push(A::cast(A::dpu::dpu_fma(hi, A::cast(k(0), "float18x64"), lo), "float32x64"));  // hi * k + lo
        dpu.push(A::cast(s, "float32x64"));
      });
      A::ODR([&] {
        for (auto q : A::serial(2)) out(r, q) = dpu.pop();
      });
    });
  }
  A::output(out);
  return mod;
}

A::Module where_guard() {
  A::Module mod("WhereGuard");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {8, 1}, "float32x64", A::DDR);
  A::Script script(f);
  auto two = splat(2.0, "two");
  auto three = splat(3.0, "three");
  auto a = A::alloc_buffer({8, 1}, "float32x64", A::L1, "a");
  auto b = A::alloc_buffer({8, 1}, "float32x64", A::L1, "b");
  auto c = A::alloc_buffer({8, 1}, "float32x64", A::L1, "c");
  auto out = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "out");
  for (auto i : A::serial(8)) A::SysDMA([&] { a(i, 0) = inp(i, 0); });
  // b = 2a on rows 0..4 and 3a on rows 5..7: two datapaths, each bounded by its predicate.
  const std::pair<const A::BufferHandle*, bool> halves[] = {{&two, true}, {&three, false}};
  for (const auto& [k, low] : halves) {  // a build-time loop: two datapath loops
    for (auto [i] : A::grid(8)) {
      A::Datapath([&] {
        A::where(low ? i < 5 : i >= 5);
        auto ifd = A::decl_stream("float32x64");
        auto dpu = A::decl_stream("float32x64");
        A::IFD(0, [&] { ifd.push(a(i, 0)); });
        A::DPU([&] { dpu.push(A::cast(ifd.pop(), "float18x64") * A::cast((*k)(0), "float18x64")); });
        A::ODR([&] {
          A::where(i < 6);  // inert: an ODR is a stream unit (§8.4); rows 6 and 7 are still stored
          b(i, 0) = dpu.pop();
        });
      });
    }
  }
  // c = a on rows 0..3, b on rows 4..7: two CoreDMA copies of four rows each.
  for (auto i : A::serial(8)) {
    A::CoreDMA(
        [&] {
          A::where(i >= 4);
          c(i, 0) = b(i, 0);
        },
        0);
  }
  for (auto i : A::serial(8)) {
    A::CoreDMA(
        [&] {
          A::where(i < 4);
          c(i, 0) = a(i, 0);
        },
        0);
  }
  // Copied out once: of the two unrolled SysDMA blocks, the predicate keeps the second.
  for (auto h : A::unroll(2)) {
    A::SysDMA([&] {
      A::where(h == 1);
      for (auto i : A::serial(8)) out(i, 0) = c(i, 0);
    });
  }
  A::output(out);
  return mod;
}

A::Module two_dpu_blocks() {
  A::Module mod("TwoDpuBlocks");
  A::Func f = mod.prim_func("main");
  constexpr int64_t N = 4;
  auto a = f.input("a", {N, 1}, "float32x64", A::DDR);
  auto b = f.input("b", {N, 1}, "float32x64", A::DDR);
  A::Script script(f);
  auto two = splat(2.0, "two");
  auto three = splat(3.0, "three");
  auto out = A::alloc_buffer({N, 2}, "float32x64", A::DDR, "out");
  for (auto [i] : A::grid(N)) {  // one datapath in the loop: sunk into each of its five blocks (§9.2)
    A::Datapath([&] {
      auto sa = A::decl_stream("float32x64");
      auto sb = A::decl_stream("float32x64");
      auto d = A::decl_stream("float32x64");
      A::IFD(0, [&] { sa.push(a(i, 0)); });
      A::DPU([&] { d.push(A::cast(A::cast(sa.pop(), "float18x64") * A::cast(two(0), "float18x64"), "float32x64")); });
      A::IFD(0, [&] { sb.push(b(i, 0)); });
      A::DPU([&] { d.push(A::cast(A::cast(sb.pop(), "float18x64") + A::cast(three(0), "float18x64"), "float32x64")); });
      A::ODR([&] {  // two stores per iteration: block 1's results for every i arrive first
        for (auto j : A::serial(2)) out(i, j) = d.pop();
      });
    });
  }
  A::output(out);
  return mod;
}

A::Module feeder_segments() {
  A::Module mod("FeederSegments");
  A::Func f = mod.prim_func("main");
  constexpr int64_t N = 4;
  auto x = f.input("x", {N, 1}, "float32x64", A::DDR);
  auto a = f.input("a", {N, 1}, "float32x64", A::DDR);
  auto b = f.input("b", {N, 1}, "float32x64", A::DDR);
  A::Script script(f);
  auto out = A::alloc_buffer({N, 1}, "float32x64", A::DDR, "out");
  A::Datapath([&] {
    auto s = A::decl_stream("float32x64");
    auto sa = A::decl_stream("float32x64", "IFD_1_STREAM", "sa");  // two logical streams, one feeder
    auto sb = A::decl_stream("float32x64", "IFD_1_STREAM", "sb");
    auto d = A::decl_stream("float32x64");
    A::IFD(0, [&] {
      for (auto i : A::serial(N)) s.push(x(i, 0));
    });
    A::IFD(1, [&] {
      for (auto i : A::serial(N)) sa.push(a(i, 0));  // all of sa,
    });
    A::IFD(1, [&] {
      for (auto i : A::serial(N)) sb.push(b(i, 0));  // then all of sb (§8.3)
    });
    A::DPU([&] {
      auto ra = A::array("float18x64", N, "ra");
      auto r = A::array("float18x64", 2, "r");
      for (auto i : A::serial(N)) ra[i] = A::cast(sa.pop(), "float18x64");  // sa first, whole
      for (auto i : A::serial(N)) {
        r[0] = A::cast(s.pop(), "float18x64");
        r[0] = r[0] * ra[i];
        r[1] = A::cast(sb.pop(), "float18x64");  // then sb
        d.push(A::cast(r[0] + r[1], "float32x64"));
      }
    });
    A::ODR([&] {
      for (auto i : A::serial(N)) out(i, 0) = d.pop();
    });
  });
  A::output(out);
  return mod;
}

A::Module feeder_segments_mixed() {
  A::Module mod("FeederSegmentsMixed");
  A::Func f = mod.prim_func("main");
  auto q = f.input("q", {4, 1}, "int8x64", A::DDR);
  auto x = f.input("x", {2, 2}, "float32x64", A::DDR);
  auto sc = f.input("s", {1, 1}, "float32x64", A::DDR);
  auto g = f.input("g", {3, 4}, "int8x64", A::DDR);
  A::Script script(f);
  auto out = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "out");
  A::Datapath([&] {
    auto m1 = A::decl_stream("int8x64", "", "m1");  // IFD0: int8, then float32
    auto m2 = A::decl_stream("float32x64", "", "m2");
    auto s1 = A::decl_stream("float32x64", "IFD_1_STREAM", "s1");  // IFD1: float32, then int8
    auto s2 = A::decl_stream("int8x64", "IFD_1_STREAM", "s2");
    auto d = A::decl_stream("float32x64");
    A::IFD(0, [&] {
      for (auto i : A::serial(4)) m1.push(q(i, 0));
    });
    A::IFD(0, [&] {
      for (auto j : A::serial(2))
        for (auto k : A::serial(2)) m2.push(x(j, k));
    });
    A::IFD(1, [&] { s1.push(sc(0, 0)); });
    A::IFD(1, [&] {
      for (auto j : A::serial(2))
        for (auto k : A::serial(2)) s2.push(g(2 * j, k + 1));
    });
    A::DPU([&] {
      auto scale = A::array("float18x64", 1, "scale");
      auto r = A::array("float18x64", 2, "r");
      scale[0] = A::cast(s1.pop(), "float18x64");
      for ([[maybe_unused]] auto i : A::serial(4)) {
        r[0] = A::cast(m1.pop(), "float18x64");
        d.push(A::cast(r[0] * scale[0], "float32x64"));
      }
      for ([[maybe_unused]] auto n : A::serial(4)) {
        r[0] = A::cast(m2.pop(), "float18x64");
        r[1] = A::cast(s2.pop(), "float18x64");
        d.push(A::cast(r[0] + r[1], "float32x64"));
      }
    });
    A::ODR([&] {
      for (auto n : A::serial(8)) out(n, 0) = d.pop();
    });
  });
  A::output(out);
  return mod;
}

A::Module two_matmul_blocks() {
  A::Module mod("TwoMatMulBlocks");
  A::Func f = mod.prim_func("main");
  constexpr int64_t M = 4, K_BLOCKS = 2, N_BLOCKS = 2;
  auto inp = f.input("inp", {M, K_BLOCKS}, "int8x64", A::DDR);
  A::Script script(f);
  std::vector<double> w;  // (K, N_BLOCKS) int8x64: small integers, every lane different
  for (int64_t i = 0; i < K_BLOCKS * 64 * N_BLOCKS * 64; ++i) w.push_back(static_cast<double>((i * 37 + 11) % 15 - 7));
  auto weights = A::alloc_constant(w, "int8x64", A::DDR, {K_BLOCKS * 64, N_BLOCKS}, "weights");
  auto out = A::alloc_buffer({M, N_BLOCKS}, "float32x64", A::DDR, "out");
  auto w_imc = A::alloc_imc({K_BLOCKS, N_BLOCKS});
  for (auto [kb, nb] : A::grid(K_BLOCKS, N_BLOCKS)) {
    A::LoadIMC([&] { w_imc(kb, nb) = weights(A::slice(kb * 64, kb * 64 + 64), nb); });
  }
  for (auto [m] : A::grid(M)) {  // one datapath in the loop: sunk into its eight blocks (§9.2)
    A::Datapath(A::DP_MVMEXE, [&] {
      auto ifd_stream = A::decl_stream("int8x64");
      auto mvm_stream = A::decl_stream("int32x64");
      auto dpu_stream = A::decl_stream("float32x64");
      for (int64_t nb = 0; nb < N_BLOCKS; ++nb) {  // a C++ loop: build-time copies, two blocks of each unit
        for (auto kb : A::serial(K_BLOCKS)) {
          A::IFD(0, [&] { ifd_stream.push(inp(m, kb)); });
        }
        A::MatMul([&] {
          auto acc = A::mvm_accumulator();
          A::reset_accumulator(acc);
          for (auto kb : A::serial(K_BLOCKS)) acc += A::mvm_1x1(ifd_stream.pop(), w_imc(kb, nb));
          mvm_stream.push(acc);
        });
        A::DPU([&] { dpu_stream.push(A::cast(mvm_stream.pop(), "float32x64")); });
        A::ODR([&] { out(m, nb) = dpu_stream.pop(); });
      }
    });
  }
  A::output(out);
  return mod;
}

A::Module stream_pins_bypass() {
  A::Module mod("StreamPinsBypass");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {8, 1}, "float32x64", A::DDR);
  auto wts = f.input("wts", {8, 1}, "float32x64", A::DDR);
  A::Script script(f);
  auto two = splat(2.0, "two");
  auto prod = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "prod");
  auto copy = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "copy");
  auto twice = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "twice");
  for (auto [i] : A::grid(8)) {  // §6.1: scope= pins a stream to its unit's stream
    A::Datapath([&] {
      auto x = A::decl_stream("float32x64", "IFD_0_STREAM");
      auto w = A::decl_stream("float32x64", "IFD_1_STREAM");
      auto d = A::decl_stream("float32x64", "DPU_STREAM");
      A::IFD([&] { x.push(inp(i, 0)); });
      A::IFD([&] { w.push(wts(i, 0)); });  // no num: the pin makes it the side input, IFD(num=1)
      A::DPU([&] { d.push(A::cast(x.pop(), "float18x64") * A::cast(w.pop(), "float18x64")); });
      A::ODR([&] { prod(i, 0) = d.pop(); });
    });
  }
  for (auto [i] : A::grid(8)) {  // §6.4: every compute unit bypassed, written out
    A::Datapath([&] {
      auto s = A::decl_stream("float32x64");
      A::IFD(0, [&] { s.push(inp(i, 0)); });
      A::MatMul([] { A::bypass(); });
      A::DPU([] { A::bypass(); });
      A::ODR([&] { copy(i, 0) = s.pop(); });
    });
  }
  for (auto [i] : A::grid(8)) {  // the side input bypassed: the DPU reads its constant directly
    A::Datapath([&] {
      auto s = A::decl_stream("float32x64");
      auto d = A::decl_stream("float32x64");
      A::IFD(0, [&] { s.push(inp(i, 0)); });
      A::IFD(1, [] { A::bypass(); });
      A::DPU([&] { d.push(A::cast(s.pop(), "float18x64") * A::cast(two(0), "float18x64")); });
      A::ODR([&] { twice(i, 0) = d.pop(); });
    });
  }
  A::output(prod);
  A::output(copy);
  A::output(twice);
  return mod;
}

namespace {
// The guide's @A.macro (§4.2) in C++: a function that emits statements where it is called; its
// parameters are the only names that cross, everything it declares is its own. dst = src + src
// (one DPU operation on a register read twice: no constant, so no copy of one into L1 — the
// program's only DMA copies are the two the syncs below order).
void double_rows(const A::BufferHandle& src, const A::BufferHandle& dst, const std::string& id) {
  for (auto [i] : A::grid(src.shape()[0])) {
    A::Datapath(A::DatapathArgs{.kind = std::nullopt, .core = -1, .id = id}, [&] {
      auto s = A::decl_stream("float32x64");
      auto d = A::decl_stream("float32x64");
      A::IFD(0, [&] { s.push(src(i, 0)); });
      A::DPU([&] {
        auto x = A::var("float18x64", "x");
        x = A::cast(s.pop(), "float18x64");
        d.push(x + x);
      });
      A::ODR([&] { dst(i, 0) = d.pop(); });
    });
  }
}
}  // namespace

A::Module sync_signals(const std::function<void(const A::BufferHandle& a_l1)>& guard) {
  A::Module mod("SyncSignals");
  A::Func f = mod.prim_func("main");
  auto a = f.input("a", {4, 1}, "float32x64", A::DDR);
  auto b = f.input("b", {4, 1}, "float32x64", A::DDR);
  A::Script script(f);
  auto a_l1 = A::alloc_buffer({4, 1}, "float32x64", A::L1, "a_l1");
  auto b_l1 = A::alloc_buffer({4, 1}, "float32x64", A::L1, "b_l1");
  auto out_a = A::alloc_buffer({4, 1}, "float32x64", A::DDR, "out_a");
  auto out_b = A::alloc_buffer({4, 1}, "float32x64", A::DDR, "out_b");
  A::SysDMA(
      [&] {
        for (auto i : A::serial(4)) a_l1(i, 0) = a(i, 0);
      },
      "load");
  A::SysDMA(
      [&] {
        for (auto i : A::serial(4)) b_l1(i, 0) = b(i, 0);
      },
      "load");
  if (guard)
    guard(a_l1);
  else
    A::sync({"load"}, {}, {a_l1});  // the data guarded: only the copy into a_l1 is waited here
  double_rows(a_l1, out_a, "ew_a");
  A::signals("a_done");  // marks what was launched so far done: b's copy (still in flight) and ew_a
  A::waits("a_done");
  double_rows(b_l1, out_b, "");
  A::output(out_a);
  A::output(out_b);
  return mod;
}

A::Module dpu_ops() {
  A::Module mod("DpuOps");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {4, 2}, "float32x64", A::DDR);
  A::Script script(f);
  // The guide's table: compute_chained_lut_params(...) then pack_lut_params_to_pword(params[0]).
  const auto params = num::compute_chained_lut_params(-128.0, 128.0, 1, [](double v) { return v * v / 128.0; });
  const num::PwordF32 table = num::pack_lut_params_to_pword(params[0]);
  std::vector<double> c(table.begin(), table.end());
  c.insert(c.end(), 64, 0.25);
  c.insert(c.end(), 64, 0.5);
  auto consts = A::alloc_constant(c, "float32x64", A::DDR, {3}, "consts");
  auto out = A::alloc_buffer({4, 4}, "float32x64", A::DDR, "out");
  A::Datapath([&] {  // written in the sunk form: the constants stream once, the rows through
    auto s0 = A::decl_stream("float32x64");
    auto s1 = A::decl_stream("float32x64");
    auto d = A::decl_stream("float32x64");
    A::IFD(0, [&] {
      for (auto [r, j] : A::grid(4, 2)) s0.push(inp(r, j));
    });
    A::IFD(1, [&] {
      for (auto j : A::serial(3)) s1.push(consts(j));
    });
    A::DPU([&] {
      auto k = A::array("float18x64", 3, "k");  // table, slope, one half: read every iteration
      A::init([&] {
        for (auto j : A::serial(3)) k[j] = A::cast(s1.pop(), "float18x64");
      });
      for (auto r : A::serial(4)) {
        (void)r;
        auto x = A::array("float18x64", 2, "x");
        for (auto j : A::serial(2)) x[j] = A::cast(s0.pop(), "float18x64");
        auto m = A::var("float18x64", "m");
        auto n = A::var("float18x64", "n");
        auto hi = A::var("float18x64", "hi");
        auto lo = A::var("float18x64", "lo");
        m = A::Max(x[0], x[1]);
        n = A::Min(x[0], x[1]);
        hi = A::dpu::max_reduce(m);
        lo = A::dpu::min_reduce(n);
        d.push(A::dpu::fma(hi, k[2], lo));
        d.push(A::dpu::add_reduce(x[0]));
        d.push(A::dpu::prelu(x[1], k[1]));
        d.push(A::dpu::lut(x[0], k[0]));
      }
    });
    A::ODR([&] {
      for (auto [r, q] : A::grid(4, 4)) out(r, q) = d.pop();
    });
  });
  A::output(out);
  return mod;
}

A::Module scalar_values() {
  A::Module mod("ScalarValues");
  A::Func f = mod.prim_func("main");
  auto q = f.input("q", {4, 1}, "int8x64", A::DDR);
  auto x = f.input("x", {4, 1}, "float32x64", A::DDR);
  A::Script script(f);
  auto out_q = A::alloc_buffer({6, 1}, "float32x64", A::DDR, "out_q");
  auto out_x = A::alloc_buffer({6, 1}, "float32x64", A::DDR, "out_x");
  for (auto [i] : A::grid(6)) {
    A::Datapath([&] {
      auto s = A::decl_stream("int8x64");
      auto d = A::decl_stream("float32x64");
      A::IFD(0, [&] { s.push(A::if_then_else(A::all({i < A::int32(4)}), q(i, 0), A::Broadcast(A::int8(-3), 64))); });
      A::DPU([&] { d.push(A::cast(s.pop(), "float32x64")); });
      A::ODR([&] { out_q(i, 0) = d.pop(); });
    });
  }
  for (auto [i] : A::grid(6)) {
    A::Datapath([&] {
      auto s = A::decl_stream("float32x64");
      A::IFD(0, [&] {
        s.push(
            A::if_then_else(A::all({i >= A::int32(0), i < A::int32(4)}), x(i, 0), A::Broadcast(A::float32(-1.5), 64)));
      });
      A::ODR([&] { out_x(i, 0) = s.pop(); });
    });
  }
  A::output(out_q);
  A::output(out_x);
  return mod;
}

namespace {
// dst[i] = src[i] * k over `rows` rows: one datapath per row, the loop sunk (§9.2).
void scale_rows(A::BufferHandle dst, A::BufferHandle src, A::BufferHandle k, int64_t rows) {
  for (auto [i] : A::grid(rows)) {
    A::Datapath([&] {
      auto ifd = A::decl_stream("float32x64");
      auto dpu = A::decl_stream("float32x64");
      A::IFD(0, [&] { ifd.push(src(i, 0)); });
      A::DPU([&] { dpu.push(A::cast(ifd.pop(), "float18x64") * A::cast(k(0), "float18x64")); });
      A::ODR([&] { dst(i, 0) = dpu.pop(); });
    });
  }
}
}  // namespace

A::Module memory_scopes() {
  A::Module mod("MemoryScopes");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {8, 1}, "float32x64", A::DDR);
  A::Script script(f);
  auto two = splat(2.0, "two");
  auto three = splat(3.0, "three");
  auto staged = A::alloc_buffer({8, 1}, "float32x64", A::L2, "staged");  // pinned: the mem tile's L2
  auto a = A::alloc_buffer({8, 1}, "float32x64", A::L1, "a");
  auto mid = A::alloc_buffer({8, 1}, "float32x64", A::L2, "mid");
  auto small = A::alloc_buffer({8, 1}, "float32x64", A::L2_WEAK, "small");  // weak: may live in L1 alone
  auto out = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "out");
  auto out2 = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "out2");
  for (auto i : A::serial(8)) A::SysDMA([&] { staged(i, 0) = inp(i, 0); });    // DDR -> L2 (the shim's SysDMA)
  for (auto i : A::serial(8)) A::CoreDMA([&] { a(i, 0) = staged(i, 0); }, 0);  // L2 -> L1 (the core's DMA)
  scale_rows(mid, a, two, 8);                                                  // the units write mid's L1 copy
  for (auto i : A::serial(8)) A::SysDMA([&] { out(i, 0) = mid(i, 0); });       // L2 -> DDR: mid copied to L2 first
  scale_rows(small, mid, three, 8);
  for (auto i : A::serial(8)) A::SysDMA([&] { out2(i, 0) = small(i, 0); });
  A::output(out);
  A::output(out2);
  return mod;
}

A::Module l2_spill(int64_t rows, compiler::Scope y_scope) {
  A::Module mod("L2Spill");
  A::Func f = mod.prim_func("main");
  auto x = f.input("x", {rows, 1}, "float32x64", A::DDR);
  A::Script script(f);
  auto two = splat(2.0, "two");
  auto three = splat(3.0, "three");
  auto y = A::alloc_buffer({rows, 1}, "float32x64", y_scope, "y");
  auto z = A::alloc_buffer({rows, 1}, "float32x64", A::DDR, "z");
  scale_rows(y, x, two, rows);
  scale_rows(z, y, three, rows);
  A::output(z);
  return mod;
}

}  // namespace axcore::examples
