/* NOLINTBEGIN -- a C header: typedef and C casts are its language (.clang-tidy) */
/* Hardware abstraction layer: the only code that touches device registers and DDR. Everything
 * above it (TXN player, mailbox, status page) works in terms of these calls. */
#ifndef AXFW_HAL_H
#define AXFW_HAL_H

#include <stdint.h>

#include "axfw/port.h"
#include "axfw/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cycles between polls of a register or TOKEN_POP (the runtime Device's poll_interval_cycles). */
#define AXFW_POLL_INTERVAL_CYCLES 16u

typedef struct axfw_hal {
  const axfw_port* port;
  /* Tokens popped while waiting for another task, claimed by later waits (Device::wait_token). */
  uint32_t stash[AXC_TOKEN_FIFO_DEPTH];
  uint32_t stashed;
} axfw_hal;

typedef struct axfw_identity {
  uint32_t id, version, config;
  uint32_t spec_hash_lo, spec_hash_hi;
  uint32_t cores; /* CONFIG.cores */
} axfw_identity;

void axfw_hal_init(axfw_hal* h, const axfw_port* port);

uint32_t axfw_hal_read32(axfw_hal* h, uint64_t addr);
void axfw_hal_write32(axfw_hal* h, uint64_t addr, uint32_t value);
uint32_t axfw_hal_ddr_read32(axfw_hal* h, uint64_t addr);
void axfw_hal_ddr_write32(axfw_hal* h, uint64_t addr, uint32_t value);
void axfw_hal_barrier(axfw_hal* h);
uint64_t axfw_hal_cycle(axfw_hal* h);
void axfw_hal_wait(axfw_hal* h, uint32_t cycles);

void axfw_hal_identity(axfw_hal* h, axfw_identity* out);
/* ERROR_INFO of tile (col, row); 0 for rows the device does not have. */
uint32_t axfw_hal_error_info(axfw_hal* h, uint32_t col, uint32_t row);

/* Polls until (reg & mask) == (value & mask). Returns 0, or -1 on timeout with the last value read
 * in *last. */
int axfw_hal_poll(axfw_hal* h, uint64_t addr, uint32_t value, uint32_t mask, uint64_t timeout_cycles, uint32_t* last);

/* Waits for the completion token of (col, row, dir, channel), stashing other tokens.
 * Returns 0 with the token in *token, -1 on timeout, -2 when the stash is full. */
int axfw_hal_wait_token(axfw_hal* h, uint32_t col, uint32_t row, uint32_t dir, uint32_t channel,
                        uint64_t timeout_cycles, uint32_t* token);

/* Register address of `offset` in tile (col, row). */
static inline uint64_t axfw_tile_addr(uint32_t col, uint32_t row, uint32_t offset) {
  return axc_tile_addr(col, row, offset);
}
/* Field of a 32-bit word. */
static inline uint32_t axfw_field(uint32_t word, uint32_t lsb, uint32_t width) { return axc_field(word, lsb, width); }

#ifdef __cplusplus
}
#endif
#endif /* AXFW_HAL_H */
/* NOLINTEND */
