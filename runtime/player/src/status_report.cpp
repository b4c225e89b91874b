#include <axcore/spec.hpp>

#include "axcore/runtime/player.hpp"
#include "axcore/text/hex.hpp"

namespace axcore::runtime {
namespace {

namespace P = spec::param;

std::string hex8(uint32_t v) { return text::hex_width(v, 10); }

struct Reader {
  device::Device& dev;
  std::string out;
  void reg(const char* name, uint64_t addr) {
    out += std::string(" ") + name + "=";
    try {
      out += hex8(dev.read32(addr));
    } catch (const device::DeviceError&) { out += "unreadable"; }
  }
  void error_block(unsigned row) {
    const auto at = [&](uint32_t off) { return spec::tile_addr(0, row, off); };
    try {
      const uint32_t st = dev.read32(at(spec::shim::ERROR_STATUS.offset));
      out += " ERROR_STATUS=" + hex8(st);
      if (st) {
        const uint32_t info = dev.read32(at(spec::shim::ERROR_INFO.offset));
        const auto i = spec::shim::ErrorInfo::decode_word(info);
        out += " ERROR_INFO=" + hex8(info) + " (" + std::string(spec::to_string(i.code)) + ", " +
               (i.channel >= P::core_queue_channel_base
                    ? "queue " + std::to_string(i.channel - P::core_queue_channel_base)
                    : std::string(i.dir ? "MM2S" : "S2MM") + " ch" + std::to_string(i.channel)) +
               ", detail " + std::to_string(i.detail) + ")";
        out += " ERROR_ADDR=" + hex8(dev.read32(at(spec::shim::ERROR_ADDR.offset)));
      }
    } catch (const device::DeviceError&) { out += " ERROR_STATUS=unreadable"; }
  }
  void dma(unsigned row) {
    for (uint32_t ch = 0; ch < P::dma_channels; ++ch) {
      const std::string c = std::to_string(ch);
      reg(("S2MM" + c).c_str(), spec::tile_addr(0, row, spec::shim::DMA_S2MM_STATUS.at(ch)));
      reg(("MM2S" + c).c_str(), spec::tile_addr(0, row, spec::shim::DMA_MM2S_STATUS.at(ch)));
    }
  }
};

}  // namespace

std::string status_report(device::Device& dev) {
  Reader r{dev, {}};
  r.out = "device status (" + std::string(dev.backend()) + ", cycle " + std::to_string(dev.cycle()) + "):\n  shim:";
  r.reg("STATUS", spec::tile_addr(0, P::shim_row, spec::shim::STATUS.offset));
  r.reg("TOKEN_DROPPED", spec::tile_addr(0, P::shim_row, spec::shim::TOKEN_DROPPED.offset));
  r.error_block(P::shim_row);
  r.dma(P::shim_row);
  r.out += "\n  mem:";
  r.reg("MEM_STATUS", spec::tile_addr(0, P::mem_row, spec::mem::MEM_STATUS.offset));
  r.error_block(P::mem_row);
  r.dma(P::mem_row);
  for (unsigned c = 0; c < dev.cores(); ++c) {
    const unsigned row = spec::core_row(c);
    r.out += "\n  core " + std::to_string(c) + ":";
    r.reg("CORE_STATUS", spec::tile_addr(0, row, spec::core::CORE_STATUS.offset));
    r.error_block(row);
    r.reg("WDOG_STATUS", spec::tile_addr(0, row, spec::core::WDOG_STATUS.offset));
    r.reg("WDOG_WAITS", spec::tile_addr(0, row, spec::core::WDOG_WAITS.offset));
    r.reg("IMC_STATUS", spec::tile_addr(0, row, spec::core::IMC_STATUS.offset));
    for (uint32_t q = 0; q < P::core_queues; ++q)
      r.reg(("Q_STATUS." + std::string(spec::to_string(static_cast<spec::Queue>(q)))).c_str(),
            spec::tile_addr(0, row, spec::core::Q_STATUS.at(q)));
    r.dma(row);
  }
  return r.out + "\n";
}

namespace {
// The registers of sticky_line, in its order.
constexpr const char* kSticky[] = {"IMC_STALE_READS", "TOKEN_DROPPED", "ERROR_STATUS", "WDOG_STATUS"};

std::string reg_of(const std::string& key) { return key.substr(key.find('.') + 1); }
std::string tile_of(const std::string& key) { return key.substr(0, key.find('.')); }
}  // namespace

StickyStatus read_sticky_status(device::Device& dev) {
  StickyStatus s;
  auto read = [&](const std::string& key, unsigned row, uint32_t off) {
    try {
      s[key] = dev.read32(spec::tile_addr(0, row, off));
    } catch (const device::DeviceError&) {}
  };
  read("shim.TOKEN_DROPPED", P::shim_row, spec::shim::TOKEN_DROPPED.offset);
  read("shim.ERROR_STATUS", P::shim_row, spec::shim::ERROR_STATUS.offset);
  read("mem.ERROR_STATUS", P::mem_row, spec::mem::ERROR_STATUS.offset);
  for (unsigned c = 0; c < dev.cores(); ++c) {
    const std::string core = "core" + std::to_string(c) + ".";
    const unsigned row = spec::core_row(c);
    read(core + "ERROR_STATUS", row, spec::core::ERROR_STATUS.offset);
    read(core + "WDOG_STATUS", row, spec::core::WDOG_STATUS.offset);
    read(core + "IMC_STALE_READS", row, spec::core::IMC_STALE_READS.offset);
  }
  return s;
}

std::string sticky_line(const StickyStatus& s) {
  std::string out = "sticky status:";
  bool first = true;
  for (const char* reg : kSticky) {
    uint64_t sum = 0;
    bool seen = false;
    std::string where;
    for (const auto& [key, v] : s) {
      if (reg_of(key) != reg) continue;
      seen = true;
      sum = std::string_view(reg).ends_with("_STATUS") ? (sum | v) : sum + v;  // bits OR-ed, counters summed
      if (v) where += (where.empty() ? "" : ", ") + tile_of(key) + " " + std::to_string(v);
    }
    if (!seen) continue;
    out += std::string(first ? " " : ", ") + reg + " " + std::to_string(sum);
    if (!where.empty()) out += " (" + where + ")";
    first = false;
  }
  return first ? out + " (the device reads none)" : out;
}

std::vector<std::string> sticky_warnings(const StickyStatus& s) {
  uint64_t stale = 0, dropped = 0;
  std::string errors, wdog;
  for (const auto& [key, v] : s) {
    const std::string reg = reg_of(key);
    if (reg == "IMC_STALE_READS") stale += v;
    if (reg == "TOKEN_DROPPED") dropped += v;
    if (reg == "ERROR_STATUS" && v)
      errors += (errors.empty() ? "" : ", ") + tile_of(key) + " " + hex8(static_cast<uint32_t>(v));
    if (reg == "WDOG_STATUS" && v) wdog += (wdog.empty() ? "" : ", ") + tile_of(key);
  }
  std::vector<std::string> w;
  if (stale)
    w.push_back(std::to_string(stale) +
                " MVM tile-ops read IMC tiles outside their residency (IMC_STALE_READS): a matrix was used after "
                "another one was loaded on its core, and the outputs were computed with stale weights (the "
                "language guide's §14 IMC reuse hazard; the compiler warns about it at compile time)");
  if (dropped)
    w.push_back(std::to_string(dropped) + " completion tokens were lost to a full token FIFO (TOKEN_DROPPED)");
  if (!errors.empty()) w.push_back("a tile reported an error (ERROR_STATUS " + errors + ")");
  if (!wdog.empty()) w.push_back("the watchdog aborted a datapath (WDOG_STATUS on " + wdog + ")");
  return w;
}

}  // namespace axcore::runtime
