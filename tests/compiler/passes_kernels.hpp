// Kernels and checks shared by the tiling / DMA pass tests: builder kernels whose operands live in
// DDR (scale_rows from examples/kernels/tiling_kernels.hpp), references from common/ref, and a hazard checker over the
// lowered program (no two launches that may run at once touch the same L1 rows with one of them writing, guide §12 /
// §14).
#pragma once

#include <gtest/gtest.h>

#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/script.hpp>
#include <axcore/ref/op/elementwise.hpp>
#include <axcore/ref/op/matmul.hpp>

#include "guide_kernels.hpp"
#include "tiling_kernels.hpp"

namespace axcore::passes_test {

namespace A = compiler::A;
using ref::NDArray;

// The builder kernel and the inputs of the tiling tests live in the examples library (the drain
// benchmark builds them too).
using examples::pseudo;
using examples::scale_rows;

// scale_rows(rows, cols, ...) on x, by common/ref.
inline NDArray<float> scale_rows_ref(const NDArray<float>& x, int64_t cols) {
  NDArray<float> c(x.shape());
  for (std::size_t r = 0; r < x.shape()[0]; ++r)
    for (std::size_t k = 0; k < static_cast<std::size_t>(cols * 64); ++k)
      c({r, k}) = static_cast<float>(0.5 + 0.25 * static_cast<double>(k % 7));
  return ref::mul_tensor<float>(x, c);
}

// A DDR scratch buffer between a SysDMA and a datapath (guide §11: units read and write L1 only).
// `dma_first`: a SysDMA copies inp into the scratch `mid`, then a datapath computes out = 2 * mid
// (the lowering copies mid into L1 before the datapath reads it). Else a datapath computes
// mid = 2 * inp, then a SysDMA copies mid to out (mid's L1 data is copied back to DDR first).
inline A::Module ddr_scratch(int64_t rows, bool dma_first) {
  A::Module mod(dma_first ? "DmaThenUnit" : "UnitThenDma");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {rows, 1}, "float32x64", A::DDR);
  A::Script script(f);
  auto mid = A::alloc_buffer({rows, 1}, "float32x64", A::DDR, "mid");
  auto out = A::alloc_buffer({rows, 1}, "float32x64", A::DDR, "out");
  auto twice = [&](const A::BufferHandle& from, const A::BufferHandle& to) {
    for (auto [i] : A::grid(rows)) {
      A::Datapath([&] {
        auto s = A::decl_stream("float32x64");
        auto o = A::decl_stream("float32x64");
        A::IFD(0, [&] { s.push(from(i, 0)); });
        A::DPU([&] {
          auto v = A::var("float18x64", "v");
          v = A::cast(s.pop(), "float18x64");
          o.push(A::cast(A::Value(v) + A::Value(v), "float32x64"));
        });
        A::ODR([&] { to(i, 0) = o.pop(); });
      });
    }
  };
  if (dma_first) {
    A::SysDMA([&] {
      for (auto r : A::serial(rows)) mid(r, 0) = inp(r, 0);
    });
    twice(mid, out);
  } else {
    twice(inp, mid);
    A::SysDMA([&] {
      for (auto r : A::serial(rows)) out(r, 0) = mid(r, 0);
    });
  }
  A::output(out);
  return mod;
}

// The weights and bias a examples::matmul kernel holds, as logical arrays.
inline std::pair<NDArray<int8_t>, NDArray<float>> matmul_operands(const compiler::PrimFunc& f, int64_t k, int64_t n) {
  NDArray<int8_t> w({static_cast<std::size_t>(k), static_cast<std::size_t>(n)});
  NDArray<float> b({static_cast<std::size_t>(n)});
  for (const auto& buf : f.buffers) {
    if (buf->name == "weights")
      for (std::size_t i = 0; i < w.size(); ++i) w.data()[i] = static_cast<int8_t>(buf->data[i]);
    if (buf->name == "bias")
      for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = static_cast<float>(buf->data[i]);
  }
  return {w, b};
}

struct HazardReport {
  std::size_t launches = 0, transfers = 0, tasks = 0;
  std::size_t max_in_flight = 0;         // launches running at once (different channels / queues)
  bool load_overlapped_compute = false;  // a copy into L1 was in flight when a datapath started
  std::size_t cores_used = 0;
};

// Replays the program's launches and waits: launches on different channels / queues that are in
// flight together must not touch the same L1 rows with either writing.
HazardReport check_hazards(const compiler::Program& p, const runtime::Bundle& bundle);

}  // namespace axcore::passes_test
