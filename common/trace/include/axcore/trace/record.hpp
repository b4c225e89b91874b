// The canonical transaction record (docs/architecture.md §5): every timed backend (TLM, RTL, FPGA) emits
// one record per committed transaction, in commit order. Traces from two backends are compared per
// (tile, unit) in strict order with cycles ignored, so everything here except `cycle` and `seq`
// must be identical between backends for the same program.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace axcore::trace {

// Who committed the transaction, within a tile.
enum class Unit : uint8_t {
  HOST,     // register write through the host interface (any tile)
  CMDPROC,  // command processor: task start/done of core queues
  MVM_IFD0,
  MVM_IFD1,
  MVM,
  MVM_DPU,
  MVM_ODR,  // MVMEXE pipeline (only ODR writes memory)
  DW_IFD0,
  DW_IFD1,
  DWPU,
  DW_DPU,
  DW_ODR,   // DWPU pipeline
  LOADIMC,  // IMC tile writes
  DMA_MM2S0,
  DMA_MM2S1,
  DMA_MM2S2,
  DMA_MM2S3,  // DMA read channels (task start/done)
  DMA_S2MM0,
  DMA_S2MM1,
  DMA_S2MM2,
  DMA_S2MM3,  // DMA write channels (task start/done, writes)
  TOKEN,      // shim token unit: tokens issued
};

enum class Kind : uint8_t {
  TASK_START,  // addr = BD id (DMA) or descriptor word address (core queue); token = push word
  TASK_DONE,   // addr as TASK_START; bytes = bytes the task wrote; token = completion token word
  MEM_WRITE,   // a write burst: ODR = one stored element; S2MM = one innermost (d0) run; LOADIMC =
               // one tile. addr, bytes, data_hash
  TOKEN,       // token = the token word
  REG_WRITE,   // addr = register address (col<<25|row<<20|offset); data_hash = the value written
};

// The payload fields each kind defines (above). Fields a kind does not define carry no meaning:
// backends may leave them at any value (a REG_WRITE's `bytes` is 0 on the TLM and 4 on the RTL,
// every register being one 32-bit word), and co-simulation never compares them.
inline constexpr uint8_t kFieldAddr = 1, kFieldBytes = 2, kFieldHash = 4, kFieldToken = 8;
constexpr uint8_t defined_fields(Kind k) {
  switch (k) {
    case Kind::TASK_START: return kFieldAddr | kFieldToken;
    case Kind::TASK_DONE: return kFieldAddr | kFieldBytes | kFieldToken;
    case Kind::MEM_WRITE: return kFieldAddr | kFieldBytes | kFieldHash;
    case Kind::TOKEN: return kFieldToken;
    case Kind::REG_WRITE: return kFieldAddr | kFieldHash;
  }
  return kFieldAddr | kFieldBytes | kFieldHash | kFieldToken;
}

struct Record {
  uint64_t seq = 0;    // position in this backend's trace (informative)
  uint64_t cycle = 0;  // backend cycle at commit (informative; ratio reported, never compared)
  uint8_t col = 0, row = 0;
  Unit unit = Unit::HOST;
  Kind kind = Kind::REG_WRITE;
  uint64_t addr = 0;       // byte address in the unit's memory (L1/L2/DDR), IMC tile, register...
  uint32_t bytes = 0;      // bytes written (MEM_WRITE, TASK_DONE)
  uint64_t data_hash = 0;  // FNV-1a 64 of the bytes written (MEM_WRITE), value (REG_WRITE)
  uint32_t token = 0;      // token / push word where the kind has one

  // Equality as co-simulation compares: the tile, unit, kind and the fields the kind defines
  // (defined_fields) — never seq and cycle.
  bool same_transaction(const Record& o) const {
    if (col != o.col || row != o.row || unit != o.unit || kind != o.kind) return false;
    const uint8_t f = defined_fields(kind);
    return (!(f & kFieldAddr) || addr == o.addr) && (!(f & kFieldBytes) || bytes == o.bytes) &&
           (!(f & kFieldHash) || data_hash == o.data_hash) && (!(f & kFieldToken) || token == o.token);
  }
};

std::string_view to_string(Unit u);
std::string_view to_string(Kind k);
std::optional<Unit> parse_unit(std::string_view s);
std::optional<Kind> parse_kind(std::string_view s);
Unit dma_unit(bool mm2s, unsigned channel);  // DMA_MM2Sn / DMA_S2MMn; throws for channel > 3

// FNV-1a 64, the data hash of MEM_WRITE records (and the spec hash).
uint64_t fnv1a64(std::span<const uint8_t> bytes, uint64_t h = 0xcbf29ce484222325ULL);
// out[i] = fnv1a64(bufs[i]), four buffers at a time (groups of 8 to 32 as AVX-512 lanes, where the
// host has AVX-512F/DQ): the chains are independent, so interleaved they run at the multiplier's
// throughput, not its latency (a serial byte chain: ~1 ns a byte).
// std::invalid_argument if the sizes differ.
void fnv1a64_each(std::span<const std::span<const uint8_t>> bufs, std::span<uint64_t> out);

// One record per line: `seq cycle col row unit kind addr bytes hash token` (hex where it reads
// better).
std::string format(const Record& r);
Record parse(std::string_view line);  // throws std::invalid_argument naming the bad column

// A trace file starts with the header line "# axcore-trace v1" and may carry "# key: value" lines.
class Writer {
 public:
  explicit Writer(std::ostream& out);
  void write(const Record& r);
  uint64_t count() const { return count_; }

 private:
  std::ostream& out_;
  uint64_t count_ = 0;
};

std::vector<Record> read_trace(std::istream& in);  // throws naming the line on malformed input
std::vector<Record> read_trace_file(const std::string& path);

}  // namespace axcore::trace
