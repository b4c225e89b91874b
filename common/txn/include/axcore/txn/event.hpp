// What a TXN stream makes the hardware do, independent of how the stream encoded it: the tracer
// reduces a stream to these events, compare() tests them for equality (every field, printed or
// not) and explain() prints them in the txn_trace spelling (docs/txn.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "axcore/txn/op.hpp"

namespace axcore::txn {

struct Dim {
  int64_t wrap = 0, stride = 0;
  bool operator==(const Dim&) const = default;
};
struct Pad {
  uint32_t before = 0, after = 0;
  bool operator==(const Pad&) const = default;
};
// A BD field that has no place in the printed form (locks, packet, burst, flags...).
struct Field {
  std::string_view name;  // static string owned by the layout
  int64_t value = 0;
  bool operator==(const Field&) const = default;
};

struct Address {
  bool patched = false;  // true: host argument `arg` + `value` bytes (from a DDR_PATCH)
  uint32_t arg = 0;
  uint64_t value = 0;       // byte offset (patched) or absolute byte address
  std::string_view memory;  // memory of an absolute address when the layout names it ("L2")
  bool operator==(const Address&) const = default;
};

// A buffer descriptor as the DMA sees it.
struct Transfer {
  uint64_t length = 0;  // as the BD counts it (32-bit words on every layout here)
  Address address;
  std::vector<Dim> dims;  // innermost first; empty = linear
  int64_t outer_stride = 1;
  Dim iteration;             // (wrap, stride) as the layout defines them
  std::vector<Pad> padding;  // per dim, innermost first; empty = no padding
  std::vector<Field> fields;
  bool operator==(const Transfer&) const = default;
};

// The descriptor a task-queue push runs (axcore command queues).
struct Task {
  std::string kind;             // "datapath", "loadimc", "barrier", "invalid"
  std::string summary;          // short human form of the descriptor
  std::vector<uint32_t> words;  // the descriptor words the task reads, in order
  bool operator==(const Task&) const = default;
};

enum class EventKind : uint8_t { PUSH, WAIT, WRITE, LOADPDI, PREEMPT, SCRATCHPAD, UPDATE_REG, CUSTOM };
std::string_view to_string(EventKind k);

struct Event {
  EventKind kind = EventKind::WRITE;
  uint32_t col = 0, row = 0;

  // push / wait: the channel, or the named task queue (queue non-empty).
  Dir dir = Dir::S2MM;
  uint32_t channel = 0;
  std::string_view queue;

  // push
  std::vector<Transfer> chain;      // DMA push: the BDs it runs, in order
  std::optional<uint32_t> loop_to;  // the chain loops back to this position of itself
  std::optional<Task> task;         // task-queue push
  uint32_t repeat = 0, tag = 0, ctrl = 0;
  bool token = false;

  // wait
  uint32_t ncol = 0, nrow = 0;

  // write: register offset in the tile; a DDR_PATCH outside any BD writes a symbolic value.
  uint32_t reg = 0, addr_hi = 0, value = 0, mask = 0xFFFFFFFF;
  std::optional<Address> patched_value;

  // loadpdi / preempt / scratchpad / update_reg / custom: verbatim fields
  Opcode opcode = Opcode::NOOP;
  std::vector<uint32_t> raw;

  bool operator==(const Event&) const = default;
};

std::string to_string(const Address& a);
std::string to_string(const Transfer& t);
std::string to_string(const Event& e);
// The first field two unequal events differ in, e.g. "chain[0].lock_acq_value: 1 vs 2", for
// differences the printed form does not show. Empty when the events are equal.
std::string first_difference(const Event& a, const Event& b);

}  // namespace axcore::txn
