// The spec parameter overlay (the FPGA build configuration): the generator's model with
// firmware/fpga/small.yaml applied carries its values, register resets that name a parameter
// follow them, the hash changes; a bad overlay fails with file:line:column.
#include <gtest/gtest.h>

#include <axcore/spec.hpp>
#include <filesystem>
#include <fstream>

#include "model.hpp"

namespace {

namespace sg = axcore::specgen;

int64_t param(const sg::Spec& s, const std::string& n) { return s.find_param(n)->value; }

uint32_t reset_of(const sg::Spec& s, const std::string& tile, const std::string& reg) {
  for (const auto& t : s.tiles)
    if (t.name == tile)
      for (const auto& r : t.registers)
        if (r.name == reg) {
          uint32_t v = r.reset;
          for (const auto& f : r.fields) v |= f.reset << f.lsb;
          return v;
        }
  ADD_FAILURE() << tile << "." << reg << " not found";
  return 0;
}

std::string write(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / ("axfw_overlay_" + name + ".yaml");
  std::ofstream(p) << text;
  return p.string();
}

TEST(SpecOverlay, TheSmallConfigurationAppliesItsParameters) {
  const sg::Spec base = sg::load_spec(AXCORE_SPEC_YAML_PATH);
  const sg::Spec small = sg::load_spec(AXCORE_SPEC_YAML_PATH, AXFW_SMALL_OVERLAY);
  EXPECT_EQ(param(small, "l1_bytes"), 262144);
  EXPECT_EQ(param(small, "l2_bytes"), 1048576);
  EXPECT_EQ(param(small, "imc_tiles"), 32);
  EXPECT_EQ(param(small, "l1_banks"), 4);
  EXPECT_EQ(param(small, "dma_channels"), param(base, "dma_channels"));  // untouched
  EXPECT_NE(small.hash, base.hash);
  // shim CONFIG resets to the build's parameters (imc_tiles in bits 23:16)
  EXPECT_EQ(reset_of(base, "shim", "CONFIG") >> 16 & 0xFF, 128u);
  EXPECT_EQ(reset_of(small, "shim", "CONFIG") >> 16 & 0xFF, 32u);
  EXPECT_NE(small.source_path.find("small.yaml"), std::string::npos);
  // This build tree's spec.hpp came from the spec with this tree's overlay (none by default).
  const sg::Spec built = sg::load_spec(AXCORE_SPEC_YAML_PATH, AXFW_BUILD_OVERLAY);
  EXPECT_EQ(built.hash, axcore::spec::kSpecHash);
  EXPECT_EQ(reset_of(built, "shim", "CONFIG"), axcore::spec::shim::CONFIG_RESET);
}

TEST(SpecOverlay, ABadOverlayNamesFileLineAndWhy) {
  const struct {
    const char* name;
    const char* text;
    const char* says;
  } cases[] = {
      {"unknown", "params:\n  l1_bytes: 262144\n  l3_bytes: 7\n",
       ":3:3: error: overlay: 'l3_bytes' is not a spec parameter"},
      {"range", "params:\n  cores: 9\n", ":2:10: error: overlay cores = 9 is out of range [1, 4]"},
      {"fixed", "params:\n  pword_lanes: 32\n", "out of range [64, 64]"},
      {"key", "params: {cores: 1}\nregisters: {}\n", ":2:1: error: overlay: unknown key 'registers'"},
      {"list", "params:\n  - cores\n", "expected a mapping name: value"},
      {"text", "params:\n  cores: one\n", "'one' is not an integer"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = write(c.name, c.text);
    try {
      sg::load_spec(AXCORE_SPEC_YAML_PATH, path);
      ADD_FAILURE() << "accepted";
    } catch (const sg::SpecError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(sg::load_spec(AXCORE_SPEC_YAML_PATH, "/nonexistent/overlay.yaml"), sg::SpecError);
}

}  // namespace
