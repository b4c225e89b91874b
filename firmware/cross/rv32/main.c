/* Bare-metal entry for the board's management soft core (rv32imc): the device's registers and a
 * window onto DDR are memory-mapped; the cycle count is the shim's CYCLE_LO/HI. */
#include <stdint.h>

#include "axfw/firmware.h"

#ifndef AXFW_REG_BASE
#define AXFW_REG_BASE 0x40000000u /* device register window (col << 25 | row << 20 | offset) */
#endif
#ifndef AXFW_DDR_WINDOW
#define AXFW_DDR_WINDOW 0x80000000u /* where the soft core sees DDR device address AXFW_DDR_BUS */
#endif
#ifndef AXFW_DDR_BUS
#define AXFW_DDR_BUS 0x0u
#endif
#ifndef AXFW_MAILBOX
#define AXFW_MAILBOX 0x00100000u /* DDR device address of the mailbox (the host driver's contract) */
#endif

int main(void);

static volatile uint32_t* reg_ptr(uint64_t addr) {
  return (volatile uint32_t*)(uintptr_t)(AXFW_REG_BASE + (uint32_t)addr);
}
static volatile uint32_t* ddr_ptr(uint64_t addr) {
  return (volatile uint32_t*)(uintptr_t)(AXFW_DDR_WINDOW + (uint32_t)(addr - AXFW_DDR_BUS));
}
static uint32_t reg_read(void* ctx, uint64_t addr) {
  (void)ctx;
  return *reg_ptr(addr);
}
static void reg_write(void* ctx, uint64_t addr, uint32_t v) {
  (void)ctx;
  *reg_ptr(addr) = v;
}
static uint32_t ddr_read(void* ctx, uint64_t addr) {
  (void)ctx;
  return *ddr_ptr(addr);
}
static void ddr_write(void* ctx, uint64_t addr, uint32_t v) {
  (void)ctx;
  *ddr_ptr(addr) = v;
}
static uint64_t cycle(void* ctx) {
  (void)ctx;
  const uint32_t lo = *reg_ptr(AXC_SHIM_CYCLE_LO_OFFSET); /* latches CYCLE_HI */
  return (uint64_t)*reg_ptr(AXC_SHIM_CYCLE_HI_OFFSET) << 32 | lo;
}
static void wait(void* ctx, uint32_t cycles) {
  const uint64_t end = cycle(ctx) + cycles;
  while (cycle(ctx) < end) {}
}
static void barrier(void* ctx) {
  (void)ctx;
  __asm__ volatile("fence" ::: "memory");
}

static const axfw_port port = {0, reg_read, reg_write, ddr_read, ddr_write, cycle, wait, barrier};
static axfw fw;

int main(void) {
  axfw_init(&fw, &port, AXFW_MAILBOX, 8, 8);
  axfw_run(&fw, 256);
  return 0;
}
