// The generated whole-descriptor type (spec::DatapathDesc), the parse() of every struct and the
// register-address decode, against an independent reading of spec/axcore.yaml (section words,
// magic, register offsets): words() puts each section where the YAML says, parse() inverts it and
// refuses malformed words with a message naming the fault.
#include <gtest/gtest.h>

#include <axcore/spec.hpp>
#include <random>

#include "yaml_view.hpp"

namespace spec = axcore::spec;

namespace {

const spec_test::YamlView& yaml() {
  static const auto v = spec_test::read_yaml(AXCORE_SPEC_YAML_PATH);
  return v;
}

uint32_t section(const std::string& name) { return yaml().layouts.at("datapath_desc").at(name); }
uint32_t param(const std::string& name) { return static_cast<uint32_t>(yaml().params.at(name)); }

std::string error_of(const auto& f) {
  try {
    f();
  } catch (const std::exception& e) { return e.what(); }
  return "(no error)";
}

// A descriptor with every kind of section set to distinct values.
spec::DatapathDesc sample(spec::DpKind kind) {
  spec::DatapathDesc d;
  d.header.kind = kind;
  d.header.has_ifd0 = d.header.has_ifd1 = d.header.has_main = d.header.has_dpu = d.header.has_odr = 1;
  d.header.id = 77;
  d.ifd0.base_row = 11, d.ifd0.ndims = 2, d.ifd0.d0_size = 3, d.ifd0.d1_stride = -5;
  d.ifd1.base_row = 22, d.ifd1.dtype = d.ifd1.cast_from = spec::Dtype::FLOAT16, d.ifd1.pad_value = 0xdeadbeef;
  if (kind == spec::DpKind::MVMEXE) {
    d.mvm = spec::MvmDesc{};
    d.mvm->k_blocks = 4, d.mvm->k_stride = -1, d.mvm->o3_tstride = 9;
  } else {
    d.dwpu = spec::DwpuDesc{};
    d.dwpu->op = spec::DwpuOp::AVERAGE, d.dwpu->taps = 9, d.dwpu->o0_wstride = -2;
  }
  d.dpu.iterations = 1234, d.dpu.body_len = 3, d.dpu.out_dtype = spec::Dtype::INT8;
  d.odr.base_row = 33, d.odr.transpose = 1, d.odr.g2_coef5 = -7;
  for (uint32_t i = 0; i < 3; ++i) {
    spec::DpuInstr ins;
    ins.op = spec::DpuOp::ADD;
    ins.dst = i, ins.imm = 100 + i;
    d.program.push_back(ins);
  }
  return d;
}

TEST(DatapathDesc, WordsPutEverySectionAtItsYamlWord) {
  for (const auto kind : {spec::DpKind::MVMEXE, spec::DpKind::DWPU}) {
    const spec::DatapathDesc d = sample(kind);
    const std::vector<uint32_t> w = d.words();
    ASSERT_EQ(w.size(), section("program") + 2 * d.program.size());
    auto at = [&](const std::string& s, std::size_t n) {
      return std::vector<uint32_t>(w.begin() + section(s), w.begin() + section(s) + n);
    };
    auto enc = [](const auto& s) {
      const auto e = s.encode();
      return std::vector<uint32_t>(e.begin(), e.end());
    };
    spec::DpHeader h = d.header;
    h.magic = yaml().magic.at("datapath");
    h.words = static_cast<uint32_t>(w.size());
    EXPECT_EQ(at("header", 4), enc(h));
    EXPECT_EQ(at("ifd0", 24), enc(d.ifd0));
    EXPECT_EQ(at("ifd1", 24), enc(d.ifd1));
    if (d.mvm) { EXPECT_EQ(at("mvm", 8), enc(*d.mvm)); }
    if (d.dwpu) { EXPECT_EQ(at("dwpu", 8), enc(*d.dwpu)); }
    EXPECT_EQ(at("dpu", 8), enc(d.dpu));
    EXPECT_EQ(at("odr", 24), enc(d.odr));
    for (std::size_t i = 0; i < d.program.size(); ++i) {
      const auto e = d.program[i].encode();
      EXPECT_EQ(w[section("program") + 2 * i], e[0]);
      EXPECT_EQ(w[section("program") + 2 * i + 1], e[1]);
    }
    // parse inverts it; words past the descriptor (command memory) are not read
    std::vector<uint32_t> mem = w;
    mem.resize(w.size() + 40, 0xFFFFFFFFu);
    const spec::DatapathDesc back = spec::DatapathDesc::parse(mem);
    spec::DatapathDesc want = d;
    want.header = h;
    EXPECT_EQ(back, want);
    EXPECT_EQ(back.words(), w);
  }
}

TEST(DatapathDesc, AbsentSectionsAreZeroAndTheShortestIsTheFixedPart) {
  spec::DatapathDesc d;
  d.header.has_ifd0 = d.header.has_odr = 1;
  const auto w = d.words();
  ASSERT_EQ(w.size(), section("program"));
  for (uint32_t i = 1; i < w.size(); ++i) EXPECT_EQ(w[i], 0u) << "word " << i;
}

TEST(DatapathDesc, WordsRefusesWhatTheLayoutCannotHold) {
  spec::DatapathDesc d;
  d.mvm = spec::MvmDesc{};
  d.dwpu = spec::DwpuDesc{};
  EXPECT_EQ(error_of([&] { (void)d.words(); }), "datapath_desc: sections mvm and dwpu share words; set one");
  d.dwpu.reset();
  d.program.resize(spec::param::dpu_max_instructions + 1);
  EXPECT_EQ(error_of([&] { (void)d.words(); }), "datapath_desc: 121 program entries; it holds 120");
  d.program.resize(1);
  d.program[0].imm = 1u << 16;
  EXPECT_EQ(error_of([&] { (void)d.words(); }), "dpu_instr.imm = 65536 does not fit in 16 bits");
}

TEST(DatapathDesc, ParseRefusesMalformedWords) {
  const std::vector<uint32_t> good = sample(spec::DpKind::MVMEXE).words();
  auto parse_with = [&](auto edit) {
    std::vector<uint32_t> w = good;
    edit(w);
    return error_of([&] { (void)spec::DatapathDesc::parse(w); });
  };
  EXPECT_EQ(parse_with([](auto&) {}), "(no error)");
  EXPECT_EQ(parse_with([](auto& w) { w.resize(139); }), "datapath_desc: 139 words; its fixed part has 140");
  EXPECT_EQ(parse_with([](auto& w) { w[0] = (w[0] & ~0xFFu) | 0x1C; }), "datapath_desc: magic 0x1c, not 0xd9");
  EXPECT_EQ(parse_with([](auto& w) { w.pop_back(); }),
            "datapath_desc: header.words = 146 with 145 words given (fixed part 140, at most 380)");
  EXPECT_EQ(parse_with([](auto& w) { w[0] += 1u << 16; }),
            "datapath_desc: header.words = 147 with 146 words given (fixed part 140, at most 380)");
  EXPECT_EQ(parse_with([](auto& w) { w[0] |= 1u << 15; }), "dp_header: word 0 sets bits 0x8000 outside every field");
  EXPECT_EQ(parse_with([&](auto& w) { w[section("ifd1")] |= 7u << 16; }), "walk.dtype = 7 is no dtype value");
  EXPECT_EQ(parse_with([&](auto& w) { w[section("program")] |= 63u; }), "dpu_instr.op = 63 is no dpu_op value");
  EXPECT_EQ(parse_with([&](auto& w) { w[0] |= 3u << 8; }), "dp_header.kind = 3 is no dp_kind value");
}

// decode() is the device's reading (the TLM command processor's): the fields parse() reads, but
// nothing it refuses is refused (bits outside the fields, enum values, header.words past the words
// given: the device's own checks turn those into DESC_* codes), and the tail stops at header.words.
TEST(DatapathDesc, DecodeReadsWhatTheDeviceReadsAndRefusesNothing) {
  for (const auto kind : {spec::DpKind::MVMEXE, spec::DpKind::DWPU}) {
    const spec::DatapathDesc d = sample(kind);
    std::vector<uint32_t> w = d.words();
    EXPECT_EQ(spec::DatapathDesc::decode(w), spec::DatapathDesc::parse(w));
    w[0] |= 1u << 15;                // a stray header bit
    w[section("ifd1")] |= 7u << 16;  // no dtype value
    const spec::DatapathDesc got = spec::DatapathDesc::decode(w);
    EXPECT_EQ(got.ifd0, d.ifd0);
    EXPECT_EQ(got.odr, d.odr);
    EXPECT_EQ(got.mvm, d.mvm);
    EXPECT_EQ(got.dwpu, d.dwpu);
    EXPECT_EQ(static_cast<uint32_t>(got.ifd1.dtype), 7u);
    EXPECT_EQ(got.program, d.program);
  }
  std::vector<uint32_t> w = sample(spec::DpKind::MVMEXE).words();
  w[0] -= 2u << 16;  // header.words one instruction short: the tail stops there
  EXPECT_EQ(spec::DatapathDesc::decode(w).program.size(), 2u);
  w[0] += 8u << 16;  // past the words given: the entries that are there
  EXPECT_EQ(spec::DatapathDesc::decode(w).program.size(), 3u);
  w.resize(139);
  EXPECT_EQ(error_of([&] { (void)spec::DatapathDesc::decode(w); }), "datapath_desc: 139 words; its fixed part has 140");
}

TEST(StructParse, RefusesStrayBitsBadEnumsAndWrongMagic) {
  spec::LoadimcDesc l;
  l.magic = yaml().magic.at("loadimc");
  l.d0_size = 3;
  EXPECT_EQ(spec::LoadimcDesc::parse(l.encode()), l);
  auto w = l.encode();
  w[0] = (w[0] & ~0xFFu) | 0xBA;
  EXPECT_EQ(error_of([&] { (void)spec::LoadimcDesc::parse(w); }), "loadimc_desc: magic 0xba, not 0x1c");
  spec::BarrierDesc b;
  EXPECT_EQ(error_of([&] { (void)spec::BarrierDesc::parse(b.encode()); }), "barrier_desc: magic 0x0, not 0xba");
  auto bd = spec::DmaBd{}.encode();
  bd[0] = 3u << 30;
  EXPECT_EQ(error_of([&] { (void)spec::DmaBd::parse(bd); }), "dma_bd: word 0 sets bits 0xc0000000 outside every field");
  EXPECT_EQ(error_of([&] { (void)spec::DmaBd::parse(std::span<const uint32_t>(bd).first(15)); }),
            "dma_bd: 15 words; it has 16");
  EXPECT_EQ(error_of([] { (void)spec::Token::parse_word(31u << 25); }), "token.code = 31 is no error_code value");
  EXPECT_EQ(spec::Token::parse_word(0x80000000u).valid, 1u);
}

TEST(AddressDecode, InvertsTileAddrAndNamesTheTileKind) {
  std::mt19937 rng(5);
  for (int i = 0; i < 1000; ++i) {
    const uint32_t col = rng() % (1u << spec::kAddrColBits), row = rng() % (1u << spec::kAddrRowBits),
                   off = rng() % (1u << spec::param::addr_offset_bits);
    const auto t = spec::decode_addr(spec::tile_addr(col, row, off));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->col, col);
    EXPECT_EQ(t->row, row);
    EXPECT_EQ(t->offset, off);
    EXPECT_EQ(t->tile_base(), spec::tile_addr(col, row, 0));
    const auto want = row == param("shim_row")  ? spec::TileKind::Shim
                      : row == param("mem_row") ? spec::TileKind::Mem
                                                : spec::TileKind::Core;
    EXPECT_EQ(t->kind, want);
    EXPECT_EQ(t->core, want == spec::TileKind::Core ? row - param("first_core_row") : 0);
  }
  EXPECT_FALSE(spec::decode_addr(uint64_t{1} << 32));
  // col << 25 | row << 20 | offset, read from the YAML's own convention
  const auto t = spec::decode_addr((3u << 25) | (4u << 20) | 0x404u);
  EXPECT_EQ(t->col, 3u);
  EXPECT_EQ(t->row, 4u);
  EXPECT_EQ(t->offset, 0x404u);
  EXPECT_EQ(t->core, 2u);
}

