#include "mvm.hpp"

#include <algorithm>

#include "dpu_map.hpp"

namespace axcore::compiler::ops::detail {

namespace {
int64_t fixed_terms(const Epilogue& e) { return (e.scale ? 1 : 0) + (e.relu ? 1 : 0); }
}  // namespace

int64_t max_chunk(int64_t k_blocks, const Epilogue& e) {
  const int64_t by_imc = spec::param::imc_tiles / std::max<int64_t>(k_blocks, 1);
  // Registers: the preamble constants (fixed terms + one bias block per output block) and y.
  const int64_t by_regs =
      e.bias.empty() ? by_imc : static_cast<int64_t>(spec::param::dpu_registers) - 1 - fixed_terms(e);
  return std::max<int64_t>(1, std::min(by_imc, by_regs));
}

void load_chunk(const Tensor& w, const Tensor& imc, int64_t kb0, int64_t kbs, int64_t row_block0, int64_t nb0,
                int64_t nbc, bool block_major) {
  // Offsets of 0 are left out, so the indices stay bare loop variables (the split-k pass reads the
  // LoadIMC's K-block index as one).
  auto plus = [](const A::Value& v, int64_t k) { return k ? v + k : v; };
  for (auto [kb, nb] : A::grid(kbs, nbc)) {
    A::LoadIMC([&] {
      const A::Value row = plus(kb, row_block0) * 64;
      if (block_major)
        imc(plus(kb, kb0), nb) = w(plus(nb, nb0), A::slice(row, row + 64));
      else
        imc(plus(kb, kb0), nb) = w(A::slice(row, row + 64), plus(nb, nb0));  // 64 rows -> one IMC tile
    });
  }
}

void mvm_chunk(const MvmChunk& c, const Epilogue& e, const Tensor& out) {
  // Preamble constants: [bias blocks of this chunk] [scale] [zero]. (The bias comes first so its
  // register index is the DPU loop variable alone, the DPU's loop-indexed register mode.)
  // With c.layer_chunk, one constant holds the segments of every chunk of the layer (nb0 =
  // 0, layer_chunk, ...) one after the other, copied once; this chunk reads its own.
  auto segment = [&](int64_t nb0, int64_t nbc, int64_t* i_scale, int64_t* i_zero) {
    std::vector<double> k;
    if (!e.bias.empty()) k.insert(k.end(), e.bias.begin() + nb0 * 64, e.bias.begin() + (nb0 + nbc) * 64);
    if (e.scale) *i_scale = static_cast<int64_t>(k.size() / 64), k.insert(k.end(), 64, *e.scale);
    if (e.relu) *i_zero = static_cast<int64_t>(k.size() / 64), k.insert(k.end(), 64, 0.0);
    return k;
  };
  int64_t i_scale = -1, i_zero = -1, seg0 = 0;
  std::vector<double> k = segment(c.nb0, c.nbc, &i_scale, &i_zero);
  const int64_t n_k = static_cast<int64_t>(k.size() / 64);
  if (c.layer_chunk > 0 && n_k) {
    k.clear();
    for (int64_t nb0 = 0, a = 0, b = 0; nb0 < c.layer_nb; nb0 += c.layer_chunk) {
      if (nb0 == c.nb0) seg0 = static_cast<int64_t>(k.size() / 64);
      const auto part = segment(nb0, std::min(c.layer_chunk, c.layer_nb - nb0), &a, &b);
      k.insert(k.end(), part.begin(), part.end());
    }
  }
  Tensor consts = c.epi_cache && *c.epi_cache ? *c.epi_cache : Tensor();
  if (n_k && !consts) {
    const int64_t blocks = static_cast<int64_t>(k.size() / 64);
    consts = make_constant(out.name() + "_epi", {blocks}, "float32x64", std::move(k));
  }
  if (c.epi_cache) *c.epi_cache = consts;
  std::vector<int64_t> outs = c.outer;
  outs.push_back(c.nbc);
  // The result's index of output position `i` (c.outer) and block `nb` of the chunk.
  auto out_index = [&](std::vector<A::Value> i, const A::Value& nb) {
    const int64_t nb_off = c.out_nb0 < 0 ? c.nb0 : c.out_nb0;
    if (c.out_row0) i[0] = i[0] + c.out_row0;
    i.push_back(nb + nb_off);
    return i;
  };
  A::Datapath(A::DP_MVMEXE, [&] {
    auto ifd = A::decl_stream("int8x64");
    auto side = A::decl_stream("float32x64");
    auto mvm = A::decl_stream("int32x64");
    auto res = A::decl_stream(out.dtype());
    A::IFD(0, [&] { c.ifd(ifd); });
    if (consts)
      A::IFD(1, [&] {
        for (auto j : A::serial(n_k)) side.push(consts(seg0 ? j + seg0 : j));
      });
    else if (c.partial)  // the partial sum, element by element in the ODR's order
      A::IFD(1, [&] {
        A::grid_nest(outs, [&](const std::vector<A::Value>& i) {
          side.push(c.partial.at(out_index({i.begin(), i.end() - 1}, i.back())));
        });
      });
    A::MatMul([&] {
      A::grid_nest(outs, [&](const std::vector<A::Value>& i) {
        auto acc = A::mvm_accumulator();
        A::reset_accumulator(acc);
        for (auto kb : A::serial(c.k_blocks)) acc += A::mvm_1x1(ifd.pop(), c.imc(kb, i.back()));
        mvm.push(acc);
      });
    });
    A::DPU([&] {
      const A::Reg r = consts ? A::array("float18x64", n_k, "epi") : A::Reg();
      if (consts)
        A::init([&] {
          for (auto j : A::serial(n_k)) r[j] = A::cast(side.pop(), "float18x64");
        });
      A::grid_nest(c.outer, [&](const std::vector<A::Value>&) {
        auto y = A::var("float18x64", "y");
        for (auto nb : A::serial(c.nbc)) {  // a DPU loop, so the bias registers are indexed by it
          y = A::cast(mvm.pop(), "float18x64");
          if (e.scale) y = A::Value(y) * r[i_scale];
          if (!e.bias.empty()) y = A::Value(y) + r[nb];
          if (e.relu) y = A::Max(y, r[i_zero]);
          if (c.partial) y = A::Value(y) + A::cast(side.pop(), "float18x64");
          res.push(A::cast(y, out.dtype()));
        }
      });
    });
    A::ODR([&] {
      A::grid_nest(outs, [&](const std::vector<A::Value>& i) {
        out.at(out_index({i.begin(), i.end() - 1}, i.back())) = res.pop();
      });
    });
  });
}

Epilogue epilogue_of(const Call& c, int64_t n) {
  Epilogue e;
  if (c.has("scale")) e.scale = static_cast<double>(static_cast<float>(c.f("scale")));
  if (c.has("bias")) {
    const Tensor b = c.tensor("bias");
    if (b.dtype() != "float32x64") c.refuse("bias", b.name() + " is " + b.dtype() + "; a bias is float32");
    if (logical(b) != std::vector<int64_t>{n})
      c.refuse("bias", b.name() + " has shape " + shape_str(logical(b)) + "; one value per output column is (" +
                           std::to_string(n) + ",)");
    e.bias = constant_values(c, "bias");
  }
  const std::string act = c.s("activation");
  if (act != "none" && act != "relu") c.refuse("activation", "'" + act + "' is not none or relu");
  e.relu = act == "relu";
  return e;
}

Node slice_node(const std::string& in, const std::string& out, int64_t axis, int64_t start, int64_t end) {
  Node n = node("slice", {in}, {out});
  n.num_attrs = {{"axis", {static_cast<double>(axis)}},
                 {"start", {static_cast<double>(start)}},
                 {"end", {static_cast<double>(end)}}};
  return n;
}

void add_pass(std::vector<Node>& g, Node pass, const std::string& bias, std::string& sum) {
  pass.str_attrs["epilogue"] = bias.empty() ? "none" : "bias";
  if (!bias.empty()) pass.inputs.push_back(bias);
  const std::string t = pass.outputs.at(0);
  g.push_back(std::move(pass));
  if (sum.empty()) {
    sum = t;
    return;
  }
  g.push_back(node("add", {t, sum}, {t + "_sum"}));
  sum = t + "_sum";
}

std::vector<Node> mvm_reference(const Call& c, const Node& mvm, const Tensor& out) {
  Node n = mvm;
  const bool scale = c.has("scale"), bias = c.has("bias");
  if (scale) n.inputs.push_back(scalar_for_ref(out.name() + "_scale", static_cast<float>(c.f("scale"))).name());
  if (bias) n.inputs.push_back(c.tensor("bias").name());
  n.str_attrs["epilogue"] = scale && bias ? "scale_bias" : scale ? "scale" : bias ? "bias" : "none";
  if (c.s("activation") != "relu") {
    n.outputs = {out.name()};
    return {n};
  }
  n.outputs = {out.name() + "_linear"};
  return {n, node("relu", {out.name() + "_linear"}, {out.name()})};
}

}  // namespace axcore::compiler::ops::detail
