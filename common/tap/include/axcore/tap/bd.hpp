// Lowering a walk to axcore DMA buffer descriptors (spec struct `dma_bd`) and decoding BDs back.
//
// A BD walks 32-bit words: d0..d3 innermost first (taplib lists dimensions outermost first, so the
// lowering reverses them), sizes and strides in words, per-dimension padding on an emitting
// channel, and an iteration dimension that advances the address on every run of the task (the
// queue push's repeat runs the whole chain repeat + 1 times). The rules of the seed's "What a DMA
// can walk" are enforced with messages modelled on the seed's (`dma_bd: Stride 1 is 1 elements *
// 2 bytes = 2 bytes, which is not divisible by 4`); dimension numbers in messages count
// innermost first, like the BD fields, over the walk after coalesce_unpadded_pairs().
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "axcore/spec.hpp"
#include "axcore/tap/pattern.hpp"

namespace axcore::tap {

enum class Engine { kSysDma, kMemDma, kCoreDma };
enum class Direction { kMm2s, kS2mm };

// One engine's limits, from the spec params (`sysdma_*`, `memdma_*`, `coredma_*`, `dma_*`).
struct EngineLimits {
  const char* name;  // "SysDMA", "MemDMA", "CoreDMA"
  const char* param_prefix;
  uint32_t dims;
  uint32_t size_bits;
  uint32_t stride_bits;  // signed field
  bool padding;
  uint32_t bds;
  uint32_t repeat_max;
  uint32_t pad_max;
  int64_t max_size() const { return (int64_t{1} << size_bits) - 1; }
  int64_t max_stride() const { return (int64_t{1} << (stride_bits - 1)) - 1; }
};
const EngineLimits& engine_limits(Engine engine);

struct LowerOptions {
  Direction direction = Direction::kMm2s;
  uint64_t base_address = 0;  // byte address of the tensor's element 0
  spec::MemSel mem = spec::MemSel::L2;
  uint32_t core = 0;
  uint32_t pad_value = 0;  // word emitted at padded positions
  uint32_t first_bd = 0;   // id of the chain's first BD; the chain takes consecutive ids
  bool single_bd = false;  // the transfer must fit one BD (an object FIFO's walk): no chain
  bool use_repeat = true;  // the outermost dimension may become the queue repeat + iteration
};

// What one queue push runs: BDs start_bd.. (chained by use_next/next_bd), repeat + 1 times.
struct BdTask {
  Engine engine;
  uint32_t start_bd = 0;
  uint32_t repeat = 0;  // queue_push.repeat
  std::vector<spec::DmaBd> bds;
};

// Lowers a concrete walk of `element_bits`-wide elements (8, 16 or 32) for `engine`. Throws
// ValueError (TypeError for a staged pattern) with the rule and the numbers when the engine
// cannot walk it.
BdTask lower_to_bds(const TensorAccessPattern& pattern, unsigned element_bits, Engine engine,
                    const LowerOptions& options = {});

struct DecodeOptions {
  std::vector<int64_t> tensor_dims;  // the tensor the BDs walk
  unsigned element_bits = 32;
  uint64_t base_address = 0;  // byte address of the tensor's element 0
};

// One BD as a walk, run `run` of its task (the iteration offset of that run added).
TensorAccessPattern decode_bd(const spec::DmaBd& bd, const DecodeOptions& options, uint32_t run = 0);
// The walks a task runs, in order: one pattern when the task is one BD whose iteration is a
// plain strided dimension, otherwise one per (run, BD). `table` is indexed by BD id.
std::vector<TensorAccessPattern> decode_chain(std::span<const spec::DmaBd> table, uint32_t start_bd, uint32_t repeat,
                                              const DecodeOptions& options);
std::vector<TensorAccessPattern> decode_task(const BdTask& task, const DecodeOptions& options);
// The concatenated element walk of those patterns (what the task streams).
std::vector<int64_t> task_walk(const std::vector<TensorAccessPattern>& patterns);

// A BD's fields in one line, for people and golden tests:
// `bd 0: len=16 addr=0x40 d0=4/1 d1=4/16 iter=0/0 pad=... next=-`.
std::string describe(const spec::DmaBd& bd, uint32_t id);

}  // namespace axcore::tap
