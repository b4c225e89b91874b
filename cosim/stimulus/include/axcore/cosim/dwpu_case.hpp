// A depthwise window operation as the DWPU tests build it: input (H, W, C_BLOCKS) int8x64 at
// row X0 (channels innermost, guide §5), weights (C_BLOCKS, KH, KW) at W0, outputs
// (OH, OW, C_BLOCKS) of dtype `out` at Y0; stride, dilation and zero/pad-value padding per
// axis as the guide's _padded_load (two IFD guards), an optional ODR drop of the columns
// ow >= keep_ow. The IFD walk visits (kw, kh, ow, oh, cb) innermost first; the DWPU's outputs
// (ow, oh, cb) use weight group cb * KH * KW. Also the ref pipeline (run_ifd -> run_dwpu ->
// run_odr) over an L1 image.
#pragma once

#include <axcore/num/pword.hpp>
#include <axcore/ref/dwpu.hpp>
#include <axcore/ref/walk.hpp>
#include <axcore/spec.hpp>
#include <cstdint>
#include <random>
#include <vector>

namespace rtlcore {

namespace dwspec = axcore::spec;

struct DwWindow {
  static constexpr uint32_t kX0 = 4096, kW0 = 2048, kY0 = 8192;
  dwspec::DwpuOp op = dwspec::DwpuOp::CONV;
  uint32_t h = 1, w = 1, cb = 1, kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, ph = 0, pw = 0;
  dwspec::Dtype out = dwspec::Dtype::INT32;
  uint32_t divisor = 0, pad_value = 0, weights = 0, keep_ow = 0;  // keep_ow 0: store every column
  uint32_t x0 = kX0, w0 = kW0, y0 = kY0;

