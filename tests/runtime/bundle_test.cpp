// .axb bundles: round trip of every section, validation rules, and the reader's refusals
// (truncated, oversized, corrupted, foreign spec hash, bad offsets) with their messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "axcore/runtime/buffer_image.hpp"
#include "axcore/runtime/bundle.hpp"
#include "axcore/txn/axcore_builder.hpp"
#include "axcore/txn/decode.hpp"
#include "sample_bundle.hpp"

namespace axcore::runtime {
namespace {

using ::testing::HasSubstr;

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const BundleError& e) { return e.what(); }
  return "(no error)";
}

void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

TEST(RuntimeBundle, RoundTripsEverySection) {
  const Bundle b = testing_support::sample_bundle();
  const auto bytes = encode_bundle(b);
  const Bundle back = decode_bundle(bytes);
  EXPECT_EQ(back, b);
  EXPECT_EQ(encode_bundle(back), bytes);  // deterministic
}

TEST(RuntimeBundle, HeaderInfo) {
  const auto bytes = encode_bundle(testing_support::sample_bundle());
  const auto h = decode_bundle_header(bytes);
  EXPECT_EQ(h.version_major, kBundleVersionMajor);
  EXPECT_EQ(h.spec_hash, spec::kSpecHash);
  EXPECT_EQ(h.file_bytes, bytes.size());
  EXPECT_EQ(h.sections, 7u);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "AXB1");
}

TEST(RuntimeBundle, TruncatedAtEveryLengthIsRefused) {
  const auto bytes = encode_bundle(testing_support::sample_bundle());
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::span<const uint8_t> cut(bytes.data(), n);
    const std::string e = error_of([&] { decode_bundle(cut); });
    ASSERT_THAT(e, HasSubstr("truncated")) << "at " << n;
  }
}

TEST(RuntimeBundle, OversizedIsRefused) {
  auto bytes = encode_bundle(testing_support::sample_bundle());
  bytes.push_back(0);
  EXPECT_THAT(error_of([&] { decode_bundle(bytes); }), HasSubstr("oversized: 1 bytes after the"));
}

TEST(RuntimeBundle, ForeignSpecHashNamesBothHashes) {
  Bundle b = testing_support::sample_bundle();
  b.spec_hash = 0x1234abcd5678ef00ULL;
  const auto bytes = encode_bundle(b);
  const std::string e = error_of([&] { decode_bundle(bytes); });
  EXPECT_THAT(e, HasSubstr("spec hash 0x1234abcd5678ef00"));
  std::ostringstream ours;
  ours << "0x" << std::hex << spec::kSpecHash;
  EXPECT_THAT(e, HasSubstr(ours.str()));
  DecodeOptions opt;
  opt.allow_foreign_spec = true;
  EXPECT_EQ(decode_bundle(bytes, opt).spec_hash, 0x1234abcd5678ef00ULL);
}

TEST(RuntimeBundle, BadMagicAndVersion) {
  auto bytes = encode_bundle(testing_support::sample_bundle());
  auto bad = bytes;
  bad[0] = 'Z';
  EXPECT_THAT(error_of([&] { decode_bundle(bad); }), HasSubstr("not an axcore bundle: magic"));
  bad = bytes;
  bad[4] = 2;
  EXPECT_THAT(error_of([&] { decode_bundle(bad); }), HasSubstr("container version 2.0"));
}

TEST(RuntimeBundle, CorruptedSectionFailsItsChecksum) {
  auto bytes = encode_bundle(testing_support::sample_bundle());
  bytes[bytes.size() - 9] ^= 0x40;  // inside the last section
  EXPECT_THAT(error_of([&] { decode_bundle(bytes); }), HasSubstr("checksum"));
}

TEST(RuntimeBundle, SectionOutsideTheFileOrOverlapping) {
  const auto bytes = encode_bundle(testing_support::sample_bundle());
  auto bad = bytes;
  put_u64(bad, 64 + 16, 1u << 30);  // first entry's size
  EXPECT_THAT(error_of([&] { decode_bundle(bad); }), HasSubstr("are outside the file's sections"));
  bad = bytes;
  uint64_t off1 = 0;
  for (int i = 0; i < 8; ++i) off1 |= uint64_t{bytes[64 + 8 + i]} << (8 * i);
  put_u64(bad, 64 + 32 + 8, off1);  // second section at the first's offset
  EXPECT_THAT(error_of([&] { decode_bundle(bad); }), HasSubstr("overlaps the"));
  bad = bytes;
  bad[64] = 99;  // unknown kind
  EXPECT_THAT(error_of([&] { decode_bundle(bad); }), HasSubstr("unknown kind 99"));
}

