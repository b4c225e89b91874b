// Row 0: identity/config registers, the cycle counter, SysDMA and the token unit (a
// token_fifo_depth FIFO popped through TOKEN_POP; a token arriving at a full FIFO is dropped,
// counted in TOKEN_DROPPED and recorded as TOKEN_OVERFLOW).
#pragma once

#include <deque>
#include <functional>
#include <memory>

#include "dma_engine.hpp"
#include "tile.hpp"

namespace axcore::tlm {

class ShimTile : public Tile {
 public:
  ShimTile(sc_core::sc_module_name n, Tracer& tracer, uint32_t cores, WordFabric* fabric);
  void offer_token(uint32_t token, uint64_t cycle);
  bool busy() const override { return dma->busy(); }
  std::function<bool()> device_busy, device_error;
  std::function<void()> soft_reset;  // CTRL.soft_reset: every tile (wired by TlmDevice)
  // This tile's part of the soft reset: SysDMA, the token FIFO, TOKEN_DROPPED, errors.
  void reset_tile();
  std::unique_ptr<DmaEngine> dma;

 private:
  std::deque<uint32_t> tokens_;
  uint32_t dropped_ = 0, cycle_hi_ = 0;
};

}  // namespace axcore::tlm
