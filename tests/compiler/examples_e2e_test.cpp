// Every example kernel of examples/kernels/catalog.hpp compiled with the default options and run on
// the functional device (fsim, in process), the SystemC TLM and the Verilated RTL through `axrun`
// (one process per run: SystemC and Verilator elaborate once per process). Each output must equal
// the reference bit for bit on the three backends — the reference is computed here from
// common/ref for the hand-written datapaths, and is the bundle's operator graph on the ref backend
// for the kernels built from operators — and the TLM and RTL traces must be equivalent (runtime/tools' compare_traces,
// what `axtrace compare` runs). Built twice: the examples marked large (over a million device cycles) in the slow tier.
#include <gtest/gtest.h>

#include <unistd.h>
#include <axcore/compiler/compile.hpp>
#include <axcore/num/lut.hpp>
#include <axcore/num/pword.hpp>
#include <axcore/num/reduce.hpp>
#include <axcore/ref/npy.hpp>
#include <axcore/ref/op/elementwise.hpp>
#include <axcore/ref/op/matmul.hpp>
#include <axcore/runtime/backend.hpp>
#include <axcore/runtime/buffer_image.hpp>
#include <axcore/runtime/trace_tools.hpp>
#include <axcore/trace/record.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "catalog.hpp"

namespace {

namespace ax = axcore;
namespace rt = axcore::runtime;
namespace fs = std::filesystem;
using ax::ref::NDArray;
using Reference = std::function<rt::Arrays(const ax::compiler::PrimFunc&, const rt::Arrays&)>;

// Reproducible inputs: int8 over its whole range, floats in [-100, 100].
rt::Arrays inputs_for(const rt::Bundle& b, uint32_t seed) {
  rt::Arrays in;
  uint32_t s = seed * 2654435761u + 11u;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return static_cast<double>(s >> 8) / 16777216.0;
  };
  for (const auto& d : b.buffers) {
    if (d.role != rt::BufferRole::INPUT) continue;
    const ax::ref::Shape sh(d.shape.begin(), d.shape.end());
    if (d.dtype == ax::spec::Dtype::INT8) {
      NDArray<int8_t> a(sh);
      for (std::size_t i = 0; i < a.size(); ++i)
        a.data()[i] = static_cast<int8_t>(static_cast<int>(next() * 256) - 128);
      in[d.name] = a;
    } else {
      NDArray<float> a(sh);
      for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<float>(-100 + 200 * next());
      in[d.name] = a;
    }
  }
  return in;
}

// A constant the kernel holds, as a logical array of `shape`.
template <class T>
NDArray<T> constant(const ax::compiler::PrimFunc& f, const std::string& name, ax::ref::Shape shape) {
  for (const auto& b : f.buffers) {
    if (b->name != name) continue;
    NDArray<T> a(shape);
    EXPECT_EQ(a.size(), b->data.size()) << name;
    for (std::size_t i = 0; i < a.size() && i < b->data.size(); ++i) a.data()[i] = static_cast<T>(b->data[i]);
    return a;
  }
  ADD_FAILURE() << "no constant " << name;
  return NDArray<T>(shape);
}

const NDArray<float>& f32(const rt::Arrays& in, const std::string& n) { return std::get<NDArray<float>>(in.at(n)); }
const NDArray<int8_t>& i8(const rt::Arrays& in, const std::string& n) { return std::get<NDArray<int8_t>>(in.at(n)); }

// inp @ weights (+ bias): the §6.2 matmul family, K and N from the input and the bias.
rt::Arrays matmul_ref(const ax::compiler::PrimFunc& f, const rt::Arrays& in, bool bias) {
  const auto& x = i8(in, "inp");
  const std::size_t k = x.shape()[1];
  std::size_t n = 0;
  for (const auto& b : f.buffers)
    if (b->name == "bias") n = b->data.size();
  ax::ref::Epilogue e;
  if (bias) e.bias = constant<float>(f, "bias", {n});
  return {{"out", ax::ref::linear<float>(x, constant<int8_t>(f, "weights", {k, n}), e)}};
}

