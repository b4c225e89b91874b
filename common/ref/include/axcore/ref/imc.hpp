// IMC residency, LoadIMC and MVM (spec structs loadimc_desc, mvm_desc; guide §6.2).
//
// A tile is 64 reduction rows x 64 output columns of int8: tile[k][n], row k = one 64-byte L1
// row (lane n = column n). The IMC holds one residency (matrix_id) at a time. A LoadIMC whose
// matrix_id differs from the current one starts a new residency: every tile becomes invalid
// (its data stays), then the load writes (and validates) its tiles. An MVM tile-op on a tile
// that is not valid in the MVM's matrix_id still computes with the data there (the guide's
// silent hazard) and is counted in stale_reads (IMC_STALE_READS / IMC_STATUS.stale).
//
// MVM: for each output (o3 outermost .. o0 innermost, dims >= ndims are size 1):
//   acc = 0; for kb < k_blocks: x = pop() (int8x64);
//     tile = tile_base + kb * k_stride + sum(ok * ok_tstride);
//     acc[n] += sum_k x[k] * tile[k][n]  (int32, wrapping);
//   push(acc) as int32x64.
#pragma once

#include <array>
#include <axcore/spec.hpp>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "axcore/num/pword.hpp"
#include "axcore/ref/stream.hpp"

namespace axcore::ref {

inline constexpr std::size_t kTileRows = spec::param::imc_tile_rows;
using Tile = std::array<int8_t, kTileRows * num::kLanes>;  // [k * 64 + n]

class Imc {
 public:
  // A reader that computed with tiles ahead of its tile-ops (MvmRun's blocks) is told before a
  // tile may change (the writable tile() access, reset) and takes the tile's products back out.
  class Watcher {
   public:
    virtual void tile_changing(std::size_t t) = 0;

   protected:
    virtual ~Watcher() = default;
  };
  explicit Imc(std::size_t tiles = spec::param::imc_tiles);
  // A copy has no watcher (the reader watches the original).
  Imc(const Imc& o) : stale_reads(o.stale_reads), tiles_(o.tiles_), valid_(o.valid_), matrix_id_(o.matrix_id_) {}
  Imc& operator=(const Imc& o);
  std::size_t tiles() const { return tiles_.size(); }
  uint32_t matrix_id() const { return matrix_id_; }
  bool valid(std::size_t t) const { return valid_.at(t); }
  std::size_t valid_tiles() const;
  const Tile& tile(std::size_t t) const { return tiles_.at(t); }
  Tile& tile(std::size_t t) {
    if (watcher_) watcher_->tile_changing(t);
    return tiles_.at(t);
  }
  // At most one at a time (false if another is set); nullptr clears.
  bool watch(Watcher* w);
  // A matrix_id other than the current one invalidates every tile (data stays).
  void begin_residency(uint32_t matrix_id);
  void set_valid(std::size_t t) { valid_.at(t) = true; }
  // Counted by the MVM: tile-ops that read a tile not loaded for their matrix_id.
  uint64_t stale_reads = 0;
  void reset();  // soft reset: residency 0, no valid tiles, data zero, counters zero

 private:
  std::vector<Tile> tiles_;
  std::vector<bool> valid_;
  uint32_t matrix_id_ = 0;
  Watcher* watcher_ = nullptr;
};

// LoadIMC (loadimc_desc): for t1 < d1_size, t0 < d0_size (t0 inner): tile = tile_base +
// t0 * d0_tstride + t1 * d1_tstride; row r of it = L1 row base_row + t0 * d0_astride +
// t1 * d1_astride + r * row_stride. Faults: magic != 0x1C DESC_MAGIC, size 0 DESC_RANGE,
// tile outside the IMC IMC_RANGE, row outside L1 L1_RANGE (raised at that tile, before it is
// written or validated).
void run_loadimc(const spec::LoadimcDesc& d, std::span<const uint8_t> l1, Imc& imc);

// Checks ndims 1..4, k_blocks >= 1, used sizes >= 1 (DESC_RANGE).
void validate_mvm(const spec::MvmDesc& d);
uint64_t mvm_outputs(const spec::MvmDesc& d);
// One tile-op: acc += x . tile (the 4096 MACs of a cycle). Runs the fastest kernel this CPU has
// (AVX-512 VNNI, else AVX2, else the portable loop), chosen once at the first call by CPUID, or
// the one environment variable AXCORE_MVM_KERNEL names (portable, avx2, avx512_vnni; a name this
// CPU cannot run throws). Every kernel is bit-identical to the plain wrapping sum.
void mvm_accumulate(num::PwordI32& acc, const num::PwordI8& x, const Tile& tile);
namespace detail {  // the kernels, for the tests that compare them and the benchmarks
enum class MvmKernel { portable, avx2, avx512_vnni };
std::string_view to_string(MvmKernel k);
bool mvm_kernel_supported(MvmKernel k);  // this CPU runs it
MvmKernel mvm_kernel();                  // the one mvm_accumulate runs
void set_mvm_kernel(MvmKernel k);        // from now on; std::invalid_argument if not supported
void mvm_accumulate_with(MvmKernel k, num::PwordI32& acc, const num::PwordI8& x, const Tile& tile);
void mvm_accumulate_portable(num::PwordI32& acc, const num::PwordI8& x, const Tile& tile);
}  // namespace detail
// acc[i] += x[i] . tile for every i (the sums of mvm_accumulate), the tile read once for all.
void mvm_accumulate_each(std::span<num::PwordI32* const> acc, std::span<const num::PwordI8* const> x, const Tile& tile);
// The IMC tile of output `o` (o0..o3) and reduction step kb; IMC_RANGE if outside.
std::size_t mvm_tile_index(const spec::MvmDesc& d, const std::array<uint32_t, 4>& o, uint32_t kb,
                           std::size_t imc_tiles);
void run_mvm(const spec::MvmDesc& d, Imc& imc, const PopFn& pop, const PushFn& push);
// Input elements an MVM run will pop later, read ahead of their pops (the TLM's IFD reads them
// from L1 ahead of its walk): fetch(first, xs) fills xs with elements first, first + 1, ... of
// the run (0 = its first pop) as they read now and returns how many it read: it stops at one it
// cannot read (past the walk, not INT8, outside L1). Calls come with `first` increasing.
//
// The lookahead may also check the elements it builds later against xs (the MVM keeps xs until
// its next fetch or release()): an element found equal to its read-ahead copy is marked
// (built_as_fetched) and need not carry its lanes — the MVM takes the copy's.
class MvmLookahead {
 public:
  virtual uint64_t fetch(uint64_t first, std::span<num::PwordI8> xs) = 0;
  virtual void release() {}  // xs of the last fetch goes away
  // Element i (popped last, or among the last kMarks built) was built equal to its copy.
  bool built_as_fetched(uint64_t i) const { return marks_[i % kMarks] != 0; }

