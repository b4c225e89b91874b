// Constrained-random DMA programs (issue 10 §3): a chain of hops that moves an int32 input `x`
// from DDR through L2 and the cores' L1s back to an output `y` in DDR. Each hop is one DMA task
// pair on one engine: an MM2S chain of random walks (odd shapes, zero and repeated strides,
// padding where the engine pads) feeding an S2MM walk that writes a dense box in a permuted
// order, optionally repeated with iteration strides. The program is plain data: it serialises
// to JSON, turns into a bundle + inputs + expected outputs (build.hpp), and the reducer edits it.
#pragma once

#include <axcore/spec.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace axcore::rand {

enum class Engine { SYS, MEM, CORE };  // SysDMA (shim), MemDMA (mem tile), CoreDMA (core `core`)
const char* to_string(Engine e);

// A memory region: DDR argument 0 (x) / 1 (y), L2, or a core's L1, at a byte base.
struct Place {
  spec::MemSel mem = spec::MemSel::L2;
  uint32_t core = 0;  // L1
  uint32_t arg = 0;   // DDR
  uint64_t base = 0;  // bytes
};

// One BD walk, innermost dimension first; addresses in words relative to the place's base.
struct Walk {
  uint64_t offset = 0;  // words
  std::vector<uint32_t> sizes;
  std::vector<int32_t> strides;
  std::vector<std::pair<uint32_t, uint32_t>> pad;  // per dim (before, after); empty = none
  int32_t iter_stride = 0;                         // words per repeat run
  uint64_t words() const;                          // data words per run
  uint64_t stream_words() const;                   // padded words per run
  int64_t min_addr(uint32_t repeat) const;         // over all runs
  int64_t max_addr(uint32_t repeat) const;
};

struct Hop {
  Engine engine = Engine::SYS;
  uint32_t core = 0;  // CoreDMA's core
  uint32_t channel = 0;
  Place src, dst;
  std::vector<Walk> reads;  // the MM2S chain
  Walk write;               // the S2MM BD
  uint32_t repeat = 0;
  uint32_t pad_value = 0;
  std::vector<uint32_t> mm2s_bds;  // BD ids of the chain
  uint32_t s2mm_bd = 0;
  uint64_t stream_words() const;  // words per run
};

struct Program {
  uint64_t seed = 0;
  uint32_t cores = 1;
  uint64_t x_words = 0;  // derived by normalize(): y_words
  uint64_t y_words = 0;
  std::vector<Hop> hops;
  std::size_t descriptors() const;  // BDs in all
};

// A legal random program for `cores` cores (1..4).
Program generate(uint64_t seed, uint32_t cores);
// Makes an edited program legal again: clips walks into their sources, rebuilds writes that no
// longer match their stream, recomputes region sizes, BD ids and y_words. False when the program
// cannot be repaired (e.g. an engine that cannot reach a memory), with the reason in `why`.
bool normalize(Program& p, std::string* why = nullptr);

nlohmann::json to_json(const Program& p);
Program program_from_json(const nlohmann::json& j);  // throws std::runtime_error naming the field

// Functional coverage points the program exercises ("engine.core", "read.padded", "read.dims.3",
// "stride.negative", "hop.repeat.2", "chain.3", "write.permuted", "l1.core3", ...).
std::vector<std::string> coverage_points(const Program& p);
// Every point a DMA program on `cores` cores can hit (the report lists the ones no program hit as 0).
std::vector<std::string> coverage_space(unsigned cores);

// One line per hop, for logs: "sys ch0: ddr:x[2 walks, pad] -> l1.0 (r1) 640 words".
std::string summary(const Program& p);

}  // namespace axcore::rand
