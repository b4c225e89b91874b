#include "axcore/cosim/agree.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <span>

#include "axcore/cosim/dwpu_case.hpp"
#include "axcore/cosim/stimulus.hpp"
#include "axcore/num/pword.hpp"
#include "axcore/ref/dma.hpp"
#include "axcore/ref/imc.hpp"
#include "axcore/ref/walk.hpp"
#include "axcore/rtl/mm_layout.hpp"

namespace axcore::agree {

namespace {

using spec::MemSel;
constexpr uint32_t kShim = spec::param::shim_row, kMem = spec::param::mem_row;
const uint32_t kCore0 = spec::core_row(0);

std::vector<uint8_t> pattern(std::size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    b = static_cast<uint8_t>(x);
  }
  return v;
}

uint32_t words_of(const spec::DmaBd& bd, const ref::DmaEngine& eng, uint32_t run = 0) {
  return static_cast<uint32_t>(ref::dma_walk(bd, eng, ref::DmaDir::MM2S, run).size());
}

// One DMA hop: BDs into `row`'s engine, S2MM pushed first (with a token), then MM2S; waits.
void hop(device::Device& d, uint32_t row, uint32_t ch, uint32_t mm2s_bd, uint32_t s2mm_bd, uint32_t mm2s_repeat = 0,
         uint32_t tag = 1) {
  stim::push_dma(d, row, false, ch, stim::push_word(s2mm_bd, tag, true));
  stim::push_dma(d, row, true, ch, stim::push_word(mm2s_bd, tag + 1, false, mm2s_repeat));
  const auto t = stim::wait_dma_token(d, row, false, ch);
  if (t.error)
    throw device::DeviceError("agree: DMA hop on row " + std::to_string(row) + " ended with " +
                              std::string(spec::to_string(t.code)));
}

void check_token(const spec::Token& t, const char* what) {
  if (t.error)
    throw device::DeviceError(std::string("agree: ") + what + " ended with " + std::string(spec::to_string(t.code)));
}

// Both channel pairs of the engine in `row` at once (S2MM ch0 BD 1, ch1 BD 3; MM2S ch0 BD 0,
// ch1 BD 2); waits for both.
void two_pairs(device::Device& d, uint32_t row) {
  stim::push_dma(d, row, false, 0, stim::push_word(1, 1));
  stim::push_dma(d, row, false, 1, stim::push_word(3, 2));
  stim::push_dma(d, row, true, 0, stim::push_word(0, 3, false));
  stim::push_dma(d, row, true, 1, stim::push_word(2, 4, false));
  check_token(stim::wait_dma_token(d, row, false, 0), "pair 0");
  check_token(stim::wait_dma_token(d, row, false, 1), "pair 1");
}

// L1 of core 0 through the host debug port (both backends: one register write per word).
void dbg_write_l1(device::Device& d, uint64_t byte_addr, std::span<const uint8_t> bytes) {
  d.write32(stim::addr(kCore0, spec::core::DBG_MEM_SEL.offset), 0);
  d.write32(stim::addr(kCore0, spec::core::DBG_MEM_ADDR.offset), static_cast<uint32_t>(byte_addr));
  const uint64_t data = stim::addr(kCore0, spec::core::DBG_MEM_DATA.offset);
  for (std::size_t i = 0; i < bytes.size(); i += 4) {
    uint32_t v = 0;
    for (std::size_t b = 0; b < 4 && i + b < bytes.size(); ++b) v |= uint32_t{bytes[i + b]} << (8 * b);
    d.write32(data, v);
  }
}

// n bytes from byte_addr on through a tile's debug port (DBG_MEM_DATA reads auto-increment).
std::vector<uint8_t> dbg_read(device::Device& d, uint32_t row, uint32_t addr_reg, uint32_t data_reg, uint64_t byte_addr,
                              std::size_t n) {
  d.write32(stim::addr(row, addr_reg), static_cast<uint32_t>(byte_addr));
  const uint64_t data = stim::addr(row, data_reg);
  std::vector<uint8_t> out;
  while (out.size() < n) {
    const uint32_t v = d.read32(data);
    for (unsigned b = 0; b < 4; ++b) out.push_back(static_cast<uint8_t>(v >> (8 * b)));
  }
  out.resize(n);
  return out;
}

std::vector<uint8_t> dbg_read_l1(device::Device& d, uint64_t byte_addr, std::size_t n) {
  d.write32(stim::addr(kCore0, spec::core::DBG_MEM_SEL.offset), 0);
  return dbg_read(d, kCore0, spec::core::DBG_MEM_ADDR.offset, spec::core::DBG_MEM_DATA.offset, byte_addr, n);
}

std::vector<uint8_t> concat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<uint8_t> ddr_bytes(device::Device& d, uint64_t a, std::size_t n) {
  std::vector<uint8_t> v(n);
  d.ddr_read(a, v);
  return v;
}

stim::Datapath matmul_datapath(const rtlcore::Matmul& mm) {
  stim::Datapath dp;
  dp.header.kind = spec::DpKind::MVMEXE;
  dp.header.has_ifd0 = dp.header.has_main = dp.header.has_odr = 1;
  dp.ifd0 = mm.ifd();
  dp.mvm = mm.mvm();
  dp.odr = mm.odr();
  return dp;
}

constexpr uint32_t kLoadimcWord = 0x10, kDpWord = 0x100;

void push_matmul(device::Device& d) {
  stim::push_queue(d, 0, spec::Queue::LOADIMC, stim::push_word(kLoadimcWord, 1));
  stim::push_queue(d, 0, spec::Queue::MVMEXE, stim::push_word(kDpWord, 2));
  check_token(stim::wait_queue_token(d, 0, spec::Queue::LOADIMC, 50'000'000), "LoadIMC");
  check_token(stim::wait_queue_token(d, 0, spec::Queue::MVMEXE, 50'000'000), "MVMEXE");
}

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::string unit_name(trace::Unit u) {
  using U = trace::Unit;
  switch (u) {
    case U::CMDPROC: return "CMDPROC";
    default: break;
  }
  const auto v = static_cast<unsigned>(u);
  for (unsigned c = 0; c < spec::param::dma_channels; ++c) {
    if (u == trace::dma_unit(true, c)) return "MM2S" + std::to_string(c);
    if (u == trace::dma_unit(false, c)) return "S2MM" + std::to_string(c);
  }
  return "unit" + std::to_string(v);
}

}  // namespace

std::string Task::name() const {
  const char* tile = row == kShim ? "shim" : row == kMem ? "mem" : "core";
  std::string n =
      std::string(tile) + (row >= spec::param::first_core_row ? std::to_string(row - spec::param::first_core_row) : "");
  return n + "." + unit_name(unit);
}

uint64_t Run::span() const {
  if (tasks.empty()) return 0;
  uint64_t a = tasks.front().start, b = 0;
  for (const auto& t : tasks) a = std::min(a, t.start), b = std::max(b, t.done);
  return b - a;
}

Run run(device::Device& d, const Program& p) {
  Run r;
  r.backend = std::string(d.backend());
  d.set_trace_sink([&r](const trace::Record& rec) { r.records.push_back(rec); });
  if (p.setup) p.setup(d);
  r.t0 = d.cycle();
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  p.timed(d);
  r.cpu_s = cpu_seconds() - c0;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  r.t1 = d.cycle();
  if (p.readback) r.out = p.readback(d);
  d.set_trace_sink({});
  // Pair TASK_START / TASK_DONE per (row, unit), in order; keep the tasks of the timed part.
  std::map<std::pair<uint8_t, trace::Unit>, std::vector<uint64_t>> open;
  for (const auto& rec : r.records) {
    if (rec.unit == trace::Unit::HOST || rec.unit == trace::Unit::TOKEN) continue;
    const auto key = std::make_pair(rec.row, rec.unit);
    if (rec.kind == trace::Kind::TASK_START) open[key].push_back(rec.cycle);
    if (rec.kind != trace::Kind::TASK_DONE || open[key].empty()) continue;
    const uint64_t s = open[key].front();
    open[key].erase(open[key].begin());
    if (s < r.t0) continue;
    r.tasks.push_back(Task{rec.row, rec.unit, s - r.t0, rec.cycle - r.t0, rec.token});
  }
  return r;
}