 protected:
  virtual ~MvmLookahead() = default;
  static constexpr std::size_t kMarks = 64;  // more than a stream holds
  void mark(uint64_t i, bool same) { marks_[i % kMarks] = same; }

 private:
  std::array<uint8_t, kMarks> marks_{};
};

// run_mvm one input element at a time, for a caller that owns its streams (the TLM's MVM unit
// reads each element in place in its stream): validates at construction; take() does one
// tile-op and returns the output when x was the last of its K chain (valid until the next take),
// else nullptr. run_mvm is this loop.
//
// With a lookahead, a run whose outputs repeat their tiles along an output dimension j (the lowest
// used one with tstride 0, e.g. the rows of a matmul: every row's outputs read the same tiles)
// computes a block of kBlockRows such rows at the first tile-op of the block: each tile is read
// once for all of them (a tile-op of a lone row is bound by reading its 4 KiB tile, one of a
// block shares it). Every later tile-op of the block checks the element it pops against the one
// read ahead and its tile against the block's: equal, its products are in its output's sum
// already; else they are taken out and the popped element's added (the sums are exact integers
// modulo 2^32, so the order does not matter). A tile that may change meanwhile (Imc::Watcher) has
// its products taken out of the block first. The outputs are bit-identical to the plain loop's.
class MvmRun : private Imc::Watcher {
 public:
  static constexpr std::size_t kBlockRows = 6;
  static constexpr uint64_t kMaxRowOps = 256;  // tile-ops of a row a block may hold
  MvmRun(const spec::MvmDesc& d, Imc& imc, MvmLookahead* ahead = nullptr);
  MvmRun(const MvmRun&) = delete;
  MvmRun& operator=(const MvmRun&) = delete;
  ~MvmRun();
  bool done() const { return o_[3] == sizes_[3]; }
  const Element* take(const Element& x);
  uint64_t block_ops() const { return block_ops_; }  // tile-ops a block computed ahead (tests)

 private:
  void tile_changing(std::size_t t) override;
  void begin_block(const num::PwordI8& x);
  const spec::MvmDesc& d_;
  Imc& imc_;
  MvmLookahead* ahead_;
  std::array<uint32_t, 4> sizes_{}, o_{};
  uint32_t kb_ = 0;
  num::PwordI32 acc_{};
  Element out_;
  // The block: tile-ops [blk_first_, blk_first_ + blk_x_.size()) of the run, row r's tile-op q
  // (output q / k_blocks of the row, kb = q % k_blocks) at r * row_ops_ + q.
  std::size_t reuse_dim_ = 4;  // j (4: none)
  uint64_t row_ops_ = 0, row_outs_ = 0, op_ = 0, blk_first_ = 0, block_ops_ = 0;
  uint64_t blk_q_ = 0, blk_out_ = 0;    // the next tile-op's q and its output's index in blk_acc_
  std::vector<num::PwordI8> blk_x_;     // the elements read ahead
  std::vector<uint8_t> blk_pre_;        // their products are in blk_acc_
  std::vector<std::size_t> blk_tile_;   // tile of tile-op q (every row's); kNoTile: outside the IMC
  std::vector<num::PwordI32> blk_acc_;  // row r's output i at r * row_outs_ + i
};

// The tiles an affine tile walk can touch, [lo, hi]: tile_base plus, per loop, min(0, (n-1)*step)
// .. max(0, (n-1)*step) (MVM: kb and the ndims used output dims; LoadIMC: t0 and t1; a size of 0
// counts as 1).
struct TileSpan {
  int64_t lo = 0, hi = 0;
  bool apart(const TileSpan& o) const { return hi < o.lo || o.hi < lo; }
};
TileSpan mvm_tile_span(const spec::MvmDesc& d);
TileSpan loadimc_tile_span(const spec::LoadimcDesc& d);
// Whether an MVMEXE task and a LoadIMC task may run at the same time (docs/timing.md "Command
// processor", rtl/core/ax_imc_apart): the datapath has no MVM (has_mvm false), or both name the
// same matrix_id (the LoadIMC begins no residency) and their tile spans are disjoint.
bool imc_tasks_apart(bool has_mvm, const spec::MvmDesc& m, const spec::LoadimcDesc& l);

}  // namespace axcore::ref
