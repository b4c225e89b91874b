#include "guide_kernels.hpp"

#include <optional>
#include <vector>

namespace axcore::examples {
namespace {
std::vector<double> int8_values(std::size_t n, uint32_t seed) {
  std::vector<double> v(n);
  uint32_t s = seed * 2654435761u + 12345u;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<double>(static_cast<int>((s >> 16) % 255) - 127);
  }
  return v;
}
}  // namespace

A::Module scale() {
  A::Module mod("Scale");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {8, 1}, "float32x64", A::DDR);
  A::Script script(f);
  auto out = A::alloc_buffer({8, 1}, "float32x64", A::DDR, "out");
  auto scale = A::alloc_constant(std::vector<double>(64, 2.0), "float32x64", A::DDR, {1}, "scale");
  for (auto [i] : A::grid(8)) {  // one datapath per element
    A::Datapath([&] {            // kind inferred (§6)
      auto ifd = A::decl_stream("float32x64");
      auto dpu = A::decl_stream("float32x64");
      A::IFD(0, [&] { ifd.push(inp(i, 0)); });  // feed
      A::DPU([&] {                              // compute, in float18 (§7); the push converts to float32
        dpu.push(A::cast(ifd.pop(), "float18x64") * A::cast(scale(0), "float18x64"));
      });
      A::ODR([&] { out(i, 0) = dpu.pop(); });  // store
    });
  }
  A::output(out);
  return mod;
}

namespace {
// §6.2's matmul; the M loop is an A.grid, or A.tiles(M, bounds) when `tiles` is given (§11.2).
A::Module matmul_kernel(int64_t m, int64_t k_blocks, int64_t n_blocks, bool with_bias, uint32_t seed,
                        std::optional<compiler::TileBounds> tiles) {
  A::Module mod(tiles ? "TiledMatMul" : with_bias ? "MatMulBias" : "MatMul");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {m, k_blocks}, "int8x64", A::DDR);
  A::Script script(f);
  const int64_t k = k_blocks * 64;
  auto weights = A::alloc_constant(int8_values(static_cast<std::size_t>(k * n_blocks * 64), seed), "int8x64", A::DDR,
                                   {k, n_blocks}, "weights");
  std::vector<double> bias_v(static_cast<std::size_t>(n_blocks * 64));
  for (std::size_t i = 0; i < bias_v.size(); ++i) bias_v[i] = 0.25 * static_cast<double>(static_cast<int>(i % 17) - 8);
  auto bias = A::alloc_constant(bias_v, "float32x64", A::DDR, {n_blocks}, "bias");
  auto out = A::alloc_buffer({m, n_blocks}, "float32x64", A::DDR, "out");
  auto w_imc = A::alloc_imc({k_blocks, n_blocks});
  for (auto [kb, nb] : A::grid(k_blocks, n_blocks)) {
    A::LoadIMC([&] { w_imc(kb, nb) = weights(A::slice(kb * 64, kb * 64 + 64), nb); });  // 64 rows -> one IMC block
  }
  auto datapath = [&](const A::Value& mi, const A::Value& nb) {  // one output block per datapath
    A::Datapath(A::DP_MVMEXE, [&] {
      auto ifd_stream = A::decl_stream("int8x64");
      auto mvm_stream = A::decl_stream("int32x64");
      auto dpu_stream = A::decl_stream("float32x64");
      for (auto kb : A::serial(k_blocks)) {  // IFD: stream the reduction
        A::IFD(0, [&] { ifd_stream.push(inp(mi, kb)); });
      }
      A::MatMul([&] {  // MAC against the resident weights
        auto acc = A::mvm_accumulator();
        A::reset_accumulator(acc);
        for (auto kb : A::serial(k_blocks)) acc += A::mvm_1x1(ifd_stream.pop(), w_imc(kb, nb));
        mvm_stream.push(acc);
      });
      A::DPU([&] {
        if (with_bias)  // build-time C++ if: picks the datapath variant (§10)
          dpu_stream.push(
              A::cast(A::cast(mvm_stream.pop(), "float18x64") + A::cast(bias(nb), "float18x64"), "float32x64"));
        else
          dpu_stream.push(A::cast(mvm_stream.pop(), "float32x64"));
      });
      A::ODR([&] { out(mi, nb) = dpu_stream.pop(); });
    });
  };
  if (tiles) {
    for (auto mi : A::tiles(m, *tiles))  // the tile loop (§11.2): rows of inp and out
      for (auto nb : A::serial(n_blocks)) datapath(mi, nb);
  } else {
    for (auto [mi, nb] : A::grid(m, n_blocks)) datapath(mi, nb);
  }
  A::output(out);
  return mod;
}
}  // namespace

A::Module matmul(int64_t m, int64_t k_blocks, int64_t n_blocks, bool with_bias, uint32_t seed) {
  return matmul_kernel(m, k_blocks, n_blocks, with_bias, seed, std::nullopt);
}

A::Module tiled_matmul(int64_t m, int64_t k_blocks, int64_t n_blocks, compiler::TileBounds bounds, uint32_t seed) {
  return matmul_kernel(m, k_blocks, n_blocks, true, seed, bounds);
}

