// The tiling / DMA pass kernels of tiling_kernels.hpp.
#include "tiling_kernels.hpp"

#include <vector>

namespace axcore::examples {

A::Module scale_rows(int64_t rows, int64_t cols, std::optional<compiler::TileBounds> tiles) {
  A::Module mod("ScaleRows");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {rows, cols}, "float32x64", A::DDR);
  A::Script script(f);
  auto out = A::alloc_buffer({rows, cols}, "float32x64", A::DDR, "out");
  std::vector<double> cv(static_cast<std::size_t>(cols * 64));
  for (std::size_t k = 0; k < cv.size(); ++k) cv[k] = 0.5 + 0.25 * static_cast<double>(k % 7);
  auto c = A::alloc_constant(cv, "float32x64", A::DDR, {cols}, "c");
  auto body = [&](const A::Value& i) {
    for (auto j : A::serial(cols)) {
      A::Datapath([&] {
        auto s = A::decl_stream("float32x64");
        auto o = A::decl_stream("float32x64");
        A::IFD(0, [&] { s.push(inp(i, j)); });
        A::DPU([&] { o.push(A::cast(A::cast(s.pop(), "float18x64") * A::cast(c(j), "float18x64"), "float32x64")); });
        A::ODR([&] { out(i, j) = o.pop(); });
      });
    }
  };
  if (tiles) {
    for (auto i : A::tiles(rows, *tiles)) body(i);
  } else {
    for (auto [i] : A::grid(rows)) body(i);
  }
  A::output(out);
  return mod;
}

}  // namespace axcore::examples
