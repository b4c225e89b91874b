// RTL benchmarks: Verilated cycles per second (idle, with DMA traffic and, with cores, with the
// MVM busy) and the bandwidth the DMA channels reach in B/cycle against the contract's bounds
// (on chip 64 B/cycle a channel, DDR min(axi_data_bytes, ddr_bytes_per_cycle); docs/timing.md).
// Prints figures (docs/rtl.md). With cores > 1 also the MVM busy on every core at once and the
// 1-core model's MVM-busy figure in the same run, and the ratios of both to it.
//   axcore_rtl_bench [cores] [mvm|mvm1]  cores: 0 = system test top (default), 1, 4; mvm: MVM figures
//   only; mvm1: only the one-core-busy figures (a profile or callgrind run of that phase alone)
#include <algorithm>
#include <axcore/rtl/mm_layout.hpp>
#include <axcore/rtl/rtl_device.hpp>
#include <axcore/spec.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {
using axcore::rtl::RtlDevice;
using axcore::rtl::RtlOptions;
namespace spec = axcore::spec;
namespace P = spec::param;
using Clock = std::chrono::steady_clock;

uint32_t reg(uint32_t row, uint32_t off) { return spec::tile_addr(0, row, off); }

void write_bd(RtlDevice& d, uint32_t row, uint32_t id, spec::MemSel mem, uint64_t a, uint32_t words,
              uint32_t core = 0) {
  spec::DmaBd b;
  b.mem = mem;
  b.core = core;
  b.valid = 1;
  b.addr_lo = static_cast<uint32_t>(a);
  b.length = words;
  b.d0_size = words > 4096 ? 4096 : words;  // long copies: 4096-word rows (sizes are 16-bit)
  b.d0_stride = 1;
  b.d1_size = words / b.d0_size;
  b.d1_stride = static_cast<int32_t>(b.d0_size);
  d.block_write(reg(row, spec::shim::DMA_BD.at(id)), b.encode());
}
void push(RtlDevice& d, uint32_t row, bool mm2s, uint32_t ch, uint32_t bd) {
  spec::QueuePush q;
  q.start = bd;
  const spec::Reg& r = mm2s ? spec::shim::DMA_MM2S_QUEUE : spec::shim::DMA_S2MM_QUEUE;
  d.write32(reg(row, r.at(ch)), q.encode_word());
}

