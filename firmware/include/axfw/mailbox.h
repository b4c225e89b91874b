/* NOLINTBEGIN -- a C header: typedef and C casts are its language (.clang-tidy) */
/* The host mailbox in DDR, as both sides see it (32-bit little-endian words from `base`):
 *   control block   AXFW_MB_CTRL_WORDS words (magic, version, ring sizes, indices)
 *   submissions     sub_entries x AXFW_SUB_WORDS   (host produces, firmware consumes)
 *   completions     cmp_entries x AXFW_CMP_WORDS   (firmware produces, host consumes)
 *   status page     AXFW_STATUS_WORDS              (firmware writes, host reads)
 * Indices are free-running 32-bit counters; slot = index % entries; a ring is full when
 * head - tail == entries. The firmware writes the control block and status page at init. */
#ifndef AXFW_MAILBOX_H
#define AXFW_MAILBOX_H

#include <stdint.h>

#define AXFW_MB_MAGIC 0x424D5841u     /* "AXMB" */
#define AXFW_STATUS_MAGIC 0x54535841u /* "AXST" */
#define AXFW_MB_VERSION 1u
#define AXFW_FW_VERSION_MAJOR 1u
#define AXFW_FW_VERSION_MINOR 0u

/* control block words */
#define AXFW_MB_CTRL_WORDS 16u
#define AXFW_MB_MAGIC_W 0u
#define AXFW_MB_VERSION_W 1u
#define AXFW_MB_SUB_ENTRIES_W 2u
#define AXFW_MB_CMP_ENTRIES_W 3u
#define AXFW_MB_SUB_HEAD_W 4u /* host writes */
#define AXFW_MB_SUB_TAIL_W 5u /* firmware writes */
#define AXFW_MB_CMP_HEAD_W 6u /* firmware writes */
#define AXFW_MB_CMP_TAIL_W 7u /* host writes */

/* submission entry words */
#define AXFW_SUB_WORDS 16u
#define AXFW_SUB_ID 0u
#define AXFW_SUB_FLAGS 1u /* 0 (reserved) */
#define AXFW_SUB_TXN_LO 2u
#define AXFW_SUB_TXN_HI 3u
#define AXFW_SUB_TXN_BYTES 4u
#define AXFW_SUB_NBIND 5u
#define AXFW_SUB_BIND_LO 6u /* binding table: nbind x (addr_lo, addr_hi, bytes_lo, bytes_hi) */
#define AXFW_SUB_BIND_HI 7u
#define AXFW_SUB_TOKEN_TIMEOUT 8u /* cycles, 0 = default */
#define AXFW_SUB_POLL_TIMEOUT 9u

/* completion entry words */
#define AXFW_CMP_WORDS 8u
#define AXFW_CMP_ID 0u
#define AXFW_CMP_STATUS 1u /* enum axfw_status */
#define AXFW_CMP_WORD 2u   /* stream word of the failing op */
#define AXFW_CMP_DETAIL 3u
#define AXFW_CMP_ADDR_LO 4u
#define AXFW_CMP_ADDR_HI 5u
#define AXFW_CMP_OPS 6u    /* ops played */
#define AXFW_CMP_CYCLES 7u /* device cycles the submission took (low word) */

/* status page words */
#define AXFW_STATUS_WORDS 32u
#define AXFW_ST_MAGIC 0u
#define AXFW_ST_FW_VERSION 1u   /* major << 16 | minor */
#define AXFW_ST_SPEC_HASH_LO 2u /* the spec the firmware was built against */
#define AXFW_ST_SPEC_HASH_HI 3u
#define AXFW_ST_DEV_HASH_LO 4u /* what the device reports */
#define AXFW_ST_DEV_HASH_HI 5u
#define AXFW_ST_DEV_ID 6u
#define AXFW_ST_STATE 7u /* enum axfw_state */
#define AXFW_ST_CORES 8u
#define AXFW_ST_SUBMITTED 9u
#define AXFW_ST_COMPLETED 10u
#define AXFW_ST_FAILED 11u
#define AXFW_ST_OPS 12u
#define AXFW_ST_TOKENS 13u
#define AXFW_ST_TIMEOUTS 14u
#define AXFW_ST_HEARTBEAT 15u /* polls of the mailbox */
#define AXFW_ST_ERR_CODE 16u  /* last error */
#define AXFW_ST_ERR_ID 17u
#define AXFW_ST_ERR_WORD 18u
#define AXFW_ST_ERR_DETAIL 19u
#define AXFW_ST_ERR_ADDR_LO 20u
#define AXFW_ST_ERR_ADDR_HI 21u
#define AXFW_ST_ERR_INFO 22u /* ERROR_INFO of the tile a failed token names */

enum axfw_state { AXFW_STATE_BOOT = 0, AXFW_STATE_READY = 1, AXFW_STATE_BUSY = 2, AXFW_STATE_FAULT = 3 };

/* Byte offsets of the parts of a mailbox with these ring sizes. */
#define AXFW_MB_SUB_OFFSET (4u * AXFW_MB_CTRL_WORDS)
#define AXFW_MB_CMP_OFFSET(sub) (AXFW_MB_SUB_OFFSET + 4u * AXFW_SUB_WORDS * (sub))
#define AXFW_MB_STATUS_OFFSET(sub, cmp) (AXFW_MB_CMP_OFFSET(sub) + 4u * AXFW_CMP_WORDS * (cmp))
#define AXFW_MB_BYTES(sub, cmp) (AXFW_MB_STATUS_OFFSET(sub, cmp) + 4u * AXFW_STATUS_WORDS)

#endif /* AXFW_MAILBOX_H */
/* NOLINTEND */
