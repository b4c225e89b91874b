#include "datapath.hpp"

#include <fmt/format.h>
#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/script.hpp>

#include <algorithm>
#include <climits>
#include <fstream>
#include <random>
#include <stdexcept>

#include "axcore/num/float16.hpp"
#include "axcore/num/float18.hpp"
#include "axcore/num/reduce.hpp"
#include "axcore/ref/npy.hpp"
#include "axcore/runtime/buffer_image.hpp"

namespace axcore::rand {
namespace {

namespace A = compiler::A;
constexpr int64_t kLanes = 64;
const std::vector<std::string> kOps = {"add", "sub", "mul", "min", "max", "prelu", "fma"};

using Rng = std::mt19937_64;
int64_t pick(Rng& r, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(r); }

// Operand values: mostly moderate numbers with a few that stress the float18 corners (exact zeros,
// tiny values that flush, large ones that overflow after a multiply, negatives for prelu/min/max).
float value(Rng& r) {
  const auto k = pick(r, 0, 99);
  if (k < 4) return 0.0f;
  if (k < 7) return k % 2 ? -0.0f : 1.0f;
  if (k < 10) return static_cast<float>(std::ldexp(static_cast<double>(pick(r, 1, 1023)), -70));  // flushes
  if (k < 13) return static_cast<float>(std::ldexp(static_cast<double>(pick(r, -1023, 1023)), 50));
  return static_cast<float>(static_cast<double>(pick(r, -4096, 4096)) / 256.0);
}

std::vector<double> int8_weights(std::size_t n, uint64_t seed) {
  Rng r(seed * 0x9E3779B97F4A7C15ull + 3);
  std::vector<double> v(n);
  for (auto& x : v) x = static_cast<double>(pick(r, -128, 127));
  return v;
}

std::vector<float> floats(std::size_t n, uint64_t seed) {
  Rng r(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = value(r);
  return v;
}

uint64_t input_seed(const DatapathProgram& p) { return p.seed * 0xD1B54A32D192ED03ull + 11; }
uint64_t const_seed(const DatapathProgram& p) { return p.seed * 0x8CB92BA72F3D8DD7ull + 5; }

struct Made {
  A::Module mod{"rand"};
  std::vector<std::pair<std::string, ref::AnyArray>> inputs;
  std::vector<std::pair<std::string, ref::AnyArray>> expected;
};

void make_matmul(const DatapathProgram& p, Made& out) {
  const int64_t m = p.m, kb_n = p.k_blocks, nb_n = p.n_blocks, k = kb_n * kLanes, n = nb_n * kLanes;
  out.mod = A::Module(fmt::format("RandMatMul{}", p.seed));
  A::Func f = out.mod.prim_func("main");
  auto inp = f.input("x", {m, kb_n}, "int8x64", A::DDR);
  A::Script script(f);
  const auto wv = int8_weights(static_cast<std::size_t>(k * n), p.seed);
  auto weights = A::alloc_constant(wv, "int8x64", A::DDR, {k, nb_n}, "w");
  auto y = A::alloc_buffer({m, nb_n}, "int32x64", A::DDR, "y");
  auto w_imc = A::alloc_imc({kb_n, nb_n});
  for (auto [kb, nb] : A::grid(kb_n, nb_n)) {
    A::LoadIMC([&] { w_imc(kb, nb) = weights(A::slice(kb * 64, kb * 64 + 64), nb); });
  }
  for (auto [mi, nb] : A::grid(m, nb_n)) {
    A::Datapath(A::DP_MVMEXE, [&] {
      auto xs = A::decl_stream("int8x64");
      auto acc_s = A::decl_stream("int32x64");
      for (auto kb : A::serial(kb_n)) A::IFD(0, [&] { xs.push(inp(mi, kb)); });
      A::MatMul([&] {
        auto acc = A::mvm_accumulator();
        A::reset_accumulator(acc);
        for (auto kb : A::serial(kb_n)) acc += A::mvm_1x1(xs.pop(), w_imc(kb, nb));
        acc_s.push(acc);
      });
      A::ODR([&] { y(mi, nb) = acc_s.pop(); });
    });
  }
  A::output(y);

  Rng r(input_seed(p));
  ref::NDArray<int8_t> x({static_cast<std::size_t>(m), static_cast<std::size_t>(k)});
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<int8_t>(pick(r, -128, 127));
  ref::NDArray<int32_t> ye({static_cast<std::size_t>(m), static_cast<std::size_t>(n)});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t c = 0; c < n; ++c) {
      uint32_t acc = 0;  // int32 accumulation wraps
      for (int64_t j = 0; j < k; ++j)
        acc += static_cast<uint32_t>(static_cast<int32_t>(x.data()[i * k + j]) *
                                     static_cast<int32_t>(wv[static_cast<std::size_t>(j * n + c)]));
      ye.data()[i * n + c] = static_cast<int32_t>(acc);
    }
  out.inputs = {{"x", x}};
  out.expected = {{"y", ye}};
}

num::Float18 apply(const DpuStep& s, num::Float18 a, const std::vector<num::PwordF18>& c, std::size_t lane) {
  const auto b = c.at(s.c)[lane];
  if (s.op == "add") return num::add(a, b);
  if (s.op == "sub") return num::sub(a, b);
  if (s.op == "mul") return num::mul(a, b);
  if (s.op == "min") return num::min(a, b);
  if (s.op == "max") return num::max(a, b);
  if (s.op == "prelu") return num::prelu(a, b);
  if (s.op == "fma") return num::fma(a, b, c.at(s.c2)[lane]);
  throw std::runtime_error("unknown DPU op '" + s.op + "'");
}

A::Value emit(const DpuStep& s, const A::Value& a, const A::Reg& c) {
  const auto b = c[static_cast<int64_t>(s.c)];
  if (s.op == "add") return a + b;
  if (s.op == "sub") return a - b;
  if (s.op == "mul") return a * b;
  if (s.op == "min") return A::Min(a, b);
  if (s.op == "max") return A::Max(a, b);
  if (s.op == "prelu") return A::dpu::prelu(a, b);
  if (s.op == "fma") return A::dpu::fma(a, b, c[static_cast<int64_t>(s.c2)]);
  throw std::runtime_error("unknown DPU op '" + s.op + "'");
}

void make_dpu(const DatapathProgram& p, Made& out) {
  const int64_t rows = p.rows, nc = p.consts;
  out.mod = A::Module(fmt::format("RandDpu{}", p.seed));
  A::Func f = out.mod.prim_func("main");
  auto inp = f.input("x", {rows, 1}, "float32x64", A::DDR);
  A::Script script(f);
  const auto cv = floats(static_cast<std::size_t>(nc * kLanes), const_seed(p));
  auto consts = A::alloc_constant(std::vector<double>(cv.begin(), cv.end()), "float32x64", A::DDR, {nc}, "c");
  auto y = A::alloc_buffer({rows, 1}, "float32x64", A::DDR, "y");
  A::Datapath([&] {
    auto s0 = A::decl_stream("float32x64");
    auto s1 = A::decl_stream("float32x64");
    auto so = A::decl_stream("float32x64");
    A::IFD(0, [&] {
      for (auto i : A::serial(rows)) s0.push(inp(i, 0));
    });
    A::IFD(1, [&] {
      for (auto j : A::serial(nc)) s1.push(consts(j));
    });
    A::DPU([&] {
      auto c = A::array("float18x64", nc, "c");
      auto acc = A::array("float18x64", 1, "acc");
      A::init([&] {
        for (int64_t j = 0; j < nc; ++j) c[j] = A::cast(s1.pop(), "float18x64");
      });
      for (auto i : A::serial(rows)) {
        (void)i;
        acc[0] = A::cast(s0.pop(), "float18x64");
        for (const auto& s : p.steps) acc[0] = emit(s, acc[0], c);
        if (p.reduce == "add") acc[0] = A::dpu::add_reduce(acc[0]);
        if (p.reduce == "max") acc[0] = A::dpu::max_reduce(acc[0]);
        if (p.reduce == "min") acc[0] = A::dpu::min_reduce(acc[0]);
        so.push(A::cast(acc[0], "float32x64"));
      }
    });
    A::ODR([&] {
      for (auto i : A::serial(rows)) y(i, 0) = so.pop();
    });
  });
  A::output(y);

  std::vector<num::PwordF18> c(static_cast<std::size_t>(nc));
  for (std::size_t j = 0; j < c.size(); ++j)
    for (std::size_t l = 0; l < kLanes; ++l) c[j][l] = num::f18_from_float(cv[j * kLanes + l]);
  const auto xv = floats(static_cast<std::size_t>(rows * kLanes), input_seed(p));
  ref::NDArray<float> x({static_cast<std::size_t>(rows), kLanes}, xv);
  ref::NDArray<float> ye({static_cast<std::size_t>(rows), kLanes});
  for (int64_t i = 0; i < rows; ++i) {
    num::PwordF18 v;
    for (std::size_t l = 0; l < kLanes; ++l) {
      auto a = num::f18_from_float(xv[static_cast<std::size_t>(i) * kLanes + l]);
      for (const auto& s : p.steps) a = apply(s, a, c, l);
      v[l] = a;
    }
    if (p.reduce == "add") v = num::add_reduce(v);
    if (p.reduce == "max") v = num::max_reduce(v);
    if (p.reduce == "min") v = num::min_reduce(v);
    for (std::size_t l = 0; l < kLanes; ++l) ye.data()[static_cast<std::size_t>(i) * kLanes + l] = num::to_float(v[l]);
  }
  out.inputs = {{"x", x}};
  out.expected = {{"y", ye}};
}

}  // namespace

const char* to_string(DpKind k) { return k == DpKind::MATMUL ? "matmul" : "dpu"; }

DpKind dp_kind_from_string(const std::string& s) {
  if (s == "matmul") return DpKind::MATMUL;
  if (s == "dpu") return DpKind::DPU;
  throw std::runtime_error("unknown program kind '" + s + "' (choose dma, matmul or dpu)");
}

DatapathProgram generate_datapath(uint64_t seed, uint32_t cores, DpKind kind) {
  Rng r(seed * 0x2545F4914F6CDD1Dull + static_cast<uint64_t>(kind) + 1);
  DatapathProgram p;
  p.seed = seed;
  p.cores = cores;
  p.kind = kind;
  if (kind == DpKind::MATMUL) {
    p.m = pick(r, 1, 12);
    p.k_blocks = pick(r, 1, 6);
    p.n_blocks = pick(r, 1, 3);
    return p;
  }
  p.rows = pick(r, 1, 16);
  p.consts = static_cast<uint32_t>(pick(r, 1, 4));
  const auto n = pick(r, 1, 6);
  for (int64_t i = 0; i < n; ++i) {
    DpuStep s;
    s.op = kOps[static_cast<std::size_t>(pick(r, 0, static_cast<int64_t>(kOps.size()) - 1))];
    s.c = static_cast<uint32_t>(pick(r, 0, p.consts - 1));
    s.c2 = static_cast<uint32_t>(pick(r, 0, p.consts - 1));
    p.steps.push_back(s);
  }
  const auto k = pick(r, 0, 7);
  p.reduce = k == 0 ? "add" : k == 1 ? "max" : k == 2 ? "min" : "";
  return p;
}

nlohmann::json to_json(const DatapathProgram& p) {
  nlohmann::json j{{"kind", to_string(p.kind)}, {"seed", p.seed}, {"cores", p.cores}};
  if (p.kind == DpKind::MATMUL) {
    j["m"] = p.m;
    j["k_blocks"] = p.k_blocks;
    j["n_blocks"] = p.n_blocks;
    return j;
  }
  j["rows"] = p.rows;
  j["consts"] = p.consts;
  j["reduce"] = p.reduce;
  auto& steps = j["steps"] = nlohmann::json::array();
  for (const auto& s : p.steps) steps.push_back({{"op", s.op}, {"c", s.c}, {"c2", s.c2}});
  return j;
}

bool is_datapath_json(const nlohmann::json& j) {
  return j.is_object() && j.contains("kind") && j["kind"].is_string() && j["kind"] != "dma";
}

DatapathProgram datapath_from_json(const nlohmann::json& j) {
  auto field = [&](const nlohmann::json& o, const char* name) -> const nlohmann::json& {
    if (!o.contains(name)) throw std::runtime_error(std::string("datapath program: missing field '") + name + "'");
    return o[name];
  };
  try {
    DatapathProgram p;
    p.kind = dp_kind_from_string(field(j, "kind").get<std::string>());
    p.seed = field(j, "seed").get<uint64_t>();
    p.cores = field(j, "cores").get<uint32_t>();
    if (p.kind == DpKind::MATMUL) {
      p.m = field(j, "m").get<int64_t>();
      p.k_blocks = field(j, "k_blocks").get<int64_t>();
      p.n_blocks = field(j, "n_blocks").get<int64_t>();
      if (p.m < 1 || p.k_blocks < 1 || p.n_blocks < 1)
        throw std::runtime_error("m, k_blocks and n_blocks must be >= 1");
      return p;
    }
    p.rows = field(j, "rows").get<int64_t>();
    p.consts = field(j, "consts").get<uint32_t>();
    p.reduce = field(j, "reduce").get<std::string>();
    if (p.rows < 1 || p.consts < 1) throw std::runtime_error("rows and consts must be >= 1");
    if (!p.reduce.empty() && p.reduce != "add" && p.reduce != "max" && p.reduce != "min")
      throw std::runtime_error("reduce must be '', add, max or min (got '" + p.reduce + "')");
    for (const auto& s : field(j, "steps")) {
      DpuStep d{field(s, "op").get<std::string>(), field(s, "c").get<uint32_t>(), field(s, "c2").get<uint32_t>()};
      if (std::find(kOps.begin(), kOps.end(), d.op) == kOps.end())
        throw std::runtime_error("unknown DPU op '" + d.op + "'");
      if (d.c >= p.consts || d.c2 >= p.consts) throw std::runtime_error("a step names a constant past 'consts'");
      p.steps.push_back(d);
    }
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("datapath program: ") + e.what());
  }
}

