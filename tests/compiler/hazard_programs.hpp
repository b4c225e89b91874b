// Programs that trigger the language guide's §14 silent hazards (compiler/src/lower_hazards.hpp),
// each with the lines the diagnostic must name, and the same programs written the right way.
// Shared by the fsim tests (hazards_test.cpp) and the TLM/RTL runs (hazards_e2e_test.cpp).
#pragma once

#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/script.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace axcore::hazard_programs {

namespace A = compiler::A;

struct Built {
  A::Module mod{"hazard"};
  uint32_t at = 0;       // the line the warning names (the statement that goes wrong)
  uint32_t related = 0;  // the other statement's line
};

// Weights (K, 1) int8x64 whose values depend on `seed` (two seeds: two different matrices).
inline std::vector<double> weights(int64_t k, int seed) {
  std::vector<double> v(static_cast<std::size_t>(k) * 64);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(static_cast<int>((i * 7 + seed * 13) % 9) - 4);
  return v;
}

// y[m] = x[m, kb0 + kt·k_blocks : + k_blocks] · imc[kt·k_blocks : + k_blocks] for m < 4 and each
// K tile kt < k_tiles, all stored into out[m]: one MVMEXE datapath (the loops are sunk), tagged `id`
// when not empty. k_tiles > 1 is the §14 hazard: each K tile overwrites the one before.
inline void matmul(A::BufferHandle& x, A::BufferHandle& imc, A::BufferHandle& out, const std::string& id = "",
                   int64_t kb0 = 0, int64_t k_blocks = 2, int64_t k_tiles = 1, A::Loc l = A::Loc::current()) {
  A::DatapathArgs args;
  args.id = id;
  for (auto [m, kt] : A::grid(4, k_tiles)) {
    A::Datapath(
        args,
        [&] {
          auto s = A::decl_stream("int8x64");
          auto y = A::decl_stream("int32x64");
          for (auto kb : A::serial(k_blocks)) A::IFD(0, [&] { s.push(x(m, kb + kb0 + kt * k_blocks)); });
          A::MatMul([&] {
            auto acc = A::mvm_accumulator();
            A::reset_accumulator(acc);
            for (auto kb : A::serial(k_blocks)) acc += A::mvm_1x1(s.pop(), imc(kb + kt * k_blocks, 0));
            y.push(acc);
          });
          A::ODR([&] { out(m, 0) = y.pop(); });
        },
        l);
  }
}

inline void load(A::BufferHandle& imc, A::BufferHandle& w, A::Loc l = A::Loc::current()) {
  for (auto [kb] : A::grid(2)) A::LoadIMC([&] { imc(kb, 0) = w(A::slice(kb * 64, kb * 64 + 64), 0); }, l);
}

// main(x: (4, 2) int8x64) with the statements `body(x, built)` makes (it sets the lines).
template <class Body>
Built program(Body body) {
  Built b;
  A::Func f = b.mod.prim_func("main");
  auto x = f.input("x", {4, 2}, "int8x64", A::DDR);
  {
    A::Script s(f);
    body(x, b);
  }
  return b;
}