A::Module conv3x3(int64_t oh, int64_t ow, int64_t c_in_blocks, int64_t n_blocks, uint32_t seed) {
  A::Module mod("Conv3x3");
  A::Func f = mod.prim_func("main");
  constexpr int64_t KH = 3, KW = 3;
  auto inp = f.input("inp", {oh + KH - 1, ow + KW - 1, c_in_blocks}, "int8x64", A::DDR);
  A::Script script(f);
  const int64_t k_blocks = KH * KW * c_in_blocks;  // the window flattened into the reduction
  auto weights = A::alloc_constant(int8_values(static_cast<std::size_t>(k_blocks * 64 * n_blocks * 64), seed),
                                   "int8x64", A::DDR, {k_blocks * 64, n_blocks}, "weights");
  auto out = A::alloc_buffer({oh, ow, n_blocks}, "float32x64", A::DDR, "out");
  auto w_imc = A::alloc_imc({k_blocks, n_blocks});
  for (auto [kb, nb] : A::grid(k_blocks, n_blocks)) {
    A::LoadIMC([&] { w_imc(kb, nb) = weights(A::slice(kb * 64, kb * 64 + 64), nb); });
  }
  for (auto [y, x, nb] : A::grid(oh, ow, n_blocks)) {  // 1. one datapath per output pixel
    A::Datapath(A::DP_MVMEXE, [&] {
      auto ifd_stream = A::decl_stream("int8x64");
      auto mvm_stream = A::decl_stream("int32x64");
      auto dpu_stream = A::decl_stream("float32x64");
      for (auto [kh, kw, cib] : A::grid(KH, KW, c_in_blocks)) {  // 2. stream the window, not a row
        A::IFD(0, [&] { ifd_stream.push(inp(y + kh, x + kw, cib)); });
      }
      A::MatMul([&] {  //    the block itself is unchanged
        auto acc = A::mvm_accumulator();
        A::reset_accumulator(acc);
        for (auto kb : A::serial(k_blocks)) acc += A::mvm_1x1(ifd_stream.pop(), w_imc(kb, nb));  // 3. K_BLOCKS
        mvm_stream.push(acc);
      });
      A::DPU([&] { dpu_stream.push(A::cast(mvm_stream.pop(), "float32x64")); });
      A::ODR([&] { out(y, x, nb) = dpu_stream.pop(); });
    });
  }
  A::output(out);
  return mod;
}

A::Module dpu_affine(int64_t rows, float scale_v, float bias_v) {
  A::Module mod("DpuAffine");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {rows, 1}, "float32x64", A::DDR);
  A::Script script(f);
  std::vector<double> c(128);
  for (int l = 0; l < 64; ++l) c[static_cast<std::size_t>(l)] = scale_v, c[static_cast<std::size_t>(64 + l)] = bias_v;
  auto consts = A::alloc_constant(c, "float32x64", A::DDR, {2}, "consts");
  auto out = A::alloc_buffer({rows, 1}, "float32x64", A::DDR, "out");
  A::Datapath([&] {  // written in the sunk form: the constants stream once, the rows stream through
    auto ifd0 = A::decl_stream("float32x64");
    auto ifd1 = A::decl_stream("float32x64");
    auto dpu_stream = A::decl_stream("float32x64");
    A::IFD(0, [&] {
      for (auto i : A::serial(rows)) ifd0.push(inp(i, 0));
    });
    A::IFD(1, [&] {
      for (auto j : A::serial(2)) ifd1.push(consts(j));
    });
    A::DPU([&] {
      auto scale = A::array("float18x64", 1, "scale");  // loaded once in the preamble, read every iteration
      auto bias = A::array("float18x64", 1, "bias");
      auto acc = A::array("float18x64", 1, "acc");
      A::init([&] {
        scale[0] = A::cast(ifd1.pop(), "float18x64");
        bias[0] = A::cast(ifd1.pop(), "float18x64");
      });
      for (auto i : A::serial(rows)) {
        (void)i;
        auto x = A::var("float18x64", "x");
        x = A::cast(ifd0.pop(), "float18x64");
        acc[0] = x * scale[0];
        dpu_stream.push(A::cast(acc[0] + bias[0], "float32x64"));
      }
    });
    A::ODR([&] {
      for (auto i : A::serial(rows)) out(i, 0) = dpu_stream.pop();
    });
  });
  A::output(out);
  return mod;
}

A::Module row_sum(int64_t rows, int64_t nb) {
  A::Module mod("RowSum");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {rows, nb}, "float32x64", A::DDR);
  A::Script script(f);
  auto out = A::alloc_buffer({rows, 1}, "float32x64", A::DDR, "out");
  for (auto [r] : A::grid(rows)) {
    A::Datapath([&] {
      auto ifd_stream = A::decl_stream("float32x64");
      auto dpu_stream = A::decl_stream("float32x64");
      for (auto j : A::serial(nb)) A::IFD(0, [&] { ifd_stream.push(inp(r, j)); });
      A::DPU([&] {
        auto x = A::array("float18x64", nb, "x");  // the row, one register per block
        auto acc = A::var("float18x64", "acc");
        for (auto j : A::serial(nb)) x[j] = A::cast(ifd_stream.pop(), "float18x64");
        acc = x[0];  // seed from the first value
        for (auto j : A::serial(1, nb)) acc = acc + x[j];
        dpu_stream.push(A::cast(A::dpu::add_reduce(acc), "float32x64"));
      });
      A::ODR([&] { out(r, 0) = dpu_stream.pop(); });
    });
  }
  A::output(out);
  return mod;
}

}  // namespace axcore::examples