rt::Arrays conv_ref(const ax::compiler::PrimFunc& f, const rt::Arrays& in) {
  const auto& x = i8(in, "inp");
  const std::size_t cin = x.shape()[2];
  std::size_t n = 0;
  for (const auto& b : f.buffers)
    if (b->name == "weights") n = b->data.size() / (9 * cin);
  return {{"out", ax::ref::conv2d<float>(x, constant<int8_t>(f, "weights", {3, 3, cin, n}), {})}};
}

rt::Arrays row_sum_ref(const ax::compiler::PrimFunc&, const rt::Arrays& in) {
  const auto& x = f32(in, "inp");
  const std::size_t rows = x.shape()[0], nb = x.shape()[1] / 64;
  NDArray<float> out({rows, 64});
  for (std::size_t r = 0; r < rows; ++r) {
    ax::num::PwordF18 acc{};  // blockwise in float18, seeded from the first block, then the lane tree
    for (std::size_t j = 0; j < nb; ++j)
      for (std::size_t l = 0; l < 64; ++l) {
        const auto v = ax::num::f18_from_double(x({r, j * 64 + l}));
        acc[l] = j == 0 ? v : ax::num::add(acc[l], v);
      }
    const auto s = static_cast<float>(ax::num::to_double(ax::num::add_reduce(acc)[0]));
    for (std::size_t l = 0; l < 64; ++l) out({r, l}) = s;
  }
  return {{"out", out}};
}

// x * s in float18 (the DPU's product of two float18 operands), as float32.
float mul18(float x, double s) {
  return ax::num::to_float(ax::num::mul(ax::num::f18_from_float(x), ax::num::f18_from_double(s)));
}

// §4.4 loop_forms: out = inp * scale[channel block], out_rows = rows * scale[u] for u < 2, row 2 copied.
rt::Arrays loop_forms_ref(const ax::compiler::PrimFunc& f, const rt::Arrays& in) {
  const auto scale = constant<float>(f, "scale", {128});
  NDArray<float> out = f32(in, "inp"), rows = f32(in, "rows");
  for (std::size_t i = 0; i < out.size(); ++i) out.data()[i] = mul18(out.data()[i], scale.data()[i % 128]);
  for (std::size_t u = 0; u < 2; ++u)
    for (std::size_t j = 0; j < 256; ++j) rows({u, j}) = mul18(rows({u, j}), scale.data()[u * 64 + j % 64]);
  return {{"out", out}, {"out_rows", rows}};
}

// §5 / §8.5 int_imm_store: rows 0..5 of the output are the input's rows reversed, 6 and 7 the pad
// -7, scaled.
rt::Arrays int_imm_store_ref(const ax::compiler::PrimFunc& f, const rt::Arrays& in) {
  const auto scale = constant<float>(f, "scale", {64});
  const auto& x = i8(in, "inp");
  NDArray<float> out({8, 64});
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t l = 0; l < 64; ++l)
      out({i, l}) = mul18(i < 6 ? static_cast<float>(x({5 - i, l})) : -7.0f, scale.data()[l]);
  return {{"out", out}};
}

// §8.4 store_or_drop: columns 0..2 of the doubled input, mirrored; column 3 dropped.
rt::Arrays store_or_drop_ref(const ax::compiler::PrimFunc&, const rt::Arrays& in) {
  const auto& x = f32(in, "inp");
  NDArray<float> out({4, 192});
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t j = 0; j < 192; ++j) out({r, j}) = mul18(x({r, (2 - j / 64) * 64 + j % 64}), 2.0);
  return {{"out", out}};
}

