#include "axcore/tap/svg.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>

namespace axcore::tap {

namespace {

constexpr int kMargin = 10, kTitleH = 28, kPanelTitleH = 18, kGap = 24;
constexpr int64_t kArrowsUpTo = 256, kLabelsUpTo = 256;

std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string hex(int r, int g, int b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The accesses of a 1-D or 2-D tensor as (rows, cols) grids.
struct Grid {
  int64_t rows, cols;
  std::vector<int64_t> order, count;
};

Grid grid_of(const TensorAccessPattern& p) {
  if (p.tensor_dims().size() > 2) {
    throw NotImplementedError("Visualization is only currently supported for 1- or 2-dimensional tensors");
  }
  Accesses a = p.accesses();
  int64_t rows = a.order.shape.size() == 2 ? a.order.shape[0] : 1;
  int64_t cols = a.order.shape.back();
  return {rows, cols, std::move(a.order.data), std::move(a.count.data)};
}

// Text that reads on its cell: the dark ends of the two ramps take white labels.
std::string label_colour(bool counts, int64_t v, int64_t top) {
  double t = top > 0 ? static_cast<double>(v) / static_cast<double>(top) : 0.0;
  bool dark = counts ? v > 0 && t > 0.5 : t < 0.6;
  return dark ? "#ffffff" : "#000000";
}

// One heatmap panel at (x0, y0): a group of cells, optional labels and arrows.
void panel(std::string& out, const Grid& g, bool counts, int x0, int y0, int cell, const std::string& name,
           bool arrows) {
  int64_t n = g.rows * g.cols;
  int64_t top = 0;
  for (int64_t i = 0; i < n; ++i)
    top = std::max(top, counts ? g.count[static_cast<std::size_t>(i)] : g.order[static_cast<std::size_t>(i)]);
  out += "<g class=\"panel\" data-kind=\"" + std::string(counts ? "count" : "order") + "\">\n";
  out += "<text class=\"panel-title\" x=\"" + std::to_string(x0) + "\" y=\"" + std::to_string(y0 - 5) +
         "\" font-size=\"12\">" + esc(name) + "</text>\n";
  bool labels = n <= kLabelsUpTo && cell >= 16;
  for (int64_t r = 0; r < g.rows; ++r) {
    for (int64_t c = 0; c < g.cols; ++c) {
      auto i = static_cast<std::size_t>(r * g.cols + c);
      int64_t v = counts ? g.count[i] : g.order[i];
      std::string fill = counts  ? count_colour(v, top)
                         : v < 0 ? kUnvisitedColour
                                 : heat_colour(top > 0 ? static_cast<double>(v) / static_cast<double>(top) : 0.0);
      int x = x0 + static_cast<int>(c) * cell, y = y0 + static_cast<int>(r) * cell;
      out += "<rect class=\"cell\" x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
             std::to_string(cell) + "\" height=\"" + std::to_string(cell) + "\" fill=\"" + fill +
             "\" stroke=\"#ffffff\" stroke-width=\"0.5\" data-index=\"" + std::to_string(i) + "\" data-value=\"" +
             std::to_string(v) + "\"/>\n";
      if (labels && v >= 0) {
        out += "<text class=\"label\" x=\"" + num(x + cell / 2.0) + "\" y=\"" + num(y + cell / 2.0 + 3.5) +
               "\" font-size=\"9\" text-anchor=\"middle\" fill=\"" + label_colour(counts, v, top) + "\">" +
               std::to_string(v) + "</text>\n";
      }
    }
  }
  if (arrows && !counts) {
    // Cells by access number; an arrow from each to the next.
    std::vector<std::pair<int64_t, int64_t>> seq;
    for (int64_t i = 0; i < n; ++i)
      if (g.order[static_cast<std::size_t>(i)] >= 0) seq.emplace_back(g.order[static_cast<std::size_t>(i)], i);
    std::sort(seq.begin(), seq.end());
    auto centre = [&](int64_t i, bool xaxis) {
      return (xaxis ? x0 + static_cast<double>(i % g.cols) * cell : y0 + static_cast<double>(i / g.cols) * cell) +
             cell / 2.0;
    };
    for (std::size_t k = 1; k < seq.size(); ++k) {
      int64_t a = seq[k - 1].second, b = seq[k].second;
      out += "<line class=\"arrow\" x1=\"" + num(centre(a, true)) + "\" y1=\"" + num(centre(a, false)) + "\" x2=\"" +
             num(centre(b, true)) + "\" y2=\"" + num(centre(b, false)) +
             "\" stroke=\"#d62728\" stroke-width=\"1.2\" marker-end=\"url(#arrowhead)\"/>\n";
    }
  }
  out += "</g>\n";
}

struct Layout {
  int cell, width, height, panel_w, panel_h;
};

Layout layout(const Grid& g, int cell, bool two_panels, const std::string& title) {
  Layout l{cell, 0, 0, static_cast<int>(g.cols) * cell, static_cast<int>(g.rows) * cell};
  // Wide enough for the title too (about 7 px per character at 13 px).
  l.width = std::max(2 * kMargin + l.panel_w + (two_panels ? kGap + l.panel_w : 0),
                     2 * kMargin + 7 * static_cast<int>(title.size()));
  l.height = kMargin + kTitleH + kPanelTitleH + l.panel_h + kMargin;
  return l;
}

std::string header(const Layout& l, const std::string& title) {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" +
      std::to_string(l.width) + "\" height=\"" + std::to_string(l.height) + "\" viewBox=\"0 0 " +
      std::to_string(l.width) + " " + std::to_string(l.height) + "\" font-family=\"sans-serif\">\n";
  out += "<title>" + esc(title) + "</title>\n";
  out +=
      "<defs><marker id=\"arrowhead\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"5\" "
      "markerHeight=\"5\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" "
      "fill=\"#d62728\"/></marker></defs>\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  out += "<text class=\"title\" x=\"" + std::to_string(kMargin) + "\" y=\"" + std::to_string(kMargin + 14) +
         "\" font-size=\"13\">" + esc(title) + "</text>\n";
  return out;
}

void panels(std::string& out, const Grid& g, const Layout& l, bool with_count, bool arrows) {
  int y0 = kMargin + kTitleH + kPanelTitleH;
  panel(out, g, false, kMargin, y0, l.cell, "access order", arrows);
  if (with_count) panel(out, g, true, kMargin + l.panel_w + kGap, y0, l.cell, "access count", false);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw ValueError("cannot write " + path);
  f << text;
  if (!f) throw ValueError("cannot write " + path);
}

Grid empty_like(const Grid& g) {
  auto n = static_cast<std::size_t>(g.rows * g.cols);
  return {g.rows, g.cols, std::vector<int64_t>(n, -1), std::vector<int64_t>(n, 0)};
}

std::vector<Grid> frames_of(const TensorAccessPattern& p, const AnimateOptions& o) {
  if (o.frame_dims < 0 || o.frame_dims > p.rank()) {
    throw ValueError("frame_dims must be in [0, " + std::to_string(p.rank()) + "], got " +
                     std::to_string(o.frame_dims));
  }
  if (p.is_symbolic()) {
    throw TypeError("animate() needs a concrete pattern, but " + p.str() +
                    " has dispatch-time values; bind() them first");
  }
  if (p.tensor_dims().size() > 2) {
    throw NotImplementedError("Visualization is only currently supported for 1- or 2-dimensional tensors");
  }
  std::vector<int64_t> outer;
  for (int i = 0; i < o.frame_dims; ++i) outer.push_back(p.sizes()[static_cast<std::size_t>(i)].value());
  std::vector<Grid> frames;
  std::vector<int64_t> idx(outer.size(), 0);
  for (bool more = true; more;) {
    std::vector<Index> index(idx.begin(), idx.end());
    frames.push_back(grid_of(p.at(index)));
    more = false;
    for (std::size_t i = idx.size(); i-- > 0;) {
      if (++idx[i] < outer[i]) {
        more = true;
        break;
      }
      idx[i] = 0;
    }
  }
  frames.insert(frames.begin(), empty_like(frames.front()));
  return frames;
}

}  // namespace

std::string heat_colour(double t) {
  // Viridis at five stops, linearly interpolated.
  static constexpr std::array<std::array<double, 3>, 5> kStops{
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  t = std::clamp(t, 0.0, 1.0) * 4.0;
  auto i = std::min<std::size_t>(static_cast<std::size_t>(t), 3);
  double f = t - static_cast<double>(i);
  auto mix = [&](std::size_t ch) {
    return static_cast<int>(std::lround(kStops[i][ch] + f * (kStops[i + 1][ch] - kStops[i][ch])));
  };
  return hex(mix(0), mix(1), mix(2));
}

std::string count_colour(int64_t c, int64_t m) {
  if (c <= 0) return "#ffffff";
  double t = m > 0 ? static_cast<double>(c) / static_cast<double>(m) : 1.0;
  auto mix = [t](int from, int to) { return static_cast<int>(std::lround(from + t * (to - from))); };
  return hex(mix(222, 8), mix(235, 48), mix(247, 107));
}

std::string visualize_svg(const TensorAccessPattern& p, const VisualizeOptions& o) {
  Grid g = grid_of(p);
  bool arrows = o.show_arrows.value_or(g.rows * g.cols <= kArrowsUpTo);
  std::string title = o.title.value_or(p.str());
  Layout l = layout(g, o.cell_px, o.plot_access_count, title);
  std::string out = header(l, title);
  panels(out, g, l, o.plot_access_count, arrows);
  return out + "</svg>\n";
}

void visualize(const TensorAccessPattern& p, const std::string& file_path, const VisualizeOptions& o) {
  write_file(file_path, visualize_svg(p, o));
}

std::vector<std::string> animate_frames(const TensorAccessPattern& p, const AnimateOptions& o) {
  std::vector<Grid> frames = frames_of(p, o);
  std::string title = o.title.value_or("TensorAccessPattern Animation");
  Layout l = layout(frames.front(), o.cell_px, o.animate_access_count, title + " (frame 000)");
  std::vector<std::string> out;
  for (std::size_t f = 0; f < frames.size(); ++f) {
    std::string svg = header(l, title + " (frame " + std::to_string(f) + ")");
    panels(svg, frames[f], l, o.animate_access_count, false);
    out.push_back(svg + "</svg>\n");
  }
  return out;
}

std::string animate_svg(const TensorAccessPattern& p, const AnimateOptions& o) {
  std::vector<Grid> frames = frames_of(p, o);
  std::string title = o.title.value_or("TensorAccessPattern Animation");
  Layout l = layout(frames.front(), o.cell_px, o.animate_access_count, title);
  std::string out = header(l, title);
  auto n = static_cast<double>(frames.size());
  std::string dur = num(o.frame_seconds * n) + "s";
  for (std::size_t f = 0; f < frames.size(); ++f) {
    auto k = static_cast<double>(f);
    out += "<g class=\"frame\" data-frame=\"" + std::to_string(f) + "\" visibility=\"" +
           (f == 0 ? "visible" : "hidden") + "\">\n";
    std::string values = f == 0 ? "visible;hidden" : "hidden;visible;hidden";
    std::string times = f == 0 ? "0;" + num(1 / n) : "0;" + num(k / n) + ";" + num((k + 1) / n);
    if (frames.size() == 1) {
      values = "visible";
      times = "0";
    }
    out += "<animate attributeName=\"visibility\" calcMode=\"discrete\" values=\"" + values + "\" keyTimes=\"" + times +
           "\" dur=\"" + dur + "\" repeatCount=\"indefinite\"/>\n";
    panels(out, frames[f], l, o.animate_access_count, false);
    out += "</g>\n";
  }
  return out + "</svg>\n";
}

void animate(const TensorAccessPattern& p, const std::string& file_path, const AnimateOptions& o) {
  write_file(file_path, animate_svg(p, o));
}

std::vector<std::string> write_frames(const TensorAccessPattern& p, const std::string& prefix,
                                      const AnimateOptions& o) {
  std::vector<std::string> frames = animate_frames(p, o), paths;
  for (std::size_t f = 0; f < frames.size(); ++f) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "_%03zu.svg", f);
    paths.push_back(prefix + suffix);
    write_file(paths.back(), frames[f]);
  }
  return paths;
}

}  // namespace axcore::tap