Comparison compare(const Run& a, const Run& b) {
  Comparison c;
  c.same_tasks = a.tasks.size() == b.tasks.size();
  char line[200];
  std::string t = "  task                 tlm start..done (dur)        rtl start..done (dur)       ratio\n";
  // Match tasks per (row, unit) in order (the completion order may differ by a cycle).
  std::map<std::pair<uint8_t, trace::Unit>, std::vector<const Task*>> bt;
  for (const auto& x : b.tasks) bt[{x.row, x.unit}].push_back(&x);
  std::map<std::pair<uint8_t, trace::Unit>, std::size_t> used;
  for (const auto& x : a.tasks) {
    auto& v = bt[{x.row, x.unit}];
    std::size_t& i = used[{x.row, x.unit}];
    if (i >= v.size()) {
      c.same_tasks = false;
      continue;
    }
    const Task& y = *v[i++];
    if (x.word != y.word) c.same_tasks = false;
    const double da = static_cast<double>(x.done - x.start), db = static_cast<double>(y.done - y.start);
    const double ratio = db > 0 ? da / db : (da == 0 ? 1.0 : 0.0);
    if (db >= 16 && std::abs(ratio - 1) > std::abs(c.worst_task_ratio - 1)) c.worst_task_ratio = ratio;
    std::snprintf(line, sizeof line, "  %-18s %8llu..%-8llu (%7llu)  %8llu..%-8llu (%7llu)  %.4f\n", x.name().c_str(),
                  static_cast<unsigned long long>(x.start), static_cast<unsigned long long>(x.done),
                  static_cast<unsigned long long>(x.done - x.start), static_cast<unsigned long long>(y.start),
                  static_cast<unsigned long long>(y.done), static_cast<unsigned long long>(y.done - y.start), ratio);
    t += line;
  }
  c.span_ratio = b.span() ? static_cast<double>(a.span()) / static_cast<double>(b.span()) : 0;
  std::snprintf(line, sizeof line,
                "  span %llu vs %llu cycles: ratio %.4f; worst task %.4f; CPU %.4f s vs %.4f s (%.0fx)\n",
                static_cast<unsigned long long>(a.span()), static_cast<unsigned long long>(b.span()), c.span_ratio,
                c.worst_task_ratio, a.cpu_s, b.cpu_s, a.cpu_s > 0 ? b.cpu_s / a.cpu_s : 0.0);
  c.table = t + line;
  return c;
}

// ---- programs -------------------------------------------------------------------------------

Program dma_ddr_l2_ddr(uint32_t words) {
  Program p;
  p.name = "dma_ddr_l2_ddr";
  p.setup = [words](device::Device& d) {
    d.ddr_write(0x10000, pattern(4 * words, 1));
    stim::write_bd(d, kShim, 0, stim::linear_bd(MemSel::DDR, 0x10000, words));
    stim::write_bd(d, kShim, 1, stim::linear_bd(MemSel::L2, 0x4000, words));
    stim::write_bd(d, kShim, 2, stim::linear_bd(MemSel::L2, 0x4000, words));
    stim::write_bd(d, kShim, 3, stim::linear_bd(MemSel::DDR, 0x200000, words));
  };
  p.timed = [](device::Device& d) {
    hop(d, kShim, 0, 0, 1);
    hop(d, kShim, 1, 2, 3);
  };
  p.readback = [words](device::Device& d) { return ddr_bytes(d, 0x200000, 4 * words); };
  return p;
}

Program dma_walks() {
  Program p;
  p.name = "dma_walks";
  constexpr uint32_t kIn = 1024;
  constexpr uint32_t total_l2 = 80 + 80 + 64;
  p.setup = [](device::Device& d) {
    d.ddr_write(0x10000, pattern(4 * kIn, 2));
    // SysDMA: DDR -> L2 0x0 as two chained BDs (each half) into one S2MM BD.
    spec::DmaBd a = stim::linear_bd(MemSel::DDR, 0x10000, kIn / 2);
    a.use_next = 1, a.next_bd = 1;
    stim::write_bd(d, kShim, 0, a);
    stim::write_bd(d, kShim, 1, stim::linear_bd(MemSel::DDR, 0x10000 + 2 * kIn, kIn / 2));
    stim::write_bd(d, kShim, 2, stim::linear_bd(MemSel::L2, 0x0, kIn));
    // MemDMA: L2 -> L1 core 0, a padded 3-D block iterating over 2 column offsets, run twice.
    spec::DmaBd w = stim::linear_bd(MemSel::L2, 0x40, 0);
    w.d0_size = 6, w.d0_stride = 1, w.d1_size = 5, w.d1_stride = 16, w.d2_size = 4, w.d2_stride = 128;
    w.length = 6 * 5 * 4;
    w.d0_pad_before = 1, w.d0_pad_after = 2, w.d1_pad_after = 1, w.d2_pad_before = 1;
    w.pad_value = 0xA5A5A5A5;
    w.iter_size = 2, w.iter_stride = 8;
    const auto eng = ref::DmaEngine::memdma();
    const uint32_t total_l1 = words_of(w, eng, 0) + words_of(w, eng, 1);
    stim::write_bd(d, kMem, 0, w);
    stim::write_bd(d, kMem, 1, stim::linear_bd(MemSel::L1, 0x1000, total_l1, 0));
    // CoreDMA: L1 -> L2, a chain of three strided BDs.
    spec::DmaBd c0 = stim::linear_bd(MemSel::L1, 0x1000, 0);
    c0.d0_size = 8, c0.d0_stride = 2, c0.d1_size = 10, c0.d1_stride = 17, c0.length = 80;
    c0.use_next = 1, c0.next_bd = 1;
    spec::DmaBd c1 = stim::linear_bd(MemSel::L1, 0x1004, 0);
    c1.d0_size = 8, c1.d0_stride = 2, c1.d1_size = 10, c1.d1_stride = 17, c1.length = 80;
    c1.use_next = 1, c1.next_bd = 2;
    spec::DmaBd c2 = stim::linear_bd(MemSel::L1, 0x1000 + 4 * 200, 64);
    c2.d0_size = 4, c2.d0_stride = -1, c2.d1_size = 16, c2.d1_stride = 4, c2.addr_lo += 12;
    stim::write_bd(d, kCore0, 0, c0);
    stim::write_bd(d, kCore0, 1, c1);
    stim::write_bd(d, kCore0, 2, c2);
    stim::write_bd(d, kCore0, 3, stim::linear_bd(MemSel::L2, 0x80000, total_l2));
    // SysDMA: L2 -> DDR.
    stim::write_bd(d, kShim, 4, stim::linear_bd(MemSel::L2, 0x80000, total_l2));
    stim::write_bd(d, kShim, 5, stim::linear_bd(MemSel::DDR, 0x300000, total_l2));
  };
  p.timed = [](device::Device& d) {
    hop(d, kShim, 0, 0, 2);
    hop(d, kMem, 0, 0, 1, 1);
    hop(d, kCore0, 0, 0, 3);
    hop(d, kShim, 1, 4, 5);
  };
  p.readback = [](device::Device& d) { return ddr_bytes(d, 0x300000, 4 * total_l2); };
  return p;
}

