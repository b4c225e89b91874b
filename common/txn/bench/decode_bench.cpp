// Decoding and tracing speed on a 10 MB AIE2 stream of realistic ops: per transfer a BD
// blockwrite, its DDR_PATCH, the queue push, a TCT wait, a masked lock write and a runtime
// parameter write. Prints ops/s and events/s (Google Benchmark counters).
#include <benchmark/benchmark.h>

#include "axcore/txn/trace.hpp"
#include "axcore/txn/writer.hpp"

namespace {

using namespace axcore::txn;

std::vector<uint32_t> make_stream(std::size_t bytes) {
  Writer w(Device::aie2());
  constexpr uint32_t kShimBd = 0x1D000, kQueue = 0x1D214;
  for (uint32_t i = 0; w.word_count() * 4 < bytes; ++i) {
    const uint32_t bd = i % 16, col = i % 4;
    const uint32_t tile = col << 25;
    const uint32_t next = (bd + 1) % 16;
    const uint32_t words[8] = {256 + i % 64, 0, 0, 0, 0, 0, 0, 1u << 25 | (i % 3 == 0 ? 1u << 26 | next << 27 : 0)};
    w.blockwrite(tile | (kShimBd + 0x20 * bd), words);
    w.ddr_patch(tile | (kShimBd + 0x20 * bd + 4), i % 3, 0x400 * (i % 8));
    if (i % 3 == 0) {  // the chained BD
      w.blockwrite(tile | (kShimBd + 0x20 * next), words);
      w.ddr_patch(tile | (kShimBd + 0x20 * next + 4), 1, 0);
    }
    w.write32(tile | kQueue, bd | 1u << 31);
    w.tct(Dir::MM2S, col, 0, 0);
    w.maskwrite32(tile | 2u << 20 | 0x1F000, i & 1, 0x3F);
    w.write32(tile | 2u << 20 | 0x400, i);
  }
  return w.words();
}

const std::vector<uint32_t>& stream() {
  static const std::vector<uint32_t> s = make_stream(10u << 20);
  return s;
}

void BM_Decode(benchmark::State& state) {
  const auto& s = stream();
  std::size_t ops = 0;
  for (auto _ : state) {
    const Decoded d = decode(s);
    ops = d.ops.size();
    benchmark::DoNotOptimize(d.ops.data());
  }
  state.counters["ops/s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * s.size() * 4));
}

void BM_DecodeAndTrace(benchmark::State& state) {
  const auto& s = stream();
  std::size_t ops = 0, events = 0;
  for (auto _ : state) {
    const Decoded d = decode(s);
    const Trace t = trace(d, layout_for(d.header));
    ops = d.ops.size();
    events = t.events.size();
    benchmark::DoNotOptimize(t.events.data());
  }
  state.counters["ops/s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * s.size() * 4));
}

BENCHMARK(BM_Decode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeAndTrace)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
