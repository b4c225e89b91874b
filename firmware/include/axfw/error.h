/* NOLINTBEGIN -- a C header: typedef and C casts are its language (.clang-tidy) */
/* Firmware status codes: what a completion (and the status page's last error) reports. */
#ifndef AXFW_ERROR_H
#define AXFW_ERROR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum axfw_status {
  AXFW_OK = 0,
  AXFW_ERR_TXN_HEADER = 1,      /* stream shorter than its header, or header bytes != length */
  AXFW_ERR_TXN_DEVICE = 2,      /* the header names another device (devGen, rows, cols, TXN major) */
  AXFW_ERR_TXN_OPCODE = 3,      /* unknown opcode, or one without a word layout */
  AXFW_ERR_TXN_LENGTH = 4,      /* an op's size word is wrong, or the op runs past the stream */
  AXFW_ERR_TXN_COUNT = 5,       /* header op count != ops in the stream */
  AXFW_ERR_TXN_UNSUPPORTED = 6, /* loadpdi, scratchpads, update_reg, read_regs, ...; a maskwrite32 or
                                   blockwrite reaching a queue register (only a write32 pushes) */
  AXFW_ERR_PATCH_UNBOUND = 7,   /* DDR_PATCH names an argument the submission does not bind */
  AXFW_ERR_PATCH_RANGE = 8,     /* DDR_PATCH offset past its buffer */
  AXFW_ERR_POLL_TIMEOUT = 9,    /* MASKPOLL did not match within the poll timeout */
  AXFW_ERR_TOKEN_TIMEOUT = 10,  /* TCT: no completion token within the token timeout */
  AXFW_ERR_TOKEN_ERROR = 11,    /* TCT: the task ended with an error token (detail = token) */
  AXFW_ERR_STASH_FULL = 12,     /* more unclaimed tokens than the token FIFO holds */
  AXFW_ERR_SUBMISSION = 13,     /* malformed submission (length, bindings) */
  AXFW_ERR_SPEC_HASH = 14,      /* the device's spec hash is not the firmware's */
  AXFW_STATUS_COUNT = 15
};

/* Where and why a submission failed. */
typedef struct axfw_error {
  uint32_t code;   /* enum axfw_status */
  uint32_t word;   /* stream word of the op that failed */
  uint32_t detail; /* token word, size word, argument index, last polled value, ... */
  uint64_t addr;   /* register or offset involved */
} axfw_error;

/* "token_timeout" etc.; never 0. */
const char* axfw_status_name(uint32_t code);

#ifdef __cplusplus
}
#endif
#endif /* AXFW_ERROR_H */
/* NOLINTEND */
