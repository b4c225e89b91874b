// core.convolution beyond one residency or beyond L1 (issue 24; the guide's §13 ViTPatchEmbed,
// a 16x16x64 window: K = 16 384, 256 IMC tiles per output block, twice a residency).
//
// K passes: each output block alone (one column of tiles), its window split into runs of whole
// kernel rows — kh_per_pass = imc_tiles / (KW * C_in/64) rows per residency. Pass 0 writes the
// result with the epilogue (a bias at most); pass p > 0 adds its partial sum in the DPU,
// out = f18(f18(acc_p) + f18(out)), reading the running sum back through IFD1 in place — the
// hardware's only path from one residency's accumulator to the next (the MVM resets its
// accumulator per output, and no unit adds int32 vectors; spec mvm_desc, dwpu_op), and the split-k
// pass's arithmetic (docs/compiler.md "K-splitting"). The reference sums the same passes.
//
// Input bands: an input in DDR that does not fit L1 next to the result is copied a band of
// output rows at a time — for output rows [oh0, oh0 + R) and the pass's kernel rows, exactly
// the input rows the window reads (a SysDMA gather into an (R, kh, W, C_in/64) slot, ping/pong
// between two slots), so a stride-16 patch embedding reads each input row once per output block.
// Without K passes (an input beyond L1, a window within one residency) a residency holds as many
// output blocks as max_chunk allows, and the input is read once per such chunk.
#include "conv.hpp"

