// The MVMEXE datapath shared by linear, matmul and convolution (guide §6.2): the IFD streams each
// output's reduction, the MatMul's three statements against a resident IMC chunk, the DPU
// epilogue (scale, bias, relu — constants in preamble registers, the output-block loop inside
// the DPU so registers are indexed by it), the ODR store.
#pragma once

#include <optional>

#include "util.hpp"

namespace axcore::compiler::ops::detail {

struct Epilogue {
  std::optional<double> scale;  // per tensor (the float32 value)
  std::vector<double> bias;     // per output column (N values), or empty
  bool relu = false;
};

struct MvmChunk {
  std::vector<int64_t> outer;  // output positions: (M) for linear, (OH, OW) for convolution
  int64_t k_blocks = 0;
  int64_t nb0 = 0, nbc = 0;  // the output blocks [nb0, nb0 + nbc) this chunk computes
  Tensor imc;                // (k_blocks, nbc), loaded
  // Emits the IFD(num=0) block's body (its loops and the single push) into `s`.
  std::function<void(const A::StreamHandle& s)> ifd;
  int64_t out_nb0 = -1;         // the result's first column block (-1: nb0; 0: a result slot of the chunk)
  Tensor* epi_cache = nullptr;  // shares one epilogue constant between the chunk's datapaths
  // > 0: the chunks of the layer (layer_nb output blocks, layer_chunk per chunk) share one
  // epilogue constant through epi_cache, each reading its segment (one copy instead of one per chunk).
  int64_t layer_nb = 0, layer_chunk = 0;
  int64_t out_row0 = 0;  // the result's first index along its first axis (a band of output rows)
  // A K pass after the first (split K; the guide's partial=, §11.2): out = f18(f18(acc) +
  // f18(partial)), the partial sum streamed through IFD1 in the ODR's order — `out` itself for a
  // running sum in place (each element is read before the ODR writes it). No epilogue constants.
  Tensor partial;
};

// Largest output-block chunk one residency and the DPU's registers allow.
int64_t max_chunk(int64_t k_blocks, const Epilogue& e);
// One datapath writing out[outer..., nb0 + nb].
void mvm_chunk(const MvmChunk& c, const Epilogue& e, const Tensor& out);
// LoadIMC of rows [row_block * 64, ...) of w (K, NB) int8x64 into imc(kb, nb) for kb in
// [kb0, kb0 + kbs), nb in [0, nbc), weight block row_block0 + kb - kb0, column nb0 + nb.
// block_major: w is (NB, K) instead — column block n's K rows consecutive (the guide's §13
// weight layout (C_out/64, KH, KW, C_in), each IMC tile 64 consecutive rows).
void load_chunk(const Tensor& w, const Tensor& imc, int64_t kb0, int64_t kbs, int64_t row_block0, int64_t nb0,
                int64_t nbc, bool block_major = false);

// Streaming (stream.cpp). A tensor whose storage is in DDR (input, constant, DDR scratch).
bool in_ddr(const Tensor& t);
// load_chunk of a DDR weight through L1, in groups of K blocks: each group its own L1 buffer
// (`tag`_kN), copied by a SysDMA and loaded from there, so the copies and the LoadIMCs pipeline.
// A weight already in L1 is loaded as load_chunk does. `groups` > 0: that many groups instead of
// the default (weight_groups).
void load_streamed(const Tensor& w, const Tensor& imc, int64_t kb0, int64_t kbs, int64_t row_block0, int64_t nb0,
                   int64_t nbc, const std::string& tag, bool block_major = false, int64_t groups = 0);
// The column-block-major DDR image of a constant weight w (K, NB) int8x64: a constant (NB, K),
// column block n's K rows contiguous, so a chunk of columns is read in whole bursts. Empty when w
// holds no constant values.
Tensor column_blocks(const Tensor& w);
// The reference's view of the image the operator's implementation just made for `w` (reshape,
// permute, reshape back to w's logical shape), so the graph reads the image and the bundle need
// not carry the logical weight too; `name` becomes the logical weight's name in the graph. Empty
// (name unchanged) when the implementation made none. forget_image() drops a stale one.
std::vector<Node> weight_from_image(const Tensor& w, const std::string& stem, std::string& name);
void forget_image();
// How a layer whose weight comes from DDR is cut into chunks of output blocks: `chunk` blocks per
// chunk, each its own residency piece (LoadIMC) and MVMEXE datapath, so chunk j + 1 loads while
// chunk j computes (the device runs a LoadIMC beside an MVMEXE on other tiles of the same
// matrix_id). A cost model picks the chunk: the load of chunk 0, then per chunk the longer of the
// next load and this compute, then the last compute, against the host's per-chunk writes. `wc` is
// the weight's column-block image when the chunk is smaller than `cmax` (a constant weight only).
struct ColumnPlan {
  int64_t chunk = 0;
  Tensor wc;
};
ColumnPlan plan_columns(const Tensor& w, int64_t positions, int64_t kb, int64_t nb, int64_t cmax);
// Makes the chunks of a ColumnPlan resident in program order: copies of whole chunks of the
// column-block image into L1 (the first chunk alone, then ~32 KiB at a time), one LoadIMC per
// load() call; a chunk of more than 8 tiles in pieces of ~4 tiles, a copy and a LoadIMC each
// (pieces(); its LoadIMC follows its copy).
class ColumnLoader {
 public:
  ColumnLoader(const ColumnPlan& plan, int64_t nb, std::string tag);
  // imc(kb0 + kb, nb) = weight rows (row_block0 + kb) * 64.. of column block nb0 + nb, kb < kbs,
  // nb < nbc; chunks in increasing nb0.
  void load(const Tensor& imc, int64_t nb0, int64_t nbc, int64_t kb0, int64_t kbs, int64_t row_block0);
  // The copies (and LoadIMCs) a whole chunk of kbs x nbc tiles is loaded in.
  static int64_t pieces(int64_t kbs, int64_t nbc);

 private:
  Tensor wc_, slot_;
  int64_t chunk_, nb_, unit0_ = 0, unit_cols_ = 0;
  std::string tag_;
};
// The rows per chunk of a row-streamed linear (two input and two result slots and the weight's
// groups in `budget` bytes), 0 when not even one row fits.
int64_t stream_rows(const Tensor& x, const Tensor& w, const Tensor& out, int64_t nbc, uint64_t budget);
// out = epilogue(x @ w) with x (M, KB) in DDR and out written to DDR: per output-block chunk the
// weight made resident once, then `mc` rows at a time through ping/pong L1 slots.
void linear_rows_streamed(const Tensor& x, const Tensor& w, const Epilogue& e, const Tensor& out, int64_t chunk,
                          int64_t mc);

// Checks an epilogue's arguments (scale, bias (N,) constant, activation) and builds it.
Epilogue epilogue_of(const Call& c, int64_t n);
// Reference pieces of a reduction split into K passes (core.linear's split-k, core.convolution's
// K passes): a slice node, and one pass — `pass` (its epilogue none, or the bias `bias` when not
// empty) then its float18 "add" to the running sum `sum` (empty before the first pass).
Node slice_node(const std::string& in, const std::string& out, int64_t axis, int64_t start, int64_t end);
void add_pass(std::vector<Node>& g, Node pass, const std::string& bias, std::string& sum);

// The reference of an MVM op with this epilogue: `op` ("linear", "conv2d") then relu.
std::vector<Node> mvm_reference(const Call& c, const Node& mvm, const Tensor& out);

}  // namespace axcore::compiler::ops::detail
