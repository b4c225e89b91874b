#include "axcore/runtime/run_stats.hpp"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include <axcore/spec.hpp>
#include <axcore/txn/decode.hpp>
#include <axcore/txn/trace.hpp>

namespace axcore::runtime {
namespace {

namespace dd = spec::layout::datapath_desc;
constexpr uint64_t kTileMacs = uint64_t{spec::param::imc_tile_rows} * spec::param::pword_lanes;

// The register state the stream programs (preloaded command streams, then every write in order),
// with each datapath push counted when it is written.
class TaskCounter {
 public:
  explicit TaskCounter(Work& w) : w_(w) {}
  void store(uint64_t addr, uint32_t value, uint32_t mask) {
    uint32_t& reg = regs_[addr];
    reg = (reg & ~mask) | (value & mask);
    const auto t = spec::decode_addr(addr);
    if (!t || t->kind != spec::TileKind::Core) return;
    for (const auto q : {spec::Queue::MVMEXE, spec::Queue::DWPU})
      if (t->offset == spec::core::Q_PUSH.at(static_cast<uint32_t>(q))) datapath(t->tile_base(), reg);
  }

 private:
  template <class S>
  S read(uint64_t tile, uint32_t word) const {
    std::array<uint32_t, S::kWords> w{};
    for (uint32_t i = 0; i < S::kWords; ++i) {
      const auto it = regs_.find(tile + spec::core::CMD_MEM.at(std::min(word + i, spec::core::CMD_MEM.count - 1)));
      w[i] = it == regs_.end() ? 0 : it->second;
    }
    return S::decode(w);
  }
  void datapath(uint64_t tile, uint32_t push) {
    const auto p = spec::QueuePush::decode_word(push);
    const uint64_t runs = uint64_t{p.repeat} + 1;
    const auto h = read<spec::DpHeader>(tile, p.start + dd::header);
    if (h.has_main && h.kind == spec::DpKind::MVMEXE) {
      const auto m = read<spec::MvmDesc>(tile, p.start + dd::mvm);
      const std::array<uint64_t, 4> o{m.o0_size, m.o1_size, m.o2_size, m.o3_size};
      uint64_t outputs = 1;
      for (uint32_t i = 0; i < std::min<uint32_t>(m.ndims, 4); ++i) outputs *= std::max<uint64_t>(o[i], 1);
      w_.tile_ops += runs * m.k_blocks * outputs;
    }
    if (h.has_dpu) {
      const auto d = read<spec::DpuDesc>(tile, p.start + dd::dpu);
      uint64_t init = 0, body = 0;
      std::vector<uint64_t> mult{1};  // trips of the enclosing loops
      for (uint32_t i = 0; i < d.init_len + d.body_len && i < dd::program_count; ++i) {
        const auto in = read<spec::DpuInstr>(tile, p.start + dd::program + 2 * i);
        uint64_t& n = i < d.init_len ? init : body;
        if (i == d.init_len) mult = {1};
        n += mult.back();
        if (in.op == spec::DpuOp::LOOP) {
          mult.push_back(mult.back() * std::max<uint32_t>(in.imm, 1));
        } else if (in.op == spec::DpuOp::ENDLOOP && mult.size() > 1) {
          mult.pop_back();  // counted above at the loop's trips: ENDLOOP issues once per trip
        }
      }
      w_.dpu_instructions += runs * (init + body * d.iterations);
    }
  }

  Work& w_;
  std::unordered_map<uint64_t, uint32_t> regs_;
};

std::string grouped(uint64_t v) {
  std::string s = std::to_string(v), o;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) o += ' ';
    o += s[i];
  }
  return o;
}

}  // namespace

Work count_work(const Bundle& b) {
  Work w;
  if (b.txn.empty()) return w;
  const std::vector<uint32_t> program = program_txn(b, {}).txn;
  const txn::Decoded d = txn::decode(program);
  w.cores = d.header.device.num_rows > 2 ? d.header.device.num_rows - 2 : 1;
  const auto preset = host_preset(b);
  TaskCounter tasks(w);
  for (const auto& p : preset) tasks.store(p.addr, p.value, p.mask);
  for (const auto& op : d.ops) {
    if (const auto* x = std::get_if<txn::Write32>(&op.body)) tasks.store(x->addr, x->value, 0xFFFFFFFF);
    if (const auto* x = std::get_if<txn::MaskWrite32>(&op.body)) tasks.store(x->addr, x->value, x->mask);
    if (const auto* x = std::get_if<txn::BlockWrite>(&op.body))
      for (size_t i = 0; i < x->data.size(); ++i) tasks.store(uint64_t{x->addr} + 4 * i, x->data[i], 0xFFFFFFFF);
  }
  w.macs = w.tile_ops * kTileMacs;
  // DMA: the tracer resolves every push to the BD chain it runs (patched DDR addresses included).
  const txn::Trace t = txn::trace(d, txn::layout_for(d.header), preset);
  for (const auto& e : t.events) {
    if (e.kind != txn::EventKind::PUSH || !e.queue.empty() || e.chain.empty()) continue;
    if (e.loop_to) {
      w.exact = false;
      continue;
    }
    const bool mm2s = e.dir == txn::Dir::MM2S;
    uint64_t bytes = 0, ddr = 0;
    for (const auto& tr : e.chain) {
      const auto mem = std::ranges::find(tr.fields, std::string_view("mem"), &txn::Field::name);
      const bool is_ddr = tr.address.patched || (mem != tr.fields.end() && mem->value == 0);
      bytes += 4 * tr.length;
      if (is_ddr) ddr += 4 * tr.length;
    }
    const uint64_t runs = uint64_t{e.repeat} + 1;
    w.dma_bytes[dma_channel_name(e.row, mm2s, e.channel)] += runs * bytes;
    w.ddr_bytes += runs * ddr;
  }
  return w;
}

