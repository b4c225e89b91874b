#include <algorithm>
#include <iomanip>
#include <sstream>

#include "ops.hpp"

namespace axcore::bringup {
namespace {

using namespace detail;

// ---- steps ----------------------------------------------------------------------------------------
std::string identity(Device& d, const Options&) {
  const uint32_t row = S::param::shim_row;
  const uint32_t id = d.read32(reg(row, S::shim::ID.offset));
  if (id != S::kIdMagic)
    throw StepFail("shim ID reads " + hex(id) + ", expected " + hex(S::kIdMagic) + " ('AXC1')",
                   "the register window base address (UIO map 0) and that the bitstream is loaded");
  const auto ver = S::shim::Version::decode_word(d.read32(reg(row, S::shim::VERSION.offset)));
  const uint64_t hash = uint64_t{d.read32(reg(row, S::shim::SPEC_HASH_HI.offset))} << 32 |
                        d.read32(reg(row, S::shim::SPEC_HASH_LO.offset));
  const auto cfg = S::shim::Config::decode_word(d.read32(reg(row, S::shim::CONFIG.offset)));
  auto config = [](uint32_t cores, uint32_t mvm, uint32_t imc) {
    return std::to_string(cores) + " core(s), MVM " + std::to_string(mvm) + " rows/cycle, IMC " + std::to_string(imc) +
           " tiles";
  };
  if (hash != S::kSpecHash || ver.major != S::kSpecVersion)
    throw StepFail("the device's spec hash is " + hex(hash, 16) + " (version " + std::to_string(ver.major) +
                       "; CONFIG " + config(cfg.cores, cfg.mvm_rows_per_cycle, cfg.imc_tiles) +
                       "), this software's is " + hex(S::kSpecHash, 16) + " (version " +
                       std::to_string(S::kSpecVersion) + "; " +
                       config(S::param::cores, S::param::mvm_rows_per_cycle, S::param::imc_tiles) + ")",
                   "that the bitstream and the software were built from the same spec/axcore.yaml and the same "
                   "parameter overlay (an FPGA build's firmware/fpga/*.yaml: use the software of that build tree)");
  if (cfg.cores != d.cores())
    throw StepFail(
        "CONFIG says " + std::to_string(cfg.cores) + " cores, the backend was opened with " + std::to_string(d.cores()),
        "--cores, and the FPGA configuration the bitstream was built with");
  return "ID 'AXC1', spec " + hex(hash, 16) + " v" + std::to_string(ver.major) + ", " +
         config(cfg.cores, cfg.mvm_rows_per_cycle, cfg.imc_tiles) + ", L1 " +
         std::to_string(S::param::l1_bytes / 1024) + " KiB, L2 " + std::to_string(S::param::l2_bytes / 1024) +
         " KiB (this software's spec)";
}

// Bits of RW registers that act when written (self-clearing resets): not read back.
uint32_t action_bits(std::string_view name) {
  if (name == "CTRL" || name == "CORE_CTRL") return 0x1;                                   // soft_reset
  if (name == "DMA_S2MM_CTRL" || name == "DMA_MM2S_CTRL" || name == "Q_CTRL") return 0x2;  // reset
  return 0;
}
bool volatile_reg(std::string_view name) {
  return name == "CYCLE_LO" || name == "CYCLE_HI" || name.starts_with("DBG_MEM");
}

template <size_t N>
void walk_tile(Device& d, uint32_t row, std::string_view tile, const std::array<S::RegisterInfo, N>& regs,
               uint32_t& checked, uint32_t& written) {
  for (const auto& r : regs) {
    if (r.memory || volatile_reg(r.name)) continue;
    for (uint32_t i = 0; i < r.count; ++i)
      for (uint32_t w = 0; w < r.words; ++w) {
        const uint64_t a = reg(row, r.at(i) + 4 * w);
        const std::string name = std::string(tile) + "." + std::string(r.name) +
                                 (r.count > 1 ? "[" + std::to_string(i) + "]" : "") +
                                 (r.words > 1 ? " word " + std::to_string(w) : "");
        const uint32_t v = d.read32(a) & r.field_mask, want = (w == 0 ? r.reset : 0) & r.field_mask;
        if (v != want)
          throw StepFail(name + " (" + hex(a) + ") resets to " + hex(v) + ", the spec says " + hex(want),
                         "the reset of tile row " + std::to_string(row) + " and the bitstream's spec hash");
        ++checked;
        if (r.access != S::Access::RW || r.name == "SCRATCH") continue;  // SCRATCH: the scratch step
        const uint32_t m = r.field_mask & ~action_bits(r.name);
        for (uint32_t p : {0xFFFFFFFFu, 0u, 0xA5A5A5A5u, 0x5A5A5A5Au}) {
          d.write32(a, p & m);
          const uint32_t got = d.read32(a) & m;
          if (got != (p & m))
            throw StepFail(
                name + " (" + hex(a) + ") wrote " + hex(p & m) + ", read back " + hex(got),
                "the register bus (AXI-lite byte enables, address decode of row " + std::to_string(row) + ")");
        }
        d.write32(a, r.reset);
        ++written;
      }
  }
}

std::string register_walk(Device& d, const Options&) {
  uint32_t checked = 0, written = 0;
  walk_tile(d, S::param::shim_row, "shim", S::shim::kRegisters, checked, written);
  walk_tile(d, S::param::mem_row, "mem", S::mem::kRegisters, checked, written);
  for (uint32_t c = 0; c < d.cores(); ++c)
    walk_tile(d, S::core_row(c), "core" + std::to_string(c), S::core::kRegisters, checked, written);
  return std::to_string(checked) + " register words at their reset values, " + std::to_string(written) +
         " RW words written and read back";
}

std::string scratch(Device& d, const Options& opt) {
  const uint64_t a = reg(S::param::shim_row, S::shim::SCRATCH.offset);
  std::vector<uint32_t> pats;
  for (uint32_t b = 0; b < 32; ++b) pats.push_back(1u << b), pats.push_back(~(1u << b));
  uint32_t x = opt.seed * 2654435761u + 1;
  for (int i = 0; i < 16; ++i) pats.push_back((x ^= x << 13, x ^= x >> 17, x ^= x << 5));
  for (uint32_t p : pats) {
    d.write32(a, p);
    const uint32_t got = d.read32(a);
    if (got != p)
      throw StepFail("SCRATCH wrote " + hex(p) + ", read " + hex(got) + " (bits " + hex(p ^ got) + ")",
                     "the register data path (AXI-lite wdata/rdata bits " + hex(p ^ got) + ")");
  }
  d.write32(a, 0);
  return std::to_string(pats.size()) + " patterns (walking 1s, walking 0s, 16 random)";
}

std::vector<uint32_t> pattern(int kind, uint32_t n, uint64_t base, uint32_t seed) {
  std::vector<uint32_t> w(n);
  uint32_t x = seed * 2654435761u + 7;
  for (uint32_t i = 0; i < n; ++i) {
    if (kind == 0)
      w[i] = 1u << (i % 32);
    else if (kind == 1)
      w[i] = static_cast<uint32_t>(base + 4 * i);
    else
      w[i] = (x ^= x << 13, x ^= x >> 17, x ^= x << 5);
  }
  return w;
}
const char* const kPatterns[] = {"walking ones", "address-in-address", "random"};

std::string memory_test(Device& d, const Options& opt) {
  const Ddr r = ddr_regions(d);
  const uint32_t n = opt.mem_words, bytes = 4 * n;
  struct Mem {
    std::string name;
    S::MemSel sel;
    uint64_t size;
  };
  std::vector<Mem> mems{{"L2", S::MemSel::L2, S::param::l2_bytes}};
  for (uint32_t c = 0; c < d.cores(); ++c)
    mems.push_back({"L1[" + std::to_string(c) + "]", S::MemSel::L1, S::param::l1_bytes});
  uint32_t runs = 0;
  const uint32_t row = S::param::shim_row;
  for (size_t m = 0; m < mems.size(); ++m) {
    const uint32_t core = m == 0 ? 0 : static_cast<uint32_t>(m - 1);
    for (uint64_t at : {uint64_t{0}, mems[m].size / 2, mems[m].size - bytes})
      for (int k = 0; k < 3; ++k) {
        const auto want = pattern(k, n, at, opt.seed + runs);
        ddr_put(d, r.a, want);
        ddr_put(d, r.b, std::vector<uint32_t>(n, 0xDEADBEEF));
        const std::string what = std::string(kPatterns[k]) + " through " + mems[m].name + " at " + hex(at);
        const Loc mem{mems[m].sel, at, core};
        transfer(d, row, 0, linear(d, {S::MemSel::DDR, r.a}, n), linear(d, mem, n), what + ", DDR -> " + mems[m].name);
        transfer(d, row, 1, linear(d, mem, n), linear(d, {S::MemSel::DDR, r.b}, n),
                 what + ", " + mems[m].name + " -> DDR");
        compare(
            ddr_get(d, r.b, n), want, what,
            "the " + mems[m].name + " SRAM and the DDR data path (bits named above); run again with another --seed");
        ++runs;
      }
  }
  return std::to_string(runs) + " DMA round trips DDR -> memory -> DDR of " + std::to_string(bytes) +
         " bytes (walking ones, address-in-address, random seed " + std::to_string(opt.seed) + ") over L2 and " +
         std::to_string(d.cores()) + " L1(s), start/middle/end windows";
}

std::string dma_loopback(Device& d, const Options& opt) {
  const Ddr r = ddr_regions(d);
  const uint32_t row = S::param::mem_row, rows = 8, cols = 8, tail = 16, pad = 0x5A5A5A5A;
  const uint32_t src = 0x1000, dst = 0x8000, n_in = rows * cols + tail, n_out = rows * (cols + 2) + tail;
  const auto in = pattern(2, n_in, 0, opt.seed + 100);
  ddr_put(d, r.a, in);
  transfer(d, S::param::shim_row, 0, linear(d, {S::MemSel::DDR, r.a}, n_in), linear(d, {S::MemSel::L2, src}, n_in),
           "stage source in L2");
  // MemDMA MM2S: a padded 2-D walk (8 rows of 8 words, one pad word each side), chained to a
  // linear BD; S2MM writes it all to L2.
  S::DmaBd walk = linear(d, {S::MemSel::L2, src}, rows * cols);
  walk.d0_size = cols;
  walk.d1_size = rows;
  walk.d1_stride = cols;
  walk.d0_pad_before = 1;
  walk.d0_pad_after = 1;
  walk.pad_value = pad;
  walk.use_next = 1;
  walk.next_bd = 4;
  write_bd(d, row, 4, linear(d, {S::MemSel::L2, src + 4 * rows * cols}, tail));
  write_bd(d, row, 0, walk);
  write_bd(d, row, 1, linear(d, {S::MemSel::L2, dst}, n_out));
  d.write32(reg(row, S::mem::DMA_S2MM_QUEUE.at(0)), push_word(1, 3));
  d.write32(reg(row, S::mem::DMA_MM2S_QUEUE.at(0)), push_word(0, 4));
  wait(d, row, 0, 0, "MemDMA padded chain (S2MM)");
  wait(d, row, 1, 0, "MemDMA padded chain (MM2S)");
  transfer(d, S::param::shim_row, 1, linear(d, {S::MemSel::L2, dst}, n_out), linear(d, {S::MemSel::DDR, r.b}, n_out),
           "read back");
  std::vector<uint32_t> want;
  for (uint32_t i = 0; i < rows; ++i) {
    want.push_back(pad);
    for (uint32_t j = 0; j < cols; ++j) want.push_back(in[i * cols + j]);
    want.push_back(pad);
  }
  for (uint32_t j = 0; j < tail; ++j) want.push_back(in[rows * cols + j]);
  compare(ddr_get(d, r.b, n_out), want, "MemDMA padded walk + chain",
          "MemDMA padding (pad counts, pad_value) and BD chaining (use_next/next_bd)");
  return "MemDMA L2 -> L2: 8x8 walk with 1/1 padding chained to a 16-word BD, " + std::to_string(n_out) +
         " words checked";
}

std::string tokens(Device& d, const Options&) {
  const Ddr r = ddr_regions(d);
  const uint32_t row = S::param::shim_row;
  ddr_put(d, r.a, std::vector<uint32_t>(16, 0x12345678));
  write_bd(d, row, 0, linear(d, {S::MemSel::DDR, r.a}, 16));
  write_bd(d, row, 1, linear(d, {S::MemSel::L2, 0x100}, 16));
  d.write32(reg(row, S::shim::DMA_S2MM_QUEUE.at(0)), push_word(1, 0x2A));
  d.write32(reg(row, S::shim::DMA_MM2S_QUEUE.at(0)), push_word(0, 0x15));
  const auto t1 = S::Token::decode_word(wait(d, row, 0, 0, "token of S2MM ch0"));
  const auto t2 = S::Token::decode_word(wait(d, row, 1, 0, "token of MM2S ch0"));
  if (t1.tag != 0x2A || t2.tag != 0x15 || t1.row != row || t2.dir != 1)
    throw StepFail("tokens carry tags " + hex(t1.tag, 2) + "/" + hex(t2.tag, 2) + " (pushed 0x2a/0x15), rows " +
                       std::to_string(t1.row) + "/" + std::to_string(t2.row),
                   "the token unit's field packing (spec struct token)");
  const uint32_t empty = d.read32(reg(row, S::shim::TOKEN_POP.offset));
  const uint32_t dropped = d.read32(reg(row, S::shim::TOKEN_DROPPED.offset));
  if (empty != 0 || dropped != 0)
    throw StepFail("after both tokens TOKEN_POP reads " + hex(empty) + " and TOKEN_DROPPED " + std::to_string(dropped),
                   "that each task issues exactly one token");
  return "tags and channels echoed, FIFO empty afterwards, none dropped";
}

uint64_t device_cycles(Device& d) {  // CYCLE_LO first: reading it latches CYCLE_HI
  const uint32_t lo = d.read32(reg(S::param::shim_row, S::shim::CYCLE_LO.offset));
  return uint64_t{d.read32(reg(S::param::shim_row, S::shim::CYCLE_HI.offset))} << 32 | lo;
}

std::string performance(Device& d, const Options&) {
  const Ddr r = ddr_regions(d);
  const uint32_t n = 4096, row = S::param::shim_row;
  ddr_put(d, r.a, pattern(2, n, 0, 9));
  const uint64_t start = device_cycles(d);
  transfer(d, row, 0, linear(d, {S::MemSel::DDR, r.a}, n), linear(d, {S::MemSel::L2, 0}, n), "DDR -> L2 16 KiB");
  const uint64_t cycles = device_cycles(d) - start;
  // DDR -> L2 peak: the AXI data width (a row beat a cycle on chip is never the bound; docs/timing.md).
  const double spec_bpc = std::min<double>(S::param::axi_data_bytes, 4.0 * S::param::dma_words_per_cycle);
  // No engine moves data faster than the spec's peak: fewer cycles means the counter is wrong.
  if (static_cast<double>(cycles) * spec_bpc < 4.0 * n)
    throw StepFail("the device's cycle counter advanced " + std::to_string(cycles) +
                       " cycles over a 16 KiB SysDMA transfer, "
                       "less than the " +
                       std::to_string(static_cast<uint64_t>(4.0 * n / spec_bpc)) + " the spec's peak allows",
                   "shim CYCLE_LO/CYCLE_HI (the free-running counter, the CYCLE_HI latch on a CYCLE_LO read)");
  const double bpc = 4.0 * n / static_cast<double>(cycles);
  std::ostringstream o;
  o << std::fixed << std::setprecision(2) << "SysDMA DDR -> L2 16 KiB in " << cycles << " device cycles: " << bpc
    << " B/cycle (" << bpc * S::param::clock_mhz / 1000.0 << " GB/s at " << S::param::clock_mhz << " MHz), spec "
    << spec_bpc << " B/cycle: " << std::setprecision(0) << 100.0 * bpc / spec_bpc
    << "% of peak (includes host token polling)";
  if (performance_status(bpc / spec_bpc) == Status::WARN)
    throw StepWarn(o.str() + "; below " + std::to_string(static_cast<int>(100 * kWarnBelowPeak)) +
                   "% of the spec's peak: check the AXI port width and the DDR latency (docs/bringup.md)");
  return o.str();
}

struct Step {
  const char* name;
  std::string (*fn)(Device&, const Options&);
};
const Step kSteps[] = {{"identity", identity},
                       {"register-walk", register_walk},
                       {"scratch", scratch},
                       {"memories", memory_test},
                       {"dma-loopback", dma_loopback},
                       {"tokens", tokens},
                       {"copy", kernel_copy},
                       {"mvm", kernel_mvm},
                       {"dpu", kernel_dpu},
                       {"dwpu", kernel_dwpu},
                       {"performance", performance}};

}  // namespace

std::vector<std::string> step_names() {
  std::vector<std::string> v;
  for (const auto& s : kSteps) v.push_back(s.name);
  return v;
}

const char* to_string(Status s) {
  switch (s) {
    case Status::PASS: return "PASS";
    case Status::SKIP: return "SKIP";
    case Status::WARN: return "WARN";
    case Status::FAIL: break;
  }
  return "FAIL";
}

Status performance_status(double fraction_of_peak) {
  return fraction_of_peak < kWarnBelowPeak ? Status::WARN : Status::PASS;
}

std::vector<StepResult> run(Device& dev, const Options& opt, std::ostream& log) {
  std::vector<StepResult> out;
  const size_t n = std::size(kSteps);
  log << "bring-up on " << dev.backend() << " (" << dev.cores() << " core(s)), seed " << opt.seed << "\n" << std::flush;
  for (size_t i = 0; i < n; ++i) {
    StepResult r{kSteps[i].name, Status::FAIL, "", ""};
    const uint64_t c0 = dev.cycle();
    try {
      r.detail = kSteps[i].fn(dev, opt);
      r.status = Status::PASS;
    } catch (const StepWarn& e) {
      r.detail = e.what();
      r.status = Status::WARN;
    } catch (const StepSkip& e) {
      r.detail = e.what();
      r.status = Status::SKIP;
    } catch (const StepFail& e) {
      r.detail = e.what();
      r.check = e.check;
    } catch (const std::exception& e) {
      r.detail = e.what();
      r.check = "the device connection (the backend threw)";
    }
    log << "[" << i + 1 << "/" << n << "] " << r.name << " ... " << to_string(r.status) << " (" << dev.cycle() - c0
        << " cycles)\n      " << r.detail << "\n";
    if (r.failed()) log << "      check: " << r.check << "\n";
    log << std::flush;  // streamed: a step that hangs leaves the ones before it on the terminal and in the log
    out.push_back(r);
    if (r.failed()) break;
  }
  return out;
}

}  // namespace axcore::bringup
