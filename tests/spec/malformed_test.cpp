// Malformed spec YAML fails with file:line:column and a message naming the problem — one case each.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "model.hpp"

namespace fs = std::filesystem;
using axcore::specgen::load_spec;
using axcore::specgen::SpecError;

namespace {

// Line numbers below refer to this text (1-based).
const std::string kBase =
    "spec: {name: t, version: 1, txn_dev_gen: 1, txn_major: 1, txn_minor: 0, id_magic: 1}\n"  // 1
    "params:\n"                                                                               // 2
    "  - {name: a, value: 4, min: 1, max: 8, doc: x}\n"                                       // 3
    "enums:\n"                                                                                // 4
    "  e: {width: 2, values: [{name: A, value: 0}, {name: B, value: 3}]}\n"                   // 5
    "structs:\n"                                                                              // 6
    "  s:\n"                                                                                  // 7
    "    words: 2\n"                                                                          // 8
    "    fields:\n"                                                                           // 9
    "      - {name: f0, word: 0, lsb: 0, width: 8}\n"                                         // 10
    "      - {name: f1, word: 1, lsb: 4, width: 4}\n"                                         // 11
    "layouts: {}\n"                                                                           // 12
    "tiles:\n"                                                                                // 13
    "  shim:\n"                                                                               // 14
    "    rows: shim\n"                                                                        // 15
    "    registers:\n"                                                                        // 16
    "      - {name: R0, offset: 0x0, access: rw, reset: 0}\n"                                 // 17
    "      - {name: R1, offset: 0x4, access: ro, fields: [{name: x, lsb: 0, width: 4}]}\n";   // 18

std::string edit(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

fs::path write_case(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / "axcore_spec_malformed";
  fs::create_directories(dir);
  fs::path p = dir / (name + ".yaml");
  std::ofstream(p) << text;
  return p;
}

// Loads the text and returns the error message; fails the test if it loads.
std::string error_of(const std::string& name, const std::string& text) {
  const fs::path p = write_case(name, text);
  try {
    load_spec(p.string());
  } catch (const SpecError& e) { return e.what(); }
  ADD_FAILURE() << name << ": loaded without an error";
  return "";
}

void expect_error(const std::string& name, const std::string& text, int line, int column, const std::string& message) {
  const std::string got = error_of(name, text);
  const std::string where = (fs::temp_directory_path() / "axcore_spec_malformed" / (name + ".yaml")).string() + ":" +
                            std::to_string(line) + ":" + std::to_string(column) + ": error: ";
  EXPECT_EQ(got.rfind(where, 0), 0u) << "expected location " << where << "\n got: " << got;
  EXPECT_NE(got.find(message), std::string::npos) << "expected message '" << message << "'\n got: " << got;
}

}  // namespace

TEST(SpecMalformed, BaseIsValid) { EXPECT_NO_THROW(load_spec(write_case("base", kBase).string())); }

TEST(SpecMalformed, MissingField) {
  expect_error("missing", edit(kBase, "lsb: 4, width: 4}", "lsb: 4}"), 11, 9, "s.f1: missing 'width'");
}

TEST(SpecMalformed, OverlappingRegisters) {
  expect_error("overlap_regs", edit(kBase, "name: R1, offset: 0x4", "name: R1, offset: 0x0"), 18, 9,
               "register 'shim.R1' at 0x0 overlaps register 'R0'");
}

TEST(SpecMalformed, OverlappingFields) {
  expect_error("overlap_fields", edit(kBase, "f1, word: 1", "f1, word: 0"), 11, 9,
               "field 's.f1' overlaps field 'f0' in word 0");
}

TEST(SpecMalformed, MissingRegisterAccess) {
  expect_error("missing_access", edit(kBase, "name: R1, offset: 0x4, access: ro, ", "name: R1, offset: 0x4, "), 18, 9,
               "shim.R1: missing 'access'");
}

// An array's second element lands inside a two-word register declared after it.
TEST(SpecMalformed, OverlappingRegisterArrays) {
  std::string text =
      edit(kBase, "name: R0, offset: 0x0, access: rw", "name: R0, offset: 0x0, count: 2, stride: 8, access: rw");
  text = edit(text, "access: ro, fields: [{name: x, lsb: 0, width: 4}]", "access: ro, struct: s");
  expect_error("overlap_array", text, 17, 9, "register 'shim.R0' at 0x8 overlaps register 'R1'");
}

TEST(SpecMalformed, OverlappingRegisterFields) {
  expect_error("overlap_reg_fields",
               edit(kBase, "{name: x, lsb: 0, width: 4}]", "{name: x, lsb: 0, width: 4}, {name: y, lsb: 2, width: 4}]"),
               18, 83, "field 'shim.R1.y' overlaps field 'x' in word 0");
}

TEST(SpecMalformed, RegisterPastTheTileWindow) {
  expect_error("past_window", edit(kBase, "name: R1, offset: 0x4", "name: R1, offset: 0x100000"), 18, 9,
               "register 'shim.R1' ends at 0x100004, past the 20-bit tile window");
}

TEST(SpecMalformed, FieldWiderThanRegister) {
  expect_error("wide_field", edit(kBase, "{name: x, lsb: 0, width: 4}", "{name: x, lsb: 30, width: 4}"), 18, 54,
               "field 'shim.R1.x' (lsb 30, width 4) is wider than its 32-bit register");
}

TEST(SpecMalformed, FieldWiderThanWord) {
  expect_error("wide_word_field", edit(kBase, "f0, word: 0, lsb: 0, width: 8", "f0, word: 0, lsb: 28, width: 8"), 10, 9,
               "field 's.f0' (lsb 28, width 8) is wider than its 32-bit word");
}

TEST(SpecMalformed, FieldWidthOutOfRange) {
  expect_error("width_range", edit(kBase, "lsb: 4, width: 4}", "lsb: 4, width: 33}"), 11, 44,
               "s.f1.width = 33 is out of range [1, 32]");
}

TEST(SpecMalformed, ParamValueOutOfRange) {
  expect_error("param_range", edit(kBase, "value: 4, min: 1", "value: 9, min: 1"), 3, 22,
               "param 'a'.value = 9 is out of range [1, 8]");
}

TEST(SpecMalformed, ResetValueDoesNotFitItsField) {
  expect_error("reset_range", edit(kBase, "lsb: 0, width: 4}]", "lsb: 0, width: 4, reset: 16}]"), 18, 89,
               "shim.R1.x: reset value 16 does not fit in 4 bits");
}

TEST(SpecMalformed, EnumValueOutOfRange) {
  expect_error("enum_range", edit(kBase, "{name: B, value: 3}", "{name: B, value: 4}"), 5, 64,
               "enum 'e'.B = 4 is out of range [0, 3]");
}

TEST(SpecMalformed, FieldPastTheStruct) {
  expect_error("word_range", edit(kBase, "f1, word: 1", "f1, word: 2"), 11, 26, "s.f1.word = 2 is out of range [0, 1]");
}

// The FPGA build's parameter overlay is checked the same way, located in the overlay file.
TEST(SpecMalformed, OverlayValueOutOfRange) {
  const fs::path spec = write_case("overlay_base", kBase);
  const fs::path overlay = write_case("overlay", "params:\n  a: 9\n");
  try {
    load_spec(spec.string(), overlay.string());
    ADD_FAILURE() << "the overlay loaded without an error";
  } catch (const SpecError& e) {
    const std::string got = e.what();
    EXPECT_EQ(got.rfind(overlay.string() + ":2:6: error: ", 0), 0u) << got;
    EXPECT_NE(got.find("overlay a = 9 is out of range [1, 8]"), std::string::npos) << got;
  }
}

TEST(SpecMalformed, YamlSyntaxError) {
  const std::string got = error_of("syntax", edit(kBase, "  s:\n", "  s: [\n"));
  EXPECT_NE(got.find("syntax.yaml:"), std::string::npos) << got;
  EXPECT_TRUE(std::regex_search(got, std::regex(R"(syntax\.yaml:\d+:\d+: error: )"))) << got;
}

// The build runs the generator; a bad spec makes it exit non-zero with the location on stderr.
TEST(SpecMalformed, GeneratorExitsNonZero) {
  const fs::path p = write_case("gen_exit", edit(kBase, "value: 4, min: 1", "value: 9, min: 1"));
  const fs::path err = p.string() + ".err";
  const std::string cmd = std::string(AXSPECGEN_PATH) + " " + p.string() + " --check 2> " + err.string();
  const int rc = std::system(cmd.c_str());
  EXPECT_NE(rc, 0);
  std::ifstream f(err);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("gen_exit.yaml:3:22: error:"), std::string::npos) << text;
}

TEST(SpecMalformed, TheRealSpecIsValid) { EXPECT_NO_THROW(load_spec(AXCORE_SPEC_YAML_PATH)); }