RunStats run_stats(const Work& w, const RunResult& res) {
  RunStats s;
  s.cycles = res.cycles;
  s.macs = w.macs;
  s.ddr_bytes = w.ddr_bytes;
  s.dpu_instructions = w.dpu_instructions;
  s.sticky = res.sticky;
  const double cores = std::max(w.cores, 1u);
  const double mac_rate = static_cast<double>(kTileMacs) * spec::param::mvm_rows_per_cycle / spec::param::imc_tile_rows;
  s.roofline_cycles = std::max({static_cast<double>(w.macs) / (mac_rate * cores),
                                static_cast<double>(w.ddr_bytes) / spec::param::axi_data_bytes,
                                static_cast<double>(w.dpu_instructions) / cores});
  if (s.cycles) {
    s.mvm_utilization = static_cast<double>(w.macs) / (mac_rate * cores * static_cast<double>(s.cycles));
    s.of_roofline = s.roofline_cycles / static_cast<double>(s.cycles);
  }
  // The device's counters: MVM PERF_BUSY counts 64 / mvm_rows_per_cycle cycles per tile-op, the
  // DPUs' PERF_BUSY one per issued instruction, DMA_*_BYTES every byte a channel moved (32-bit).
  uint64_t mvm_busy = 0, dpu_busy = 0;
  bool have_units = false;
  for (const auto& u : res.units) {
    const auto dot = u.name.find('.');
    const std::string unit = dot == std::string::npos ? u.name : u.name.substr(dot + 1);
    have_units = true;
    if (unit == "mvm") mvm_busy += u.counters.busy;
    if (unit == "mvm_dpu" || unit == "dw_dpu") dpu_busy += u.counters.busy;
  }
  auto check = [&](const std::string& what, uint64_t counted, uint64_t device, uint64_t modulo) {
    if (modulo ? counted % modulo != device % modulo : counted != device)
      s.mismatches.push_back(what + ": the bundle asks for " + std::to_string(counted) + ", the device counted " +
                             std::to_string(device));
  };
  if (have_units) {
    s.checked = true;
    const uint64_t c = spec::param::imc_tile_rows / spec::param::mvm_rows_per_cycle;
    check("MVM busy cycles (tile-ops x " + std::to_string(c) + ")", w.tile_ops * c, mvm_busy, uint64_t{1} << 32);
    check("DPU instructions", w.dpu_instructions, dpu_busy, uint64_t{1} << 32);
  }
  if (!res.dma.empty() && w.exact) {
    s.checked = true;
    for (const auto& d : res.dma) {
      const auto it = w.dma_bytes.find(d.name);
      check(d.name + " bytes", it == w.dma_bytes.end() ? 0 : it->second, d.bytes, uint64_t{1} << 32);
    }
  }
  return s;
}

std::string stats_json(const RunStats& s) {
  char b[512];
  std::snprintf(b, sizeof b,
                "{\"cycles\": %llu, \"macs\": %llu, \"ddr_bytes\": %llu, \"dpu_instructions\": %llu, "
                "\"roofline_cycles\": %.1f, \"mvm_utilization\": %.6f, \"of_roofline\": %.6f, \"checked\": %s",
                static_cast<unsigned long long>(s.cycles), static_cast<unsigned long long>(s.macs),
                static_cast<unsigned long long>(s.ddr_bytes), static_cast<unsigned long long>(s.dpu_instructions),
                s.roofline_cycles, s.mvm_utilization, s.of_roofline,
                s.checked && s.mismatches.empty() ? "true" : "false");
  std::string out = b;
  out += ", \"mismatches\": [";
  for (size_t i = 0; i < s.mismatches.size(); ++i) out += (i ? ", \"" : "\"") + s.mismatches[i] + "\"";
  out += "], \"sticky\": {";
  bool first = true;
  for (const auto& [name, v] : s.sticky) {
    out += (first ? "\"" : ", \"") + name + "\": " + std::to_string(v);
    first = false;
  }
  return out + "}}\n";
}

std::string stats_line(const Work& w, const RunStats& s) {
  const double cores = std::max(w.cores, 1u);
  const double mac_rate = static_cast<double>(kTileMacs) * spec::param::mvm_rows_per_cycle / spec::param::imc_tile_rows;
  auto c = [](double v) { return grouped(static_cast<uint64_t>(v + 0.5)); };
  char pct[96];
  std::snprintf(pct, sizeof pct, "%.1f%% of roofline; MVM util %.1f%%", 100.0 * s.of_roofline,
                100.0 * s.mvm_utilization);
  return "roofline: " + c(s.roofline_cycles) + " cycles (max of MVM " +
         c(static_cast<double>(w.macs) / (mac_rate * cores)) + ", DDR " +
         c(static_cast<double>(w.ddr_bytes) / spec::param::axi_data_bytes) + ", DPU " +
         c(static_cast<double>(w.dpu_instructions) / cores) + ") against " + grouped(s.cycles) + ": " + pct;
}

}  // namespace axcore::runtime