Program dma_l2_bank_conflict(uint32_t words) {
  Program p;
  p.name = "dma_l2_bank_conflict";
  // Source rows r and destination rows r + 8k fall in the same bank (bank = row mod l2_banks).
  constexpr uint64_t kDst = 0x100000;
  static_assert(kDst / 64 % spec::param::l2_banks == 0);
  p.setup = [words](device::Device& d) {
    stim::write_bd(d, kMem, 0, stim::linear_bd(MemSel::L2, 0x0, words));
    stim::write_bd(d, kMem, 1, stim::linear_bd(MemSel::L2, kDst, words));
  };
  p.timed = [](device::Device& d) { hop(d, kMem, 0, 0, 1); };
  return p;
}

// Rows of L2 bank 0 only: 16 words of a row, then 8 rows on (bank = row mod l2_banks).
spec::DmaBd bank0_bd(uint64_t a, uint32_t words) {
  spec::DmaBd bd = stim::linear_bd(MemSel::L2, a, words);
  bd.d0_size = 16;
  bd.d1_size = words / 16;
  bd.d1_stride = 16 * spec::param::l2_banks;
  return bd;
}

Program dma_engines_share_l2(uint32_t words) {
  Program p;
  p.name = "dma_engines_share_l2";
  static_assert(spec::param::l2_banks > 1);
  p.setup = [words](device::Device& d) {
    const uint32_t core_row = spec::core_row(0);
    d.ddr_write(0x10000, pattern(words / 2, 5));
    // Source data in the bank-0 rows of both L2 sources (the mem tile's debug port, auto-increment).
    uint32_t v = 0x9e3779b9;
    for (uint64_t base : {uint64_t{0x0}, uint64_t{0x200000}})
      for (uint32_t r = 0; r < words / 16; ++r) {
        d.write32(stim::addr(kMem, spec::mem::DBG_MEM_ADDR.offset),
                  static_cast<uint32_t>(base + uint64_t{r} * 64 * spec::param::l2_banks));
        for (unsigned w = 0; w < 16; ++w)
          d.write32(stim::addr(kMem, spec::mem::DBG_MEM_DATA.offset), v = v * 1664525u + 1013904223u);
      }
    // MemDMA L2 -> L2 and CoreDMA L2 -> L1, all four L2 walks in bank 0; SysDMA DDR -> L2 bank 0.
    stim::write_bd(d, kMem, 0, bank0_bd(0x0, words));
    stim::write_bd(d, kMem, 1, bank0_bd(0x100000, words));
    stim::write_bd(d, core_row, 0, bank0_bd(0x200000, words));
    stim::write_bd(d, core_row, 1, stim::linear_bd(MemSel::L1, 0x8000, words, 0));
    stim::write_bd(d, kShim, 0, stim::linear_bd(MemSel::DDR, 0x10000, words / 8));
    stim::write_bd(d, kShim, 1, bank0_bd(0x300000, words / 8));
  };
  p.timed = [](device::Device& d) {
    const uint32_t core_row = spec::core_row(0);
    stim::push_dma(d, kShim, false, 0, stim::push_word(1, 1));
    stim::push_dma(d, kShim, true, 0, stim::push_word(0, 2, false));
    stim::push_dma(d, kMem, false, 0, stim::push_word(1, 3));
    stim::push_dma(d, core_row, false, 0, stim::push_word(1, 4));
    stim::push_dma(d, kMem, true, 0, stim::push_word(0, 5, false));
    stim::push_dma(d, core_row, true, 0, stim::push_word(0, 6, false));
    check_token(stim::wait_dma_token(d, kMem, false, 0), "MemDMA");
    check_token(stim::wait_dma_token(d, core_row, false, 0), "CoreDMA");
    check_token(stim::wait_dma_token(d, kShim, false, 0), "SysDMA");
  };
  // The CoreDMA's copy in L1, then the MemDMA's copy in L2 (its first rows) through the mem
  // tile's debug port.
  p.readback = [words](device::Device& d) {
    return concat(dbg_read_l1(d, 0x8000, 4 * std::size_t{words}),
                  dbg_read(d, kMem, spec::mem::DBG_MEM_ADDR.offset, spec::mem::DBG_MEM_DATA.offset, 0x100000, 64 * 4));
  };
  return p;
}

Program dma_two_pairs(uint32_t words) {
  Program p;
  p.name = "dma_two_pairs";
  p.setup = [words](device::Device& d) {
    stim::write_bd(d, kMem, 0, stim::linear_bd(MemSel::L2, 0x0, words));
    stim::write_bd(d, kMem, 1, stim::linear_bd(MemSel::L2, 0x100040, words));
    stim::write_bd(d, kMem, 2, stim::linear_bd(MemSel::L2, 0x200080, words));
    stim::write_bd(d, kMem, 3, stim::linear_bd(MemSel::L2, 0x3000C0, words));
  };
  p.timed = [](device::Device& d) { two_pairs(d, kMem); };
  return p;
}

namespace {
// A linear BD of any length up to 65535 * 4096 words: rows of 4096 words (sizes are 16-bit).
spec::DmaBd long_bd(MemSel mem, uint64_t a, uint32_t words) {
  spec::DmaBd bd = stim::linear_bd(mem, a, words, 0);
  bd.d0_size = words > 4096 ? 4096 : words;
  bd.d0_stride = 1;
  bd.d1_size = words / bd.d0_size;
  bd.d1_stride = static_cast<int32_t>(bd.d0_size);
  return bd;
}
}  // namespace

Program dma_ddr_to_l2(uint32_t words) {
  Program p;
  p.name = "dma_ddr_to_l2";
  p.setup = [words](device::Device& d) {
    d.ddr_write(0x100000, pattern(4 * std::size_t{words}, 7));
    stim::write_bd(d, kShim, 0, long_bd(MemSel::DDR, 0x100000, words));
    stim::write_bd(d, kShim, 1, long_bd(MemSel::L2, 0x0, words));
    stim::write_bd(d, kShim, 2, long_bd(MemSel::L2, 0x0, 1024));
    stim::write_bd(d, kShim, 3, long_bd(MemSel::DDR, 0x800000, 1024));
  };
  p.timed = [](device::Device& d) { hop(d, kShim, 0, 0, 1); };
  p.readback = [](device::Device& d) {  // the first 4 KiB back out through DDR
    hop(d, kShim, 1, 2, 3);
    return ddr_bytes(d, 0x800000, 4096);
  };
  return p;
}

Program dma_l2_to_l1(uint32_t words) {
  Program p;
  p.name = "dma_l2_to_l1";
  p.setup = [words](device::Device& d) {
    stim::write_bd(d, kMem, 0, long_bd(MemSel::L2, 0x40000, words));
    stim::write_bd(d, kMem, 1, long_bd(MemSel::L1, 0x0, words));
  };
  p.timed = [](device::Device& d) { hop(d, kMem, 0, 0, 1); };
  p.readback = [](device::Device& d) { return dbg_read_l1(d, 0x0, 1024); };
  return p;
}

Program dma_two_engines_one_bank(uint32_t words) {
  Program p;
  p.name = "dma_two_engines_one_bank";
  p.setup = [words](device::Device& d) {
    const uint32_t core_row = spec::core_row(0);
    stim::write_bd(d, kMem, 0, bank0_bd(0x0, words));
    stim::write_bd(d, kMem, 1, bank0_bd(0x100000, words));
    stim::write_bd(d, core_row, 0, bank0_bd(0x200000, words));
    stim::write_bd(d, core_row, 1, stim::linear_bd(MemSel::L1, 0x8000, words, 0));
  };
  p.timed = [](device::Device& d) {
    const uint32_t core_row = spec::core_row(0);
    stim::push_dma(d, kMem, false, 0, stim::push_word(1, 3));
    stim::push_dma(d, core_row, false, 0, stim::push_word(1, 4));
    stim::push_dma(d, kMem, true, 0, stim::push_word(0, 5, false));
    stim::push_dma(d, core_row, true, 0, stim::push_word(0, 6, false));
    check_token(stim::wait_dma_token(d, kMem, false, 0), "MemDMA");
    check_token(stim::wait_dma_token(d, core_row, false, 0), "CoreDMA");
  };
  return p;
}