std::vector<std::string> coverage_points(const DatapathProgram& p) {
  std::vector<std::string> c;
  if (p.kind == DpKind::MATMUL) {
    c.push_back("matmul");
    c.push_back(fmt::format("matmul.k_blocks.{}", p.k_blocks));
    c.push_back(fmt::format("matmul.n_blocks.{}", p.n_blocks));
    if (p.m == 1) c.push_back("matmul.m1");
    return c;
  }
  c.push_back("dpu");
  for (const auto& s : p.steps) c.push_back("dpu.op." + s.op);
  if (!p.reduce.empty()) c.push_back("dpu.reduce." + p.reduce);
  c.push_back(fmt::format("dpu.steps.{}", p.steps.size()));
  c.push_back("dpu.init.ifd1");
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

std::vector<std::string> coverage_space(DpKind kind) {
  std::vector<std::string> c;
  if (kind == DpKind::MATMUL) {
    c = {"matmul", "matmul.m1"};
    for (int k = 1; k <= 6; ++k) c.push_back(fmt::format("matmul.k_blocks.{}", k));
    for (int n = 1; n <= 3; ++n) c.push_back(fmt::format("matmul.n_blocks.{}", n));
  } else {
    c = {"dpu", "dpu.init.ifd1"};
    for (const auto& op : kOps) c.push_back("dpu.op." + op);
    for (const char* r : {"add", "max", "min"}) c.push_back(std::string("dpu.reduce.") + r);
    for (int n = 1; n <= 6; ++n) c.push_back(fmt::format("dpu.steps.{}", n));
  }
  std::sort(c.begin(), c.end());
  return c;
}

std::string summary(const DatapathProgram& p) {
  if (p.kind == DpKind::MATMUL)
    return fmt::format("matmul seed {}: x ({}, {}) int8 @ W ({}, {}) int8 -> int32, {} IMC tiles\n", p.seed, p.m,
                       p.k_blocks * kLanes, p.k_blocks * kLanes, p.n_blocks * kLanes, p.k_blocks * p.n_blocks);
  std::string ops;
  for (const auto& s : p.steps)
    ops += (ops.empty() ? "" : " ") + s.op +
           (s.op == "fma" ? fmt::format("(c{},c{})", s.c, s.c2) : fmt::format("(c{})", s.c));
  return fmt::format("dpu seed {}: {} rows, {} constants, {}{}\n", p.seed, p.rows, p.consts, ops,
                     p.reduce.empty() ? "" : ", " + p.reduce + "_reduce");
}

void write_datapath_program(const DatapathProgram& p, const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  fs::create_directories(dir / "inputs");
  fs::create_directories(dir / "expected");
  Made made;
  if (p.kind == DpKind::MATMUL)
    make_matmul(p, made);
  else
    make_dpu(p, made);
  const auto r = compiler::compile(made.mod.ir().main(), {p.cores, made.mod.ir().name, "axrand"});
  auto bundle = r.bundle;
  bundle.metadata["source"] = "random " + std::string(to_string(p.kind)) + " program, seed " + std::to_string(p.seed);
  runtime::save_bundle(dir / "program.axb", bundle);
  for (const auto& [name, a] : made.inputs) ref::save_npy((dir / "inputs" / (name + ".npy")).string(), a);
  for (const auto& [name, a] : made.expected) ref::save_npy((dir / "expected" / (name + ".npy")).string(), a);
  std::ofstream(dir / "program.json") << to_json(p).dump(1) << "\n";
  std::ofstream(dir / "coverage.json") << nlohmann::json(coverage_points(p)).dump() << "\n";
  std::ofstream(dir / "coverage_space.json") << nlohmann::json(coverage_space(p.kind)).dump() << "\n";
}

std::vector<std::filesystem::path> write_inputs(const runtime::Bundle& b, uint64_t seed,
                                                const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::vector<std::filesystem::path> files;
  for (const auto& [name, a] : runtime::random_inputs(b, seed)) {
    files.push_back(dir / (name + ".npy"));
    ref::save_npy(files.back().string(), a);
  }
  return files;
}

std::vector<DatapathProgram> shrink_candidates(const DatapathProgram& p) {
  std::vector<DatapathProgram> out;
  auto with = [&](auto edit) {
    DatapathProgram q = p;
    edit(q);
    out.push_back(q);
  };
  if (p.kind == DpKind::MATMUL) {
    if (p.m > 1) with([](DatapathProgram& q) { q.m = 1; });
    if (p.m > 2) with([](DatapathProgram& q) { q.m /= 2; });
    if (p.k_blocks > 1) with([](DatapathProgram& q) { q.k_blocks = 1; });
    if (p.k_blocks > 2) with([](DatapathProgram& q) { q.k_blocks /= 2; });
    if (p.n_blocks > 1) with([](DatapathProgram& q) { q.n_blocks = 1; });
    return out;
  }
  if (p.rows > 1) with([](DatapathProgram& q) { q.rows = 1; });
  if (p.rows > 2) with([](DatapathProgram& q) { q.rows /= 2; });
  if (!p.reduce.empty()) with([](DatapathProgram& q) { q.reduce.clear(); });
  for (std::size_t i = 0; i < p.steps.size(); ++i)
    with([i](DatapathProgram& q) { q.steps.erase(q.steps.begin() + static_cast<std::ptrdiff_t>(i)); });
  return out;
}

}  // namespace axcore::rand
