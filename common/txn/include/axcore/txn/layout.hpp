// A device's DMA register layout, as the tracer needs it: which register of a tile is a BD word,
// a channel control or a queue; how a queue push word and a BD's words read; how a task queue's
// descriptor reads. Layouts: axcore (generated from spec/), AIE2 (npu1) and AIE2p (npu2).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "axcore/txn/event.hpp"
#include "axcore/txn/header.hpp"

namespace axcore::txn {

struct RegRole {
  enum class Kind : uint8_t { OTHER, BD_WORD, DMA_CTRL, DMA_QUEUE, TASK_CTRL, TASK_QUEUE, TASK_MEMORY };
  Kind kind = Kind::OTHER;
  Dir dir = Dir::S2MM;
  uint32_t channel = 0;       // DMA channel; task queues: their TCT channel
  uint32_t queue = 0;         // TASK_QUEUE / TASK_CTRL: queue index
  uint32_t bd = 0, word = 0;  // BD_WORD
  uint32_t ctrl = 0;          // DMA_QUEUE / TASK_QUEUE: offset of the channel's control register
};

struct PushWord {
  uint32_t start = 0, repeat = 0, tag = 0;
  bool token = false;
};

struct Patch {
  uint32_t arg = 0;
  uint64_t plus = 0;
};

struct BdContent {
  Transfer transfer;
  std::optional<uint32_t> next;  // the chain continues with this BD
};

// The register state of one tile as the stream has programmed it so far.
class TileState {
 public:
  virtual ~TileState() = default;
  virtual std::optional<uint32_t> read(uint32_t offset) const = 0;
};

struct TaskRead {
  std::string what;               // "the MVMEXE descriptor at word 64"
  std::optional<Task> task;       // set when every word it reads was written
  std::vector<uint32_t> missing;  // descriptor words never written
  std::string problem;            // non-empty: why the descriptor cannot be read at all
};

class Layout {
 public:
  virtual ~Layout() = default;
  virtual std::string_view name() const = 0;

  virtual RegRole classify(TileKind kind, uint32_t offset) const = 0;
  virtual uint32_t bd_count(TileKind kind) const = 0;
  virtual uint32_t bd_words(TileKind kind) const = 0;  // words a BD has (all must be written)
  virtual uint32_t bd_offset(TileKind kind, uint32_t bd) const = 0;
  // The BD words a DDR_PATCH of the BD's address word supplies; the first is the patch target.
  // Empty when this tile's BDs do not address host memory.
  virtual std::span<const uint32_t> patch_words(TileKind kind) const = 0;
  virtual PushWord decode_push(TileKind kind, uint32_t value) const = 0;
  virtual BdContent decode_bd(TileKind kind, std::span<const uint32_t> words, const Patch* patch) const = 0;
  // A single-BD push whose runs continue each other is one longer transfer (may zero `repeat`).
  virtual void fold_repeat(TileKind kind, Transfer& t, uint32_t& repeat) const = 0;
  // Name of the task queue behind a TCT channel ("MVMEXE"); empty for DMA channels.
  virtual std::string_view queue_name(TileKind kind, Dir dir, uint32_t channel) const = 0;
  virtual TaskRead read_task(TileKind kind, uint32_t queue, uint32_t start, const TileState& state) const = 0;
};

// The layout of a TXN devGen: 3 = AIE2 (npu1), 4 = AIE2p (npu2), spec::kTxnDevGen = axcore.
const Layout* find_layout(uint32_t dev_gen);
const Layout& axcore_layout();
const Layout& aie2_layout();
const Layout& aie2p_layout();

// The AIE2 dims rule every layout applies: without padding, drop dims with wrap <= 1; dims that
// walk contiguously (each stride = product of the wraps inside it) with length <= extent or
// outer == extent are linear (dims cleared, outer 1).
void normalize_walk(Transfer& t);

}  // namespace axcore::txn