Program dma_burst_crosses_4k() {
  Program p;
  p.name = "dma_burst_crosses_4k";
  // 16 runs of 600 words from 0x10F40, 4 KiB apart: each crosses a 4 KiB boundary (two bursts
  // per run), and the written copy at 0x20F80 likewise. (Long enough that the host's token poll,
  // 20 cycles, stays well inside the tolerance.)
  constexpr uint32_t kRuns = 16, kRun = 600;
  p.setup = [](device::Device& d) {
    d.ddr_write(0x10000, pattern(4096 * (kRuns + 1), 9));
    spec::DmaBd r = stim::linear_bd(MemSel::DDR, 0x10F40, kRuns * kRun, 0);
    r.d0_size = kRun, r.d0_stride = 1, r.d1_size = kRuns, r.d1_stride = 1024;
    stim::write_bd(d, kShim, 0, r);
    stim::write_bd(d, kShim, 1, stim::linear_bd(MemSel::L2, 0x1010, kRuns * kRun, 0));
    stim::write_bd(d, kShim, 2, stim::linear_bd(MemSel::L2, 0x1010, kRuns * kRun, 0));
    spec::DmaBd w = stim::linear_bd(MemSel::DDR, 0x100F80, kRuns * kRun, 0);
    w.d0_size = kRun, w.d0_stride = 1, w.d1_size = kRuns, w.d1_stride = 1024;
    stim::write_bd(d, kShim, 3, w);
  };
  p.timed = [](device::Device& d) {
    hop(d, kShim, 0, 0, 1);
    hop(d, kShim, 1, 2, 3);
  };
  p.readback = [](device::Device& d) { return ddr_bytes(d, 0x100000, 4096 * (kRuns + 1)); };
  return p;
}

Program dma_reads_outstanding_full() {
  Program p;
  p.name = "dma_reads_outstanding_full";
  // 128 runs of one row each, 4 KiB apart: 128 one-row bursts, at most axi_max_reads in flight.
  p.setup = [](device::Device& d) {
    d.ddr_write(0x100000, pattern(128 * 4096, 10));
    spec::DmaBd r = stim::linear_bd(MemSel::DDR, 0x100000, 128 * 16, 0);
    r.d0_size = 16, r.d0_stride = 1, r.d1_size = 128, r.d1_stride = 1024;
    stim::write_bd(d, kShim, 0, r);
    stim::write_bd(d, kShim, 1, stim::linear_bd(MemSel::L2, 0x0, 128 * 16, 0));
    stim::write_bd(d, kShim, 2, stim::linear_bd(MemSel::L2, 0x0, 128 * 16, 0));
    stim::write_bd(d, kShim, 3, stim::linear_bd(MemSel::DDR, 0x900000, 128 * 16, 0));
  };
  p.timed = [](device::Device& d) { hop(d, kShim, 0, 0, 1); };
  p.readback = [](device::Device& d) {
    hop(d, kShim, 1, 2, 3);
    return ddr_bytes(d, 0x900000, 128 * 64);
  };
  return p;
}

namespace {
void load_matmul_operands(device::Device& d, const rtlcore::Matmul& mm, uint32_t seed) {
  dbg_write_l1(d, uint64_t{rtlcore::kX0} * 64, pattern(std::size_t{mm.m} * mm.kb * 64, seed));
  dbg_write_l1(d, uint64_t{rtlcore::kW0} * 64, pattern(std::size_t{mm.kb} * mm.nb * 64 * 64, seed + 1));
}
void write_matmul_descriptors(device::Device& d, const rtlcore::Matmul& mm) {
  stim::write_cmd(d, 0, kLoadimcWord, mm.load().encode());
  stim::write_cmd(d, 0, kDpWord, matmul_datapath(mm).words());
}
}  // namespace

Program matmul(uint32_t m, uint32_t kb, uint32_t nb, spec::Dtype out) {
  Program p;
  p.name = "matmul_m" + std::to_string(m) + "_k" + std::to_string(64 * kb) + "_n" + std::to_string(64 * nb) + "_" +
           std::string(spec::to_string(out));
  rtlcore::Matmul mm{m, kb, nb};
  mm.out = out;
  p.setup = [mm](device::Device& d) {
    load_matmul_operands(d, mm, 3);
    write_matmul_descriptors(d, mm);
  };
  p.timed = push_matmul;
  p.readback = [mm](device::Device& d) { return dbg_read_l1(d, uint64_t{rtlcore::kY0} * 64, mm.out_bytes()); };
  return p;
}

// The DWPU ODR's lane transpose: IFD0 -> ODR over `blocks` blocks of 64 elements of `in`, stored
// as `out` (cast) with walk transpose, through a 2-D walk that interleaves the blocks (element i of
// block b at row kY + R(out) (blocks i + b)).
Program lane_transpose(uint32_t blocks, spec::Dtype in, spec::Dtype out) {
  Program p;
  p.name = "lane_transpose_" + std::to_string(blocks) + "x64_" + std::string(spec::to_string(in)) + "_to_" +
           std::string(spec::to_string(out));
  constexpr uint32_t kX = 64, kY = 2048;
  const uint32_t rin = static_cast<uint32_t>(num::element_rows(in)),
                 rout = static_cast<uint32_t>(num::element_rows(out));
  stim::Datapath dp;
  dp.header.kind = spec::DpKind::DWPU;
  dp.header.has_ifd0 = dp.header.has_odr = 1;
  dp.ifd0 = stim::linear_walk(kX, 64 * blocks, in, in);
  dp.odr = stim::linear_walk(kY, 64, out, in);
  dp.odr.ndims = 2;
  dp.odr.d0_stride = static_cast<int32_t>(rout * blocks);
  dp.odr.d1_size = blocks;
  dp.odr.d1_stride = static_cast<int32_t>(rout);
  dp.odr.transpose = 1;
  const std::size_t in_bytes = std::size_t{64} * blocks * rin * 64, out_bytes = std::size_t{64} * blocks * rout * 64;
  p.setup = [=](device::Device& d) {
    auto x = pattern(in_bytes, 11);
    if (in == spec::Dtype::FLOAT16)  // finite halves: clear the exponent's top bit
      for (std::size_t i = 1; i < x.size(); i += 2) x[i] &= 0xBF;
    dbg_write_l1(d, uint64_t{kX} * 64, x);
    stim::write_cmd(d, 0, kDpWord, dp.words());
  };
  p.timed = [](device::Device& d) {
    stim::push_queue(d, 0, spec::Queue::DWPU, stim::push_word(kDpWord, 4));
    check_token(stim::wait_queue_token(d, 0, spec::Queue::DWPU, 50'000'000), "DWPU");
  };
  p.readback = [=](device::Device& d) { return dbg_read_l1(d, uint64_t{kY} * 64, out_bytes); };
  return p;
}

