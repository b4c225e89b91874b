// The generated C++ constants equal the YAML's values.
#include <gtest/gtest.h>

#include <axcore/spec.hpp>
#include <fstream>
#include <sstream>

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
    if (!y[i].memory) {
      EXPECT_EQ(regs[i].count, y[i].count);
      EXPECT_EQ(regs[i].stride, y[i].stride);
    }
    EXPECT_EQ(spec::to_string(regs[i].access), y[i].access);
    EXPECT_EQ(regs[i].struct_name, y[i].struct_name);
  }
}
}  // namespace

TEST(SpecConstants, ParamsMatchYaml) {
  ASSERT_EQ(spec::kParams.size(), yaml().params.size());
  for (const auto& p : spec::kParams) {
    SCOPED_TRACE(std::string(p.name));
    ASSERT_TRUE(yaml().params.count(std::string(p.name)));
    EXPECT_EQ(p.value, yaml().params.at(std::string(p.name)));
  }
  EXPECT_EQ(spec::param::pword_lanes, yaml().params.at("pword_lanes"));
  EXPECT_EQ(spec::param::imc_tiles, yaml().params.at("imc_tiles"));
  EXPECT_EQ(spec::param::l1_bytes, yaml().params.at("l1_bytes"));
  EXPECT_EQ(spec::param::dpu_registers, yaml().params.at("dpu_registers"));
}

TEST(SpecConstants, RegisterMapsMatchYaml) {
  check_tile(spec::shim::kRegisters, "shim");
  check_tile(spec::mem::kRegisters, "mem");
  check_tile(spec::core::kRegisters, "core");
}

TEST(SpecConstants, EnumsMatchYaml) {
  const auto& d = yaml().enum_values.at("dtype");
  ASSERT_EQ(spec::kDtypeValues.size(), d.size());
  for (size_t i = 0; i < d.size(); ++i)
    EXPECT_EQ(static_cast<uint32_t>(spec::kDtypeValues[i]), d[i]);
  const auto& op = yaml().enum_values.at("dpu_op");
  ASSERT_EQ(spec::kDpuOpValues.size(), op.size());
  spec::Dtype t{};
  EXPECT_TRUE(spec::parse("FLOAT18", t));
  EXPECT_EQ(t, spec::Dtype::FLOAT18);
  EXPECT_FALSE(spec::parse("FLOAT64", t));
}

TEST(SpecConstants, HashIsFnv1aOfTheYamlFile) {
  std::ifstream f(AXCORE_SPEC_YAML_PATH, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : ss.str()) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  EXPECT_EQ(spec::kSpecHash, h);
  EXPECT_EQ(spec::shim::SPEC_HASH_LO_RESET, static_cast<uint32_t>(h));
  EXPECT_EQ(spec::shim::SPEC_HASH_HI_RESET, static_cast<uint32_t>(h >> 32));
}

TEST(SpecConstants, AddressMapAndDerivedResets) {
  EXPECT_EQ(spec::tile_addr(1, 2, 0x1234), (1u << 25) | (2u << 20) | 0x1234u);
  EXPECT_EQ(spec::core_row(0), 2u);
  const auto cfg = spec::shim::Config::decode_word(spec::shim::CONFIG_RESET);
  EXPECT_EQ(cfg.cores, spec::param::cores);
  EXPECT_EQ(cfg.imc_tiles, spec::param::imc_tiles);
  EXPECT_EQ(spec::shim::ID_RESET, spec::kIdMagic);
  EXPECT_EQ(spec::core::WDOG_LIMIT_RESET, spec::param::watchdog_default_cycles);
  EXPECT_EQ(spec::core::DMA_MM2S_QUEUE.at(1) - spec::core::DMA_S2MM_QUEUE.at(1),
            spec::param::dma_mm2s_delta);
  EXPECT_EQ(spec::layout::datapath_desc::program, 92u);
}
