// visualize()/animate(): well-formed SVG, one cell per element, colours by order and count.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <unistd.h>

#include "axcore/tap/svg.hpp"
#include "expect_error.hpp"
#include "xml_check.hpp"

namespace axcore::tap {
namespace {

using P = TensorAccessPattern;
using namespace testing;

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::filesystem::path temp_dir() {
  auto dir = std::filesystem::temp_directory_path() / ("axcore_tap_svg_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(TapSvg, HeatmapHasOneCellPerElementColouredByOrder) {
  P p = P::full({6, 8}).tile({2, 4}).at({Slice{}, 1});  // the right half, tile by tile
  auto doc = parse_xml(visualize_svg(p));
  ASSERT_EQ(doc->name, "svg");
  auto cells = doc->all("rect", "cell");
  ASSERT_EQ(cells.size(), 48u);
  Accesses a = p.accesses();
  int64_t top = *std::max_element(a.order.data.begin(), a.order.data.end());
  for (const auto* c : cells) {
    auto i = static_cast<std::size_t>(std::stoll(c->attrs.at("data-index")));
    int64_t order = a.order.data[i];
    EXPECT_EQ(std::stoll(c->attrs.at("data-value")), order);
    EXPECT_EQ(c->attrs.at("fill"), order < 0 ? kUnvisitedColour : heat_colour(static_cast<double>(order) / top));
    // Row-major placement: column i % 8, row i / 8.
    EXPECT_EQ(std::stoi(c->attrs.at("x")), 10 + static_cast<int>(i % 8) * 24);
  }
  // Arrows join consecutive accesses: 24 accesses, 23 arrows, arrow k from the centre of the
  // cell accessed k-th to the centre of the cell accessed next.
  std::map<int64_t, std::pair<double, double>> centre_of_order;
  for (const auto* c : cells) {
    int64_t order = std::stoll(c->attrs.at("data-value"));
    if (order >= 0) centre_of_order[order] = {std::stod(c->attrs.at("x")) + 12, std::stod(c->attrs.at("y")) + 12};
  }
  auto arrows = doc->all("line", "arrow");
  ASSERT_EQ(arrows.size(), 23u);
  ASSERT_EQ(centre_of_order.size(), 24u);
  for (std::size_t k = 0; k < arrows.size(); ++k) {
    auto from = centre_of_order.at(static_cast<int64_t>(k)), to = centre_of_order.at(static_cast<int64_t>(k) + 1);
    EXPECT_EQ(std::stod(arrows[k]->attrs.at("x1")), from.first) << "arrow " << k;
    EXPECT_EQ(std::stod(arrows[k]->attrs.at("y1")), from.second) << "arrow " << k;
    EXPECT_EQ(std::stod(arrows[k]->attrs.at("x2")), to.first) << "arrow " << k;
    EXPECT_EQ(std::stod(arrows[k]->attrs.at("y2")), to.second) << "arrow " << k;
  }
  EXPECT_EQ(doc->all("title")[0]->text, p.str());
  EXPECT_EQ(heat_colour(0), "#440154");
  EXPECT_EQ(heat_colour(1), "#fde725");
  EXPECT_NE(heat_colour(0.3), heat_colour(0.31));
}

TEST(TapSvg, AccessCountPanelAndOptions) {
  P p = P::full({4, 4}).at({Slice{{}, 2}}).repeat(3);
  VisualizeOptions o;
  o.plot_access_count = true;
  o.show_arrows = false;
  o.title = "counts <&> \"quoted\"";
  auto doc = parse_xml(visualize_svg(p, o));
  EXPECT_EQ(doc->all("text", "title")[0]->text, "counts <&> \"quoted\"");
  EXPECT_EQ(doc->all("line", "arrow").size(), 0u);
  auto panels = doc->all("g", "panel");
  ASSERT_EQ(panels.size(), 2u);
  EXPECT_EQ(panels[1]->attrs.at("data-kind"), "count");
  auto counts = panels[1]->all("rect", "cell");
  ASSERT_EQ(counts.size(), 16u);
  for (const auto* c : counts) {
    int64_t i = std::stoll(c->attrs.at("data-index"));
    int64_t expect = i < 8 ? 3 : 0;
    EXPECT_EQ(std::stoll(c->attrs.at("data-value")), expect);
    EXPECT_EQ(c->attrs.at("fill"), count_colour(expect, 3));
  }
  // 1-D tensors are one row.
  auto row = parse_xml(visualize_svg(P::full({10})));
  EXPECT_EQ(row->all("rect", "cell").size(), 10u);
  EXPECT_EQ(row->attrs.at("height"), std::to_string(10 + 28 + 18 + 24 + 10));
}

TEST(TapSvg, Errors) {
  expect_error<NotImplementedError>(
      [] {
        visualize_svg(P::full({2, 2, 2}));
      },
      "Visualization is only currently supported for 1- or 2-dimensional tensors");
  P p = P::full({4, 4}).tile({2, 2});
  AnimateOptions o;
  o.frame_dims = 5;
  expect_error<ValueError>([&] { animate_svg(p, o); }, "frame_dims must be in [0, 4], got 5");
  EXPECT_THROW(visualize_svg(P::full({SymInt::param("n")})), TypeError);
  EXPECT_THROW(visualize(p, "/nonexistent-dir/x.svg"), ValueError);
}

TEST(TapSvg, AnimationOneFramePerOuterIndex) {
  P tiles = P::full({8, 8}).tile({4, 4});
  AnimateOptions o;
  o.frame_dims = 2;
  auto doc = parse_xml(animate_svg(tiles, o));
  auto frames = doc->all("g", "frame");
  ASSERT_EQ(frames.size(), 5u);  // the empty frame, then one per tile
  for (std::size_t f = 0; f < frames.size(); ++f) {
    auto cells = frames[f]->all("rect", "cell");
    ASSERT_EQ(cells.size(), 64u);
    int visited = 0;
    for (const auto* c : cells) visited += c->attrs.at("fill") != kUnvisitedColour;
    EXPECT_EQ(visited, f == 0 ? 0 : 16) << "frame " << f;
    EXPECT_EQ(frames[f]->all("animate").size(), 1u);
  }
  EXPECT_EQ(frames[2]->all("animate")[0]->attrs.at("keyTimes"), "0;0.4;0.6");
  auto dir = temp_dir();
  std::vector<std::string> paths = write_frames(tiles, (dir / "tiles").string(), o);
  ASSERT_EQ(paths.size(), 5u);
  EXPECT_EQ(std::filesystem::path(paths[4]).filename(), "tiles_004.svg");
  for (const auto& path : paths) EXPECT_NO_THROW(parse_xml(read(path)));
  animate(tiles, (dir / "tiles.svg").string(), o);
  EXPECT_EQ(parse_xml(read((dir / "tiles.svg").string()))->all("g", "frame").size(), 5u);
  std::filesystem::remove_all(dir);
}

TEST(TapSvg, XmllintAccepts) {
  if (!std::filesystem::exists("/usr/bin/xmllint")) GTEST_SKIP() << "xmllint (libxml2-utils) not installed";
  auto dir = temp_dir();
  std::string a = (dir / "v.svg").string(), b = (dir / "a.svg").string();
  VisualizeOptions vo;
  vo.plot_access_count = true;
  visualize(P::full({6, 6}).tile({3, 3}).permute({1, 0, 2, 3}), a, vo);
  animate(P::full({6, 6}).tile({3, 3}), b);
  EXPECT_EQ(std::system(("/usr/bin/xmllint --noout " + a + " " + b).c_str()), 0);
  std::filesystem::remove_all(dir);
}

TEST(TapSvg, MalformedXmlIsCaught) {  // the checker itself can fail
  EXPECT_THROW(parse_xml("<svg><g></svg>"), std::runtime_error);
  EXPECT_THROW(parse_xml("<svg a=1/>"), std::runtime_error);
  EXPECT_THROW(parse_xml("<svg>a & b</svg>"), std::runtime_error);
  EXPECT_NO_THROW(parse_xml("<?xml version=\"1.0\"?><svg a=\"1\"><g/>t &amp; u</svg>"));
}

}  // namespace
}  // namespace axcore::tap
