// The generated C++ constants equal the YAML's values: the spec header, every parameter (value and
// range), every enum (names, values, width), every register of every tile (offset, count, stride,
// words, reset, access, state bits, struct), the command-memory layouts and the descriptor magics.
#include <gtest/gtest.h>

#include <axcore/spec.hpp>
#include <set>

#include "yaml_view.hpp"

namespace spec = axcore::spec;

namespace {
const spec_test::YamlView& yaml() {
  static const auto v = spec_test::read_yaml(AXCORE_SPEC_YAML_PATH);
  return v;
}

template <size_t N>
void check_tile(const std::array<spec::RegisterInfo, N>& regs, const std::string& tile) {
  const auto& y = yaml().tiles.at(tile);
  ASSERT_EQ(y.size(), N) << tile;
  for (size_t i = 0; i < N; ++i) {
    SCOPED_TRACE(tile + "." + y[i].name);
    EXPECT_EQ(regs[i].name, y[i].name);
    EXPECT_EQ(regs[i].offset, y[i].offset);
    EXPECT_EQ(regs[i].memory, y[i].memory);
    EXPECT_EQ(spec::to_string(regs[i].access), y[i].access);
    EXPECT_EQ(regs[i].struct_name, y[i].struct_name);
    if (y[i].memory) {
      EXPECT_EQ(regs[i].bytes, y[i].bytes);
      continue;
    }
    EXPECT_EQ(regs[i].count, y[i].count);
    EXPECT_EQ(regs[i].stride, y[i].stride);
    EXPECT_EQ(regs[i].words, y[i].words);
    EXPECT_EQ(regs[i].reset, y[i].reset);
    EXPECT_EQ(regs[i].field_mask, y[i].field_mask);
    for (uint32_t k = 0; k < y[i].count; ++k) EXPECT_EQ(regs[i].at(k), y[i].offset + k * y[i].stride);
  }
}

// One generated enum against its YAML twin: same names in the same order, same values and width.
template <typename E, size_t N>
void check_enum(const std::string& yaml_name, const std::array<E, N>& values, uint32_t width,
                std::set<std::string>& seen) {
  SCOPED_TRACE("enum " + yaml_name);
  seen.insert(yaml_name);
  ASSERT_TRUE(yaml().enums.count(yaml_name));
  const auto& y = yaml().enums.at(yaml_name);
  EXPECT_EQ(width, yaml().enum_widths.at(yaml_name));
  ASSERT_EQ(N, y.size());
  for (size_t i = 0; i < N; ++i) {
    EXPECT_EQ(spec::to_string(values[i]), y[i].first);
    EXPECT_EQ(static_cast<uint32_t>(values[i]), y[i].second) << y[i].first;
    E back{};
    EXPECT_TRUE(spec::parse(y[i].first, back)) << y[i].first;
    EXPECT_EQ(back, values[i]) << y[i].first;
  }
}
}  // namespace

TEST(SpecConstants, SpecHeaderMatchesYaml) {
  EXPECT_EQ(spec::kSpecVersion, yaml().version);
  EXPECT_EQ(spec::kTxnDevGen, yaml().txn_dev_gen);
  EXPECT_EQ(spec::kTxnMajor, yaml().txn_major);
  EXPECT_EQ(spec::kTxnMinor, yaml().txn_minor);
  EXPECT_EQ(spec::kIdMagic, yaml().id_magic);
}

TEST(SpecConstants, ParamsMatchYaml) {
  ASSERT_EQ(spec::kParams.size(), yaml().params.size());
  for (const auto& p : spec::kParams) {
    SCOPED_TRACE(std::string(p.name));
    ASSERT_TRUE(yaml().param_ranges.count(std::string(p.name)));
    const auto& y = yaml().param_ranges.at(std::string(p.name));
    EXPECT_EQ(p.value, y.value);
    EXPECT_EQ(p.min, y.min);
    EXPECT_EQ(p.max, y.max);
  }
  EXPECT_EQ(spec::param::pword_lanes, yaml().params.at("pword_lanes"));
  EXPECT_EQ(spec::param::imc_tiles, yaml().params.at("imc_tiles"));
  EXPECT_EQ(spec::param::l1_bytes, yaml().params.at("l1_bytes"));
  EXPECT_EQ(spec::param::dpu_registers, yaml().params.at("dpu_registers"));
}

