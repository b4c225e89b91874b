#include "shim_tile.hpp"

namespace axcore::tlm {

ShimTile::ShimTile(sc_core::sc_module_name n, Tracer& tr, uint32_t cores, WordFabric* fabric)
    : Tile(n, spec::shim::kRegisters, spec::param::shim_row, tr) {
  dma = std::make_unique<DmaEngine>(
      "sysdma", ref::DmaEngine::sysdma(),
      DmaContext{&regs, &errors, &tracer, [this](uint32_t t, uint64_t c) { offer_token(t, c); }, row, cores, fabric});
  regs.at("CONFIG") = (regs.at("CONFIG") & ~0xFu) | (cores & 0xF);
  regs.on_read("TOKEN_POP", [this](uint32_t, uint32_t) {
    if (tokens_.empty()) return 0u;
    const uint32_t t = tokens_.front();
    tokens_.pop_front();
    return t;
  });
  regs.on_read("TOKEN_DROPPED", [this](uint32_t, uint32_t) { return dropped_; });
  regs.on_read("CYCLE_LO", [this](uint32_t, uint32_t) {
    const uint64_t c = now_cycles();
    cycle_hi_ = static_cast<uint32_t>(c >> 32);
    return static_cast<uint32_t>(c);
  });
  regs.on_read("CYCLE_HI", [this](uint32_t, uint32_t) { return cycle_hi_; });
  regs.on_read("STATUS", [this](uint32_t, uint32_t) {
    spec::shim::Status s;
    s.busy = device_busy && device_busy();
    s.error = device_error && device_error();
    s.tokens = static_cast<uint32_t>(tokens_.size());
    return s.encode_word();
  });
  regs.on_write("CTRL", [this](uint32_t, uint32_t, uint32_t v) {
    regs.at("CTRL") = 0;  // self-clearing
    if (spec::shim::Ctrl::decode_word(v).soft_reset && soft_reset) soft_reset();
  });
}

void ShimTile::reset_tile() {
  dma->reset();
  tokens_.clear();
  dropped_ = 0;
  errors.reset();
}

void ShimTile::offer_token(uint32_t token, uint64_t cycle) {
  if (tokens_.size() >= spec::param::token_fifo_depth) {
    ++dropped_;
    errors.report({spec::ErrorCode::TOKEN_OVERFLOW, 0, 0, 0, token});
    return;
  }
  tokens_.push_back(token);
  tracer.emit(cycle, row, trace::Unit::TOKEN, trace::Kind::TOKEN, 0, 0, 0, token);
}

}  // namespace axcore::tlm
