// Runs a `.axb` bundle with the firmware playing its TXN (firmware in the loop): the same
// placement, inputs, command streams and parameters as runtime::run_on_device, then the stream
// and its bindings go through the DDR mailbox and the firmware plays them.
#pragma once

#include "axcore/runtime/program.hpp"
#include "axfw/host/mailbox_client.hpp"

namespace axcore::fw {

struct FirmwareRunResult {
  runtime::Arrays outputs;
  Completion completion;
  StatusPage status;
};

// Throws runtime::RunError for bad inputs, MailboxError when the firmware reports a failure
// (the message carries the completion and the status page).
FirmwareRunResult run_bundle_via_firmware(device::Device& dev, const runtime::Bundle& b, const runtime::Arrays& inputs,
                                          uint64_t idle_timeout_cycles = 10'000'000);

}  // namespace axcore::fw