Program queued_tasks(uint32_t n) {
  Program p;
  p.name = "queued_tasks_" + std::to_string(n);
  constexpr uint32_t kJobs = 5, kW = 12288, kLiA = 0x10, kLiB = 0x20;
  auto word = [](uint32_t i) { return 0x400 + 0x100 * i; };
  auto load = [](uint32_t tiles, uint32_t tile_base) {
    return rtlcore::tile_load(tiles, tile_base, kW + 64 * tile_base).encode();
  };
  std::vector<stim::Datapath> dps;
  for (uint32_t i = 0; i < kJobs; ++i)
    dps.push_back(stim::dpu_f16(i >= 3 ? spec::DpKind::DWPU : spec::DpKind::MVMEXE, n, 2 * n * 2 * i,
                                2 * n * (2 * i + 1), i % 2 == 0));
  p.setup = [=](device::Device& d) {
    for (uint32_t i = 0; i < kJobs; ++i) {
      dbg_write_l1(d, uint64_t{dps[i].ifd0.base_row} * 64, stim::f16_elements(n, i));
      stim::write_cmd(d, 0, word(i), dps[i].words());
    }
    dbg_write_l1(d, uint64_t{kW} * 64, pattern(10 * 64 * 64, 16));
    stim::write_cmd(d, 0, kLiA, load(8, 0));
    stim::write_cmd(d, 0, kLiB, load(2, 8));
  };
  p.timed = [=](device::Device& d) {
    for (uint32_t i = 0; i < kJobs; ++i)
      stim::push_queue(d, 0, i >= 3 ? spec::Queue::DWPU : spec::Queue::MVMEXE, stim::push_word(word(i), i));
    stim::push_queue(d, 0, spec::Queue::LOADIMC, stim::push_word(kLiA, 8));
    stim::push_queue(d, 0, spec::Queue::LOADIMC, stim::push_word(kLiB, 9));
    for (uint32_t i = 0; i < 3; ++i)
      check_token(stim::wait_queue_token(d, 0, spec::Queue::MVMEXE, 50'000'000), "MVMEXE");
    for (uint32_t i = 0; i < 2; ++i) check_token(stim::wait_queue_token(d, 0, spec::Queue::DWPU, 50'000'000), "DWPU");
    for (uint32_t i = 0; i < 2; ++i)
      check_token(stim::wait_queue_token(d, 0, spec::Queue::LOADIMC, 50'000'000), "LoadIMC");
  };
  p.readback = [=](device::Device& d) {
    std::vector<uint8_t> out;
    for (const auto& dp : dps)
      out = concat(std::move(out), dbg_read_l1(d, uint64_t{dp.odr.base_row} * 64, std::size_t{n} * 128));
    return out;
  };
  return p;
}

namespace {
constexpr uint64_t kDdrX = 0x10000, kDdrW = 0x100000, kDdrY = 0x800000;
constexpr uint32_t kL2X = 0x0, kL2W = 0x100000;
rtlcore::Matmul whole_core_mm(uint32_t m, uint32_t kb, uint32_t nb) {
  rtlcore::Matmul mm{m, kb, nb};
  mm.out = spec::Dtype::INT8;  // the ODR casts the int32 accumulators (saturating, RNE)
  return mm;
}
}  // namespace

namespace {
// mm's LoadIMC with the weight rows `row_stride` apart: 1 = each tile's 64 rows contiguous;
// l1_banks = the tiles interleaved row by row (tile k's rows w_row + k + 8r: one bank per tile).
spec::LoadimcDesc strided_load(const rtlcore::Matmul& mm, uint32_t row_stride) {
  spec::LoadimcDesc li = mm.load();
  li.row_stride = row_stride;
  li.d0_astride = row_stride == 1 ? 64 : 1;
  return li;
}
// Pushes the LoadIMC at kLoadimcWord and the DWPU task at kDpWord (in that order or the other),
// then waits for both.
void loadimc_and_dwpu(device::Device& d, bool loadimc_first) {
  const auto li = stim::push_word(kLoadimcWord, 1), dw = stim::push_word(kDpWord, 2);
  stim::push_queue(d, 0, loadimc_first ? spec::Queue::LOADIMC : spec::Queue::DWPU, loadimc_first ? li : dw);
  stim::push_queue(d, 0, loadimc_first ? spec::Queue::DWPU : spec::Queue::LOADIMC, loadimc_first ? dw : li);
  check_token(stim::wait_queue_token(d, 0, spec::Queue::LOADIMC, 50'000'000), "LoadIMC");
  check_token(stim::wait_queue_token(d, 0, spec::Queue::DWPU, 50'000'000), "DWPU");
}
}  // namespace

Program loadimc_during_dma_to_l1(uint32_t words, uint32_t tiles, uint32_t row_stride) {
  Program p;
  p.name = "loadimc_during_dma_to_l1_stride" + std::to_string(row_stride);
  const rtlcore::Matmul mm{16, tiles, 1};
  const spec::LoadimcDesc li = strided_load(mm, row_stride);
  constexpr uint64_t kDst = uint64_t{rtlcore::kY0} * 64;
  p.setup = [=](device::Device& d) {
    d.ddr_write(0x100000, pattern(4 * std::size_t{words}, 11));
    stim::write_bd(d, kShim, 0, long_bd(MemSel::DDR, 0x100000, words));
    stim::write_bd(d, kShim, 1, stim::linear_bd(MemSel::L1, kDst, words, 0));
    load_matmul_operands(d, mm, 12);
    stim::write_cmd(d, 0, kLoadimcWord, li.encode());
  };
  p.timed = [](device::Device& d) {
    stim::push_dma(d, kShim, false, 0, stim::push_word(1, 1));
    stim::push_dma(d, kShim, true, 0, stim::push_word(0, 2, false));
    stim::push_queue(d, 0, spec::Queue::LOADIMC, stim::push_word(kLoadimcWord, 3));
    check_token(stim::wait_queue_token(d, 0, spec::Queue::LOADIMC, 50'000'000), "LoadIMC");
    check_token(stim::wait_dma_token(d, kShim, false, 0), "SysDMA");
  };
  p.readback = [words](device::Device& d) { return dbg_read_l1(d, kDst, 4 * std::size_t{words}); };
  return p;
}

Program loadimc_beside_dwpu_copy(uint32_t rows, uint32_t tiles, uint32_t row_stride, bool loadimc_first,
                                 uint32_t src_shift) {
  Program p;
  p.name = "loadimc_beside_dwpu_copy";
  if (row_stride != spec::param::l1_banks || loadimc_first || src_shift != 0)
    p.name += "_stride" + std::to_string(row_stride) + (loadimc_first ? "_loadimc_first" : "") + "_shift" +
              std::to_string(src_shift);
  const rtlcore::Matmul mm{16, tiles, 1};
  const spec::LoadimcDesc li = strided_load(mm, row_stride);
  const uint32_t kSrc = 12288 + src_shift, kDst = 14336;  // rows past the matmul's operands
  stim::Datapath dp;
  dp.header.kind = spec::DpKind::DWPU;
  dp.header.has_ifd0 = dp.header.has_odr = 1;
  dp.ifd0 = stim::linear_walk(kSrc, rows, spec::Dtype::INT8, spec::Dtype::INT8);
  dp.odr = stim::linear_walk(kDst, rows, spec::Dtype::INT8, spec::Dtype::INT8);
  p.setup = [=](device::Device& d) {
    load_matmul_operands(d, mm, 13);
    dbg_write_l1(d, uint64_t{kSrc} * 64, pattern(std::size_t{rows} * 64, 14));
    stim::write_cmd(d, 0, kLoadimcWord, li.encode());
    stim::write_cmd(d, 0, kDpWord, dp.words());
  };
  p.timed = [loadimc_first](device::Device& d) { loadimc_and_dwpu(d, loadimc_first); };
  p.readback = [rows](device::Device& d) { return dbg_read_l1(d, uint64_t{kDst} * 64, std::size_t{rows} * 64); };
  return p;
}