// §7 dpu_reduce_fma: per row, max and min over the blocks then across the lanes, fma(max, 0.75,
// min); the lane tree sum of block 0.
rt::Arrays dpu_reduce_fma_ref(const ax::compiler::PrimFunc&, const rt::Arrays& in) {
  const auto& x = f32(in, "inp");
  NDArray<float> out({4, 128});
  for (std::size_t r = 0; r < 4; ++r) {
    ax::num::PwordF18 hi{}, lo{}, b0{};
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t l = 0; l < 64; ++l) {
        const auto v = ax::num::f18_from_float(x({r, j * 64 + l}));
        hi[l] = j == 0 ? v : ax::num::max(hi[l], v);
        lo[l] = j == 0 ? v : ax::num::min(lo[l], v);
        if (j == 0) b0[l] = v;
      }
    const auto f = ax::num::fma(ax::num::max_reduce(hi)[0], ax::num::f18_from_double(0.75), ax::num::min_reduce(lo)[0]);
    const auto s = ax::num::add_reduce(b0)[0];
    for (std::size_t l = 0; l < 64; ++l) {
      out({r, l}) = ax::num::to_float(f);
      out({r, 64 + l}) = ax::num::to_float(s);
    }
  }
  return {{"out", out}};
}

// §10 where_guard: rows 0..3 of the input, then 2 * row 4 and 3 * rows 5..7.
rt::Arrays where_guard_ref(const ax::compiler::PrimFunc&, const rt::Arrays& in) {
  NDArray<float> out = f32(in, "inp");
  for (std::size_t i = 4; i < 8; ++i)
    for (std::size_t l = 0; l < 64; ++l) out({i, l}) = mul18(out({i, l}), i == 4 ? 2.0 : 3.0);
  return {{"out", out}};
}

// §6.1 / §6.4 stream_pins_bypass: prod = inp * wts, copy = inp, twice = 2 * inp (float18 products).
rt::Arrays stream_pins_bypass_ref(const ax::compiler::PrimFunc&, const rt::Arrays& in) {
  const auto& x = f32(in, "inp");
  const auto& w = f32(in, "wts");
  NDArray<float> prod = x, twice = x;
  for (std::size_t i = 0; i < x.size(); ++i) {
    prod.data()[i] =
        ax::num::to_float(ax::num::mul(ax::num::f18_from_float(x.data()[i]), ax::num::f18_from_float(w.data()[i])));
    twice.data()[i] = mul18(x.data()[i], 2.0);
  }
  return {{"prod", prod}, {"copy", x}, {"twice", twice}};
}

// §12 sync_signals: out_a = a + a, out_b = b + b in float18 (exactly 2x of the rounded input).
rt::Arrays sync_signals_ref(const ax::compiler::PrimFunc&, const rt::Arrays& in) {
  NDArray<float> a = f32(in, "a"), b = f32(in, "b");
  for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = mul18(a.data()[i], 2.0);
  for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = mul18(b.data()[i], 2.0);
  return {{"out_a", a}, {"out_b", b}};
}

// §7 dpu_ops: per row, fma(max_reduce(max(x0, x1)), 0.5, min_reduce(min(x0, x1))), add_reduce(x0),
// prelu(x1, 0.25), lut(x0, table) — the table read back from the kernel's constant.
rt::Arrays dpu_ops_ref(const ax::compiler::PrimFunc& f, const rt::Arrays& in) {
  namespace n = ax::num;
  const auto c = constant<float>(f, "consts", {3, 64});
  n::PwordF32 packed{};
  for (std::size_t l = 0; l < 64; ++l) packed[l] = c({0, l});
  const std::vector<n::PwordF18> tables = {n::load_lut_table(packed)};
  const auto& x = f32(in, "inp");
  NDArray<float> out({4, 256});
  for (std::size_t r = 0; r < 4; ++r) {
    n::PwordF18 x0{}, x1{}, m{}, mn{};
    for (std::size_t l = 0; l < 64; ++l) {
      x0[l] = n::f18_from_float(x({r, l}));
      x1[l] = n::f18_from_float(x({r, 64 + l}));
      m[l] = n::max(x0[l], x1[l]);
      mn[l] = n::min(x0[l], x1[l]);
    }
    const auto fma = n::fma(n::max_reduce(m)[0], n::f18_from_float(c({2, 0})), n::min_reduce(mn)[0]);
    const auto sum = n::add_reduce(x0)[0];
    const auto lut = n::lut_eval(x0, tables);
    for (std::size_t l = 0; l < 64; ++l) {
      out({r, l}) = n::to_float(fma);
      out({r, 64 + l}) = n::to_float(sum);
      out({r, 128 + l}) = n::to_float(n::prelu(x1[l], n::f18_from_float(c({1, l}))));
      out({r, 192 + l}) = n::to_float(lut[l]);
    }
  }
  return {{"out", out}};
}

