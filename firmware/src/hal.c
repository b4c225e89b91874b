/* The HAL: register, DDR and clock access through the port; the token protocol. */
#include "axfw/hal.h"

#define TOKEN_FIELD(w, f) axfw_field((w), AXC_TOKEN_##f##_LSB, AXC_TOKEN_##f##_WIDTH)

void axfw_hal_init(axfw_hal* h, const axfw_port* port) {
  h->port = port;
  h->stashed = 0;
}

uint32_t axfw_hal_read32(axfw_hal* h, uint64_t addr) { return h->port->reg_read(h->port->ctx, addr); }
void axfw_hal_write32(axfw_hal* h, uint64_t addr, uint32_t value) { h->port->reg_write(h->port->ctx, addr, value); }
uint32_t axfw_hal_ddr_read32(axfw_hal* h, uint64_t addr) { return h->port->ddr_read(h->port->ctx, addr); }
void axfw_hal_ddr_write32(axfw_hal* h, uint64_t addr, uint32_t value) { h->port->ddr_write(h->port->ctx, addr, value); }
void axfw_hal_barrier(axfw_hal* h) {
  if (h->port->barrier) h->port->barrier(h->port->ctx);
}
uint64_t axfw_hal_cycle(axfw_hal* h) { return h->port->cycle(h->port->ctx); }
void axfw_hal_wait(axfw_hal* h, uint32_t cycles) { h->port->wait(h->port->ctx, cycles); }

void axfw_hal_identity(axfw_hal* h, axfw_identity* out) {
  const uint32_t row = AXC_SHIM_ROW;
  out->id = axfw_hal_read32(h, axfw_tile_addr(0, row, AXC_SHIM_ID_OFFSET));
  out->version = axfw_hal_read32(h, axfw_tile_addr(0, row, AXC_SHIM_VERSION_OFFSET));
  out->spec_hash_lo = axfw_hal_read32(h, axfw_tile_addr(0, row, AXC_SHIM_SPEC_HASH_LO_OFFSET));
  out->spec_hash_hi = axfw_hal_read32(h, axfw_tile_addr(0, row, AXC_SHIM_SPEC_HASH_HI_OFFSET));
  out->config = axfw_hal_read32(h, axfw_tile_addr(0, row, AXC_SHIM_CONFIG_OFFSET));
  out->cores = axfw_field(out->config, AXC_SHIM_CONFIG_CORES_LSB, AXC_SHIM_CONFIG_CORES_WIDTH);
}

uint32_t axfw_hal_error_info(axfw_hal* h, uint32_t col, uint32_t row) {
  /* ERROR_INFO sits at the same offset in every tile kind. */
  return axfw_hal_read32(h, axfw_tile_addr(col, row, AXC_SHIM_ERROR_INFO_OFFSET));
}

int axfw_hal_poll(axfw_hal* h, uint64_t addr, uint32_t value, uint32_t mask, uint64_t timeout_cycles, uint32_t* last) {
  const uint64_t start = axfw_hal_cycle(h);
  for (;;) {
    const uint32_t v = axfw_hal_read32(h, addr);
    if ((v & mask) == (value & mask)) return 0;
    if (axfw_hal_cycle(h) - start >= timeout_cycles) {
      *last = v;
      return -1;
    }
    axfw_hal_wait(h, AXFW_POLL_INTERVAL_CYCLES);
  }
}

static int token_matches(uint32_t w, uint32_t col, uint32_t row, uint32_t dir, uint32_t channel) {
  return TOKEN_FIELD(w, COL) == col && TOKEN_FIELD(w, ROW) == row && TOKEN_FIELD(w, DIR) == dir &&
         TOKEN_FIELD(w, CHANNEL) == channel;
}

int axfw_hal_wait_token(axfw_hal* h, uint32_t col, uint32_t row, uint32_t dir, uint32_t channel,
                        uint64_t timeout_cycles, uint32_t* token) {
  for (uint32_t i = 0; i < h->stashed; ++i) {
    if (token_matches(h->stash[i], col, row, dir, channel)) {
      *token = h->stash[i];
      for (uint32_t j = i + 1; j < h->stashed; ++j) h->stash[j - 1] = h->stash[j];
      --h->stashed;
      return 0;
    }
  }
  const uint64_t pop = axfw_tile_addr(0, AXC_SHIM_ROW, AXC_SHIM_TOKEN_POP_OFFSET);
  const uint64_t start = axfw_hal_cycle(h);
  for (;;) {
    const uint32_t w = axfw_hal_read32(h, pop);
    if (TOKEN_FIELD(w, VALID)) {
      if (token_matches(w, col, row, dir, channel)) {
        *token = w;
        return 0;
      }
      if (h->stashed == AXC_TOKEN_FIFO_DEPTH) return -2;
      h->stash[h->stashed++] = w;
      continue; /* drain before advancing the clock */
    }
    if (axfw_hal_cycle(h) - start >= timeout_cycles) return -1;
    axfw_hal_wait(h, AXFW_POLL_INTERVAL_CYCLES);
  }
}
