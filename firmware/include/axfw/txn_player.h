/* NOLINTBEGIN -- a C header: typedef and C casts are its language (.clang-tidy) */
/* The freestanding TXN player: the runtime player's semantics (runtime/player) over a stream that
 * sits in DDR, with the buffer bindings in a DDR table. The stream is checked whole (header,
 * device, every op's opcode and length, op count) before the first op touches the device. */
#ifndef AXFW_TXN_PLAYER_H
#define AXFW_TXN_PLAYER_H

#include <stdint.h>

#include "axfw/error.h"
#include "axfw/hal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A binding table entry in DDR: 4 words (addr_lo, addr_hi, bytes_lo, bytes_hi). */
#define AXFW_BINDING_WORDS 4u
#define AXFW_MAX_BINDINGS 256u

#define AXFW_DEFAULT_TOKEN_TIMEOUT 50000000u /* the runtime's PlayOptions defaults */
#define AXFW_DEFAULT_POLL_TIMEOUT 10000000u

typedef struct axfw_play_args {
  uint64_t txn_addr;                                  /* DDR address of the stream (header first) */
  uint32_t txn_bytes;                                 /* its length */
  uint64_t bind_addr;                                 /* DDR address of the binding table */
  uint32_t nbind;                                     /* entries in it; argument i of DDR_PATCH is entry i */
  uint64_t token_timeout_cycles, poll_timeout_cycles; /* 0 = the defaults above */
  uint32_t cores; /* the device's cores (CONFIG.cores): TXN header rows = 2 + cores */
} axfw_play_args;

typedef struct axfw_play_stats {
  uint32_t ops, writes, block_words, mask_writes, polls, patches, waits, tokens, noops;
} axfw_play_stats;

/* Returns AXFW_OK or an error code; *err says where (err->word = the op's stream word). */
uint32_t axfw_play(axfw_hal* h, const axfw_play_args* a, axfw_play_stats* st, axfw_error* err);

#ifdef __cplusplus
}
#endif
#endif /* AXFW_TXN_PLAYER_H */
/* NOLINTEND */
