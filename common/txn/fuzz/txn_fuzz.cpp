// libFuzzer target over decode + trace + explain + compare (built with clang under ASan/UBSan).
// Besides "no crash", it checks properties every accepted stream must have:
//  - re-encoding the decoded ops from their typed fields decodes to the same fields;
//  - the re-encoded stream traces to the same events (reserved bits change nothing);
//  - a stream is equivalent to itself.
// Each input runs twice: as given, and with the header's byte count fixed up so that mutations
// reach the op decoder instead of stopping at the size check.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "axcore/txn/compare.hpp"
#include "axcore/txn/file.hpp"
#include "axcore/txn/stats.hpp"
#include "axcore/txn/trace.hpp"
#include "axcore/txn/writer.hpp"

namespace {

using namespace axcore::txn;

void require(bool ok) {
  if (!ok) std::abort();
}

void run(const std::vector<uint32_t>& words) {
  Decoded d;
  try {
    d = decode(words);
  } catch (const DecodeError&) { return; }
  Writer w(d.header.device);
  for (const Op& op : d.ops) w.add(op.body);
  const std::vector<uint32_t> again = w.words();
  const Decoded d2 = decode(again);
  require(d2.ops.size() == d.ops.size());
  for (std::size_t i = 0; i < d.ops.size(); ++i) require(d2.ops[i].body == d.ops[i].body);

  const Layout* layout = find_layout(d.header.device.dev_gen);
  if (!layout) layout = &axcore_layout();  // trace unknown devices with every layout over time
  if (d.header.device.dev_gen & 0x80) layout = &aie2_layout();
  try {
    const Trace t = trace(d, *layout);
    const Trace t2 = trace(d2, *layout);
    require(t.events == t2.events);
    for (const Event& e : t.events) require(!to_string(e).empty());
    if (find_layout(d.header.device.dev_gen)) {
      require(compare(words, words).empty());
      require(!explain(words).empty() || t.events.empty());
      stats(words);
    }
  } catch (const TraceError&) {}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint32_t> words = words_of_bytes({data, size});
  run(words);
  if (words.size() >= 4 && words[3] != 4 * words.size()) {
    words[3] = static_cast<uint32_t>(4 * words.size());
    run(words);
  }
  return 0;
}
