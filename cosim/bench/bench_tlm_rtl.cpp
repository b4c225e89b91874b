// The same program on TlmDevice and on the 1-core RtlDevice: per-task cycles side by side,
// the timed span ratio, both wall-clock times of the timed part and their ratio (issue 7: TLM
// >= 100x faster on the M = 256, K = 1152, N = 256 matmul). A benchmark: prints, never asserts.
// BENCH_TLM_ONLY=1 runs the TLM alone (to profile it); AXCORE_MVM_KERNEL picks the MVM kernel.
//   bench_tlm_rtl [matmul M KB NB | whole_core M KB NB | dma_ddr WORDS | dma_walks |
//                  dma_bank WORDS | dma_pairs WORDS | dma_engines WORDS | loadimc_ddr WORDS TILES STRIDE |
//                  loadimc_dwpu ROWS TILES [STRIDE FIRST SHIFT] | matmul_dma M KB NB WORDS | dma_2ch_l1 WORDS |
//                  dwpu_loadimc] (default: matmul 256 18 4)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "axcore/cosim/agree.hpp"
#include "axcore/rtl/rtl_device.hpp"
#include "axcore/tlm/tlm_device.hpp"

using namespace axcore;

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "matmul";
  auto num = [&](int i, uint32_t dflt) {
    return argc > i ? static_cast<uint32_t>(std::strtoul(argv[i], nullptr, 0)) : dflt;
  };
  agree::Program p;
  if (what == "matmul")
    p = agree::matmul(num(2, 256), num(3, 18), num(4, 4));
  else if (what == "matmul32")
    p = agree::matmul(num(2, 64), num(3, 4), num(4, 4), spec::Dtype::INT32);
  else if (what == "whole_core")
    p = agree::whole_core(num(2, 16), num(3, 2), num(4, 1));
  else if (what == "dma_ddr")
    p = agree::dma_ddr_l2_ddr(num(2, 1024));
  else if (what == "dma_walks")
    p = agree::dma_walks();
  else if (what == "perf")
    p = agree::perf_counters();
  else if (what == "dma_bank")
    p = agree::dma_l2_bank_conflict(num(2, 4096));
  else if (what == "dma_pairs")
    p = agree::dma_two_pairs(num(2, 4096));
  else if (what == "dma_engines")
    p = agree::dma_engines_share_l2(num(2, 1024));
  else if (what == "dma_ddr_l2")
    p = agree::dma_ddr_to_l2(num(2, 1u << 18));
  else if (what == "dma_l2_l1")
    p = agree::dma_l2_to_l1(num(2, 1u << 16));
  else if (what == "dma_bank2")
    p = agree::dma_two_engines_one_bank(num(2, 2048));
  else if (what == "dma_4k")
    p = agree::dma_burst_crosses_4k();
  else if (what == "loadimc_ddr")
    p = agree::loadimc_during_dma_to_l1(num(2, 8192), num(3, 8), num(4, 8));
  else if (what == "loadimc_dwpu")
    p = agree::loadimc_beside_dwpu_copy(num(2, 1024), num(3, 8), num(4, spec::param::l1_banks), num(5, 0) != 0,
                                        num(6, 0));
  else if (what == "matmul_dma")
    p = agree::matmul_during_dma_to_l1(num(2, 64), num(3, 4), num(4, 4), num(5, 4096));
  else if (what == "dwpu_loadimc")
    p = agree::dwpu_weights_beside_loadimc();
  else if (what == "dma_2ch_l1")
    p = agree::dma_two_channels_ddr_to_l1(num(2, 8192));
  else if (what == "dma_outstanding")
    p = agree::dma_reads_outstanding_full();
  else {
    std::fprintf(stderr,
                 "usage: bench_tlm_rtl [matmul M KB NB|whole_core M KB NB|dma_ddr N|dma_walks|dma_bank N|dma_pairs "
                 "N|dma_engines N|dma_ddr_l2 N|dma_l2_l1 N|dma_bank2 N|dma_4k|dma_outstanding|\n"
                 "loadimc_ddr WORDS TILES STRIDE|loadimc_dwpu ROWS TILES [STRIDE FIRST SHIFT]|matmul_dma M KB NB "
                 "WORDS|dma_2ch_l1 WORDS|\n"
                 "dwpu_loadimc]\n");
    return 2;
  }
  try {
    auto w0 = std::chrono::steady_clock::now();
    agree::Run t;
    {
      tlm::TlmDevice dev;
      t = agree::run(dev, p);
    }
    const double tlm_total = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    if (std::getenv("BENCH_TLM_ONLY")) {  // for profiling the TLM (perf, callgrind): no RTL run
      std::printf("%s on the TLM: timed part %llu cycles, CPU %.6f s, wall %.6f s; whole run %.3f s\n", p.name.c_str(),
                  static_cast<unsigned long long>(t.t1 - t.t0), t.cpu_s, t.wall_s, tlm_total);
      return 0;
    }
    w0 = std::chrono::steady_clock::now();
    rtl::RtlDevice dev;
    const agree::Run r = agree::run(dev, p);
    const double rtl_total = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    const auto c = agree::compare(t, r);
    std::printf("%s (TLM vs RTL):\n%s", p.name.c_str(), c.table.c_str());
    std::printf(
        "  timed part, wall-clock: TLM %llu cycles in %.4f s (%.3g cycles/s), RTL %llu cycles in %.3f s (%.3g "
        "cycles/s); "
        "TLM/RTL speed-up %.1fx\n",
        static_cast<unsigned long long>(t.t1 - t.t0), t.wall_s, double(t.t1 - t.t0) / t.wall_s,
        static_cast<unsigned long long>(r.t1 - r.t0), r.wall_s, double(r.t1 - r.t0) / r.wall_s, r.wall_s / t.wall_s);
    std::printf("  timed part, CPU time:   TLM %.4f s, RTL %.3f s; TLM/RTL speed-up %.1fx\n", t.cpu_s, r.cpu_s,
                r.cpu_s / t.cpu_s);
    if (std::getenv("BENCH_RECORDS")) {  // every unit record of the timed part, both backends
      for (const agree::Run* x : {static_cast<const agree::Run*>(&t), &r})
        for (const auto& rec : x->records)
          if (rec.cycle >= x->t0 && rec.unit != trace::Unit::HOST)
            std::printf("  %s %llu unit %u kind %u addr 0x%llx\n", x->backend.c_str(),
                        static_cast<unsigned long long>(rec.cycle - x->t0), static_cast<unsigned>(rec.unit),
                        static_cast<unsigned>(rec.kind), static_cast<unsigned long long>(rec.addr));
    }
    if (what == "perf")
      for (std::size_t i = 0; i + 16 <= t.out.size(); i += 16) {
        auto w = [](const std::vector<uint8_t>& v, std::size_t at) {
          return v[at] | v[at + 1] << 8 | v[at + 2] << 16 | static_cast<uint32_t>(v[at + 3]) << 24;
        };
        std::printf("  perf unit %2zu: tlm busy %u in %u out %u tasks %u | rtl busy %u in %u out %u tasks %u\n", i / 16,
                    w(t.out, i), w(t.out, i + 4), w(t.out, i + 8), w(t.out, i + 12), w(r.out, i), w(r.out, i + 4),
                    w(r.out, i + 8), w(r.out, i + 12));
      }
    std::printf("  whole run incl. setup/readback: TLM %.3f s, RTL %.3f s; outputs %s (%zu bytes)\n", tlm_total,
                rtl_total, t.out == r.out ? "bit-identical" : "DIFFER", t.out.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_tlm_rtl: %s\n", e.what());
    return 1;
  }
}
