// The host side of the firmware mailbox (firmware/include/axfw/mailbox.h): places a TXN stream and
// its binding table in device DDR, submits it, and reads completions and the status page. The
// firmware runs in the same process (axfw_step) in the host build, or on the board.
#pragma once

#include <axfw/firmware.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "axcore/device/device.hpp"

namespace axcore::fw {

class MailboxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Binding {
  uint64_t addr = 0, bytes = 0;  // device bus address, size
};

struct Completion {
  uint32_t id = 0, status = 0, word = 0, detail = 0;
  uint64_t addr = 0;
  uint32_t ops = 0, cycles = 0;
  // "token_error at word 57: detail 0x..., addr 0x..."
  std::string describe() const;
};

struct StatusPage {
  uint32_t words[AXFW_STATUS_WORDS] = {};
  uint32_t at(uint32_t w) const { return words[w]; }
  uint64_t fw_spec_hash() const { return uint64_t{words[AXFW_ST_SPEC_HASH_HI]} << 32 | words[AXFW_ST_SPEC_HASH_LO]; }
  uint64_t dev_spec_hash() const { return uint64_t{words[AXFW_ST_DEV_HASH_HI]} << 32 | words[AXFW_ST_DEV_HASH_LO]; }
  std::string describe() const;
};

class MailboxClient {
 public:
  // `base`: DDR offset (from ddr_base()) of the mailbox; `scratch`: DDR offset of a region the
  // client may use for streams and binding tables (bytes long).
  MailboxClient(device::Device& dev, uint64_t base, uint64_t scratch, uint64_t scratch_bytes);

  // Waits for the firmware's magic (throws MailboxError if absent).
  void attach();
  // Copies the stream and bindings into the scratch region and submits them; returns the id.
  uint32_t submit(std::span<const uint32_t> txn, std::span<const Binding> bindings, uint32_t token_timeout = 0,
                  uint32_t poll_timeout = 0);
  std::optional<Completion> poll();
  StatusPage status();
  uint64_t mailbox_addr() const { return dev_.ddr_base() + base_; }

 private:
  uint32_t rd(uint64_t off);
  void wr(uint64_t off, uint32_t v);

  device::Device& dev_;
  uint64_t base_, scratch_, scratch_bytes_, cursor_ = 0;
  uint32_t sub_entries_ = 0, cmp_entries_ = 0, next_id_ = 1;
};

// Firmware + client in one process: init, submit, step until the completion arrives.
class FirmwareInTheLoop {
 public:
  // The mailbox and its scratch region take the top kReservedBytes of DDR by default.
  static constexpr uint64_t kReservedBytes = 2u << 20;
  explicit FirmwareInTheLoop(device::Device& dev, uint32_t entries = 4);
  FirmwareInTheLoop(device::Device& dev, uint64_t mailbox_offset, uint32_t entries);
  ~FirmwareInTheLoop();
  FirmwareInTheLoop(const FirmwareInTheLoop&) = delete;
  FirmwareInTheLoop& operator=(const FirmwareInTheLoop&) = delete;

  uint32_t init_status() const { return init_rc_; }
  uint64_t mailbox_offset() const { return mailbox_offset_; }
  Completion run(std::span<const uint32_t> txn, std::span<const Binding> bindings, uint32_t token_timeout = 0);
  MailboxClient& client() { return client_; }
  axfw& firmware() { return *fw_; }

 private:
  struct PortHolder;
  std::unique_ptr<PortHolder> port_;
  std::unique_ptr<axfw> fw_;
  MailboxClient client_;
  uint32_t init_rc_ = 0;
  uint64_t mailbox_offset_ = 0;
};

}  // namespace axcore::fw
