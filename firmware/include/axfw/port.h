/* NOLINTBEGIN -- a C header: typedef and C casts are its language (.clang-tidy) */
/* The platform port: how the firmware reaches the device's registers, its DDR and its clock.
 * One implementation per target (board MMIO, Linux UIO, the host bridge to a runtime Device).
 * Only the HAL (hal.c) calls it. Addresses: registers col << 25 | row << 20 | offset; DDR in
 * device bus addresses, 4-byte aligned words. */
#ifndef AXFW_PORT_H
#define AXFW_PORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct axfw_port {
  void* ctx;
  uint32_t (*reg_read)(void* ctx, uint64_t addr);
  void (*reg_write)(void* ctx, uint64_t addr, uint32_t value);
  uint32_t (*ddr_read)(void* ctx, uint64_t addr);
  void (*ddr_write)(void* ctx, uint64_t addr, uint32_t value);
  uint64_t (*cycle)(void* ctx);             /* device cycles since reset */
  void (*wait)(void* ctx, uint32_t cycles); /* let the device run that long */
  void (*barrier)(void* ctx);               /* order DDR accesses against the host (may be 0) */
} axfw_port;

#ifdef __cplusplus
}
#endif
#endif /* AXFW_PORT_H */
/* NOLINTEND */