Program matmul_during_dma_to_l1(uint32_t m, uint32_t kb, uint32_t nb, uint32_t words) {
  Program p;
  p.name = "matmul_during_dma_to_l1";
  rtlcore::Matmul mm{m, kb, nb};
  mm.out = spec::Dtype::INT32;
  constexpr uint64_t kDst = 11264 * 64;  // past y (int32: m * nb * 4 rows from kY0)
  p.setup = [=](device::Device& d) {
    load_matmul_operands(d, mm, 15);
    write_matmul_descriptors(d, mm);
    stim::write_bd(d, kMem, 0, long_bd(MemSel::L2, 0x40000, words));
    // The rows of one L1 bank (16 words, then l1_banks rows on): the IFD's walk over x meets
    // that bank every l1_banks cycles and wins it.
    spec::DmaBd dst = stim::linear_bd(MemSel::L1, kDst, words, 0);
    dst.d0_size = 16;
    dst.d1_size = words / 16;
    dst.d1_stride = 16 * spec::param::l1_banks;
    stim::write_bd(d, kMem, 1, dst);
    stim::push_queue(d, 0, spec::Queue::LOADIMC, stim::push_word(kLoadimcWord, 1));
    check_token(stim::wait_queue_token(d, 0, spec::Queue::LOADIMC, 50'000'000), "LoadIMC");
  };
  p.timed = [](device::Device& d) {
    stim::push_queue(d, 0, spec::Queue::MVMEXE, stim::push_word(kDpWord, 2));
    d.advance(80);  // the descriptor fetch: the copy starts as the matmul does
    stim::push_dma(d, kMem, false, 0, stim::push_word(1, 3));
    stim::push_dma(d, kMem, true, 0, stim::push_word(0, 4, false));
    check_token(stim::wait_queue_token(d, 0, spec::Queue::MVMEXE, 50'000'000), "MVMEXE");
    check_token(stim::wait_dma_token(d, kMem, false, 0), "MemDMA");
  };
  p.readback = [mm, words](device::Device& d) {
    return concat(dbg_read_l1(d, uint64_t{rtlcore::kY0} * 64, mm.out_bytes()),
                  dbg_read_l1(d, kDst, 4 * std::size_t{words} * spec::param::l1_banks));
  };
  return p;
}

Program dwpu_weights_beside_loadimc() {
  Program p;
  p.name = "dwpu_weights_beside_loadimc";
  rtlcore::DwWindow c;
  c.h = c.w = 4;
  c.cb = 8;
  c.kh = c.kw = 3;
  c.ph = c.pw = 1;
  c.weights = c.weight_rows();
  const rtlcore::Matmul mm{16, 8, 1};
  const spec::LoadimcDesc li = strided_load(mm, spec::param::l1_banks);
  stim::Datapath dp;
  dp.header.kind = spec::DpKind::DWPU;
  dp.header.has_ifd0 = dp.header.has_main = dp.header.has_odr = 1;
  dp.ifd0 = c.ifd();
  dp.dwpu = c.dwpu();
  dp.odr = c.odr();
  p.setup = [=](device::Device& d) {
    load_matmul_operands(d, mm, 18);
    dbg_write_l1(d, uint64_t{c.x0} * 64, pattern(std::size_t{c.input_rows()} * 64, 19));
    dbg_write_l1(d, uint64_t{c.w0} * 64, pattern(std::size_t{c.weight_rows()} * 64, 20));
    stim::write_cmd(d, 0, kLoadimcWord, li.encode());
    stim::write_cmd(d, 0, kDpWord, dp.words());
  };
  p.timed = [](device::Device& d) { loadimc_and_dwpu(d, true); };
  p.readback = [c](device::Device& d) { return dbg_read_l1(d, uint64_t{c.y0} * 64, std::size_t{c.out_rows()} * 64); };
  return p;
}

Program dma_two_channels_ddr_to_l1(uint32_t words) {
  Program p;
  p.name = "dma_two_channels_ddr_to_l1";
  constexpr uint64_t kA = 0x100000, kB = 0x300000, kDstA = 0x0, kDstB = 0x80000;
  p.setup = [=](device::Device& d) {
    d.ddr_write(kA, pattern(4 * std::size_t{words}, 16));
    d.ddr_write(kB, pattern(4 * std::size_t{words}, 17));
    stim::write_bd(d, kShim, 0, long_bd(MemSel::DDR, kA, words));
    stim::write_bd(d, kShim, 1, stim::linear_bd(MemSel::L1, kDstA, words, 0));
    stim::write_bd(d, kShim, 2, long_bd(MemSel::DDR, kB, words));
    stim::write_bd(d, kShim, 3, stim::linear_bd(MemSel::L1, kDstB, words, 0));
  };
  p.timed = [](device::Device& d) { two_pairs(d, kShim); };
  p.readback = [words](device::Device& d) {
    return concat(dbg_read_l1(d, kDstA, 4 * std::size_t{words}), dbg_read_l1(d, kDstB, 4 * std::size_t{words}));
  };
  return p;
}

Program whole_core(uint32_t m, uint32_t kb, uint32_t nb) {
  Program p;
  p.name = "whole_core_m" + std::to_string(m) + "_k" + std::to_string(64 * kb) + "_n" + std::to_string(64 * nb);
  const auto mm = whole_core_mm(m, kb, nb);
  const uint32_t xw = m * kb * 16, ww = kb * nb * 1024;  // words
  p.setup = [=](device::Device& d) {
    d.ddr_write(kDdrX, pattern(4 * std::size_t{xw}, 7));
    d.ddr_write(kDdrW, pattern(4 * std::size_t{ww}, 8));
    // SysDMA: DDR x, w -> L2 (a chain of two BDs on each side).
    spec::DmaBd a = stim::linear_bd(MemSel::DDR, kDdrX, xw), b = stim::linear_bd(MemSel::L2, kL2X, xw);
    a.use_next = b.use_next = 1, a.next_bd = 1, b.next_bd = 3;
    stim::write_bd(d, kShim, 0, a);
    stim::write_bd(d, kShim, 1, stim::linear_bd(MemSel::DDR, kDdrW, ww));
    stim::write_bd(d, kShim, 2, b);
    stim::write_bd(d, kShim, 3, stim::linear_bd(MemSel::L2, kL2W, ww));
    // MemDMA: L2 -> L1 of core 0 (x rows, weight rows).
    spec::DmaBd c = stim::linear_bd(MemSel::L2, kL2X, xw),
                e = stim::linear_bd(MemSel::L1, uint64_t{rtlcore::kX0} * 64, xw);
    c.use_next = e.use_next = 1, c.next_bd = 1, e.next_bd = 3;
    stim::write_bd(d, kMem, 0, c);
    stim::write_bd(d, kMem, 1, stim::linear_bd(MemSel::L2, kL2W, ww));
    stim::write_bd(d, kMem, 2, e);
    stim::write_bd(d, kMem, 3, stim::linear_bd(MemSel::L1, uint64_t{rtlcore::kW0} * 64, ww));
    // SysDMA: the int8 result L1 -> DDR.
    const auto yw = static_cast<uint32_t>(mm.out_bytes() / 4);
    stim::write_bd(d, kShim, 4, stim::linear_bd(MemSel::L1, uint64_t{rtlcore::kY0} * 64, yw));
    stim::write_bd(d, kShim, 5, stim::linear_bd(MemSel::DDR, kDdrY, yw));
    write_matmul_descriptors(d, mm);
  };
  p.timed = [](device::Device& d) {
    hop(d, kShim, 0, 0, 2);
    hop(d, kMem, 0, 0, 2);
    push_matmul(d);
    hop(d, kShim, 1, 4, 5);
  };
  p.readback = [mm](device::Device& d) { return ddr_bytes(d, kDdrY, mm.out_bytes()); };
  return p;
}

