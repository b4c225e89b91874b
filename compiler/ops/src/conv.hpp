// core.convolution's geometry and its weight, shared by the single-residency path (conv.cpp) and
// the path in K passes and output-row bands (conv_passes.cpp).
#pragma once

#include "mvm.hpp"

namespace axcore::compiler::ops::detail {

struct Geometry {
  int64_t h, w, cb, kh, kw, nb, oh, ow;
  std::vector<int64_t> s, p, d;
  bool blocked;  // weight (C_out/64, KH, KW, C_in): the guide's §13 layout, the IMC's column-block order
};
Geometry geometry(const Call& c);
// The weight as the IMC loads it: (KH*KW*C_in, C_out/64) for the HWIO layout, (C_out/64,
// KH*KW*C_in) for the blocked one (load_streamed's block_major).
Tensor weight_rows(const Call& c, const Geometry& g);

// The passes path: used when the window exceeds one residency (K split into runs of kernel rows,
// float18 partial sums as the split-k pass makes them) or when the input does not fit L1 with
// the result (the input streamed a band of output rows at a time). Kernel rows per pass: 0 when
// the path is not needed.
struct PassPlan {
  int64_t kh_per_pass = 0;  // kernel rows a residency holds
  int64_t passes = 0;
  int64_t blocks = 1;     // output blocks per residency: 1 with K passes, else as many as fit (max_chunk)
  int64_t band_rows = 0;  // output rows per streamed input band (0: the input read in place)
};
PassPlan pass_plan(const Call& c, const Geometry& g);
// Checks what the passes path cannot do (refusing at the call); after validate's own checks.
void validate_passes(const Call& c, const Geometry& g, const PassPlan& p);
void conv_in_passes(const Call& c, const Geometry& g, const PassPlan& p, const Tensor& out);
// The reference: the weight brought to (KH, KW, C_in, C_out) by reshape/permute nodes when it is
// blocked, then one conv2d (with the epilogue), or per output block the passes' conv2d nodes
// summed in float18 by "add" nodes in pass order and the blocks concatenated. `weight` names the
// weight in the graph (the call's weight, or its view read from a column-block image).
std::vector<Node> conv_reference(const Call& c, const Geometry& g, const PassPlan& p, const Tensor& out,
                                 const std::string& weight);

}  // namespace axcore::compiler::ops::detail