// §5 scalar_values: out_q = q then two rows of -3; out_x = x then two rows of -1.5.
rt::Arrays scalar_values_ref(const ax::compiler::PrimFunc&, const rt::Arrays& in) {
  const auto& q = i8(in, "q");
  const auto& x = f32(in, "x");
  NDArray<float> out_q({6, 64}), out_x({6, 64});
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t l = 0; l < 64; ++l) {
      out_q({i, l}) = i < 4 ? static_cast<float>(q({i, l})) : -3.0f;
      out_x({i, l}) = i < 4 ? x({i, l}) : -1.5f;
    }
  return {{"out_q", out_q}, {"out_x", out_x}};
}

// §9.2 two_dpu_blocks: out's 8 rows in order are 2a (rows 0..3 of a), then b + 3.
rt::Arrays two_dpu_blocks_ref(const ax::compiler::PrimFunc&, const rt::Arrays& in) {
  const auto& a = f32(in, "a");
  const auto& b = f32(in, "b");
  NDArray<float> out({4, 128});
  for (std::size_t e = 0; e < 8 * 64; ++e) {
    const std::size_t r = e / 64 % 4, l = e % 64;
    const auto v = e < 4 * 64 ? ax::num::f18_from_float(a({r, l})) * ax::num::f18_from_double(2.0)
                              : ax::num::f18_from_float(b({r, l})) + ax::num::f18_from_double(3.0);
    out.data()[e] = ax::num::to_float(v);
  }
  return {{"out", out}};
}

// §8.3 feeder_segments: out = x * a + b, each step rounded to float18 (hand-computed).
rt::Arrays feeder_segments_ref(const ax::compiler::PrimFunc&, const rt::Arrays& in) {
  const auto &x = f32(in, "x"), &a = f32(in, "a"), &b = f32(in, "b");
  NDArray<float> out({4, 64});
  for (std::size_t e = 0; e < 4 * 64; ++e) {
    const auto p = ax::num::f18_from_float(x.data()[e]) * ax::num::f18_from_float(a.data()[e]);
    out.data()[e] = ax::num::to_float(p + ax::num::f18_from_float(b.data()[e]));
  }
  return {{"out", out}};
}

// §8.3 feeder_segments_mixed: out rows 0..3 = q * s, rows 4..7 = x[j, k] + g[2j, k + 1] (float18).
rt::Arrays feeder_segments_mixed_ref(const ax::compiler::PrimFunc&, const rt::Arrays& in) {
  const auto& q = i8(in, "q");
  const auto &x = f32(in, "x"), &s = f32(in, "s");
  const auto& g = i8(in, "g");
  NDArray<float> out({8, 64});
  for (std::size_t l = 0; l < 64; ++l) {
    const auto sl = ax::num::f18_from_float(s({0, l}));
    for (std::size_t i = 0; i < 4; ++i) out({i, l}) = ax::num::to_float(ax::num::f18_from_double(q({i, l})) * sl);
    for (std::size_t n = 0; n < 4; ++n) {
      const std::size_t j = n / 2, k = n % 2;
      out({4 + n, l}) = ax::num::to_float(ax::num::f18_from_float(x({j, k * 64 + l})) +
                                          ax::num::f18_from_double(g({2 * j, (k + 1) * 64 + l})));
    }
  }
  return {{"out", out}};
}

// two_matmul_blocks: inp @ weights, K = 128, N = 128 (the DPU's cast through float18).
rt::Arrays two_matmul_blocks_ref(const ax::compiler::PrimFunc& f, const rt::Arrays& in) {
  return {{"out", ax::ref::linear<float>(i8(in, "inp"), constant<int8_t>(f, "weights", {128, 128}), {})}};
}