namespace {
struct Regs {
  std::vector<uint8_t> bytes;
  void add(uint32_t v) {
    for (unsigned b = 0; b < 4; ++b) bytes.push_back(static_cast<uint8_t>(v >> (8 * b)));
  }
  void read(device::Device& d, uint32_t row, uint32_t off) { add(d.read32(stim::addr(row, off))); }
};
}  // namespace

Program deadlock() {
  Program p;
  p.name = "deadlock";
  auto token = std::make_shared<uint32_t>(0);
  p.setup = [](device::Device& d) {
    d.write32(stim::addr(kCore0, spec::core::WDOG_LIMIT.offset), 1000);
    rtlcore::Matmul mm{2, 2, 1};
    stim::Datapath dp = matmul_datapath(mm);
    dp.ifd0 = stim::linear_walk(rtlcore::kX0, 3, spec::Dtype::INT8, spec::Dtype::INT8);  // 3 of the 4 x blocks
    stim::write_cmd(d, 0, kDpWord, dp.words());
  };
  p.timed = [token](device::Device& d) {
    stim::push_queue(d, 0, spec::Queue::MVMEXE, stim::push_word(kDpWord, 5));
    *token = d.wait_token(0, kCore0, 0, spec::param::core_queue_channel_base, 1'000'000);
  };
  p.readback = [token](device::Device& d) {
    Regs r;
    r.add(*token);
    for (uint32_t off : {spec::core::WDOG_STATUS.offset, spec::core::WDOG_WAITS.offset, spec::core::ERROR_STATUS.offset,
                         spec::core::ERROR_INFO.offset})
      r.read(d, kCore0, off);
    return r.bytes;
  };
  return p;
}

