// load_imc and matmul (atomic), linear (core): int8 operands, the MVM's int32 accumulation, a
// float32 result through the DPU epilogue. A weight larger than one residency is split along N
// (each chunk its own LoadIMC and datapath, no partial sums); K must fit one residency.
// Reference: common/ref/op/matmul.hpp (the ref backend's "linear").
#include "mvm.hpp"

namespace axcore::compiler::ops::detail {
namespace {

void check_weight(const Call& c, const std::string& x_arg, const std::string& w_arg, bool split_k = false) {
  require_dtype(c, w_arg, {"int8x64"});
  require_rank(c, w_arg, 2, 2);
  const Tensor w = c.tensor(w_arg);
  if (w.shape()[0] % 64 != 0)
    c.refuse(w_arg, w.name() + " has K = " + std::to_string(w.shape()[0]) +
                        " rows; K must be a multiple of 64 (pad it with zero rows)");
  const int64_t kb = w.shape()[0] / 64;
  if (kb > spec::param::imc_tiles && !split_k)
    c.refuse(w_arg,
             "K = " + std::to_string(w.shape()[0]) + " is " + std::to_string(kb) +
                 " IMC tiles per output block; one residency holds " + std::to_string(spec::param::imc_tiles) +
                 " (imc_tiles) and this compiler does not split K yet",
             "split the reduction into matmuls with K <= " + std::to_string(spec::param::imc_tiles * 64) +
                 " and add the results");
  if (!x_arg.empty()) {
    require_dtype(c, x_arg, {"int8x64"});
    const Tensor x = c.tensor(x_arg);
    if (x.shape().back() != kb)
      c.refuse(x_arg, x.name() + " has K = " + std::to_string(logical(x).back()) + " but " + w.name() +
                          " has K = " + std::to_string(kb * 64));
  }
}

// x (..., K) viewed as (M, K_BLOCKS).
Tensor rows_of(const Tensor& x) {
  int64_t m = 1;
  for (std::size_t k = 0; k + 1 < x.shape().size(); ++k) m *= x.shape()[k];
  return x.shape().size() == 2 ? x : x.reshape({m, x.shape().back()});
}

uint64_t bytes_of(const Tensor& t) { return static_cast<uint64_t>(t.node()->elements()) * t.node()->dtype.bytes(); }

// The output blocks per chunk: one residency and the DPU's registers (max_chunk), and, when the
// input, the weight and the result do not fit target().l1_bytes together and the weight is in
// DDR, as many as fit next to the input and the result with the weight streamed (0 = no stream).
struct LinearPlan {
  int64_t chunk = 0;
  bool stream = false;  // the weight streamed a chunk of output blocks at a time
  int64_t rows = 0;     // > 0: the input and result streamed this many rows at a time (stream.cpp)
};
LinearPlan linear_chunk(const Tensor& x, const Tensor& w, const Epilogue& e, const Tensor& out) {
  const int64_t kb = w.shape()[0] / 64, nb = w.shape()[1];
  int64_t chunk = max_chunk(kb, e);
  const uint64_t epi_block =
      e.bias.empty() && !e.scale && !e.relu ? 0 : 256;  // the epilogue constants, ~1 PWORD per block
  const uint64_t rest = bytes_of(x) + bytes_of(out), budget = target().l1_bytes;
  if (!in_ddr(w) || rest + bytes_of(w) + epi_block * static_cast<uint64_t>(nb) <= budget) return {chunk, false, 0};
  const uint64_t per_block = static_cast<uint64_t>(kb) * 64 * 64 + epi_block;  // a 64-column slice of the weight
  if (rest + per_block > budget && in_ddr(x))
    if (const int64_t rows = stream_rows(x, w, out, chunk, budget); rows > 0) return {chunk, false, rows};
  if (rest + per_block > budget)
    fail(call_loc(),
         "core.linear: the input (" + std::to_string(bytes_of(x)) + " bytes) and the result (" +
             std::to_string(bytes_of(out)) + " bytes) leave less of the " + std::to_string(budget) +
             "-byte L1 budget than one 64-column slice of the weight (" + std::to_string(per_block) + " bytes)",
         "split the rows of the input over several linears (the weight is streamed, the input and the result stay in "
         "L1)");
  chunk = std::min<int64_t>(chunk, static_cast<int64_t>((budget - rest) / per_block));
  const int64_t pieces = (nb + chunk - 1) / chunk;
  return {(nb + pieces - 1) / pieces, true, 0};  // even chunks
}

void linear_impl(const Tensor& x_in, const Tensor& w, const Epilogue& e, const Tensor& out_in) {
  const Tensor x = rows_of(x_in), out = rows_of(out_in);
  const int64_t m = x.shape()[0], kb = w.shape()[0] / 64, nb = w.shape()[1];
  const auto [max_cols, stream, rows] = linear_chunk(x, w, e, out);
  if (rows > 0) {
    linear_rows_streamed(x, w, e, out, max_cols, rows);
    return;
  }
  const ColumnPlan cols = stream ? ColumnPlan{max_cols, {}} : plan_columns(w, m, kb, nb, max_cols);
  const int64_t chunk = cols.chunk;
  ColumnLoader columns(cols, nb, out_in.name() + "_w");
  Tensor epi;
  for (int64_t nb0 = 0; nb0 < nb; nb0 += chunk) {
    const int64_t nbc = std::min(chunk, nb - nb0);
    MvmChunk c;
    c.outer = {m};
    c.k_blocks = kb;
    c.nb0 = nb0;
    c.nbc = nbc;
    c.imc = A::alloc_imc({kb, nbc}, "int8x4096", -1, out_in.name() + "_w" + std::to_string(nb0));
    c.imc.node()->loc = call_loc();  // the IMC budget error points at the call
    if (stream) {
      // The chunk's columns of the weight copied into L1 (a strided SysDMA), loaded from there;
      // the slot is dead after its LoadIMC, so the next chunk's slot takes its rows.
      const Tensor slot =
          A::alloc_buffer({w.shape()[0], nbc}, "int8x64", A::L1, out_in.name() + "_w" + std::to_string(nb0) + "_l1");
      slot.node()->loc = call_loc();
      A::SysDMA([&] {
        for (auto [k, n] : A::grid(w.shape()[0], nbc)) slot(k, n) = w(k, nb0 ? n + nb0 : n);
      });
      load_chunk(slot, c.imc, 0, kb, 0, 0, nbc);
    } else if (cols.wc) {
      columns.load(c.imc, nb0, nbc, 0, kb, 0);
    } else {
      load_streamed(w, c.imc, 0, kb, 0, nb0, nbc, out_in.name() + "_w" + std::to_string(nb0));
    }
    c.ifd = [&](const A::StreamHandle& s) {
      A::grid_nest({m, nbc, kb},
                   [&](const std::vector<A::Value>& i) { s.push(x(i[0], i[2])); });  // the row, once per output block
    };
    if (cols.wc) {  // one epilogue constant for the layer's chunks
      c.epi_cache = &epi;
      c.layer_nb = nb;
      c.layer_chunk = chunk;
    }
    mvm_chunk(c, e, out);
  }
}

// A reduction longer than one residency (K > imc_tiles * 64): written in the guide's form — a
// grid around one datapath whose IMC matrix exceeds the budget — for the split-k pass, which
// cuts it into chunks of kc = imc_tiles / nbc K blocks and accumulates the partial sums in
// float18 (out = f18(f18(acc_c) + f18(out))). The bias is chunk 0's epilogue.
constexpr int64_t kSplitKBlocks = 4;  // output blocks per split matmul

void linear_split_k(const Tensor& x_in, const Tensor& w, const Tensor& bias, const Tensor& out_in) {
  const Tensor x = rows_of(x_in), out = rows_of(out_in);
  const int64_t m = x.shape()[0], kb = w.shape()[0] / 64, nb = w.shape()[1];
  for (int64_t nb0 = 0; nb0 < nb; nb0 += kSplitKBlocks) {
    const int64_t nbc = std::min(kSplitKBlocks, nb - nb0);
    Tensor imc = A::alloc_imc({kb, nbc}, "int8x4096", -1, out_in.name() + "_w" + std::to_string(nb0));
    imc.node()->loc = call_loc();
    load_chunk(w, imc, 0, kb, 0, nb0, nbc);
    for (auto [mi, n] : A::grid(m, nbc)) {
      A::Datapath(A::DP_MVMEXE, [&] {
        auto ifd = A::decl_stream("int8x64");
        auto mvm = A::decl_stream("int32x64");
        auto res = A::decl_stream("float32x64");
        for (auto k : A::serial(kb)) A::IFD(0, [&] { ifd.push(x(mi, k)); });
        A::MatMul([&] {
          auto acc = A::mvm_accumulator();
          A::reset_accumulator(acc);
          for (auto k : A::serial(kb)) acc += A::mvm_1x1(ifd.pop(), imc(k, n));
          mvm.push(acc);
        });
        A::DPU([&] {
          const A::Value col = nb0 ? n + nb0 : n;
          if (bias)
            res.push(A::cast(A::cast(mvm.pop(), "float18x64") + A::cast(bias(col), "float18x64"), "float32x64"));
          else
            res.push(A::cast(mvm.pop(), "float32x64"));
        });
        A::ODR([&] { out(mi, nb0 ? n + nb0 : n) = res.pop(); });
      });
    }
  }
}

// The reference of linear_split_k: per output chunk, the K chunks' linears (float32 of the float18
// result) summed in float18 by "add" nodes in chunk order, then the output chunks concatenated.
std::vector<Node> split_k_reference(const Call& c, const Tensor& out) {
  const Tensor x = c.tensor("input"), w = c.tensor("weight");
  const int64_t kb = w.shape()[0] / 64, nb = w.shape()[1];
  const std::string base = out.name() + "_k";
  std::vector<Node> g;
  std::vector<std::string> parts;
  const int64_t rank = static_cast<int64_t>(x.shape().size());
  for (int64_t nb0 = 0; nb0 < nb; nb0 += kSplitKBlocks) {
    const int64_t nbc = std::min(kSplitKBlocks, nb - nb0), kc = spec::param::imc_tiles / nbc;
    const std::string tag = base + std::to_string(nb0);
    g.push_back(slice_node(w.name(), tag + "_w", 1, nb0 * 64, (nb0 + nbc) * 64));
    std::string sum;
    for (int64_t k0 = 0; k0 < kb; k0 += kc) {
      const int64_t k1 = std::min(kb, k0 + kc);
      const std::string t = tag + "_c" + std::to_string(k0);
      g.push_back(slice_node(x.name(), t + "_x", rank - 1, k0 * 64, k1 * 64));
      g.push_back(slice_node(tag + "_w", t + "_w", 0, k0 * 64, k1 * 64));
      std::string bias;
      if (k0 == 0 && c.has("bias")) {
        g.push_back(slice_node(c.tensor("bias").name(), tag + "_b", 0, nb0 * 64, (nb0 + nbc) * 64));
        bias = tag + "_b";
      }
      add_pass(g, node("linear", {t + "_x", t + "_w"}, {t}), bias, sum);
    }
    parts.push_back(sum);
  }
  Node cat = node("concat", parts, {out.name()});
  cat.num_attrs["axis"] = {static_cast<double>(rank - 1)};
  g.push_back(cat);
  return g;
}

std::vector<int64_t> out_shape(const Tensor& x, const Tensor& w) {
  auto s = x.shape();
  s.back() = w.shape()[1];
  return s;
}

OpDef load_imc_op() {
  OpDef d;
  d.name = "atomic.load_imc";
  d.level = Level::Atomic;
  d.doc = "makes a (K, N) int8 weight resident: one LoadIMC datapath, 64 rows per IMC tile";
  d.args = {{"weight", ArgKind::Tensor, true, {}, "(K, N) int8, K a multiple of 64, at most imc_tiles tiles"}};
  d.validate = [](const Call& c) {
    check_weight(c, "", "weight");
    const Tensor w = c.tensor("weight");
    if ((w.shape()[0] / 64) * w.shape()[1] > spec::param::imc_tiles)
      c.refuse("weight",
               "needs " + std::to_string((w.shape()[0] / 64) * w.shape()[1]) + " IMC tiles; one residency holds " +
                   std::to_string(spec::param::imc_tiles) + " (imc_tiles)",
               "core.linear splits a larger weight along N");
  };
  d.infer_output = [](const Call& c) {
    const Tensor w = c.tensor("weight");
    return BufferInfo{{w.shape()[0] / 64, w.shape()[1]}, "int8x4096", Scope::IMC};
  };
  d.implementation = [](const Call& c, const Tensor& out) {
    const Tensor w = c.tensor("weight");
    load_chunk(w, out, 0, out.shape()[0], 0, 0, out.shape()[1]);
    out.node()->imc_source = w.node();  // atomic.matmul's reference reads the weight
  };
  // The resident matrix is no graph value: atomic.matmul's reference reads the weight itself.
  d.emulate = [](const Call&, const Tensor&) { return std::vector<Node>{}; };
  return d;
}

// atomic.matmul(matrix_ifd=, matrix_imc=, partial=, output=) (guide §11.2): with partial=, the
// product is added onto partial (float32, the output's shape) inside the MVMEXE datapath — IFD1
// streams partial in the ODR's order and the DPU writes f18(f18(x @ W) + f18(partial)) (MvmChunk::
// partial) — so a K loop of matmuls with partial=c, output=c accumulates in place (c zeroed once
// before it, atomic.full): each element is read before the ODR writes it.
OpDef matmul_op() {
  OpDef d;
  d.name = "atomic.matmul";
  d.level = Level::Atomic;
  d.doc = "float32 out = x @ W (+ partial) against a resident IMC matrix (atomic.load_imc): one MVMEXE datapath";
  d.args = {{"matrix_ifd", ArgKind::Tensor, true, {}, "(..., K) int8, streamed by the IFD"},
            {"matrix_imc", ArgKind::Tensor, true, {}, "the resident matrix atomic.load_imc wrote"},
            {"partial",
             ArgKind::Tensor,
             false,
             {},
             "float32 of the output's shape: out = f18(f18(x @ W) + f18(partial)), a K tile added onto the sum of the "
             "ones before (split K, guide §11.2); may be the output"}};
  d.in_place = {"partial"};
  d.validate = [](const Call& c) {
    require_dtype(c, "matrix_ifd", {"int8x64"});
    const Tensor imc = c.tensor("matrix_imc");
    if (imc.scope() != Scope::IMC || !imc.node()->imc_source)
      c.refuse("matrix_imc", imc.name() + " is not a matrix made resident by atomic.load_imc");
    if (c.tensor("matrix_ifd").shape().back() != imc.shape()[0])
      c.refuse("matrix_ifd", "K = " + std::to_string(logical(c.tensor("matrix_ifd")).back()) +
                                 " does not match the resident matrix's " + std::to_string(imc.shape()[0] * 64));
    if (c.has("partial")) {
      require_dtype(c, "partial", {"float32x64"});
      auto s = c.tensor("matrix_ifd").shape();
      s.back() = imc.shape()[1];
      if (c.tensor("partial").shape() != s)
        c.refuse("partial", c.tensor("partial").name() + " is " + shape_str(c.tensor("partial").shape()) +
                                " float32x64, the product is " + shape_str(s));
    }
  };
  d.infer_output = [](const Call& c) {
    auto s = c.tensor("matrix_ifd").shape();
    s.back() = c.tensor("matrix_imc").shape()[1];
    return BufferInfo{s, "float32x64"};
  };
  d.implementation = [](const Call& c, const Tensor& out_in) {
    const Tensor x = rows_of(c.tensor("matrix_ifd")), out = rows_of(out_in), imc = c.tensor("matrix_imc");
    const int64_t m = x.shape()[0], kb = imc.shape()[0], nb = imc.shape()[1];
    MvmChunk ch;
    ch.outer = {m};
    ch.k_blocks = kb;
    ch.nbc = nb;
    ch.imc = imc;
    if (c.has("partial")) ch.partial = rows_of(c.tensor("partial"));
    ch.ifd = [&](const A::StreamHandle& s) {
      A::grid_nest({m, nb, kb}, [&](const std::vector<A::Value>& i) { s.push(x(i[0], i[2])); });
    };
    mvm_chunk(ch, {}, out);
  };
  d.emulate = [](const Call& c, const Tensor& out) {
    const std::string w = c.tensor("matrix_imc").node()->imc_source->name;
    Node n = node("linear", {c.tensor("matrix_ifd").name(), w}, {out.name()});
    n.str_attrs["epilogue"] = "none";
    if (!c.has("partial")) return std::vector<Node>{n};
    const std::string tile = fresh(out.name() + "_tile");  // a K loop's matmuls each name their own
    n.outputs = {tile};
    return std::vector<Node>{n, node("add", {tile, c.tensor("partial").name()}, {out.name()})};
  };
  return d;
}

}  // namespace

// core.linear's arguments, shared with aten.linear.
std::vector<ArgSpec> linear_args(const std::string& weight_doc) {
  return {{"input", ArgKind::Tensor, true, {}, "(..., K) int8"},
          {"weight", ArgKind::Tensor, true, {}, weight_doc},
          {"bias", ArgKind::Tensor, false, {}, "(N,) float32 constant"},
          {"scale", ArgKind::Float, false, {}, "per-tensor multiplier applied before the bias"},
          {"activation", ArgKind::String, false, std::string("none"), "none or relu (fused in the DPU)"}};
}

OpDef linear_op() {
  OpDef d;
  d.name = "core.linear";
  d.level = Level::Core;
  d.doc =
      "float32 out = act(x @ W * scale + bias): LoadIMC + MVMEXE datapath per residency chunk of N; K beyond one "
      "residency split by split-k";
  d.args = linear_args("(K, N) int8; K > imc_tiles * 64 is split along K (float18 partial sums, bias only)");
  d.validate = [](const Call& c) {
    check_weight(c, "input", "weight", true);
    (void)epilogue_of(c, logical(c.tensor("weight"))[1]);
    if (c.tensor("weight").shape()[0] / 64 > spec::param::imc_tiles && (c.has("scale") || c.s("activation") != "none"))
      c.refuse(c.has("scale") ? "scale" : "activation",
               "K = " + std::to_string(c.tensor("weight").shape()[0]) + " exceeds one residency (" +
                   std::to_string(spec::param::imc_tiles * 64) +
                   ") and is split along K, where only a bias distributes over the partial sums",
               "apply the scale or activation as an operator of its own after the linear");
  };
  d.infer_output = [](const Call& c) {
    return BufferInfo{out_shape(c.tensor("input"), c.tensor("weight")), "float32x64"};
  };
  d.implementation = [](const Call& c, const Tensor& out) {
    forget_image();
    if (c.tensor("weight").shape()[0] / 64 > spec::param::imc_tiles)
      linear_split_k(c.tensor("input"), c.tensor("weight"), c.has("bias") ? c.tensor("bias") : Tensor(), out);
    else
      linear_impl(c.tensor("input"), c.tensor("weight"), epilogue_of(c, logical(c.tensor("weight"))[1]), out);
  };
  d.emulate = [](const Call& c, const Tensor& out) {
    if (c.tensor("weight").shape()[0] / 64 > spec::param::imc_tiles) return split_k_reference(c, out);
    std::string w = c.tensor("weight").name();
    std::vector<Node> g = weight_from_image(c.tensor("weight"), out.name(), w);
    for (auto& n : mvm_reference(c, node("linear", {c.tensor("input").name(), w}, {}), out)) g.push_back(std::move(n));
    return g;
  };
  return d;
}

void add_matmul_ops(std::vector<OpDef>& r) {
  r.push_back(load_imc_op());
  r.push_back(matmul_op());
  r.push_back(linear_op());
}

}  // namespace axcore::compiler::ops::detail
