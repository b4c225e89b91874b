#include <axcore/spec.hpp>

#include "axcore/runtime/player.hpp"
#include "axcore/text/hex.hpp"

namespace axcore::runtime {
namespace {

namespace P = spec::param;

std::string hex8(uint32_t v) { return text::hex_width(v, 10); }

struct Reader {
  Device& dev;
  std::string out;
  void reg(const char* name, uint64_t addr) {
    out += std::string(" ") + name + "=";
    try {
      out += hex8(dev.read32(addr));
    } catch (const DeviceError&) { out += "unreadable"; }
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
    } catch (const DeviceError&) { out += " ERROR_STATUS=unreadable"; }
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

std::string status_report(Device& dev) {
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

}  // namespace axcore::runtime