namespace axcore::compiler::ops::detail {
namespace {

uint64_t bytes_of(const Tensor& t) { return static_cast<uint64_t>(t.node()->elements()) * t.node()->dtype.bytes(); }

uint64_t out_bytes(const Geometry& g) { return static_cast<uint64_t>(g.oh * g.ow * g.nb) * 256; }

// L1 left for the input once the result and the DPU's side input have their rows.
constexpr uint64_t kSlack = 64 * 1024;

}  // namespace

PassPlan pass_plan(const Call& c, const Geometry& g) {
  const int64_t row_tiles = g.kw * g.cb, tiles = static_cast<int64_t>(spec::param::imc_tiles);
  const Tensor x = c.tensor("input");
  const uint64_t budget = target().l1_bytes;
  const bool split = g.kh * row_tiles > tiles;
  const bool stream = in_ddr(x) && bytes_of(x) + out_bytes(g) + kSlack > budget;
  if (!split && !stream) return {};
  PassPlan p;
  p.kh_per_pass = std::max<int64_t>(1, std::min(g.kh, tiles / row_tiles));
  p.passes = (g.kh + p.kh_per_pass - 1) / p.kh_per_pass;
  if (p.passes == 1) p.blocks = max_chunk(g.kh * row_tiles, epilogue_of(c, g.nb * 64));
  if (stream) {
    const uint64_t row = static_cast<uint64_t>(p.kh_per_pass * g.w * g.cb) * 64;  // one output row's input
    const uint64_t room = budget > out_bytes(g) + kSlack ? budget - out_bytes(g) - kSlack : 0;
    p.band_rows = std::min<int64_t>(g.oh, static_cast<int64_t>(room / (2 * row)));
  }
  return p;
}

void validate_passes(const Call& c, const Geometry& g, const PassPlan& p) {
  if (p.passes == 0) return;
  const int64_t row_tiles = g.kw * g.cb;
  if (row_tiles > static_cast<int64_t>(spec::param::imc_tiles))
    c.refuse("weight",
             "one kernel row is KW*C_in/64 = " + std::to_string(row_tiles) + " IMC tiles; one residency holds " +
                 std::to_string(spec::param::imc_tiles) +
                 " (imc_tiles), and the K passes split the window between kernel rows",
             "split C_in over several convolutions and add the results");
  if (p.passes > 1 && (g.p[0] > 0 || g.p[1] > 0))
    c.refuse("padding",
             "the window (" + std::to_string(g.kh * row_tiles) +
                 " IMC tiles) exceeds one residency and is split into " + std::to_string(p.passes) +
                 " K passes, which take no padding",
             "pad the input first (atomic.pad) and convolve with padding 0");
  if (p.passes > 1 && (c.has("scale") || c.s("activation") != "none"))
    c.refuse(c.has("scale") ? "scale" : "activation",
             "the window exceeds one residency and is split into K passes, where only a bias distributes over the "
             "partial sums",
             "apply the scale or activation as an operator of its own after the convolution");
  if (p.band_rows == 0 && p.passes > 0 && in_ddr(c.tensor("input")) &&
      bytes_of(c.tensor("input")) + out_bytes(g) + kSlack > target().l1_bytes)
    c.refuse("input",
             "does not fit L1 with the result (" + std::to_string(out_bytes(g)) +
                 " bytes), and not even one output row's input band fits next to it (" +
                 std::to_string(target().l1_bytes) + " bytes of L1)",
             "split the output channels over several convolutions");
}

void conv_in_passes(const Call& c, const Geometry& g, const PassPlan& p, const Tensor& out) {
  const Tensor x = c.tensor("input"), wk = weight_rows(c, g);
  const Epilogue e = epilogue_of(c, g.nb * 64);
  const int64_t row_tiles = g.kw * g.cb;
  for (int64_t nb0 = 0; nb0 < g.nb; nb0 += p.blocks) {
    const int64_t nbc = std::min(p.blocks, g.nb - nb0);
    Tensor consts;  // the epilogue constants of these blocks, shared by their pass-0 bands
    for (int64_t pass = 0; pass < p.passes; ++pass) {
      const int64_t kh0 = pass * p.kh_per_pass, khn = std::min(p.kh_per_pass, g.kh - kh0);
      const std::string tag = out.name() + "_w" + std::to_string(nb0) + "_p" + std::to_string(pass);
      MvmChunk m;
      m.k_blocks = khn * row_tiles;
      m.nb0 = nb0;
      m.nbc = nbc;
      if (pass > 0) m.partial = out;
      m.epi_cache = pass == 0 ? &consts : nullptr;
      m.imc = A::alloc_imc({m.k_blocks, nbc}, "int8x4096", -1, tag);
      m.imc.node()->loc = call_loc();
      load_streamed(wk, m.imc, 0, m.k_blocks, kh0 * row_tiles, nb0, nbc, tag, g.blocked);
      const Epilogue& ep = pass == 0 ? e : Epilogue{};
      // Output rows [oh0, oh0 + rows): the IFD walks each output's window rows kh0.. of the pass,
      // from the input itself or from the band slot holding exactly those rows.
      auto run = [&](int64_t oh0, int64_t rows, const Tensor* slot) {
        m.outer = {rows, g.ow};
        m.out_row0 = oh0;
        m.ifd = [&](const A::StreamHandle& s) {
          A::grid_nest({rows, g.ow, nbc, khn, g.kw, g.cb}, [&](const std::vector<A::Value>& i) {
            const A::Value iw = i[1] * g.s[1] + i[4] * g.d[1];
            if (slot)
              s.push((*slot)(i[0], i[3], iw, i[5]));
            else
              s.push(x(i[0] * g.s[0] + i[3] * g.d[0] + kh0 * g.d[0], iw, i[5]));
          });
        };
        mvm_chunk(m, ep, out);
      };
      if (p.band_rows == 0) {
        run(0, g.oh, nullptr);
        continue;
      }
      // The pass's two band slots: live from its first band's copy on, after its LoadIMCs (so
      // they never share L1 with the weight's copy).
      Tensor slots[2];
      for (int s = 0; s < 2; ++s) {
        slots[s] = A::alloc_buffer({p.band_rows, khn, g.w, g.cb}, "int8x64", A::L1, tag + "_band" + std::to_string(s));
        slots[s].node()->loc = call_loc();
      }
      for (int64_t oh0 = 0, band = 0; oh0 < g.oh; oh0 += p.band_rows, ++band) {
        const int64_t rows = std::min(p.band_rows, g.oh - oh0);
        const Tensor& slot = slots[band % 2];
        A::SysDMA([&] {
          for (auto [r, k, w, cb] : A::grid(rows, khn, g.w, g.cb))
            slot(r, k, w, cb) = x(r * g.s[0] + k * g.d[0] + (oh0 * g.s[0] + kh0 * g.d[0]), w, cb);
        });
        run(oh0, rows, &slot);
      }
    }
  }
}

std::vector<Node> conv_reference(const Call& c, const Geometry& g, const PassPlan& p, const Tensor& out,
                                 const std::string& weight) {
  std::vector<Node> nodes;
  auto dbl = [](std::vector<int64_t> v) { return std::vector<double>(v.begin(), v.end()); };
  auto shaped = [&](const std::string& op, const std::string& in, const std::string& o, const char* attr,
                    std::vector<int64_t> v) {
    Node n = node(op, {in}, {o});
    n.num_attrs[attr] = dbl(std::move(v));
    nodes.push_back(n);
  };
  auto slice = [&](const std::string& in, const std::string& o, int64_t axis, int64_t start, int64_t end) {
    nodes.push_back(slice_node(in, o, axis, start, end));
  };
  auto conv = [&](const std::string& x, const std::string& w, bool padded) {
    Node n = node("conv2d", {x, w}, {});
    n.num_attrs = {
        {"stride", dbl(g.s)}, {"padding", padded ? dbl(g.p) : std::vector<double>{0, 0}}, {"dilation", dbl(g.d)}};
    return n;
  };
  // The weight as (KH, KW, C_in, C_out) for the reference's conv2d.
  std::string w = weight;
  if (g.blocked) {
    const int64_t ci = g.cb * 64;
    shaped("reshape", w, out.name() + "_wr5", "shape", {g.nb, g.kh, g.kw, ci, 64});
    shaped("permute", out.name() + "_wr5", out.name() + "_wp5", "dims", {1, 2, 3, 0, 4});
    shaped("reshape", out.name() + "_wp5", out.name() + "_whwio", "shape", {g.kh, g.kw, ci, g.nb * 64});
    w = out.name() + "_whwio";
  }
  const std::string x = c.tensor("input").name();
  if (p.passes <= 1) {
    for (auto& n : mvm_reference(c, conv(x, w, true), out)) nodes.push_back(std::move(n));
    return nodes;
  }
  std::vector<std::string> blocks;
  for (int64_t nb0 = 0; nb0 < g.nb; ++nb0) {
    const std::string tag = out.name() + "_n" + std::to_string(nb0);
    slice(w, tag + "_w", 3, nb0 * 64, nb0 * 64 + 64);
    std::string sum;
    for (int64_t pass = 0; pass < p.passes; ++pass) {
      const int64_t kh0 = pass * p.kh_per_pass, khn = std::min(p.kh_per_pass, g.kh - kh0);
      const std::string t = tag + "_p" + std::to_string(pass);
      const int64_t row0 = kh0 * g.d[0];
      slice(x, t + "_x", 0, row0, row0 + (g.oh - 1) * g.s[0] + (khn - 1) * g.d[0] + 1);
      slice(tag + "_w", t + "_w", 0, kh0, kh0 + khn);
      Node n = conv(t + "_x", t + "_w", false);
      n.outputs = {t};
      std::string bias;
      if (pass == 0 && c.has("bias")) {
        slice(c.tensor("bias").name(), tag + "_b", 0, nb0 * 64, nb0 * 64 + 64);
        bias = tag + "_b";
      }
      add_pass(nodes, n, bias, sum);
    }
    blocks.push_back(sum);
  }
  Node cat = node("concat", blocks, {out.name()});
  cat.num_attrs["axis"] = {2};
  nodes.push_back(cat);
  return nodes;
}

}  // namespace axcore::compiler::ops::detail