// §5.1 memory_scopes: out = 2 * inp, out2 = 3 * out (each product rounded to float18).
rt::Arrays memory_scopes_ref(const ax::compiler::PrimFunc&, const rt::Arrays& in) {
  NDArray<float> out = f32(in, "inp"), out2 = out;
  for (std::size_t i = 0; i < out.size(); ++i) {
    out.data()[i] = mul18(out.data()[i], 2.0);
    out2.data()[i] = mul18(out.data()[i], 3.0);
  }
  return {{"out", out}, {"out2", out2}};
}

// §5.1 / §11 l2_spill: z = 3 * (2 * x).
rt::Arrays l2_spill_ref(const ax::compiler::PrimFunc&, const rt::Arrays& in) {
  NDArray<float> z = f32(in, "x");
  for (std::size_t i = 0; i < z.size(); ++i) z.data()[i] = mul18(mul18(z.data()[i], 2.0), 3.0);
  return {{"z", z}};
}

// The reference of each example; none = the bundle's operator graph on the ref backend.
const std::map<std::string, Reference>& references() {
  static const std::map<std::string, Reference> r = {
      {"scale",
       [](const auto&, const rt::Arrays& in) {
         const auto& x = f32(in, "inp");
         return rt::Arrays{{"out", ax::ref::mul_tensor<float>(x, NDArray<float>({1}, 2.0f))}};
       }},
      {"matmul", [](const auto& f, const rt::Arrays& in) { return matmul_ref(f, in, false); }},
      {"matmul_bias", [](const auto& f, const rt::Arrays& in) { return matmul_ref(f, in, true); }},
      {"tiled_matmul", [](const auto& f, const rt::Arrays& in) { return matmul_ref(f, in, true); }},
      {"pipelined_matmul", [](const auto& f, const rt::Arrays& in) { return matmul_ref(f, in, true); }},
      {"conv3x3", conv_ref},
      {"dpu_affine",
       [](const auto&, const rt::Arrays& in) {  // the catalog's scale 0.5, bias 1.0
         const auto y = ax::ref::mul_tensor<float>(f32(in, "inp"), NDArray<float>({1}, 0.5f));
         return rt::Arrays{{"out", ax::ref::add_tensor<float>(y, NDArray<float>({1}, 1.0f))}};
       }},
      {"row_sum", row_sum_ref},
      {"loop_forms", loop_forms_ref},
      {"int_imm_store", int_imm_store_ref},
      {"store_or_drop", store_or_drop_ref},
      {"where_guard", where_guard_ref},
      {"dpu_reduce_fma", dpu_reduce_fma_ref},
      {"memory_scopes", memory_scopes_ref},
      {"l2_spill", l2_spill_ref},
      {"two_dpu_blocks", two_dpu_blocks_ref},
      {"two_matmul_blocks", two_matmul_blocks_ref},
      {"feeder_segments", feeder_segments_ref},
      {"feeder_segments_mixed", feeder_segments_mixed_ref},
      {"stream_pins_bypass", stream_pins_bypass_ref},
      {"sync_signals", sync_signals_ref},
      {"dpu_ops", dpu_ops_ref},
      {"scalar_values", scalar_values_ref},
  };
  return r;
}

struct BackendRun {
  bool ok = false;
  rt::Arrays outputs;
  std::vector<ax::trace::Record> trace;
};

BackendRun run_axrun(const fs::path& dir, const std::string& backend, const rt::Arrays& in) {
  std::string cmd = std::string(AXRUN) + " " + (dir / "k.axb").string() + " --backend " + backend +
                    " -q --output-dir " + (dir / backend).string() + " --trace " +
                    (dir / (backend + ".trace")).string();
  for (const auto& [name, file] : in) cmd += " --input " + name + "=" + (dir / (name + ".npy")).string();
  cmd += " > " + (dir / (backend + ".log")).string() + " 2>&1";
  BackendRun r;
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd << "\n" << std::ifstream(dir / (backend + ".log")).rdbuf();
  if (rc != 0) return r;
  for (const auto& e : fs::directory_iterator(dir / backend))
    if (e.path().extension() == ".npy") r.outputs[e.path().stem().string()] = ax::ref::load_npy(e.path().string());
  r.trace = ax::trace::read_trace_file((dir / (backend + ".trace")).string());
  r.ok = true;
  return r;
}

