// The `.axb` program bundle (issue 8): everything one compiled program needs to run on any
// backend — the TXN stream, command streams preloaded into core command memory, constant blobs,
// the buffer table, runtime parameters, the operator graph the `ref` backend runs, and metadata.
//
// The compiler fills a `Bundle` and calls `save_bundle` / `encode_bundle`; the runtime calls
// `load_bundle` / `decode_bundle`. Encoding validates the bundle first (`validate`), decoding
// checks every offset, length, count and checksum before it reads, and refuses a bundle built
// against another spec (naming both hashes) unless `DecodeOptions::allow_foreign_spec`.
// File layout: docs/runtime.md ("Bundle format"). Errors: BundleError with a message saying
// what was found and what was expected.
//
// Stability: this header is the compiler's API. Changes are additive only (new fields with
// defaults, new enum values, new section kinds behind a minor version bump).
#pragma once

#include <axcore/spec.hpp>
#include <axcore/txn/trace.hpp>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace axcore::runtime {

class BundleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// File magic (bytes "AXB1") and container version. A reader accepts its own major version and
// any minor version up to its own (minor versions only add sections or trailing fields). 1.1 adds
// the DISPATCH section (dispatch-time scalars, guards, staged words); the writer writes 1.0 for a
// bundle without it, so a bundle that needs no 1.1 feature stays readable by a 1.0 runtime.
inline constexpr uint32_t kBundleMagic = 0x31425841;
inline constexpr uint16_t kBundleVersionMajor = 1;
inline constexpr uint16_t kBundleVersionMinor = 1;

enum class BufferRole : uint8_t {
  INPUT = 0,     // the caller provides it (axrun --input NAME=FILE.npy)
  OUTPUT = 1,    // the runtime reads it back after the run
  CONSTANT = 2,  // its contents are a constant blob of the bundle (weights, LUT tables)
  SCRATCH = 3,   // device memory the program uses; contents undefined before the run
};
std::string_view to_string(BufferRole r);
std::optional<BufferRole> parse_buffer_role(std::string_view s);

// How a logical array is laid out in device memory (DDR).
enum class LayoutKind : uint8_t {
  DENSE = 0,   // C order, the dtype's little-endian encoding, no gaps
  PWORDS = 1,  // ref::pack_pwords(array, axis, pad): the axis becomes ceil(n/64) blocks and a
               // trailing 64-lane axis is appended; then C order as DENSE
};
std::string_view to_string(LayoutKind k);

struct DeviceLayout {
  LayoutKind kind = LayoutKind::DENSE;
  int32_t axis = -1;      // PWORDS: the logical axis packed into PWORDs (negative from the end)
  uint32_t pad_bits = 0;  // PWORDS: raw bits of the pad element in the dtype's encoding
  uint64_t bytes = 0;     // device footprint; 0 = exactly the layout's image size
  uint32_t align = 64;    // byte alignment of the buffer's device address (power of two, >= 4)
  bool operator==(const DeviceLayout&) const = default;
};

struct BufferDesc {
  std::string name;  // unique in the bundle; [A-Za-z0-9_.:-]+
  BufferRole role = BufferRole::INPUT;
  spec::Dtype dtype = spec::Dtype::INT8;  // INT8, INT32, FLOAT16 or FLOAT32 (not FLOAT18)
  std::vector<uint64_t> shape;            // logical shape (rank 0..8)
  DeviceLayout layout;
  std::optional<uint32_t> arg;       // TXN argument index DDR_PATCHes resolve to this buffer
  std::optional<uint32_t> constant;  // CONSTANT: index into Bundle::constants (logical C-order
                                     // data in the dtype's encoding, laid out like an input)
  bool operator==(const BufferDesc&) const = default;
};

// Descriptor words for a core's CMD_MEM (at word `word`), written before the TXN's first op. The
// runtime folds them into the stream it plays (program_txn: a blockwrite each), so a device plays
// one TXN either way. The compiler puts its descriptors in the TXN itself (a compiled bundle's TXN
// is a self-contained program, docs/runtime.md) and leaves `commands` empty; bundles that carry
// streams stay readable. command_memory() gives what a bundle leaves in command memory.
struct CommandStream {
  std::string name;  // informative ("conv1.mvmexe")
  uint32_t core = 0;
  uint32_t word = 0;
  std::vector<uint32_t> words;
  bool operator==(const CommandStream&) const = default;
};

struct ConstantBlob {
  std::string name;  // informative
  std::vector<uint8_t> bytes;
  bool operator==(const ConstantBlob&) const = default;
};

