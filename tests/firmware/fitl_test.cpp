// Firmware in the loop: a bundle played through the firmware and through the runtime's player on
// the same kind of device gives the same canonical trace and the same outputs. Runs on every
// timed backend this build has (regfile always; tlm and rtl when they are built).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "axcore/runtime/backend.hpp"
#include "axcore/runtime/buffer_image.hpp"
#include "axfw/host/run_bundle.hpp"
#include "sample_programs.hpp"

namespace {

using namespace axcore;

std::vector<trace::Record> traced(device::Device& d, const std::function<void()>& f) {
  std::vector<trace::Record> t;
  d.set_trace_sink([&](const trace::Record& r) { t.push_back(r); });
  f();
  d.set_trace_sink({});
  return t;
}

void same_bundle_both_ways(const std::string& backend) {
  SCOPED_TRACE(backend);
  const auto b = runtime::testing_support::dma_copy_bundle();
  ref::NDArray<int32_t> x({8, 8});
  for (size_t i = 0; i < 64; ++i) x.data()[i] = static_cast<int32_t>(i * 7919 - 300);
  const runtime::Arrays in{{"x", x}};
  auto da = runtime::make_device(backend);
  auto db = runtime::make_device(backend);
  runtime::RunResult ra;
  fw::FirmwareRunResult rb;
  const auto ta = traced(*da, [&] { ra = runtime::run_on_device(*da, b, in); });
  const auto tb = traced(*db, [&] { rb = fw::run_bundle_via_firmware(*db, b, in); });
  ASSERT_FALSE(ta.empty());
  ASSERT_EQ(ta.size(), tb.size());
  for (size_t i = 0; i < ta.size(); ++i) {
    // DDR addresses differ only if placement differed; the runner places buffers the same way.
    EXPECT_TRUE(ta[i].same_transaction(tb[i])) << "record " << i;
  }
  const auto& ya = std::get<ref::NDArray<int32_t>>(ra.outputs.at("y"));
  const auto& yb = std::get<ref::NDArray<int32_t>>(rb.outputs.at("y"));
  EXPECT_EQ(ya.data(), yb.data());
  EXPECT_EQ(yb.data(), runtime::testing_support::dma_copy_expected(x).data());
  EXPECT_EQ(rb.completion.ops, ra.play.ops);
}

// In one process on the register-level device; SystemC elaborates once per process, so the TLM
// and RTL comparisons run one half per process (OneHalfPerProcess below, driven by CTest).
TEST(FirmwareInTheLoop, BundleMatchesTheRuntimePlayerOnTheRegisterLevelDevice) { same_bundle_both_ways("regfile"); }

// AXFW_FITL_BACKEND=tlm|rtl AXFW_FITL_MODE=runtime|firmware AXFW_FITL_OUT=file: runs the bundle one way
// on a fresh device and writes the canonical trace (seq and cycle left out) and the output.
// AXFW_FITL_BUNDLE=file.axb runs that bundle (a compiled example model, its TXN carrying its
// descriptors; inputs random_inputs(seed 1)) instead of the DMA copy, and checks every output
// against the ref backend's.
TEST(FirmwareInTheLoop, OneHalfPerProcess) {
  const char* backend = std::getenv("AXFW_FITL_BACKEND");
  const char* mode = std::getenv("AXFW_FITL_MODE");
  const char* out = std::getenv("AXFW_FITL_OUT");
  if (!backend || !mode || !out) GTEST_SKIP() << "run by CTest (firmware_fitl_<backend>_*) with AXFW_FITL_* set";
  if (const char* path = std::getenv("AXFW_FITL_BUNDLE")) {
    const auto b = runtime::load_bundle(path);
    ASSERT_TRUE(b.commands.empty()) << "a compiled bundle carries its descriptors in the TXN";
    const runtime::Arrays in = runtime::random_inputs(b, 1);
    auto d = runtime::make_device(backend);
    runtime::Arrays outputs;
    const auto t = traced(*d, [&] {
      outputs = std::string(mode) == "firmware" ? fw::run_bundle_via_firmware(*d, b, in).outputs
                                                : runtime::run_on_device(*d, b, in).outputs;
    });
    const auto want = runtime::make_backend("ref")->run(b, in, {}).outputs;
    std::ofstream f(out);
    for (const auto& r : t)
      f << int(r.col) << " " << int(r.row) << " " << int(r.unit) << " " << int(r.kind) << " " << std::hex << r.addr
        << " " << std::dec << r.bytes << " " << std::hex << r.data_hash << " " << r.token << std::dec << "\n";
    ASSERT_EQ(outputs.size(), want.size());
    for (const auto& [name, arr] : want) {
      const auto bytes = runtime::array_bytes(outputs.at(name));
      EXPECT_EQ(bytes, runtime::array_bytes(arr)) << name << " differs from the ref backend";
      f << name << " " << std::hex;
      for (uint8_t v : bytes) f << int(v);
      f << std::dec << "\n";
    }
    return;
  }
  const auto b = runtime::testing_support::dma_copy_bundle();
  ref::NDArray<int32_t> x({8, 8});
  for (size_t i = 0; i < 64; ++i) x.data()[i] = static_cast<int32_t>(i * 7919 - 300);
  const runtime::Arrays in{{"x", x}};
  auto d = runtime::make_device(backend);
  runtime::Arrays outputs;
  const auto t = traced(*d, [&] {
    if (std::string(mode) == "firmware")
      outputs = fw::run_bundle_via_firmware(*d, b, in).outputs;
    else
      outputs = runtime::run_on_device(*d, b, in).outputs;
  });
  ASSERT_FALSE(t.empty());
  std::ofstream f(out);
  for (const auto& r : t)
    f << int(r.col) << " " << int(r.row) << " " << int(r.unit) << " " << int(r.kind) << " " << std::hex << r.addr << " "
      << std::dec << r.bytes << " " << std::hex << r.data_hash << " " << r.token << std::dec << "\n";
  const auto& y = std::get<ref::NDArray<int32_t>>(outputs.at("y"));
  for (int32_t v : y.data()) f << v << " ";
  f << "\n";
  EXPECT_EQ(y.data(), runtime::testing_support::dma_copy_expected(x).data());
}

}  // namespace
