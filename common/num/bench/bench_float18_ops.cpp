// Throughput of the float18 reference operations (Google Benchmark): how fast the golden model
// runs, which bounds the ref backend and the TLM models that call it.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "axcore/num/lut.hpp"
#include "axcore/num/reduce.hpp"

using namespace axcore::num;

namespace {

std::vector<Float18> operands(std::size_t n) {
  std::mt19937 rng(1);
  std::normal_distribution<double> d(0.0, 10.0);
  std::vector<Float18> v(n);
  for (auto& x : v) x = f18_from_double(d(rng));
  return v;
}

template <class Op>
void binary(benchmark::State& state, Op op) {
  const auto a = operands(4096), b = operands(4096);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(op(a[i & 4095], b[(i * 7) & 4095]));
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_add(benchmark::State& s) {
  binary(s, [](Float18 x, Float18 y) { return add(x, y); });
}
void BM_mul(benchmark::State& s) {
  binary(s, [](Float18 x, Float18 y) { return mul(x, y); });
}
void BM_max(benchmark::State& s) {
  binary(s, [](Float18 x, Float18 y) { return max(x, y); });
}
void BM_from_float(benchmark::State& state) {
  std::vector<float> v(4096);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.37f - 700.0f;
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(f18_from_float(v[i++ & 4095]));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
void BM_add_reduce(benchmark::State& state) {
  PwordF18 p;
  const auto a = operands(64);
  for (std::size_t i = 0; i < 64; ++i) p[i] = a[i];
  for (auto _ : state) benchmark::DoNotOptimize(add_reduce(p));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 64);
}
void BM_lut_eval8(benchmark::State& state) {
  const auto t = load_lut_tables(compute_chained_lut_params(-8, 8, 8, [](double x) { return std::tanh(x); }));
  PwordF18 p;
  const auto a = operands(64);
  for (std::size_t i = 0; i < 64; ++i) p[i] = a[i];
  for (auto _ : state) benchmark::DoNotOptimize(lut_eval(p, t));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 64);
}

}  // namespace

BENCHMARK(BM_add);
BENCHMARK(BM_mul);
BENCHMARK(BM_max);
BENCHMARK(BM_from_float);
BENCHMARK(BM_add_reduce);
BENCHMARK(BM_lut_eval8);
BENCHMARK_MAIN();
