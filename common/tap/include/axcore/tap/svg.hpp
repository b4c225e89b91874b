// Pictures of a walk as SVG: the seed's visualize() and animate(), browser-free.
//
// A heatmap of a 1-D or 2-D tensor: one <rect class="cell"> per element, filled by its access
// order (the number of its last access; light grey if never accessed) and optionally a second
// panel by access count, with arrows between consecutive accesses.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "axcore/tap/pattern.hpp"

namespace axcore::tap {

struct VisualizeOptions {
  std::optional<bool> show_arrows;   // default: only for tensors of at most 256 elements
  std::optional<std::string> title;  // default: the pattern's repr
  bool plot_access_count = false;
  int cell_px = 24;
};

// The picture as SVG text; visualize() writes it to `file_path`.
std::string visualize_svg(const TensorAccessPattern& p, const VisualizeOptions& options = {});
void visualize(const TensorAccessPattern& p, const std::string& file_path, const VisualizeOptions& options = {});

struct AnimateOptions {
  int frame_dims = 1;                // one frame per index of this many outermost dimensions
  std::optional<std::string> title;  // default: "TensorAccessPattern Animation"
  bool animate_access_count = false;
  double frame_seconds = 0.5;
  int cell_px = 24;
};

// The frames as separate SVG documents: an empty first frame, then one per index of the
// outer frame_dims dimensions (the walk of p[index]).
std::vector<std::string> animate_frames(const TensorAccessPattern& p, const AnimateOptions& options = {});
// One SVG that shows those frames in turn (SMIL, looping).
std::string animate_svg(const TensorAccessPattern& p, const AnimateOptions& options = {});
void animate(const TensorAccessPattern& p, const std::string& file_path, const AnimateOptions& options = {});
// Writes `<prefix>_000.svg`, `<prefix>_001.svg`, ...; returns the paths.
std::vector<std::string> write_frames(const TensorAccessPattern& p, const std::string& prefix,
                                      const AnimateOptions& options = {});

// The colour of position t in [0, 1] of the order scale (a viridis-like ramp), as `#rrggbb`.
std::string heat_colour(double t);
// The colour of an access count c out of a maximum m (white to dark blue).
std::string count_colour(int64_t c, int64_t m);
inline constexpr const char* kUnvisitedColour = "#eeeeee";

}  // namespace axcore::tap