Program bd_out_of_range() {
  Program p;
  p.name = "bd_out_of_range";
  auto token = std::make_shared<uint32_t>(0);
  p.setup = [](device::Device& d) {
    stim::write_bd(d, kMem, 5, stim::linear_bd(MemSel::L2, spec::param::l2_bytes - 128, 64));  // 128 bytes past the end
  };
  p.timed = [token](device::Device& d) {
    stim::push_dma(d, kMem, true, 1, stim::push_word(5, 4));
    *token = d.wait_token(0, kMem, 1, 1, 100'000);
  };
  p.readback = [token](device::Device& d) {
    Regs r;
    r.add(*token);
    for (uint32_t off : {spec::mem::ERROR_STATUS.offset, spec::mem::ERROR_INFO.offset, spec::mem::ERROR_ADDR.offset,
                         spec::mem::DMA_MM2S_STATUS.at(1)})
      r.read(d, kMem, off);
    r.read(d, kShim, spec::shim::STATUS.offset);
    return r.bytes;
  };
  return p;
}

Program soft_reset() {
  Program p;
  p.name = "soft_reset";
  auto seen = std::make_shared<Regs>();
  p.setup = [seen](device::Device& d) {
    seen->bytes.clear();
    d.ddr_write(0x10000, pattern(4 * 2048, 5));
    stim::write_bd(d, kShim, 0, stim::linear_bd(MemSel::DDR, 0x10000, 2048));
    stim::write_bd(d, kShim, 1, stim::linear_bd(MemSel::L2, 0x0, 2048));
    stim::write_bd(d, kShim, 2, stim::linear_bd(MemSel::DDR, 0x10000, 16));
    stim::write_bd(d, kShim, 3, stim::linear_bd(MemSel::L2, 0x40000, 16));
  };
  p.timed = [seen](device::Device& d) {
    stim::push_dma(d, kShim, false, 0, stim::push_word(1, 1));
    stim::push_dma(d, kShim, true, 0, stim::push_word(0, 2, false));
    d.advance(5000);  // about 150 of the 2048 words
    d.write32(stim::addr(kShim, spec::shim::CTRL.offset), 1);
    d.advance(100);
    for (uint32_t off : {spec::shim::DMA_S2MM_STATUS.at(0), spec::shim::DMA_MM2S_STATUS.at(0),
                         spec::shim::ERROR_STATUS.offset, spec::shim::TOKEN_POP.offset, spec::shim::CTRL.offset})
      seen->read(d, kShim, off);
    seen->add(spec::shim::Status::decode_word(d.read32(stim::addr(kShim, spec::shim::STATUS.offset))).busy);
    // The engine works again after the reset.
    hop(d, kShim, 0, 2, 3, 0, 7);
  };
  p.readback = [seen](device::Device& d) {
    Regs r = *seen;
    r.read(d, kShim, spec::shim::DMA_S2MM_STATUS.at(0));  // done count restarted at the reset
    return r.bytes;
  };
  return p;
}

Program dma_pause() {
  Program p;
  p.name = "dma_pause";
  auto seen = std::make_shared<Regs>();
  p.setup = [seen](device::Device& d) {
    seen->bytes.clear();
    stim::write_bd(d, kMem, 0, stim::linear_bd(MemSel::L2, 0x0, 4096));
    stim::write_bd(d, kMem, 1, stim::linear_bd(MemSel::L2, 0x100040, 4096));
  };
  p.timed = [seen](device::Device& d) {
    const uint64_t ctrl = stim::addr(kMem, spec::mem::DMA_MM2S_CTRL.at(0));
    const uint64_t bytes = stim::addr(kMem, spec::mem::DMA_MM2S_BYTES.at(0));
    stim::push_dma(d, kMem, false, 0, stim::push_word(1, 1));
    stim::push_dma(d, kMem, true, 0, stim::push_word(0, 2, false));
    d.advance(500);
    d.write32(ctrl, 4);  // pause
    d.advance(200);      // words granted before the pause have drained
    const uint32_t b0 = d.read32(bytes);
    d.advance(2000);
    const uint32_t b1 = d.read32(bytes);
    seen->add(b0 == b1 ? 1u : 0u);                 // nothing moved while paused
    seen->add(b0 > 0 && b0 < 4 * 4096 ? 1u : 0u);  // stopped mid-copy
    seen->add(d.read32(ctrl));                     // pause bit reads back
    d.write32(ctrl, 0);                            // resume
    check_token(stim::wait_dma_token(d, kMem, false, 0), "paused copy");
    seen->read(d, kMem, spec::mem::DMA_MM2S_BYTES.at(0));
  };
  p.readback = [seen](device::Device&) { return seen->bytes; };
  return p;
}

Program barrier_after_matmul() {
  Program p = matmul(16, 4, 1);
  p.name = "barrier_after_matmul";
  constexpr uint32_t kBarrierWord = 0x40;
  const auto setup = p.setup;
  p.setup = [setup](device::Device& d) {
    setup(d);
    spec::BarrierDesc b;
    b.magic = spec::magic::barrier;
    b.barrier_id = 7;
    b.core_mask = 1;
    stim::write_cmd(d, 0, kBarrierWord, b.encode());
  };
  p.timed = [](device::Device& d) {
    stim::push_queue(d, 0, spec::Queue::LOADIMC, stim::push_word(kLoadimcWord, 1));
    stim::push_queue(d, 0, spec::Queue::MVMEXE, stim::push_word(kDpWord, 2));
    stim::push_queue(d, 0, spec::Queue::CTRL, stim::push_word(kBarrierWord, 3));
    check_token(stim::wait_queue_token(d, 0, spec::Queue::CTRL, 50'000'000), "barrier");
    check_token(stim::wait_queue_token(d, 0, spec::Queue::LOADIMC, 50'000'000), "LoadIMC");
    check_token(stim::wait_queue_token(d, 0, spec::Queue::MVMEXE, 50'000'000), "MVMEXE");
  };
  return p;
}

namespace {
// PERF_BUSY/STALL_IN/STALL_OUT/TASKS of every unit of core 0.
void read_perf(device::Device& d, Regs& r) {
  for (uint32_t u = 0; u < spec::param::perf_units; ++u)
    for (const spec::Reg* reg :
         {&spec::core::PERF_BUSY, &spec::core::PERF_STALL_IN, &spec::core::PERF_STALL_OUT, &spec::core::PERF_TASKS})
      r.read(d, kCore0, reg->at(u));
}
}  // namespace

Program perf_counters() {
  Program p = matmul(16, 4, 2);
  p.name = "perf_counters";
  p.readback = [](device::Device& d) {
    Regs r;
    read_perf(d, r);
    return r.bytes;
  };
  return p;
}

Program matmul_leaving_l1(bool ifd) {
  Program p;
  p.name = ifd ? "matmul_ifd_leaving_l1" : "matmul_odr_leaving_l1";
  rtlcore::Matmul mm{64, 18, 4};
  mm.out = spec::Dtype::INT8;
  constexpr uint32_t kL1Rows = spec::param::l1_bytes / spec::param::l1_row_bytes;
  if (ifd)
    mm.x_row = kL1Rows - mm.m * mm.kb / 2;  // (x itself stays where load_matmul_operands puts it)
  else
    mm.y_row = kL1Rows - mm.m * mm.nb / 2;
  auto tokens = std::make_shared<std::array<uint32_t, 2>>();
  p.setup = [mm](device::Device& d) {
    load_matmul_operands(d, mm, 5);
    write_matmul_descriptors(d, mm);
  };
  p.timed = [tokens](device::Device& d) {
    stim::push_queue(d, 0, spec::Queue::LOADIMC, stim::push_word(kLoadimcWord, 1));
    stim::push_queue(d, 0, spec::Queue::MVMEXE, stim::push_word(kDpWord, 2));
    stim::wait_queue_token(d, 0, spec::Queue::LOADIMC).encode_to(std::span(*tokens).first(1));
    stim::wait_queue_token(d, 0, spec::Queue::MVMEXE).encode_to(std::span(*tokens).last(1));
  };
  p.readback = [tokens](device::Device& d) {
    Regs r;
    for (const uint32_t t : *tokens) r.add(t);
    for (uint32_t off : {spec::core::ERROR_STATUS.offset, spec::core::ERROR_INFO.offset, spec::core::ERROR_ADDR.offset})
      r.read(d, kCore0, off);
    read_perf(d, r);
    d.write32(stim::addr(kCore0, spec::core::ERROR_STATUS.offset), 0xFFFFFFFF);  // (w1c: the next program starts clean)
    return r.bytes;
  };
  return p;
}

std::vector<uint8_t> whole_core_reference(uint32_t m, uint32_t kb, uint32_t nb) {
  const auto mm = whole_core_mm(m, kb, nb);
  std::vector<uint8_t> l1(spec::param::l1_bytes, 0);
  const auto x = pattern(std::size_t{m} * kb * 64, 7), w = pattern(std::size_t{kb} * nb * 4096, 8);
  std::copy(x.begin(), x.end(), l1.begin() + std::ptrdiff_t{rtlcore::kX0} * 64);
  std::copy(w.begin(), w.end(), l1.begin() + std::ptrdiff_t{rtlcore::kW0} * 64);
  ref::Imc imc;
  ref::run_loadimc(mm.load(), l1, imc);
  stim::reference_datapath(matmul_datapath(mm), l1, &imc);
  return {l1.begin() + std::ptrdiff_t{rtlcore::kY0} * 64,
          l1.begin() + std::ptrdiff_t{rtlcore::kY0} * 64 + std::ptrdiff_t(mm.out_bytes())};
}

namespace {
const rtlcore::Matmul kBesideMm = whole_core_mm(64, 4, 2);
spec::LoadimcDesc second_load(uint32_t tile_base, uint8_t matrix_id) {
  spec::LoadimcDesc li = kBesideMm.load();
  li.tile_base = tile_base;
  li.matrix_id = matrix_id;
  return li;
}
}  // namespace

Program loadimc_beside_matmul(uint32_t tile_base, uint8_t matrix_id, bool loadimc_first) {
  Program p;
  p.name = "loadimc_beside_matmul_tiles" + std::to_string(tile_base) + "_id" + std::to_string(matrix_id) +
           (loadimc_first ? "_loadimc_first" : "_mvmexe_first");
  p.setup = [=](device::Device& d) {
    load_matmul_operands(d, kBesideMm, 21);
    write_matmul_descriptors(d, kBesideMm);
    stim::write_cmd(d, 0, kBesideLoadimcWord, second_load(tile_base, matrix_id).encode());
    stim::push_queue(d, 0, spec::Queue::LOADIMC, stim::push_word(kLoadimcWord, 1));
    check_token(stim::wait_queue_token(d, 0, spec::Queue::LOADIMC, 50'000'000), "LoadIMC");
  };
  p.timed = [loadimc_first](device::Device& d) {
    const auto li = stim::push_word(kBesideLoadimcWord, 2), mv = stim::push_word(kBesideMatmulWord, 3);
    stim::push_queue(d, 0, loadimc_first ? spec::Queue::LOADIMC : spec::Queue::MVMEXE, loadimc_first ? li : mv);
    stim::push_queue(d, 0, loadimc_first ? spec::Queue::MVMEXE : spec::Queue::LOADIMC, loadimc_first ? mv : li);
    check_token(stim::wait_queue_token(d, 0, spec::Queue::LOADIMC, 50'000'000), "LoadIMC");
    check_token(stim::wait_queue_token(d, 0, spec::Queue::MVMEXE, 50'000'000), "MVMEXE");
  };
  p.readback = [](device::Device& d) {
    Regs r;
    r.bytes = dbg_read_l1(d, uint64_t{rtlcore::kY0} * 64, kBesideMm.out_bytes());
    r.read(d, kCore0, spec::core::IMC_STATUS.offset);
    r.read(d, kCore0, spec::core::IMC_STALE_READS.offset);
    return r.bytes;
  };
  return p;
}

std::vector<uint8_t> loadimc_beside_matmul_reference(uint32_t tile_base, uint8_t matrix_id, bool loadimc_first) {
  const rtlcore::Matmul& mm = kBesideMm;
  std::vector<uint8_t> l1(spec::param::l1_bytes, 0);
  const auto x = pattern(std::size_t{mm.m} * mm.kb * 64, 21), w = pattern(std::size_t{mm.kb} * mm.nb * 4096, 22);
  std::copy(x.begin(), x.end(), l1.begin() + std::ptrdiff_t{rtlcore::kX0} * 64);
  std::copy(w.begin(), w.end(), l1.begin() + std::ptrdiff_t{rtlcore::kW0} * 64);
  ref::Imc imc;
  ref::run_loadimc(mm.load(), l1, imc);
  if (loadimc_first) ref::run_loadimc(second_load(tile_base, matrix_id), l1, imc);
  stim::reference_datapath(matmul_datapath(mm), l1, &imc);
  if (!loadimc_first) ref::run_loadimc(second_load(tile_base, matrix_id), l1, imc);
  Regs r;
  r.bytes.assign(l1.begin() + std::ptrdiff_t{rtlcore::kY0} * 64,
                 l1.begin() + std::ptrdiff_t{rtlcore::kY0} * 64 + std::ptrdiff_t(mm.out_bytes()));
  r.add((imc.matrix_id() & 0xFF) | static_cast<uint32_t>(imc.valid_tiles()) << 8 | (imc.stale_reads ? 1u << 16 : 0u));
  r.add(static_cast<uint32_t>(imc.stale_reads));
  return r.bytes;
}

}  // namespace axcore::agree
