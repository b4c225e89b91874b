// Row 1: L2 (a DMI memory on the fabric), MemDMA and the L2 debug window.
#pragma once

#include <memory>

#include "dma_engine.hpp"
#include "memory.hpp"
#include "tile.hpp"

namespace axcore::tlm {

class MemTile : public Tile {
 public:
  MemTile(sc_core::sc_module_name n, Tracer& tracer, uint32_t cores, TokenSink token, WordFabric* fabric);
  bool busy() const override { return dma->busy(); }
  Memory l2;
  std::unique_ptr<DmaEngine> dma;
};

}  // namespace axcore::tlm
