// Shared by the firmware tests: play a stream through the firmware (mailbox + axfw_step) and
// through the runtime player on two fresh register-level devices, and compare what they did.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "axcore/runtime/player.hpp"
#include "axcore/runtime/regfile_device.hpp"
#include "axfw/host/mailbox_client.hpp"

namespace axcore::fw::testing {

struct Access {
  bool write;
  uint64_t addr;
  uint32_t value;
  bool operator==(const Access&) const = default;
};

inline std::vector<Access> accesses(const runtime::RegFileDevice& d, size_t from = 0) {
  std::vector<Access> v;
  for (size_t i = from; i < d.log().size(); ++i) v.push_back({d.log()[i].write, d.log()[i].addr, d.log()[i].value});
  return v;
}

struct FwOutcome {
  Completion completion;
  StatusPage status;
  std::vector<Access> accesses;  // during the submission only
  std::vector<trace::Record> trace;
};

inline FwOutcome run_firmware(runtime::RegFileDevice& dev, const std::vector<uint32_t>& txn,
                              const std::vector<Binding>& bind, uint32_t token_timeout = 0) {
  FwOutcome o;
  dev.set_trace_sink([&](const trace::Record& r) { o.trace.push_back(r); });
  FirmwareInTheLoop fitl(dev);
  const size_t mark = dev.log().size();
  o.completion = fitl.run(txn, bind, token_timeout);
  o.accesses = accesses(dev, mark);
  o.status = fitl.client().status();
  dev.set_trace_sink({});
  return o;
}

inline std::vector<Binding> to_bindings(const std::vector<runtime::ArgBinding>& a) {
  std::vector<Binding> b;
  for (const auto& x : a) b.push_back({x.addr, x.bytes});
  return b;
}

}  // namespace axcore::fw::testing
