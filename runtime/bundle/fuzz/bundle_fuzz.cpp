// libFuzzer target over the bundle reader (clang, ASan/UBSan). Besides "no crash, only
// BundleError", every accepted bundle must re-encode to bytes that decode to the same bundle.
// Every accepted bundle's program TXN (program_txn) decodes; a dispatch-time one binds or refuses. Each input runs
// twice: as given, and with the header's file size fixed up and checksums off so that mutations reach the section
// decoders.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "axcore/runtime/bundle.hpp"
#include "axcore/txn/decode.hpp"

namespace {

using namespace axcore::runtime;

void require(bool ok) {
  if (!ok) std::abort();
}

void run(std::span<const uint8_t> bytes, const DecodeOptions& opt) {
  Bundle b;
  try {
    b = decode_bundle(bytes, opt);
  } catch (const BundleError&) { return; }
  const std::vector<uint8_t> again = encode_bundle(b);
  const std::vector<uint8_t> twice = encode_bundle(decode_bundle(again, opt));
  require(again == twice);
  require(!describe(b).empty());
  // A bundle with dispatch-time scalars binds at its lowest and highest point, or refuses the call
  // (a guard, a staged value out of its range) with a DispatchError; a bound bundle is static.
  if (!b.dispatch.empty())
    for (const bool high : {false, true}) {
      DispatchValues v;
      for (const auto& s : b.dispatch.scalars) v[s.name] = high ? s.max : s.min;
      try {
        const Bundle bound = bind_dispatch(b, v);
        require(bound.dispatch.empty());
        (void)encode_bundle(bound);
      } catch (const DispatchError&) {}
    }
  // The program a device plays: the bundle's ops after one blockwrite per command stream, or the
  // bundle's TXN's own decode error.
  try {
    const ProgramTxn p = program_txn(b, {});
    if (!b.txn.empty())
      require(axcore::txn::decode(p.txn).ops.size() == axcore::txn::decode(b.txn).ops.size() + b.commands.size());
  } catch (const axcore::txn::DecodeError&) {}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  DecodeOptions strict;
  strict.allow_foreign_spec = true;
  run({data, size}, strict);
  if (size >= 64) {
    std::vector<uint8_t> fixed(data, data + size);
    for (int i = 0; i < 8; ++i) fixed[24 + i] = static_cast<uint8_t>(uint64_t{size} >> (8 * i));
    DecodeOptions loose = strict;
    loose.verify_checksums = false;
    run(fixed, loose);
  }
  return 0;
}