// The first differing element of two arrays of one dtype, or "" when they are equal byte for byte.
std::string first_difference(const ax::ref::AnyArray& got, const ax::ref::AnyArray& want) {
  if (rt::shape_of(got) != rt::shape_of(want)) return "shapes differ";
  const auto a = rt::array_bytes(got), b = rt::array_bytes(want);
  if (a.size() != b.size()) return "sizes differ";
  const std::size_t lane = ax::num::lane_bytes(rt::dtype_of(want));
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return "element " + std::to_string(i / lane) + " differs";
  return {};
}

class ExampleOnTlmAndRtl : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleOnTlmAndRtl, OutputsEqualTheReferenceAndTracesAreEquivalent) {
  const auto* ex = ax::examples::find_example(GetParam());
  ASSERT_NE(ex, nullptr);
  const auto mod = ex->make();
  const auto compiled = ax::compiler::compile(mod.ir().main(), {1, ex->name, "examples/kernels"});
  const fs::path dir =
      fs::temp_directory_path() / ("axcore_examples_e2e_" + ex->name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  rt::save_bundle(dir / "k.axb", compiled.bundle);
  const auto in = inputs_for(compiled.bundle, 7);
  for (const auto& [name, arr] : in) ax::ref::save_npy((dir / (name + ".npy")).string(), arr);

  const auto& refs = references();
  const auto it = refs.find(ex->name);
  rt::Arrays want;
  if (it != refs.end()) {
    want = it->second(mod.ir().main(), in);
  } else {
    ASSERT_FALSE(compiled.bundle.graph.empty())
        << ex->name << ": no reference here and no operator graph in the bundle";
    want = rt::make_backend("ref")->run(compiled.bundle, in, {}).outputs;
  }
  ASSERT_FALSE(want.empty());

  const BackendRun fsim{true, rt::make_backend("fsim")->run(compiled.bundle, in, {}).outputs, {}};
  const BackendRun tlm = run_axrun(dir, "tlm", in), rtl = run_axrun(dir, "rtl", in);
  ASSERT_TRUE(tlm.ok && rtl.ok);
  for (const auto* r : {&fsim, &tlm, &rtl}) {
    const std::string be = r == &fsim ? "fsim" : r == &tlm ? "tlm" : "rtl";
    EXPECT_EQ(r->outputs.size(), want.size()) << be;
    for (const auto& [name, w] : want) {
      const auto got = r->outputs.find(name);
      if (got == r->outputs.end()) {
        ADD_FAILURE() << ex->name << ": " << be << " wrote no output " << name;
        continue;
      }
      EXPECT_EQ(first_difference(got->second, w), "")
          << ex->name << ": " << be << " output " << name << " vs the reference";
    }
  }
  ax::runtime::CompareOptions co;
  co.names[0] = "tlm";
  co.names[1] = "rtl";
  const auto cmp = ax::runtime::compare_traces(tlm.trace, rtl.trace, co);
  EXPECT_FALSE(tlm.trace.empty());
  EXPECT_TRUE(cmp.equivalent) << ex->name << ": the TLM and RTL traces diverge\n" << cmp.report;
  if (!HasFailure()) fs::remove_all(dir);
}

// AXCORE_E2E_LARGE selects the large examples (the slow tier's binary) or the others.
std::vector<std::string> example_names() {
  std::vector<std::string> v;
  for (const auto& e : ax::examples::catalog())
    if (e.large == (AXCORE_E2E_LARGE != 0)) v.push_back(e.name);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Catalog, ExampleOnTlmAndRtl, ::testing::ValuesIn(example_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// Every example with a hand-written datapath has a reference here (the rest carry an operator graph).
TEST(ExamplesE2e, EveryExampleHasAReference) {
  for (const auto& e : ax::examples::catalog()) {
    const auto c = ax::compiler::compile(e.make().ir().main());
    EXPECT_TRUE(references().count(e.name) || !c.bundle.graph.empty()) << e.name;
  }
}

}  // namespace