TEST(RuntimeBundle, SectionContentBoundsAreChecked) {
  // A buffer count that the section cannot hold: found without reading past the section.
  Bundle b;
  b.buffers.push_back({"x", BufferRole::INPUT, spec::Dtype::INT8, {4}, {}, 0, std::nullopt});
  auto bytes = encode_bundle(b);
  uint64_t off = 0;
  for (int i = 0; i < 8; ++i) off |= uint64_t{bytes[64 + 8 + i]} << (8 * i);
  bytes[off] = 0xFF;  // count = 255
  DecodeOptions opt;
  opt.verify_checksums = false;
  EXPECT_THAT(error_of([&] { decode_bundle(bytes, opt); }),
              HasSubstr("section BUFFERS at byte 96: 255 buffers need at least"));
}

TEST(RuntimeBundle, ValidationRules) {
  auto with = [](auto edit) {
    Bundle b = testing_support::sample_bundle();
    edit(b);
    return error_of([&] { encode_bundle(b); });
  };
  EXPECT_THAT(with([](Bundle& b) { b.buffers[1].name = b.buffers[0].name; }), HasSubstr("two buffers are named"));
  EXPECT_THAT(with([](Bundle& b) { b.buffers[0].name = "a b"; }), HasSubstr("is not 1..256 characters"));
  EXPECT_THAT(with([](Bundle& b) { b.buffers[0].dtype = spec::Dtype::FLOAT18; }),
              HasSubstr("is not int8, int32, float16 or float32"));
  EXPECT_THAT(with([](Bundle& b) { b.buffers[1].arg = b.buffers[0].arg; }), HasSubstr("is bound to two buffers"));
  EXPECT_THAT(with([](Bundle& b) { b.buffers[0].layout.bytes = 3; }), HasSubstr("is smaller than its"));
  EXPECT_THAT(with([](Bundle& b) { b.buffers[0].layout.align = 3; }), HasSubstr("is not a power of two"));
  EXPECT_THAT(with([](Bundle& b) { b.constants[0].bytes.pop_back(); }), HasSubstr("needs"));
  EXPECT_THAT(with([](Bundle& b) { b.commands[0].word = spec::core::CMD_MEM.count - 1; }),
              HasSubstr("run past command memory"));
  EXPECT_THAT(with([](Bundle& b) { b.commands[0].core = 3; }), HasSubstr("core 3, the program has 1"));
  EXPECT_THAT(with([](Bundle& b) { b.params[0].targets[0].addr = 0x1u << 25; }),
              HasSubstr("is not an aligned register of the device"));
  EXPECT_THAT(with([](Bundle& b) { b.graph[0].inputs[0] = "nothing"; }), HasSubstr("input 'nothing' is no buffer"));
  EXPECT_THAT(with([](Bundle& b) { b.graph[0].outputs[0] = "w"; }), HasSubstr("overwrites the constant buffer"));
  EXPECT_THAT(with([](Bundle& b) { b.graph.pop_back(); }), HasSubstr("is not produced by the operator graph"));
  EXPECT_THAT(with([](Bundle& b) { b.txn.pop_back(); }), HasSubstr("TXN section: TXN header gives"));
}

// The program a device plays: a bundle without command streams and without parameter targets in
// its stream plays its TXN word for word; preloaded streams become blockwrites before the first
// op; a parameter target the stream writes is carried by that write, any other one is written before.
TEST(RuntimeBundle, ProgramTxnFoldsCommandStreamsAndParameters) {
  Bundle b = testing_support::sample_bundle();  // a 4-word stream at CMD_MEM word 64, "scale" at word 70
  const auto cmd = [](uint32_t word) { return spec::tile_addr(0, 2, spec::core::CMD_MEM.at(word)); };
  Bundle plain = b;
  plain.commands.clear();
  plain.params.clear();
  EXPECT_EQ(program_txn(plain, {}).txn, plain.txn);
  EXPECT_TRUE(program_txn(plain, {}).before.empty());

  b.commands[0].words.resize(8);  // words 64..71: the stream now covers the target
  const ProgramTxn p = program_txn(b, {{"scale", 0x40000000u}});
  EXPECT_TRUE(p.before.empty());
  const txn::Decoded d = txn::decode(p.txn), orig = txn::decode(b.txn);
  ASSERT_EQ(d.ops.size(), orig.ops.size() + 1);
  const auto& w = std::get<txn::BlockWrite>(d.ops[0].body);
  EXPECT_EQ(w.addr, cmd(64));
  EXPECT_THAT(std::vector<uint32_t>(w.data.begin(), w.data.end()),
              ::testing::ElementsAre(0xD9, 1, 2, 3, 0, 0, 0x40000000u, 0));
  for (std::size_t i = 0; i < orig.ops.size(); ++i) EXPECT_TRUE(d.ops[i + 1].body == orig.ops[i].body) << "op " << i;
  const auto mem = command_memory(b);
  ASSERT_EQ(mem.size(), 1u);
  EXPECT_EQ(mem[0].words.at(70), 0x3f800000u);  // the default

  // A target the TXN writes (a descriptor word of the stream), a target nothing writes.
  Bundle t = plain;
  txn::AxcoreBuilder tb(1);
  const std::vector<uint32_t> desc{0xD9, 5, 6, 7};
  tb.write_descriptor(0, 10, desc);
  tb.writer().write32(cmd(12), 9);
  t.txn = tb.words();
  t.params.push_back({"lo", ParamType::INT32, 0, {{cmd(11), 0xFF00, 8}, {cmd(12), 0xF, 0}, {cmd(20), 0xF, 0}}, ""});
  const ProgramTxn q = program_txn(t, {{"lo", 0xAB}});
  const txn::Decoded dq = txn::decode(q.txn);
  ASSERT_EQ(dq.ops.size(), 2u);
  const auto& bw = std::get<txn::BlockWrite>(dq.ops[0].body);
  EXPECT_THAT(std::vector<uint32_t>(bw.data.begin(), bw.data.end()),
              ::testing::ElementsAre(0xD9, 0xAB05, 0xB, 7));  // words 11 and 12
  EXPECT_EQ(std::get<txn::Write32>(dq.ops[1].body).value, 0xBu);
  ASSERT_EQ(q.before.size(), 1u);
  EXPECT_EQ(q.before[0].target.addr, cmd(20));
  EXPECT_EQ(q.before[0].bits, 0xABu);
}