// §14 "Reusing an IMC matrix after a different one was used": w1 is used, w2 is loaded (with an
// IMC budget of 2 tiles, compile with imc_tiles_budget(): it cannot pack beside w1, so it begins a
// new residency), then w1 is used again — stale unless `reload` loads it again first. Outputs
// o1 = x·w1, o2 = x·w2, o3 = x·w1 (or, stale, what the IMC holds: x·w2).
inline Built imc_reuse(bool reload) {
  return program([&](A::BufferHandle& x, Built& b) {
    auto w1 = A::alloc_constant(weights(128, 1), "int8x64", A::DDR, {128, 1}, "w1");
    auto w2 = A::alloc_constant(weights(128, 2), "int8x64", A::DDR, {128, 1}, "w2");
    auto i1 = A::alloc_imc({2, 1}, "int8x4096", -1, "w1_imc");
    auto i2 = A::alloc_imc({2, 1}, "int8x4096", -1, "w2_imc");
    auto o1 = A::alloc_buffer({4, 1}, "int32x64", A::DDR, "o1");
    auto o2 = A::alloc_buffer({4, 1}, "int32x64", A::DDR, "o2");
    auto o3 = A::alloc_buffer({4, 1}, "int32x64", A::DDR, "o3");
    load(i1, w1);
    matmul(x, i1, o1);
    b.related = __LINE__ + 1;
    load(i2, w2);
    matmul(x, i2, o2);
    if (reload) load(i1, w1);
    b.at = __LINE__ + 1;
    matmul(x, i1, o3);
    A::output(o1);
    A::output(o2);
    A::output(o3);
  });
}
// The IMC budget imc_reuse is compiled with (two tiles: one matrix per residency).
inline compiler::TilingOptions imc_tiles_budget() {
  compiler::TilingOptions t;
  t.imc_tiles = 2;
  return t;
}

// §14 "Waiting after two dependent datapaths": the producer (id "produce", a DWPU datapath)
// copies x into t, the consumer (id "consume", an MVMEXE datapath on another queue of the core,
// which the hardware does not order after the first) multiplies t by w, and the only wait is
// placed after both — unless `fenced`, where the producer is waited for before the consumer
// starts. out = x·w either way (the compiler orders them).
inline Built wait_after_both(bool fenced) {
  return program([&](A::BufferHandle& x, Built& b) {
    auto w = A::alloc_constant(weights(128, 4), "int8x64", A::DDR, {128, 1}, "w");
    auto imc = A::alloc_imc({2, 1}, "int8x4096", -1, "w_imc");
    auto t = A::alloc_buffer({4, 2}, "int8x64", A::L1, "t");
    auto out = A::alloc_buffer({4, 1}, "int32x64", A::DDR, "out");
    load(imc, w);
    for (auto [i, j] : A::grid(4, 2)) {
      b.related = __LINE__ + 1;
      A::Datapath("produce", [&] {
        auto a = A::decl_stream("int8x64");
        A::IFD(0, [&] { a.push(x(i, j)); });
        A::ODR([&] { t(i, j) = a.pop(); });
      });
    }
    if (fenced) A::sync({"produce"});
    b.at = __LINE__ + 1;
    matmul(t, imc, out, "consume");
    A::sync(fenced ? std::vector<std::string>{"consume"} : std::vector<std::string>{"produce", "consume"});
    A::output(out);
  });
}

// §14 "A K-tiled matmul without partial=": K = 128 in two K tiles of 64, each storing its product
// into the same out rows, so out = x[:, 64:128] · w[64:128] only. Not `sunk`: one LoadIMC and one
// MatMul datapath per tile (a build-time loop); `sunk`: both tiles resident, and the K-tile loop
// sunk into one datapath whose ODR stores out[m] once per tile (a walk dimension of stride 0).
inline Built k_tiles(bool sunk) {
  return program([&](A::BufferHandle& x, Built& b) {
    auto w = A::alloc_constant(weights(128, 3), "int8x64", A::DDR, {128, 1}, "w");
    auto imc = A::alloc_imc({sunk ? 2 : 1, 1}, "int8x4096", -1, "w_imc");
    auto out = A::alloc_buffer({4, 1}, "int32x64", A::DDR, "out");
    if (sunk) {
      load(imc, w);
      b.at = b.related = __LINE__ + 1;
      matmul(x, imc, out, "", 0, 1, 2);
    } else {
      for (int64_t kt = 0; kt < 2; ++kt) {
        A::LoadIMC([&] { imc(0, 0) = w(A::slice(kt * 64, kt * 64 + 64), 0); });
        b.at = b.related = __LINE__ + 1;
        matmul(x, imc, out, "", kt, 1);
      }
    }
    A::output(out);
  });
}

}  // namespace axcore::hazard_programs
