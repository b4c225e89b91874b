// axtap end to end: the forms and outputs, option modes, and errors (stderr, exit 2).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "xml_check.hpp"

namespace {

struct Result {
  int code;
  std::string out, err;
};

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::filesystem::path scratch() {
  auto d = std::filesystem::temp_directory_path() / ("axtap_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

Result axtap(const std::vector<std::string>& args) {
  auto dir = scratch();
  std::string cmd = quote(AXTAP_PATH);
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " >" + quote((dir / "out").string()) + " 2>" + quote((dir / "err").string()) + " </dev/null";
  int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

void expect_prints(const std::vector<std::string>& args, const std::string& out) {
  Result r = axtap(args);
  EXPECT_EQ(r.code, 0) << args.back() << ": " << r.err;
  EXPECT_EQ(r.out, out + "\n") << args.back();
  EXPECT_EQ(r.err, "");
}

void expect_fails(const std::vector<std::string>& args, const std::string& err) {
  Result r = axtap(args);
  EXPECT_EQ(r.code, 2) << args.back();
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, err + "\n") << args.back();
}

TEST(TapCli, ReprAndAttributes) {
  expect_prints({"full((16, 16)).tile((4, 4))[1, 2]"},
                "TensorAccessPattern([16, 16], offset=72, sizes=[4, 4], strides=[16, 1])");
  expect_prints({"full((16, 16)).tile((4, 4))[1, 2].sizes"}, "(4, 4)");
  expect_prints({"full((16, 16)).tile((4, 4))[1, 2].transformation_dims"}, "((4, 16), (4, 1))");
  expect_prints({"full((16, 16)).tile((4, 4))[1, 2].numel"}, "16");
  expect_prints({"TensorAccessPattern.full((16, 16)).tile((4, 4))"},
                "TensorAccessPattern([16, 16], offset=0, sizes=[4, 4, 4, 4], strides=[64, 4, 16, 1])");
  expect_prints({"full((16, 16)).tile((4, 4))[:2, :2]"},
                "TensorAccessPattern([16, 16], offset=0, sizes=[2, 2, 4, 4], strides=[64, 4, 16, 1])");
  expect_prints({"TensorAccessPattern.full((1024,)).partition(4)[2]"},
                "TensorAccessPattern([1024], offset=512, sizes=[256], strides=[1])");
  expect_prints({"full((8,)).strides"}, "(1,)");
  expect_prints({"full((4, 4)).padding"}, "None");
  expect_prints({"full((4, 4)).pad([(1, 1), (0, 2)]).padding"}, "((1, 1), (0, 2))");
  expect_prints({"full((4, 4)).pad([(1, 1), (0, 2)]).padded_sizes"}, "(6, 6)");
  expect_prints({"full((4, 6)).T.tensor_dims"}, "(4, 6)");
  expect_prints({"full((4, 6)).rank"}, "2");
  expect_prints({"full((4, 6)).sizes[-1]"}, "6");
}

TEST(TapCli, EveryMethodInAChain) {
  expect_prints({"full((8, 8)).tile((4, 4)).permute((1, 0, 2, 3)).split(0, 1).merge(0).coalesce()"},
                "TensorAccessPattern([8, 8], offset=0, sizes=[2, 8, 4], strides=[4, 8, 1])");
  expect_prints({"full((8, 8)).tile((2, 4)).inverse()"},
                "TensorAccessPattern([8, 8], offset=0, sizes=[4, 2, 2, 4], strides=[16, 4, 8, 1])");
  expect_prints({"full((16,))[2:10:2].repeat(3)"}, "TensorAccessPattern([16], offset=2, sizes=[3, 4], strides=[0, 2])");
  expect_prints({"full((4, 4)).partition(2, dim=1)[1]"},
                "TensorAccessPattern([4, 4], offset=2, sizes=[4, 2], strides=[4, 1])");
  expect_prints({"TensorAccessPattern((16,), 0, (4,), (2,))"},
                "TensorAccessPattern([16], offset=0, sizes=[4], strides=[2])");
  expect_prints({"full((4, 4)) == full((4, 4)).split(0, 2).coalesce()"}, "True");
  expect_prints({"full((4, 4)) != full((4, 4)).T"}, "True");
  expect_prints({"full((4, 4)).compare_access_orders(full((4, 4)).T)"}, "False");
  expect_prints({"full((2, 2)).accesses()"}, "([[0, 1], [2, 3]], [[1, 1], [1, 1]])");
  expect_prints({"full((2, 2)).T.access_order()"}, "[[0, 2], [1, 3]]");
  expect_prints({"full((2, 3)).T.gather(arange(6))"}, "[0, 3, 1, 4, 2, 5]");
  expect_prints({"full((2, 3)).T.scatter([0, 1, 2, 3, 4, 5])"}, "[[0, 2, 4], [1, 3, 5]]");
  expect_prints({"full((4,)).gather([5, 6, 7, 8], pad_value=0)"}, "[5, 6, 7, 8]");
}

TEST(TapCli, DispatchTimeParameters) {
  expect_prints({"full((M, 64)).tile((16, 16))"},
                "TensorAccessPattern([M, 64], offset=0, sizes=[M // 16, 4, 16, 16], strides=[1024, 16, 64, 1])");
  expect_prints({"full((M, 64)).tile((16, 16)).bind(M=128).sizes"}, "(8, 4, 16, 16)");
  expect_prints({"--param", "M=32", "full((M, 64)).tile((16, 16)).sizes"}, "(2, 4, 16, 16)");
  expect_prints({"full((8 * 256,)).partition(8)[start + 1].offset"}, "256 * start + 256");
  expect_fails({"full((M, 64)).tile((16, 16)).bind(M=120)"},
               "ValueError: dimension 0 of size M is not divisible by tile size 16");
  expect_fails({"-p", "M=120", "full((M, 64)).tile((16, 16))"},
               "ValueError: dimension 0 of size 120 is not divisible by tile size 16");
  expect_fails({"-p", "M", "full((M,))"}, "ValueError: --param wants NAME=VALUE, got 'M'");
}

TEST(TapCli, Modes) {
  expect_prints({"--order", "full((2, 4)).tile((2, 2))"}, "[[0, 1, 4, 5], [2, 3, 6, 7]]");
  expect_prints({"--count", "full((2, 2))[1].repeat(2)"}, "[[0, 0], [2, 2]]");
  expect_prints({"--gather", "full((4, 4)).tile((2, 2))[0, 1]"}, "[2, 3, 6, 7]");
  expect_prints({"--gather", "--pad-value", "-1", "full((2, 2)).pad([(0, 0), (1, 0)])"}, "[-1, 0, 1, -1, 2, 3]");
  expect_prints({"--bds", "memdma", "--bits", "16", "full((16, 16)).tile((4, 4))[1, 2]"},
                "MemDMA task: start=0 repeat=0 bds=1\n"
                "bd 0: len=8 addr=0x90 d0=2/1 d1=4/8 d2=1/0 d3=1/0 iter=0/0 next=-");
  expect_fails({"--bds", "sysdma", "--bits", "16", "full((16, 16)).tile((4, 4))[0, 0].T"},
               "ValueError: dma_bd: Stride 1 is 1 elements * 2 bytes = 2 bytes, which is not divisible by 4");
  expect_fails({"--bds", "memdma", "--bits", "16", "full((16, 16)).tile((4, 4))[0, 0].T"},
               "ValueError: dma_bd: For <32b width datatypes, inner-most dim stride must be 1");
  expect_fails({"--bds", "dsp", "full((4,))"}, "ValueError: --bds: unknown engine 'dsp' (sysdma, memdma or coredma)");
  expect_fails({"--order", "full((4,)).numel"}, "TypeError: this option needs a TensorAccessPattern, got 'int'");
}

TEST(TapCli, Pictures) {
  auto dir = scratch();
  std::string a = (dir / "v.svg").string(), b = (dir / "a.svg").string(), c = (dir / "m.svg").string();
  Result r = axtap({"--svg", a, "--with-count", "full((8, 8)).tile((4, 4))"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  auto doc = axcore::tap::testing::parse_xml(slurp(a));
  EXPECT_EQ(doc->all("rect", "cell").size(), 128u);
  r = axtap({"--svg", b, "--animate", "2", "full((8, 8)).tile((4, 4))"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(axcore::tap::testing::parse_xml(slurp(b))->all("g", "frame").size(), 5u);
  r = axtap({"full((4, 4)).visualize(file_path=\"" + c + "\", title=\"mine\")"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(axcore::tap::testing::parse_xml(slurp(c))->all("title")[0]->text, "mine");
  expect_fails({"--svg", a, "full((2, 2, 2))"},
               "NotImplementedError: Visualization is only currently supported for 1- or 2-dimensional tensors");
  std::filesystem::remove_all(dir);
}

TEST(TapCli, NumPyIndexing) {
  expect_prints({"full((16, 16)).tile((4, 4))[-1]"},
                "TensorAccessPattern([16, 16], offset=192, sizes=[4, 4, 4], strides=[4, 16, 1])");
  expect_prints({"full((16, 16)).tile((4, 4))[-1] == full((16, 16)).tile((4, 4))[3]"}, "True");
  expect_prints({"full((16,))[-4:]"}, "TensorAccessPattern([16], offset=12, sizes=[4], strides=[1])");
  expect_prints({"full((16,))[:20].sizes"}, "(16,)");
  expect_prints({"full((16,))[:-1].sizes"}, "(15,)");
  expect_prints({"full((16,))[-20:4].sizes"}, "(4,)");
  expect_prints({"full((16, 16))[-16, -1].offset"}, "15");
  expect_prints({"--order", "full((8,))[-6:-2:3]"}, "[-1, -1, 0, -1, -1, 1, -1, -1]");
  expect_prints({"full((M,))[-1].bind(M=8)"}, "TensorAccessPattern([8], offset=7, sizes=[1], strides=[1])");
  expect_fails({"full((16,))[-17]"}, "ValueError: index -17 is out of bounds for axis 0 with size 16");
  expect_fails({"full((16,))[20:]"}, "ValueError: slice 20:16 of axis 0 (size 16) is empty");
  expect_fails({"full((16,))[-4:-8]"}, "ValueError: slice -4:-8 of axis 0 (size 16) is empty");
  expect_fails({"full((16,))[::-1]"}, "ValueError: slice step must be positive, got -1");
  // A staged index does not wrap: it must be in range when bound.
  expect_fails({"full((16,))[i].bind(i=-1)"}, "ValueError: index i is out of bounds for axis 0 with size 16");
  // -p substitutes the value while parsing: a concrete int, which wraps.
  expect_prints({"-p", "a=-4", "full((16,))[a:]"}, "TensorAccessPattern([16], offset=12, sizes=[4], strides=[1])");
}

TEST(TapCli, Errors) {
  expect_fails({"full((16, 16)).split(1, 3)"}, "ValueError: dimension 1 of size 16 is not divisible by 3");
  expect_fails({"full((16, 16))[16]"}, "ValueError: index 16 is out of bounds for axis 0 with size 16");
  expect_fails({"full((4, 4)).foo"}, "AttributeError: 'TensorAccessPattern' object has no attribute 'foo'");
  expect_fails({"full((4, 4)).split(1)"}, "TypeError: split() missing 1 required positional argument: 'inner'");
  expect_fails({"full((4, 4)).merge(0, 1)"}, "TypeError: merge() takes 1 positional argument but 2 were given");
  expect_fails({"full((4, 4)).partition(2, axis=1)"},
               "TypeError: partition() got an unexpected keyword argument 'axis'");
  expect_fails({"full(16)"}, "TypeError: 'int' object is not iterable (tensor_dims)");
  expect_fails({"full((4, 4))[1"}, "SyntaxError: expected ']' at the end");
  expect_fails({"full((4, 4)) $"}, "SyntaxError: unexpected character '$' at column 14");
  expect_fails({"full((4, 4)).T.merge(0)"},
               "ValueError: dimensions 0 and 1 are not contiguous (stride 1 != 4 * 4); cannot merge");
  expect_fails({"full((M,)).merge(0)"}, "ValueError: dimension 0 has no successor to merge with");
  expect_fails({"full((M, 4)).inverse()"},
               "TypeError: inverse() needs a concrete pattern, but TensorAccessPattern([M, 4], offset=0, sizes=[M, 4], "
               "strides=[4, 1]) has dispatch-time values; bind() them first");
  expect_fails({"full((4, 4)).compare_access_orders(3)"},
               "TypeError: Can only compare access order against another TensorAccessPattern");
  expect_fails({"4 // 0"}, "ZeroDivisionError: integer division or modulo by zero");
  Result usage = axtap({"--bogus", "x"});
  EXPECT_EQ(usage.code, 2);
  EXPECT_NE(usage.err.find("--bogus"), std::string::npos);
  EXPECT_EQ(axtap({"--help"}).code, 0);
}

}  // namespace