TEST(RuntimeBufferImage, PwordLayoutRoundTripsAndPads) {
  BufferDesc b{"x", BufferRole::INPUT, spec::Dtype::INT8, {2, 70}, {}, 0, std::nullopt};
  b.layout.kind = LayoutKind::PWORDS;
  b.layout.pad_bits = 0x7F;
  EXPECT_EQ(layout_image_bytes(b), 2u * 2 * 64);
  ref::NDArray<int8_t> a({2, 70});
  for (size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<int8_t>(i);
  const auto img = to_device_image(b, a);
  ASSERT_EQ(img.size(), 256u);
  EXPECT_EQ(img[64 + 5], 69);    // row 0, block 1, lane 5 = element 69
  EXPECT_EQ(img[64 + 6], 0x7F);  // lane 6 is padding
  const auto back = std::get<ref::NDArray<int8_t>>(from_device_image(b, img));
  EXPECT_EQ(back.data(), a.data());
  EXPECT_THAT(mismatch(b, ref::NDArray<float>({2, 70})),
              HasSubstr("input 'x': expected INT8 (2, 70), got FLOAT32 (2, 70)"));
}

TEST(RuntimeBundle, SaveAndLoadNameThePath) {
  const auto path = std::filesystem::temp_directory_path() / "axcore_bundle_test.axb";
  save_bundle(path, testing_support::sample_bundle());
  EXPECT_EQ(load_bundle(path), testing_support::sample_bundle());
  std::filesystem::resize_file(path, 100);
  EXPECT_THAT(error_of([&] { load_bundle(path); }), HasSubstr("axcore_bundle_test.axb: bundle: truncated"));
  EXPECT_THAT(error_of([&] { load_bundle("/nonexistent/x.axb"); }), HasSubstr("/nonexistent/x.axb: cannot open"));
  std::filesystem::remove(path);
}

// Dispatch-time scalars (bundle 1.1): the DISPATCH section round-trips, a bundle without it is
// written as 1.0 (a 1.0 reader loads it), a DISPATCH section under a 1.0 header is refused.
TEST(RuntimeBundleDispatch, RoundTripsAndVersions) {
  const Bundle d = testing_support::sample_dispatch_bundle();
  const auto bytes = encode_bundle(d);
  EXPECT_EQ(decode_bundle(bytes), d);
  EXPECT_EQ(encode_bundle(decode_bundle(bytes)), bytes);
  const auto h = decode_bundle_header(bytes);
  EXPECT_EQ(h.version_minor, 1);
  EXPECT_EQ(h.sections, 8u);
  EXPECT_EQ(decode_bundle_header(encode_bundle(testing_support::sample_bundle())).version_minor, 0);
  auto old = bytes;
  old[6] = 0;  // minor 0
  EXPECT_THAT(error_of([&] { decode_bundle(old); }), HasSubstr("a DISPATCH section needs container 1.1"));
  auto newer = bytes;
  newer[6] = 2;
  EXPECT_THAT(error_of([&] { decode_bundle(newer); }),
              HasSubstr("container version 1.2, this runtime reads 1.0 to 1.1"));
}

TEST(RuntimeBundleDispatch, BindEvaluatesStagedWordsAndExtents) {
  const Bundle d = testing_support::sample_dispatch_bundle();
  const uint32_t w = testing_support::sample_bd_length_word(d);
  ASSERT_GT(w, 4u);
  const Bundle at4 = bind_dispatch(d, {{"M", 4}});
  EXPECT_EQ(at4, testing_support::sample_bundle());  // stored at M = 4
  const Bundle at8 = bind_dispatch(d, {{"M", 8}});
  EXPECT_TRUE(at8.dispatch.empty());
  EXPECT_EQ(at8.buffers[0].shape, (std::vector<uint64_t>{8, 64}));
  EXPECT_EQ(at8.txn[w], (1u << 28) | 32u);  // valid | length
  Bundle want = testing_support::sample_bundle();
  want.buffers[0].shape[0] = 16;
  want.txn[w] = (1u << 28) | 64u;
  EXPECT_EQ(bind_dispatch(d, {{"M", 16}}), want);
  // A static bundle takes no values.
  EXPECT_EQ(bind_dispatch(testing_support::sample_bundle(), {}), testing_support::sample_bundle());
  EXPECT_THAT(error_of([&] {
                bind_dispatch(testing_support::sample_bundle(), {{"M", 4}});
              }),
              HasSubstr("has no dispatch-time scalars, the call gives 'M'"));
}

TEST(RuntimeBundleDispatch, RefusesWithTheGuardsMessage) {
  const Bundle d = testing_support::sample_dispatch_bundle();
  auto refusal = [&](const DispatchValues& v) {
    try {
      bind_dispatch(d, v);
    } catch (const DispatchError& e) { return std::to_string(e.guard()) + ": " + e.what(); }
    return std::string("(accepted)");
  };
  EXPECT_EQ(refusal({{"M", 6}}), "0: M must be a multiple of 4");
  EXPECT_EQ(refusal({{"M", 12}}), "1: M cannot be 12");
  EXPECT_EQ(refusal({{"M", 20}}), "-1: M must be in [1, 16]");
  EXPECT_EQ(refusal({{"M", 0}}), "-1: M must be in [1, 16]");
  EXPECT_THAT(refusal({}), HasSubstr("dispatch-time scalar 'M' not given (1 to 16, rows of x): pass --param M=VALUE"));
  EXPECT_THAT(refusal({{"M", 4}, {"N", 1}}),
              HasSubstr("unknown dispatch-time scalar 'N'; the bundle's are: M in [1, 16]"));
  // A staged word that would not fit its 32 bits is refused, not truncated.
  Bundle wide = d;
  wide.dispatch.staged[1].value = Affine{0, {{0, int64_t{1} << 30}}};  // 2^33 at M = 8
  EXPECT_THAT(error_of([&] {
                bind_dispatch(wide, {{"M", 8}});
              }),
              HasSubstr("= 8589934592 does not fit its 32-bit word (refused, not truncated)"));
  EXPECT_THAT(describe(d), HasSubstr("guard M % 4 == 0: \"M must be a multiple of 4\""));
  EXPECT_THAT(describe(d), HasSubstr("buffer extent x[0] = M"));
  EXPECT_THAT(describe(d), HasSubstr("= 4 * M"));
}

TEST(RuntimeBundleDispatch, ValidationRules) {
  auto with = [](auto edit) {
    Bundle b = testing_support::sample_dispatch_bundle();
    edit(b);
    return error_of([&] { encode_bundle(b); });
  };
  EXPECT_THAT(with([](Bundle& b) { b.dispatch.scalars.push_back(b.dispatch.scalars[0]); }),
              HasSubstr("two dispatch-time scalars are named 'M'"));
  EXPECT_THAT(with([](Bundle& b) { b.dispatch.scalars[0].name = "scale"; }),
              HasSubstr("has the name of a runtime parameter"));
  EXPECT_THAT(with([](Bundle& b) { b.dispatch.scalars[0].max = 0; }), HasSubstr("range [1, 0] is empty"));
  EXPECT_THAT(with([](Bundle& b) { b.dispatch.guards[0].expr.terms[0].scalar = 3; }),
              HasSubstr("dispatch guard 0: term of scalar 3, the bundle has 1"));
  EXPECT_THAT(with([](Bundle& b) { b.dispatch.guards[0].message.clear(); }), HasSubstr("dispatch guard 0: no message"));
  EXPECT_THAT(with([](Bundle& b) { b.dispatch.staged[1].index = 2; }),
              HasSubstr("not a word of the TXN after its header"));
  EXPECT_THAT(with([](Bundle& b) { b.dispatch.staged[0].sub = 2; }), HasSubstr("no such buffer extent"));
  EXPECT_THAT(with([](Bundle& b) { b.dispatch.staged.push_back(b.dispatch.staged[0]); }), HasSubstr("staged twice"));
  EXPECT_THAT(with([](Bundle& b) { b.dispatch.scalars.clear(); }),
              HasSubstr("guards or staged values without dispatch-time scalars"));
}

}  // namespace
}  // namespace axcore::runtime
