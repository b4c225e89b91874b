// Prints TXN player throughput (ops/s, words/s): against a device that only counts (the player's
// own cost) and against the register-level device. A benchmark, not a test.
#include <chrono>
#include <cstdio>

#include "axcore/runtime/player.hpp"
#include "axcore/runtime/regfile_device.hpp"
#include "axcore/txn/writer.hpp"

namespace {

using namespace axcore;

class CountingDevice : public device::Device {
 public:
  std::string_view backend() const override { return "count"; }
  unsigned cores() const override { return 1; }
  uint32_t read32(uint64_t) override { return 0; }
  void write32(uint64_t a, uint32_t v) override { sum += a ^ v; }
  void block_write(uint64_t a, std::span<const uint32_t> w) override { sum += a + w.size(); }
  uint64_t cycle() const override { return 0; }
  void advance(uint64_t) override {}
  void run_until_idle(uint64_t) override {}
  uint64_t ddr_size() const override { return 0; }
  void ddr_write(uint64_t, std::span<const uint8_t>) override {}
  void ddr_read(uint64_t, std::span<uint8_t>) override {}
  void set_trace_sink(device::TraceSink) override {}
  uint64_t sum = 0;
};

std::vector<uint32_t> stream(size_t ops) {
  txn::Writer w(txn::Device::axcore(1));
  const uint32_t bd[16] = {};
  for (size_t i = 0; i < ops; ++i) {
    if (i % 4 == 3)
      w.blockwrite(spec::tile_addr(0, 0, spec::shim::DMA_BD.at(i % 16)), bd);
    else
      w.write32(spec::tile_addr(0, 2, spec::core::CMD_MEM.at(i % 1024)), static_cast<uint32_t>(i));
  }
  return w.words();
}

void measure(const char* name, device::Device& dev, const std::vector<uint32_t>& words, size_t ops) {
  const auto t0 = std::chrono::steady_clock::now();
  runtime::play(dev, words, {});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-10s %8zu ops %9zu words in %.3f s: %.2f Mops/s, %.1f Mwords/s\n", name, ops, words.size(), s,
              static_cast<double>(ops) / s / 1e6, static_cast<double>(words.size()) / s / 1e6);
}

}  // namespace

int main() {
  constexpr size_t kOps = 1'000'000;
  const auto words = stream(kOps);
  CountingDevice count;
  measure("count", count, words, kOps);
  runtime::RegFileDevice reg;
  measure("regfile", reg, words, kOps);
  return count.sum == 42 ? 1 : 0;
}