  uint32_t oh() const { return (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1; }
  uint32_t ow() const { return (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1; }
  uint32_t taps() const { return kh * kw; }
  uint32_t outputs() const { return oh() * ow() * cb; }
  uint32_t out_rows() const { return outputs() * static_cast<uint32_t>(axcore::num::element_rows(out)); }

  dwspec::Walk ifd() const {
    dwspec::Walk x{};
    x.dtype = x.cast_from = dwspec::Dtype::INT8;
    const auto c = static_cast<int32_t>(cb), row = static_cast<int32_t>(w * cb);
    x.base_row =
        static_cast<uint32_t>(static_cast<int32_t>(x0) - static_cast<int32_t>(ph) * row - static_cast<int32_t>(pw) * c);
    x.ndims = 5;
    x.d0_size = kw;
    x.d0_stride = static_cast<int32_t>(dw) * c;
    x.d1_size = kh;
    x.d1_stride = static_cast<int32_t>(dh) * row;
    x.d2_size = ow();
    x.d2_stride = static_cast<int32_t>(sw) * c;
    x.d3_size = oh();
    x.d3_stride = static_cast<int32_t>(sh) * row;
    x.d4_size = cb;
    x.d4_stride = 1;
    x.pad_value = pad_value;
    x.nguards = 2;
    x.g0_offset = -static_cast<int32_t>(ph);  // ih = oh * sh + kh * dh - ph in [0, h)
    x.g0_extent = h;
    x.g0_coef1 = static_cast<int32_t>(dh);
    x.g0_coef3 = static_cast<int32_t>(sh);
    x.g1_offset = -static_cast<int32_t>(pw);  // iw = ow * sw + kw * dw - pw in [0, w)
    x.g1_extent = w;
    x.g1_coef0 = static_cast<int32_t>(dw);
    x.g1_coef2 = static_cast<int32_t>(sw);
    return x;
  }
  dwspec::DwpuDesc dwpu() const {
    dwspec::DwpuDesc d{};
    d.op = op;
    d.taps = taps();
    d.ndims = 3;
    d.divisor = divisor;
    d.weight_base_row = w0;
    d.weight_count = weights;
    d.o0_size = ow();
    d.o1_size = oh();
    d.o2_size = cb;
    d.o2_wstride = static_cast<int32_t>(taps());
    return d;
  }
  dwspec::Walk odr() const {
    dwspec::Walk y{};
    const auto r = static_cast<int32_t>(axcore::num::element_rows(out));
    y.cast_from = dwspec::Dtype::INT32;
    y.dtype = out;
    y.base_row = y0;
    y.ndims = 3;
    y.d0_size = ow();
    y.d0_stride = static_cast<int32_t>(cb) * r;
    y.d1_size = oh();
    y.d1_stride = static_cast<int32_t>(ow() * cb) * r;
    y.d2_size = cb;
    y.d2_stride = r;
    if (keep_ow != 0) {
      y.nguards = 1;
      y.g0_extent = keep_ow;
      y.g0_coef0 = 1;
    }
    return y;
  }
  uint32_t input_rows() const { return h * w * cb; }
  uint32_t weight_rows() const { return cb * taps(); }

  // Runs the reference pipeline over `l1` (the outputs land in it).
  void run_ref(std::vector<uint8_t>& l1) const {
    std::vector<axcore::ref::Element> xs, ys;
    axcore::ref::run_ifd(ifd(), l1, [&](const axcore::ref::Element& e) { xs.push_back(e); });
    axcore::ref::VectorSource src(xs);
    axcore::ref::run_dwpu(dwpu(), l1, src.fn(), [&](const axcore::ref::Element& e) { ys.push_back(e); });
    axcore::ref::VectorSource ysrc(ys);
    axcore::ref::run_odr(odr(), l1, ysrc.fn());
  }

  // A random window of `op`: odd shapes, strides 1..3, dilations 1..2, padding up to the
  // window's reach, 1-D (h = kh = 1) about one time in five, now and then a 64-tap window.
  static DwWindow random(std::mt19937& rng, dwspec::DwpuOp op) {
    auto pick = [&](uint32_t lo, uint32_t hi) { return lo + static_cast<uint32_t>(rng() % (hi - lo + 1)); };
    DwWindow c;
    c.op = op;
    const bool big = rng() % 8 == 0, one_d = rng() % 5 == 0;
    c.kw = big ? 8 : pick(1, 4);
    c.kh = one_d ? 1 : (big ? 8 : pick(1, 4));
    c.dw = big ? 1 : pick(1, 2);
    c.dh = big ? 1 : pick(1, 2);
    c.sw = pick(1, 3);
    c.sh = pick(1, 3);
    c.pw = pick(0, (c.kw - 1) * c.dw);
    c.ph = one_d ? 0 : pick(0, (c.kh - 1) * c.dh);
    const uint32_t reach_w = c.dw * (c.kw - 1) + 1, reach_h = c.dh * (c.kh - 1) + 1;
    c.w = std::max<uint32_t>(1, reach_w > 2 * c.pw ? reach_w - 2 * c.pw : 1) + pick(0, 5);
    c.h = one_d ? 1 : std::max<uint32_t>(1, reach_h > 2 * c.ph ? reach_h - 2 * c.ph : 1) + pick(0, 4);
    c.cb = pick(1, 3);
    const dwspec::Dtype outs[] = {dwspec::Dtype::INT32, dwspec::Dtype::INT8, dwspec::Dtype::FLOAT16,
                                  dwspec::Dtype::FLOAT32};
    c.out = outs[rng() % 4];
    c.weights = op == dwspec::DwpuOp::CONV ? c.weight_rows() : pick(0, 3);  // pools load (unused) weights too
    c.pad_value = op == dwspec::DwpuOp::MAX ? 0x80u : op == dwspec::DwpuOp::MIN ? 0x7Fu : 0u;
    if (rng() % 4 == 0) c.pad_value = rng() & 0xFFu;
    if (op == dwspec::DwpuOp::AVERAGE && rng() % 2 == 0) c.divisor = pick(1, 70);
    if (rng() % 4 == 0 && c.ow() > 1) c.keep_ow = pick(1, c.ow() - 1);
    return c;
  }
};

}  // namespace rtlcore