// A runtime parameter (axrun --param NAME=VALUE). Its value's 32-bit encoding (int32 two's
// complement, or float32 bits) goes into every target: register = (register & ~mask) |
// ((bits << shift) & mask), carried by every TXN write of the target (a descriptor word the
// stream writes) or written before the TXN plays (program_txn). A target is any register address,
// CMD_MEM words included.
enum class ParamType : uint8_t { INT32 = 0, FLOAT32 = 1 };
std::string_view to_string(ParamType t);
struct ParamTarget {
  uint64_t addr = 0;  // col << 25 | row << 20 | offset
  uint32_t mask = 0xFFFFFFFF;
  uint32_t shift = 0;
  bool operator==(const ParamTarget&) const = default;
};
struct RuntimeParam {
  std::string name;
  ParamType type = ParamType::INT32;
  uint32_t default_bits = 0;  // encoding of the default value
  std::vector<ParamTarget> targets;
  std::string doc;
  bool operator==(const RuntimeParam&) const = default;
};

// The operator graph the `ref` backend runs through common/ref (no TXN). Tensors are named:
// a node reads buffers or earlier nodes' outputs and defines new names; the graph's results are
// the OUTPUT buffers. Ops and their attributes: docs/runtime.md ("Ref operator graph").
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>>;
struct GraphNode {
  std::string op;  // "linear", "conv2d", "add", "relu", "pool2d", "transpose", ...
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::map<std::string, AttrValue> attrs;
  bool operator==(const GraphNode&) const = default;
};

// Dispatch-time shapes (issue 24; the DISPATCH section, docs/runtime.md "Dispatch-time scalars").
// A bundle compiled with dispatch-time scalars (the rows M of a matmul, ...) is stored as its
// specialization at one admissible point; `staged` says which of its values are affine in the
// scalars — TXN words (the BD and descriptor words whose fields carry a size, a stride, an
// address), buffer extents and footprints — and `guards` which calls are refused. bind_dispatch()
// evaluates both for the call's values and returns the concrete bundle a static build of that
// size is. The compiler proves every admissible point equal to its static build before it writes
// one (compiler/dispatch.hpp).
struct DispatchScalar {
  std::string name;  // [A-Za-z0-9_.:-]+, distinct from every RuntimeParam name
  int64_t min = 0, max = 0;
  std::string doc;
  bool operator==(const DispatchScalar&) const = default;
};
struct AffineTerm {
  uint32_t scalar = 0;  // index into Dispatch::scalars
  int64_t coef = 0;
  bool operator==(const AffineTerm&) const = default;
};
// constant + sum(coef * scalar): the value of a staged word or extent, or a guard's expression.
struct Affine {
  int64_t constant = 0;
  std::vector<AffineTerm> terms;
  bool operator==(const Affine&) const = default;
};
enum class GuardOp : uint8_t { GE = 0, LE = 1, GT = 2, LT = 3, EQ = 4, NE = 5 };
std::string_view to_string(GuardOp op);  // ">=", "<=", ...
// Holds when (modulus ? floor_mod(expr, modulus) : expr) `op` rhs; refused with `message` (a fixed
// string, as the seed's require(cond, message): it cannot name the call's value).
struct DispatchGuard {
  Affine expr;
  int64_t modulus = 0;  // 0: the expression itself; > 0: its (non-negative) remainder
  GuardOp op = GuardOp::GE;
  int64_t rhs = 0;
  std::string message;
  bool operator==(const DispatchGuard&) const = default;
};
enum class StagedKind : uint8_t {
  TXN_WORD = 0,      // txn[index] = value, in [0, 2^32) (index past the 4-word header)
  BUFFER_DIM = 1,    // buffers[index].shape[sub] = value (>= 1)
  BUFFER_BYTES = 2,  // buffers[index].layout.bytes = value (0 = the image size)
};
std::string_view to_string(StagedKind k);
struct StagedValue {
  StagedKind kind = StagedKind::TXN_WORD;
  uint32_t index = 0;
  uint32_t sub = 0;
  Affine value;
  bool operator==(const StagedValue&) const = default;
};
struct Dispatch {
  std::vector<DispatchScalar> scalars;  // empty: a static bundle (no DISPATCH section)
  std::vector<DispatchGuard> guards;    // checked in order after every scalar's [min, max]
  std::vector<StagedValue> staged;
  bool empty() const { return scalars.empty(); }
  bool operator==(const Dispatch&) const = default;
};

struct Bundle {
  uint64_t spec_hash = spec::kSpecHash;  // the spec the program was compiled against
  std::vector<uint32_t> txn;             // the TXN stream (header included); empty = ref only
  std::vector<CommandStream> commands;
  std::vector<ConstantBlob> constants;
  std::vector<BufferDesc> buffers;
  std::vector<RuntimeParam> params;
  std::vector<GraphNode> graph;
  // Free-form; conventional keys: "name", "compiler", "compiler_version", "source", "created".
  std::map<std::string, std::string> metadata;
  Dispatch dispatch;  // dispatch-time scalars (bundle 1.1); empty for a static program

  const BufferDesc* find_buffer(std::string_view name) const;
  const RuntimeParam* find_param(std::string_view name) const;
  bool operator==(const Bundle&) const = default;
};

