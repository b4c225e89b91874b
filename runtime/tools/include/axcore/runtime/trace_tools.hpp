// Canonical-trace tools (docs/architecture.md §5): compare two traces per (tile, unit) in strict order with
// cycles ignored (their ratio reported), list a trace, and export a Chrome/Perfetto timeline.
// The token unit's records form one stream per issuing channel or queue (the interleaving of
// concurrent tasks' tokens is timing, not behaviour); record fields a kind does not define are
// not compared (trace::defined_fields).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "axcore/trace/record.hpp"

namespace axcore::runtime {

// The stream a record is compared in: (col, row, unit, source), source being the issuer of a TOKEN
// record (its token's col << 11 | row << 6 | dir << 5 | channel) and -1 for every other kind.
// A lockstep comparison keys its queues with it too.
using StreamKey = std::tuple<uint8_t, uint8_t, trace::Unit, int64_t>;
StreamKey stream_key(const trace::Record& r);

struct CompareOptions {
  size_t context = 3;  // matching records shown before a divergence
  std::string names[2] = {"A", "B"};
};

struct UnitDivergence {
  uint8_t col = 0, row = 0;
  trace::Unit unit = trace::Unit::HOST;
  size_t index = 0;                       // position within the unit's stream of the first differing record
  bool a_ended = false, b_ended = false;  // one stream ran out (tail)
  int64_t source = -1;                    // TOKEN streams: the issuer (token col << 11 | row << 6 | dir << 5 | channel)
};

struct CompareResult {
  bool equivalent = false;
  size_t units = 0, matched = 0;            // unit streams seen, records that matched
  std::vector<UnitDivergence> divergences;  // sorted: the first (by A's seq) first
  double cycle_ratio = 0;                   // last cycle of A / last cycle of B (0 when B is empty)
  std::string report;                       // the human report axtrace prints
};

CompareResult compare_traces(const std::vector<trace::Record>& a, const std::vector<trace::Record>& b,
                             const CompareOptions& opt = {});

// A record with its fields labelled, only those its kind defines: "record 900 at cycle 141960:
// tile (0,0) dma.s2mm0 MEM_WRITE addr 0x0, bytes 16384, data_hash 0x171b...", a REG_WRITE with
// its register's name from the spec ("core0 Q_PUSH[0]"), a push word and a token decoded.
std::string describe_record(const trace::Record& r);
// The fields two records of one stream differ in, named: "bytes: 16384 vs 8192; data_hash: ...".
std::string record_difference(const trace::Record& a, const trace::Record& b);
// "shim DMA_BD[3] word 1", "core0 CMD_MEM word 40", "mem offset 0x3000 (no register)".
std::string register_name(uint64_t addr);

// One line per record (trace::format), filtered; then a per-(tile, unit, kind) count summary.
struct ShowOptions {
  int row = -1;      // -1: all
  std::string unit;  // "" : all
  size_t limit = SIZE_MAX;
  bool summary = false;
};
void show_trace(std::ostream& out, const std::vector<trace::Record>& recs, const ShowOptions& opt = {});

// Chrome trace-event JSON ("traceEvents", Perfetto and chrome://tracing open it): a process per
// tile, a thread per unit (DMA channels, core queues' command processor, datapath units, LoadIMC);
// task spans (TASK_START..TASK_DONE, DMA transfers included) as complete events named by the
// compiler's launch names when the bundle carries them (metadata "steps": "INDEX NAME" lines; a
// push's tag is INDEX & 0x7F), else "BD N" / "descriptor at word N"; memory writes, tokens and
// register writes as instants. Timestamps are cycles at spec::param::clock_mhz, in microseconds.
struct TimelineOptions {
  std::map<uint32_t, std::string> steps;  // launch index -> name
  // The units a core task (row, descriptor word) runs: its span is drawn on each unit's thread
  // too (from the task's start to its done), so every datapath unit has a thread. Optional.
  std::function<std::vector<trace::Unit>(unsigned row, uint64_t word)> task_units;
};
TimelineOptions timeline_options(const std::string& steps_metadata);
void write_timeline(std::ostream& out, const std::vector<trace::Record>& recs, const TimelineOptions& opt = {});

struct CommandStream;
// The units a core task runs (from its descriptor in command memory, `cmd_mem` =
// command_memory(bundle): what the bundle preloads and its TXN writes): a datapath's IFDs, MVM or
// DWPU, DPU and ODR; LoadIMC. Empty when the word holds no descriptor (the timeline then shows the
// task on the command processor only).
std::vector<trace::Unit> task_units(const std::vector<CommandStream>& cmd_mem, unsigned core, uint32_t word);

}  // namespace axcore::runtime
