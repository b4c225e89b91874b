/* The firmware as a Linux userspace program on the board's application processor (aarch64):
 * registers through a UIO device, DDR through a u-dma-buf buffer. Usage:
 *   axfw_linux /dev/uio0 /dev/udmabuf0 PHYS_ADDR BYTES MAILBOX_OFFSET
 * The host side (axrun --backend fpga / the bring-up tool) attaches to the mailbox. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "axfw/firmware.h"

typedef struct board {
  volatile uint32_t* regs;
  volatile uint32_t* ddr;
  uint64_t ddr_phys, ddr_bytes;
} board;

#define REG_WINDOW (1u << 25) /* one column */

static uint32_t reg_read(void* ctx, uint64_t a) { return ((board*)ctx)->regs[a / 4u]; }
static void reg_write(void* ctx, uint64_t a, uint32_t v) { ((board*)ctx)->regs[a / 4u] = v; }
static uint32_t ddr_read(void* ctx, uint64_t a) { return ((board*)ctx)->ddr[(a - ((board*)ctx)->ddr_phys) / 4u]; }
static void ddr_write(void* ctx, uint64_t a, uint32_t v) { ((board*)ctx)->ddr[(a - ((board*)ctx)->ddr_phys) / 4u] = v; }
static uint64_t cycle(void* ctx) {
  const uint32_t lo = reg_read(ctx, AXC_SHIM_CYCLE_LO_OFFSET);
  return (uint64_t)reg_read(ctx, AXC_SHIM_CYCLE_HI_OFFSET) << 32 | lo;
}
static void wait(void* ctx, uint32_t cycles) {
  (void)ctx;
  const struct timespec ts = {0, (long)cycles * 10L}; /* >= 100 MHz fabric clock */
  nanosleep(&ts, 0);
}
static void barrier(void* ctx) {
  (void)ctx;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s /dev/uioN /dev/udmabufN PHYS_ADDR BYTES MAILBOX_OFFSET\n", argv[0]);
    return 2;
  }
  board b;
  b.ddr_phys = strtoull(argv[3], 0, 0);
  b.ddr_bytes = strtoull(argv[4], 0, 0);
  const uint64_t mb = strtoull(argv[5], 0, 0);
  const int ufd = open(argv[1], O_RDWR | O_SYNC), dfd = open(argv[2], O_RDWR | O_SYNC);
  if (ufd < 0 || dfd < 0) {
    perror("axfw_linux: open");
    return 1;
  }
  void* r = mmap(0, REG_WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED, ufd, 0);
  void* d = mmap(0, (size_t)b.ddr_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
  if (r == MAP_FAILED || d == MAP_FAILED) {
    perror("axfw_linux: mmap");
    return 1;
  }
  b.regs = (volatile uint32_t*)r;
  b.ddr = (volatile uint32_t*)d;
  const axfw_port port = {&b, reg_read, reg_write, ddr_read, ddr_write, cycle, wait, barrier};
  static axfw fw;
  const uint32_t rc = axfw_init(&fw, &port, b.ddr_phys + mb, 8, 8);
  if (rc != AXFW_OK)
    fprintf(stderr, "axfw_linux: %s (the device is not the spec this firmware was built for)\n", axfw_status_name(rc));
  axfw_run(&fw, 4096);
  return 0;
}