// Bytes of a buffer's device image under its layout (before DeviceLayout::bytes rounds it up).
uint64_t layout_image_bytes(const BufferDesc& b);
// The footprint the runtime allocates: layout.bytes, or the image size when that is 0.
uint64_t device_bytes(const BufferDesc& b);
// Size in bytes of one element of a host dtype (throws BundleError for FLOAT18).
uint32_t dtype_bytes(spec::Dtype d);

// Throws BundleError for the first inconsistency: duplicate or malformed names, a FLOAT18 or
// unknown dtype, a layout that does not fit its footprint, an argument index used twice, a
// CONSTANT without a blob (or a blob of the wrong size), a constant index on a non-constant, a
// command stream past command memory or on a missing core, a parameter target outside the map,
// a graph node reading a name nothing defined.
void validate(const Bundle& b);

struct DecodeOptions {
  bool allow_foreign_spec = false;  // accept a bundle whose spec hash is not spec::kSpecHash
  bool verify_checksums = true;     // check each section's FNV-1a 64 hash
};

std::vector<uint8_t> encode_bundle(const Bundle& b);  // validate()s first
Bundle decode_bundle(std::span<const uint8_t> bytes, const DecodeOptions& opt = {});
// Reads the fixed header alone: spec hash and version, for tools that only list bundles.
struct BundleHeaderInfo {
  uint16_t version_major = 0, version_minor = 0;
  uint64_t spec_hash = 0;
  uint64_t file_bytes = 0;
  uint32_t sections = 0;
};
BundleHeaderInfo decode_bundle_header(std::span<const uint8_t> bytes);

void save_bundle(const std::filesystem::path& path, const Bundle& b);
// The path is named in every error.
Bundle load_bundle(const std::filesystem::path& path, const DecodeOptions& opt = {});

// A call's dispatch-time values, by scalar name.
using DispatchValues = std::map<std::string, int64_t, std::less<>>;
// A refused dispatch: a scalar missing, unknown or outside [min, max], or a guard that fails
// (what() is the guard's message; guard() its index, -1 for the range and naming checks).
class DispatchError : public BundleError {
 public:
  DispatchError(const std::string& what, int guard) : BundleError(what), guard_(guard) {}
  int guard() const { return guard_; }

 private:
  int guard_;
};
// The concrete bundle a call with these values runs: every scalar given and inside its range,
// every guard holding (else DispatchError, nothing else done), then each staged value evaluated
// into its word or extent (a TXN word that does not fit 32 bits, an extent below 1, a footprint
// below 0 are a DispatchError too: refused, never truncated) and the DISPATCH part dropped. A
// static bundle comes back unchanged when `values` is empty (else DispatchError: it takes none).
Bundle bind_dispatch(const Bundle& b, const DispatchValues& values);
// Evaluates an affine expression at `values` (indexed like Dispatch::scalars); throws
// DispatchError on int64 overflow.
int64_t evaluate(const Affine& a, std::span<const int64_t> values);
// "16 * M + 1024" with the scalars' names.
std::string affine_text(const Affine& a, const std::vector<DispatchScalar>& scalars);

// Human-readable summary (axrun --describe, axtrace show of a bundle).
std::string describe(const Bundle& b);

// The one program a device plays for a bundle: its TXN with the preloaded command streams folded
// in (a blockwrite each, before the first op, as the runtime used to write them before playing)
// and every parameter target the stream writes carrying the parameter's bits (in each write32,
// blockwrite word or maskwrite32 of its address: register = (value & ~mask) | ((bits << shift) &
// mask)); the targets no TXN op writes go to `before`, which the host writes before the stream
// plays. A bundle without command streams whose TXN writes no target plays its TXN unchanged
// (every compiled bundle: the firmware and the runtime's player play the same words). `bits`: per
// parameter name (param_bits in program.hpp); a parameter it lacks takes its default. Throws
// txn::DecodeError for a TXN that does not decode.
using ParamBits = std::map<std::string, uint32_t, std::less<>>;
struct ProgramTxn {
  std::vector<uint32_t> txn;  // empty for a ref-only bundle
  struct Before {
    ParamTarget target;
    uint32_t bits = 0;
  };
  std::vector<Before> before;
};
ProgramTxn program_txn(const Bundle& b, const ParamBits& bits);

// What the host writes before the TXN plays: the parameters' defaults into the targets the program
// TXN does not write (program_txn(b, {}).before).
std::vector<txn::Preset> host_preset(const Bundle& b);
// Each core's command memory once program_txn(b, {}) has played: one stream per core from word 0
// (words nothing writes are 0; a parameter written before the stream counts with its bits alone).
std::vector<CommandStream> command_memory(const Bundle& b);
// txn::explain of the program TXN over host_preset(b), so a compiled model's pushes resolve to the
// descriptors the stream wrote (axc explain). Empty for a ref-only bundle.
std::string explain_txn(const Bundle& b);

}  // namespace axcore::runtime
