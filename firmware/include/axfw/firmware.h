/* NOLINTBEGIN -- a C header: typedef and C casts are its language (.clang-tidy) */
/* The control program: owns the mailbox, plays submissions, reports completions and status.
 * The board's main loop calls axfw_step forever; the host build's tests call it directly. */
#ifndef AXFW_FIRMWARE_H
#define AXFW_FIRMWARE_H

#include <stdint.h>

#include "axfw/error.h"
#include "axfw/hal.h"
#include "axfw/mailbox.h"
#include "axfw/txn_player.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct axfw {
  axfw_hal hal;
  uint64_t mb; /* DDR address of the mailbox */
  uint32_t sub_entries, cmp_entries;
  uint32_t cores;
  uint32_t state;                       /* enum axfw_state */
  uint32_t counters[AXFW_STATUS_WORDS]; /* mirror of the status page */
} axfw;

/* Reads the device identity, checks its spec hash against the firmware's, writes the mailbox
 * control block (indices 0) and the status page. Returns AXFW_OK, or AXFW_ERR_SPEC_HASH (state
 * FAULT: every submission then completes with that error). */
uint32_t axfw_init(axfw* fw, const axfw_port* port, uint64_t mailbox, uint32_t sub_entries, uint32_t cmp_entries);

/* Takes at most one submission: plays it and writes its completion. Returns 1 if it did work, 0 if
 * the submission ring was empty or the completion ring full. */
int axfw_step(axfw* fw);

/* Board main loop: axfw_step forever, waiting `idle_cycles` between empty polls. */
void axfw_run(axfw* fw, uint32_t idle_cycles);

#ifdef __cplusplus
}
#endif
#endif /* AXFW_FIRMWARE_H */
/* NOLINTEND */