TEST(AddressDecode, FindRegisterNamesEveryRegisterElementAndWord) {
  for (const auto& [tile, regs] : yaml().tiles) {
    const spec::TileKind k = tile == "shim"  ? spec::TileKind::Shim
                             : tile == "mem" ? spec::TileKind::Mem
                                             : spec::TileKind::Core;
    EXPECT_EQ(spec::to_string(k), tile);
    for (const auto& r : regs) {
      SCOPED_TRACE(tile + "." + r.name);
      if (r.memory) {
        const auto at = spec::find_register(k, r.offset + r.bytes - 4);
        ASSERT_TRUE(at);
        EXPECT_EQ(at.reg->name, r.name);
        EXPECT_EQ(at.word, r.bytes / 4 - 1);
        EXPECT_FALSE(spec::find_register(k, r.offset + r.bytes).reg &&
                     spec::find_register(k, r.offset + r.bytes).reg->name == r.name);
        continue;
      }
      for (uint32_t i = 0; i < r.count; ++i)
        for (uint32_t w = 0; w < r.words; ++w) {
          const auto at = spec::find_register(k, r.offset + i * r.stride + 4 * w);
          ASSERT_TRUE(at);
          EXPECT_EQ(at.reg->name, r.name);
          EXPECT_EQ(at.index, i);
          EXPECT_EQ(at.word, w);
        }
    }
  }
  EXPECT_FALSE(spec::find_register(spec::TileKind::Shim, 0xFFFFC));
  EXPECT_EQ(spec::core::Q_PUSH.index_of(spec::core::Q_PUSH.at(3)), 3u);
  EXPECT_FALSE(spec::core::Q_PUSH.index_of(spec::core::Q_PUSH.at(3) + 4));
  EXPECT_FALSE(spec::core::Q_PUSH.index_of(spec::core::Q_PUSH.at(4)));
}

}  // namespace