TEST(SpecConstants, RegisterMapsMatchYaml) {
  EXPECT_EQ(yaml().tiles.size(), 3u) << "a new tile type: add it here";
  check_tile(spec::shim::kRegisters, "shim");
  check_tile(spec::mem::kRegisters, "mem");
  check_tile(spec::core::kRegisters, "core");
}

TEST(SpecConstants, EnumsMatchYaml) {
  std::set<std::string> seen;
  check_enum("dtype", spec::kDtypeValues, spec::kDtypeWidth, seen);
  check_enum("dp_kind", spec::kDpKindValues, spec::kDpKindWidth, seen);
  check_enum("dwpu_op", spec::kDwpuOpValues, spec::kDwpuOpWidth, seen);
  check_enum("mem_sel", spec::kMemSelValues, spec::kMemSelWidth, seen);
  check_enum("dpu_op", spec::kDpuOpValues, spec::kDpuOpWidth, seen);
  check_enum("dpu_index", spec::kDpuIndexValues, spec::kDpuIndexWidth, seen);
  check_enum("error_code", spec::kErrorCodeValues, spec::kErrorCodeWidth, seen);
  check_enum("perf_unit", spec::kPerfUnitValues, spec::kPerfUnitWidth, seen);
  check_enum("queue", spec::kQueueValues, spec::kQueueWidth, seen);
  for (const auto& [name, values] : yaml().enums)
    EXPECT_TRUE(seen.count(name)) << "enum '" << name << "' of the YAML is not checked here";
  spec::Dtype t{};
  EXPECT_FALSE(spec::parse("FLOAT64", t));
}

TEST(SpecConstants, LayoutsAndMagicsMatchYaml) {
  namespace dd = spec::layout::datapath_desc;
  ASSERT_EQ(yaml().layouts.size(), 1u) << "a new layout: add it here";
  const auto& y = yaml().layouts.at("datapath_desc");
  const std::map<std::string, uint32_t> generated{
      {"header", dd::header}, {"ifd0", dd::ifd0}, {"ifd1", dd::ifd1}, {"mvm", dd::mvm},   {"dwpu", dd::dwpu},
      {"dpu", dd::dpu},       {"odr", dd::odr},   {"seg0", dd::seg0}, {"seg1", dd::seg1}, {"program", dd::program}};
  EXPECT_EQ(generated, y);
  EXPECT_EQ(dd::program_count, spec::param::dpu_max_instructions);
  EXPECT_EQ(dd::max_words, dd::program + dd::program_count * spec::DpuInstr::kWords);
  const std::map<std::string, uint32_t> magics{
      {"barrier", spec::magic::barrier}, {"datapath", spec::magic::datapath}, {"loadimc", spec::magic::loadimc}};
  EXPECT_EQ(magics, yaml().magic);
}

TEST(SpecConstants, HashIsFnv1aOfTheYamlFile) {
  EXPECT_EQ(spec::kSpecHash, yaml().hash);
  EXPECT_EQ(spec::shim::SPEC_HASH_LO_RESET, static_cast<uint32_t>(yaml().hash));
  EXPECT_EQ(spec::shim::SPEC_HASH_HI_RESET, static_cast<uint32_t>(yaml().hash >> 32));
}

TEST(SpecConstants, AddressMapAndDerivedResets) {
  EXPECT_EQ(spec::tile_addr(1, 2, 0x1234), (1u << 25) | (2u << 20) | 0x1234u);
  EXPECT_EQ(spec::core_row(0), 2u);
  const auto cfg = spec::shim::Config::decode_word(spec::shim::CONFIG_RESET);
  EXPECT_EQ(cfg.cores, spec::param::cores);
  EXPECT_EQ(cfg.imc_tiles, spec::param::imc_tiles);
  EXPECT_EQ(spec::shim::ID_RESET, spec::kIdMagic);
  EXPECT_EQ(spec::core::WDOG_LIMIT_RESET, spec::param::watchdog_default_cycles);
  EXPECT_EQ(spec::core::DMA_MM2S_QUEUE.at(1) - spec::core::DMA_S2MM_QUEUE.at(1), spec::param::dma_mm2s_delta);
  EXPECT_EQ(spec::layout::datapath_desc::seg0, 92u);  // the IFDs' later segments (§8.3)
  EXPECT_EQ(spec::layout::datapath_desc::seg1, 116u);
  EXPECT_EQ(spec::layout::datapath_desc::program, 140u);
}
