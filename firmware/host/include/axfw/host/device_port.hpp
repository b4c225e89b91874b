// The host build's MMIO bridge: an axfw_port whose registers, DDR and clock are a runtime Device
// (regfile, tlm, rtl or a board through fpga). Firmware in the loop runs the real firmware code
// against a simulated device through this.
#pragma once

#include <axfw/port.h>

#include <cstdint>

#include "axcore/device/device.hpp"

namespace axcore::fw {

class DevicePort {
 public:
  explicit DevicePort(device::Device& dev);
  DevicePort(const DevicePort&) = delete;
  DevicePort& operator=(const DevicePort&) = delete;

  const axfw_port* port() const { return &port_; }
  device::Device& device() { return dev_; }
  // Register accesses the firmware made (reads, writes), for tests and bring-up logs.
  uint64_t reg_reads = 0, reg_writes = 0, ddr_words = 0;

 private:
  device::Device& dev_;
  axfw_port port_{};
};

}  // namespace axcore::fw
