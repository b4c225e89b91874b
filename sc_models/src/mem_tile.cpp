#include "mem_tile.hpp"

#include <cstring>

namespace axcore::tlm {

MemTile::MemTile(sc_core::sc_module_name n, Tracer& tr, uint32_t cores, TokenSink token, WordFabric* fabric)
    : Tile(n, spec::mem::kRegisters, spec::param::mem_row, tr), l2("l2", spec::param::l2_bytes) {
  dma = std::make_unique<DmaEngine>("memdma", ref::DmaEngine::memdma(),
                                    DmaContext{&regs, &errors, &tracer, std::move(token), row, cores, fabric});
  regs.on_read("MEM_STATUS", [this](uint32_t, uint32_t) { return dma->busy() ? 1u : 0u; });
  auto word = [this]() -> uint8_t* {
    const uint32_t a = regs.at("DBG_MEM_ADDR") & ~3u;
    return a + 4 <= l2.bytes().size() ? &l2.bytes()[a] : nullptr;
  };
  regs.on_read("DBG_MEM_DATA", [this, word](uint32_t, uint32_t) {
    uint32_t v = 0;
    if (uint8_t* p = word()) std::memcpy(&v, p, 4);
    regs.at("DBG_MEM_ADDR") += 4;
    return v;
  });
  regs.on_write("DBG_MEM_DATA", [this, word](uint32_t, uint32_t, uint32_t v) {
    if (uint8_t* p = word()) std::memcpy(p, &v, 4);
    regs.at("DBG_MEM_ADDR") += 4;
  });
}

}  // namespace axcore::tlm
