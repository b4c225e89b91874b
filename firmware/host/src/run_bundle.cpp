#include "axfw/host/run_bundle.hpp"

#include "axcore/runtime/buffer_image.hpp"

namespace axcore::fw {

FirmwareRunResult run_bundle_via_firmware(runtime::Device& dev, const runtime::Bundle& b, const runtime::Arrays& inputs,
                                          uint64_t idle_timeout_cycles) {
  using namespace runtime;
  check_inputs(b, inputs);
  const auto bits = param_bits(b, {});
  if (b.txn.empty()) throw RunError("the bundle has no TXN stream; only the ref backend can run it");
  FirmwareInTheLoop fitl(dev);
  // Buffers below the mailbox, which sits at the top of DDR.
  const auto at = place_buffers(b, fitl.mailbox_offset());
  std::vector<Binding> args;
  for (const auto& buf : b.buffers) {
    if (!buf.arg) continue;
    if (args.size() <= *buf.arg) args.resize(*buf.arg + 1, {0, 0});
    args[*buf.arg] = {dev.ddr_base() + at.at(buf.name), device_bytes(buf)};
  }
  for (const auto& buf : b.buffers) {
    std::vector<uint8_t> img;
    if (buf.role == BufferRole::INPUT)
      img = to_device_image(buf, inputs.find(buf.name)->second);
    else if (buf.role == BufferRole::CONSTANT)
      img = to_device_image(buf, constant_array(b, buf));
    else
      continue;
    dev.ddr_write(at.at(buf.name), img);
  }
  for (const auto& c : b.commands)
    dev.block_write(spec::tile_addr(0, spec::core_row(c.core), spec::core::CMD_MEM.at(c.word)), c.words);
  for (const auto& p : b.params)
    for (const auto& t : p.targets) dev.mask_write32(t.addr, bits.at(p.name) << t.shift, t.mask);
  FirmwareRunResult r;
  r.completion = fitl.run(b.txn, args);
  r.status = fitl.client().status();
  if (r.completion.status != AXFW_OK)
    throw MailboxError("firmware: " + r.completion.describe() + "\n  status: " + r.status.describe());
  dev.run_until_idle(idle_timeout_cycles);
  for (const auto& buf : b.buffers) {
    if (buf.role != BufferRole::OUTPUT) continue;
    std::vector<uint8_t> img(device_bytes(buf));
    dev.ddr_read(at.at(buf.name), img);
    r.outputs.emplace(buf.name, from_device_image(buf, img));
  }
  return r;
}

}  // namespace axcore::fw
