// The guide's programs written through the operator library (axol, guide §4.3): Part II §2's
// Scale as one call, §6.3's depthwise 3x3, and §13's ViTPatchEmbed composed in a prim_func.
#include <axcore/compiler/ops/op.hpp>
#include <vector>

#include "guide_kernels.hpp"

namespace axcore::examples {
namespace {

namespace ops = compiler::ops;

// Reproducible values in [lo, hi] (whole numbers when `integer`).
std::vector<double> values(std::size_t n, uint32_t seed, double lo, double hi, bool integer) {
  std::vector<double> v(n);
  uint32_t s = seed * 2654435761u + 977u;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    const double u = static_cast<double>(s >> 8) / 16777216.0;
    x = integer ? lo + static_cast<double>(static_cast<int64_t>(u * (hi - lo + 1))) : lo + u * (hi - lo);
  }
  return v;
}

std::size_t count(const std::vector<int64_t>& shape) {
  std::size_t n = 64;
  for (int64_t d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

}  // namespace

A::Module scale_op() {
  A::Module mod("ScaleOp");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {8, 1}, "float32x64", A::DDR);
  A::Script script(f);
  A::output(ops::invoke("atomic.mul", {inp}, {{"value", 2.0}}, "out"));  // A.output(axol.atomic.mul(inp, 2.0))
  return mod;
}

A::Module depthwise3x3(int64_t out_h, int64_t out_w, int64_t c_blocks) {
  constexpr int64_t KH = 3, KW = 3;
  A::Module mod("DepthwiseConv3x3");
  A::Func f = mod.prim_func("main");
  auto inp = f.input("inp", {out_h + KH - 1, out_w + KW - 1, c_blocks}, "int8x64", A::DDR);
  A::Script script(f);
  const std::vector<int64_t> fs{KH, KW, c_blocks};  // per-channel taps, (KH, KW, C) in the lanes
  auto flt = A::alloc_constant(values(count(fs), 3, -8, 8, true), "int8x64", A::DDR, fs, "flt");
  A::output(ops::invoke("core.dw_convolution_2d", {inp, flt},
                        {{"stride", std::vector<int64_t>{1, 1}},
                         {"dilation", std::vector<int64_t>{1, 1}},
                         {"padding", std::vector<int64_t>{0, 0}}},
                        "out"));
  return mod;
}

A::Module vit_patch_embed() {
  A::Module mod("ViTPatchEmbed");
  A::Func f = mod.prim_func("main");
  // H, W padded 32 -> 36, 3 channels padded to 64 (started in NHWC; §13's NCHW permute would go through A.vtrsp).
  auto image = f.input("image", {32, 36, 1}, "int8x64", A::DDR);
  A::Script script(f);
  const std::vector<int64_t> ws{128, 4, 4, 1}, ms{2};
  auto w_conv = A::alloc_constant(values(count(ws), 31, -4, 4, true), "int8x64", A::DDR, ws, "w_conv");  // OHWI
  auto w_mean = A::alloc_constant(values(count(ms), 32, -16, 16, false), "float32x64", A::DDR, ms, "w_mean");
  auto b1 =
      ops::invoke("aten.slice_tensor", {image}, {{"dim", int64_t{1}}, {"end", int64_t{32}}}, "b1");  // trim 36 -> 32
  auto b2 =
      ops::invoke("aten.convolution", {b1, w_conv}, {{"stride", std::vector<int64_t>{4, 4}}}, "b2");  // (8, 8, 128)
  auto b3 = ops::invoke("aten.reshape", {b2, std::vector<int64_t>{64, 128}}, {}, "b3");               // (64, 128)
  A::output(ops::invoke("aten.sub_tensor", {b3, w_mean}, {}, "b4"));                                  // per channel
  return mod;
}

}  // namespace axcore::examples