// Copies `words` from `from` to L2 through (row, ch); returns (cycles, wall seconds).
std::pair<uint64_t, double> copy(RtlDevice& d, uint32_t row, uint32_t ch, spec::MemSel from, uint64_t src,
                                 spec::MemSel to, uint64_t dst, uint32_t words) {
  write_bd(d, row, 2 * ch, from, src, words);
  write_bd(d, row, 2 * ch + 1, to, dst, words);
  const uint64_t c0 = d.cycle();
  const auto t0 = Clock::now();
  push(d, row, false, ch, 2 * ch + 1);
  push(d, row, true, ch, 2 * ch);
  d.run_until_idle(100'000'000);
  return {d.cycle() - c0, std::chrono::duration<double>(Clock::now() - t0).count()};
}
// Core 0 with the MVM busy: LoadIMC of a K = 1152 (18 K-blocks), N = 256 (4 N-blocks) matrix,
// then one MVMEXE push of M = 64 rows with `repeat` (runs = repeat + 1), int32 out. L1 holds
// zeros (the Verilated model's cost does not depend on the values). Returns (cycles of the
// MVMEXE task, wall seconds, CPU seconds).
struct MvmRun {
  uint64_t cycles;
  double wall, cpu;
};
MvmRun mvm_busy(RtlDevice& d, uint32_t repeat, unsigned busy_cores = 1) {
  constexpr uint32_t li_word = 0x10, dp_word = 0x100;
  const rtlcore::Matmul mm{64, 18, 4};  // x, weights, y at the shared layout's rows; int32 out
  const auto dp = rtlcore::datapath_words(mm);
  const auto liw = mm.load().encode();
  auto q_push = [&](unsigned c, spec::Queue queue, const spec::QueuePush& q) {
    d.write32(reg(spec::core_row(c), spec::core::Q_PUSH.at(static_cast<uint32_t>(queue))), q.encode_word());
  };
  spec::QueuePush q{};
  q.start = li_word;
  for (unsigned c = 0; c < busy_cores; ++c) {
    const uint32_t row = spec::core_row(c);
    d.block_write(reg(row, spec::core::CMD_MEM.offset + 4 * li_word), liw);
    d.block_write(reg(row, spec::core::CMD_MEM.offset + 4 * dp_word), dp);
    q_push(c, spec::Queue::LOADIMC, q);
  }
  d.run_until_idle(10'000'000);
  q.start = dp_word;
  q.repeat = repeat;
  const uint64_t c0 = d.cycle();
  const auto t0 = Clock::now();
  const std::clock_t p0 = std::clock();
  for (unsigned c = 0; c < busy_cores; ++c) q_push(c, spec::Queue::MVMEXE, q);  // one host write each
  d.run_until_idle(100'000'000);
  return {d.cycle() - c0, std::chrono::duration<double>(Clock::now() - t0).count(),
          static_cast<double>(std::clock() - p0) / CLOCKS_PER_SEC};
}
constexpr uint32_t kMvmRuns = 20;
void print_mvm(const char* what, const MvmRun& r, unsigned busy_cores) {
  const double ideal = double(kMvmRuns) * 64 * 18 * 4;
  std::printf(
      "%s %10.0f cycles/s (%.0f per CPU second); M=64 K=1152 N=256 x %u runs on %u core(s): "
      "%lu cycles, ideal %.0f, ratio %.4f\n",
      what, r.cycles / r.wall, r.cycles / r.cpu, kMvmRuns, busy_cores, static_cast<unsigned long>(r.cycles), ideal,
      r.cycles / ideal);
}
// The 1-core model's MVM busy, run in a child process (the result comes back through a pipe);
// nothing if the child fails.
std::optional<MvmRun> reference_mvm_busy() {
  int fd[2];
  if (pipe(fd) != 0) return std::nullopt;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    RtlOptions o1;
    o1.cores = 1;
    RtlDevice dev1(o1);
    const MvmRun r = mvm_busy(dev1, kMvmRuns - 1);
    const bool ok = write(fd[1], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
    _exit(ok ? 0 : 1);  // no destructors (see above)
  }
  close(fd[1]);
  MvmRun r{};
  const bool got = pid > 0 && read(fd[0], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
  close(fd[0]);
  int st = 0;
  if (pid > 0) waitpid(pid, &st, 0);
  if (!got) std::fprintf(stderr, "axcore_rtl_bench: the 1-core reference run failed\n");
  return got ? std::optional<MvmRun>(r) : std::nullopt;
}
void idle_and_dma(RtlDevice& dev) {
  const uint64_t idle = 500'000;
  auto t0 = Clock::now();
  dev.advance(idle);
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("idle:              %10.0f cycles/s (%lu cycles in %.3f s)\n", idle / s, static_cast<unsigned long>(idle),
              s);

  const uint32_t n = 1u << 18;  // 1 MiB
  const double ddr_peak = std::min<double>(P::axi_data_bytes, P::ddr_bytes_per_cycle);
  auto [cyc, wall] = copy(dev, P::mem_row, 0, spec::MemSel::L2, 0, spec::MemSel::L2, 0x200100, n);
  std::printf("MemDMA L2->L2 1 MiB:    %10.0f cycles/s; %lu cycles = %.2f B/cycle (bound 64)\n", cyc / wall,
              static_cast<unsigned long>(cyc), 4.0 * n / cyc);

  // Both MemDMA channel pairs at once (the fabric arbitrates the banks round-robin).
  write_bd(dev, P::mem_row, 0, spec::MemSel::L2, 0, n);
  write_bd(dev, P::mem_row, 1, spec::MemSel::L2, 0x200100, n);
  write_bd(dev, P::mem_row, 2, spec::MemSel::L2, 0x100200, n / 2);
  write_bd(dev, P::mem_row, 3, spec::MemSel::L2, 0x300300, n / 2);
  {
    const uint64_t c0 = dev.cycle();
    t0 = Clock::now();
    push(dev, P::mem_row, false, 0, 1);
    push(dev, P::mem_row, false, 1, 3);
    push(dev, P::mem_row, true, 0, 0);
    push(dev, P::mem_row, true, 1, 2);
    dev.run_until_idle(100'000'000);
    const uint64_t c = dev.cycle() - c0;
    const uint32_t words = n + n / 2;
    s = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("2 x MemDMA L2->L2:      %10.0f cycles/s; %u words in %lu cycles = %.2f B/cycle\n", c / s, words,
                static_cast<unsigned long>(c), 4.0 * words / c);
  }
  if (dev.cores() >= 1) {
    const uint32_t m = 1u << 16;  // 256 KiB
    std::tie(cyc, wall) = copy(dev, P::mem_row, 0, spec::MemSel::L2, 0, spec::MemSel::L1, 0, m);
    std::printf("MemDMA L2->L1 256 KiB:  %10.0f cycles/s; %lu cycles = %.2f B/cycle (bound 64)\n", cyc / wall,
                static_cast<unsigned long>(cyc), 4.0 * m / cyc);
  }
  std::tie(cyc, wall) = copy(dev, P::shim_row, 0, spec::MemSel::DDR, 0x1000'0000, spec::MemSel::L2, 0x100, n);
  std::printf(
      "SysDMA DDR->L2 1 MiB:   %10.0f cycles/s; %lu cycles = %.2f B/cycle (bound %.0f; ddr_latency %u, "
      "axi_data_bytes %u)\n",
      cyc / wall, static_cast<unsigned long>(cyc), 4.0 * n / cyc, ddr_peak, dev.ddr().latency(), P::axi_data_bytes);
  std::tie(cyc, wall) = copy(dev, P::shim_row, 1, spec::MemSel::L2, 0x100, spec::MemSel::DDR, 0x2000'0000, n);
  std::printf("SysDMA L2->DDR 1 MiB:   %10.0f cycles/s; %lu cycles = %.2f B/cycle (bound %.0f)\n", cyc / wall,
              static_cast<unsigned long>(cyc), 4.0 * n / cyc, ddr_peak);
}
int run(int argc, char** argv) {
  RtlOptions opt;
  opt.cores = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 0;
  // `axcore_rtl_bench 1 mvm`: the MVM-busy figure only (for a profile of that part)
  const bool one_only = argc > 2 && std::string(argv[2]) == "mvm1";
  const bool mvm_only = one_only || (argc > 2 && std::string(argv[2]) == "mvm");
  if (!RtlDevice::has_config(opt.cores)) {
    std::fprintf(stderr, "axcore_rtl_bench: no model for cores = %u in this build\n", opt.cores);
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines as they come (long runs, output to a file)
  // With cores > 1, the 1-core model's MVM-busy figure of the same run first, in a child process:
  // Verilator 5.006 deadlocks destroying a model after another model of the process was destroyed.
  std::optional<MvmRun> ref;
  if (opt.cores > 1 && RtlDevice::has_config(1)) {
    ref = reference_mvm_busy();
    if (ref) print_mvm("1-core model, MVM busy:", *ref, 1);
  }
  const auto tb = Clock::now();
  RtlDevice dev(opt);
  std::printf("model: cores=%u, construction+reset %.1f ms\n", opt.cores,
              1e3 * std::chrono::duration<double>(Clock::now() - tb).count());

  if (!mvm_only) idle_and_dma(dev);
  if (opt.cores >= 1) {
    const MvmRun one = mvm_busy(dev, kMvmRuns - 1);
    print_mvm("MVM busy (core 0):", one, 1);
    if (opt.cores > 1 && one_only) {
      if (ref) {
        std::printf("%u-core model / 1-core model, cycles per CPU second: one core busy %.3f (wall: %.3f)\n", opt.cores,
                    one.cycles / one.cpu / (ref->cycles / ref->cpu), one.cycles / one.wall / (ref->cycles / ref->wall));
      }
    } else if (opt.cores > 1) {
      // Every core busy: four times the work per cycle. Then the 1-core model in the same run,
      // the reference of the issue 27 ratios (per CPU second: the machine is shared).
      const MvmRun all = mvm_busy(dev, kMvmRuns - 1, opt.cores);
      print_mvm("MVM busy (all cores):", all, opt.cores);
      if (ref) {
        const double ref_cps = ref->cycles / ref->cpu;
        std::printf(
            "%u-core model / 1-core model, cycles per CPU second: one core busy %.3f, all %u busy %.3f (wall: %.3f, "
            "%.3f)\n",
            opt.cores, one.cycles / one.cpu / ref_cps, opt.cores, all.cycles / all.cpu / ref_cps,
            one.cycles / one.wall / (ref->cycles / ref->wall), all.cycles / all.wall / (ref->cycles / ref->wall));
      }
    }
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) { std::fprintf(stderr, "axcore_rtl_bench: %s\n", e.what()); } catch (...) {
    std::fprintf(stderr, "axcore_rtl_bench: unknown exception\n");
  }
  return 1;
}
