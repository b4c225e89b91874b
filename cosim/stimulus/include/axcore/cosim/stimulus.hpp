// Stimulus shared by the TLM tests, the TLM/RTL agreement programs and the bring-up kernels, all
// through device::Device: BD and queue programming, datapath descriptors (the generated
// spec::DatapathDesc), and the reference result of a datapath composed from the common/ref unit
// references (run_ifd -> run_mvm/run_dwpu -> run_dpu -> run_odr over vectors).
#pragma once

#include <axcore/spec.hpp>
#include <cstdint>
#include <span>
#include <vector>

#include "axcore/device/device.hpp"
#include "axcore/ref/dpu.hpp"
#include "axcore/ref/imc.hpp"

namespace axcore::stim {

inline uint32_t addr(uint32_t row, uint32_t offset) { return spec::tile_addr(0, row, offset); }

// DMA: BD i of the engine in `row`, and a push to channel `ch` (mm2s or s2mm).
void write_bd(device::Device& d, uint32_t row, uint32_t bd_index, const spec::DmaBd& bd);
void push_dma(device::Device& d, uint32_t row, bool mm2s, uint32_t ch, const spec::QueuePush& p);
// A contiguous BD of `words` words at byte address a in memory m.
spec::DmaBd linear_bd(spec::MemSel m, uint64_t a, uint32_t words, uint32_t core = 0);

// Core command memory and queues.
void write_cmd(device::Device& d, unsigned core, uint32_t word_addr, std::span<const uint32_t> words);
void push_queue(device::Device& d, unsigned core, spec::Queue q, const spec::QueuePush& p);
spec::QueuePush push_word(uint32_t start, uint32_t tag, bool token = true, uint32_t repeat = 0);

// A datapath invocation: the generated whole-descriptor type (spec layout datapath_desc);
// words() fills the header's magic and length.
using Datapath = spec::DatapathDesc;

// A walk over `n` consecutive elements of dtype dt from row base (1-D).
spec::Walk linear_walk(uint32_t base_row, uint32_t n, spec::Dtype dt, spec::Dtype cast_from);

// IFD0 (n float16 elements from row x) -> DPU -> ODR (float16 at row y), no main unit, on the
// queue of `kind`; `square` picks the program: x * x (3 instructions) or (x + x) * x - x (5).
Datapath dpu_f16(spec::DpKind kind, uint32_t n, uint32_t x, uint32_t y, bool square);
// `dp` with its 1-D IFD0 walk run as two segments (guide §8.3, spec walk.segs): its first `first`
// elements, then the rest in the seg0 section; the same elements in the same order.
Datapath split_ifd0(Datapath dp, uint32_t first);
// IFD0 -> DWPU -> ODR: 2x2 max pooling, stride 2, over a 6x6 image of int8x64 pixels at row x
// (36 rows, row-major); the 9 int32 outputs at row y.
Datapath dwpu_max_pool_2x2(uint32_t x, uint32_t y);
// The bytes of n float16 elements (finite values in [-3.75, 3.75], 2 L1 rows each).
std::vector<uint8_t> f16_elements(uint32_t n, uint32_t seed);

// `dp`'s words with 0xA5A5A5A5 in every word the device does not read (txn::queue_read_words on
// `q`), and how many it reads: a test that the device never reads the others.
struct GarbledWords {
  std::vector<uint32_t> words;
  uint64_t reads = 0;
};
GarbledWords garble_unread_words(const Datapath& dp, spec::Queue q);

// The result of running `dp` on `l1` (modified in place) with the reference units.
void reference_datapath(const Datapath& dp, std::span<uint8_t> l1, ref::Imc* imc);

// TASK_START / TASK_DONE cycles of one core's command processor tasks, by descriptor word (one
// task each), from the device's trace.
struct TaskSpan {
  uint64_t start = 0, done = 0;
  bool started = false;
};
struct TaskSpans {
  std::vector<std::pair<uint32_t, TaskSpan>> tasks;
  TaskSpan& of(uint32_t word);
  void attach(device::Device& d, uint32_t row);
};

// Waits for a core queue's token; returns it decoded.
spec::Token wait_queue_token(device::Device& d, unsigned core, spec::Queue q, uint64_t timeout = 5'000'000);
spec::Token wait_dma_token(device::Device& d, uint32_t row, bool mm2s, uint32_t ch, uint64_t timeout = 50'000'000);

}  // namespace axcore::stim
