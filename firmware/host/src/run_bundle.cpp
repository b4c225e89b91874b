#include "axfw/host/run_bundle.hpp"

namespace axcore::fw {

FirmwareRunResult run_bundle_via_firmware(device::Device& dev, const runtime::Bundle& b, const runtime::Arrays& inputs,
                                          uint64_t idle_timeout_cycles) {
  using namespace runtime;
  check_inputs(b, inputs);
  const auto bits = param_bits(b, {});
  if (b.txn.empty()) throw RunError("the bundle has no TXN stream; only the ref backend can run it");
  FirmwareInTheLoop fitl(dev);
  // Buffers below the mailbox, which sits at the top of DDR.
  const auto at = place_buffers(b, fitl.mailbox_offset());
  std::vector<Binding> args;  // the mailbox's form of the runtime's argument bindings
  for (const auto& a : bind_arguments(b, dev.ddr_base(), at)) args.push_back({a.addr, a.bytes});
  write_buffer_images(dev, b, inputs, at);
  const auto program = prepare_program(dev, b, bits);
  FirmwareRunResult r;
  r.completion = fitl.run(program, args);
  r.status = fitl.client().status();
  if (r.completion.status != AXFW_OK)
    throw MailboxError("firmware: " + r.completion.describe() + "\n  status: " + r.status.describe());
  dev.run_until_idle(idle_timeout_cycles);
  read_outputs(dev, b, at, r.outputs);
  return r;
}

}  // namespace axcore::fw
