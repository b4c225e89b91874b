#include "axcore/trace/record.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>

#include "axcore/text/hex.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define AXCORE_TRACE_X86 1
#else
#define AXCORE_TRACE_X86 0
#endif

namespace axcore::trace {
namespace {

constexpr std::array<std::string_view, 22> kUnitNames = {
    "host",      "cmdproc",   "mvm.ifd0",  "mvm.ifd1",  "mvm",       "mvm.dpu",   "mvm.odr",   "dw.ifd0",
    "dw.ifd1",   "dwpu",      "dw.dpu",    "dw.odr",    "loadimc",   "dma.mm2s0", "dma.mm2s1", "dma.mm2s2",
    "dma.mm2s3", "dma.s2mm0", "dma.s2mm1", "dma.s2mm2", "dma.s2mm3", "token"};
constexpr std::array<std::string_view, 5> kKindNames = {"task_start", "task_done", "mem_write", "token", "reg_write"};

uint64_t number(std::string_view s, const char* column) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size())
    throw std::invalid_argument(std::string("trace record: bad ") + column + " '" + std::string(s) + "'");
  return v;
}

}  // namespace

std::string_view to_string(Unit u) { return kUnitNames.at(static_cast<size_t>(u)); }
std::string_view to_string(Kind k) { return kKindNames.at(static_cast<size_t>(k)); }

std::optional<Unit> parse_unit(std::string_view s) {
  for (size_t i = 0; i < kUnitNames.size(); ++i)
    if (kUnitNames[i] == s) return static_cast<Unit>(i);
  return std::nullopt;
}
std::optional<Kind> parse_kind(std::string_view s) {
  for (size_t i = 0; i < kKindNames.size(); ++i)
    if (kKindNames[i] == s) return static_cast<Kind>(i);
  return std::nullopt;
}

Unit dma_unit(bool mm2s, unsigned channel) {
  if (channel > 3) throw std::out_of_range("dma_unit: channel " + std::to_string(channel) + " > 3");
  return static_cast<Unit>(static_cast<unsigned>(mm2s ? Unit::DMA_MM2S0 : Unit::DMA_S2MM0) + channel);
}

uint64_t fnv1a64(std::span<const uint8_t> bytes, uint64_t h) {
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ULL;
  }
  return h;
}

namespace {
constexpr uint64_t kFnvPrime = 0x100000001b3ULL, kFnvBasis = 0xcbf29ce484222325ULL;
#if AXCORE_TRACE_X86
// AVX-512: kVecs vectors of 8 chains side by side, one 64-bit lane a chain (vpmullq's latency is
// 15 cycles: four vectors in flight run 32 chains at about twice the scalar multiplier's rate).
constexpr std::size_t kVecs = 4, kVecLanes = kVecs * 8;
bool vector_fnv() {
  static const bool ok = __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512dq") != 0;
  return ok;
}
// The first n bytes (a multiple of 8) of bufs[0 .. 8 V) hashed into h (each buffer at least n bytes),
// eight at a time. Each 64-byte block of every buffer is copied to a staging area first and
// gathered from there: the buffers are often 4 KiB apart (LoadIMC's tiles), and gathers at the same
// offset of 32 such buffers all hit one L1 set (12 ways), so each line was gone before its next 8
// bytes were read (32 tiles: 26 µs gathered in place, 8 µs staged). (The masked forms: GCC 12
// warns of the plain ones' undefined source operand.)
template <std::size_t V>
__attribute__((target("avx512f,avx512dq"))) void fnv1a64_lanes(const std::span<const uint8_t>* bufs, std::size_t n,
                                                               uint64_t* h) {
  constexpr std::size_t kBlock = 64, kLanes = 8 * V;
  alignas(64) std::array<uint8_t, kLanes * kBlock> stage;
  const auto* base = reinterpret_cast<const long long*>(stage.data());
  __m512i off[V], acc[V];
  for (std::size_t v = 0; v < V; ++v) {
    off[v] =
        _mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(static_cast<long long>(8 * v)));
    off[v] = _mm512_slli_epi64(off[v], 6);  // lane * kBlock
    acc[v] = _mm512_set1_epi64(static_cast<long long>(kFnvBasis));
  }
  const __m512i prime = _mm512_set1_epi64(static_cast<long long>(kFnvPrime)), byte = _mm512_set1_epi64(0xFF);
  for (std::size_t k = 0; k < n; k += kBlock) {
    const std::size_t m = std::min(kBlock, n - k);
    for (std::size_t i = 0; i < kLanes; ++i)
      if (m == kBlock)
        std::memcpy(stage.data() + i * kBlock, bufs[i].data() + k, kBlock);
      else
        std::memcpy(stage.data() + i * kBlock, bufs[i].data() + k, m);
    for (std::size_t s = 0; s < m; s += 8) {  // eight bytes of each buffer (little-endian: byte j is bits 8j..)
      __m512i w[V];
      for (std::size_t v = 0; v < V; ++v)
        w[v] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), 0xFF,
                                           _mm512_add_epi64(off[v], _mm512_set1_epi64(static_cast<long long>(s))), base,
                                           1);
      for (unsigned j = 0; j < 8; ++j)
        for (std::size_t v = 0; v < V; ++v)
          acc[v] = _mm512_mullo_epi64(
              _mm512_xor_si512(acc[v], _mm512_and_si512(_mm512_maskz_srli_epi64(0xFF, w[v], 8 * j), byte)), prime);
    }
  }
  for (std::size_t v = 0; v < V; ++v) _mm512_storeu_si512(h + 8 * v, acc[v]);
}
#endif
}  // namespace

void fnv1a64_each(std::span<const std::span<const uint8_t>> bufs, std::span<uint64_t> out) {
  if (out.size() != bufs.size())
    throw std::invalid_argument("fnv1a64_each: " + std::to_string(bufs.size()) + " buffers, " +
                                std::to_string(out.size()) + " results");
  constexpr uint64_t kPrime = kFnvPrime, kBasis = kFnvBasis;
  constexpr std::size_t kWays = 4;  // independent multiply chains in flight
  std::size_t i = 0;
#if AXCORE_TRACE_X86
  // Groups of up to 32 buffers on the vectors (a group of 8 .. 31 on as many vectors as it fills,
  // the last vector's spare lanes hashing the group's first buffer again, their sums unused).
  if (vector_fnv())
    while (bufs.size() - i >= 8) {
      const std::size_t g = std::min(kVecLanes, bufs.size() - i), vecs = (g + 7) / 8;
      std::array<std::span<const uint8_t>, kVecLanes> lane;
      std::size_t n = bufs[i].size();
      for (std::size_t w = 0; w < 8 * vecs; ++w) {
        lane[w] = bufs[i + (w < g ? w : 0)];
        n = std::min(n, lane[w].size());
      }
      n &= ~std::size_t{7};
      std::array<uint64_t, kVecLanes> h{};
      switch (vecs) {
        case 1: fnv1a64_lanes<1>(lane.data(), n, h.data()); break;
        case 2: fnv1a64_lanes<2>(lane.data(), n, h.data()); break;
        case 3: fnv1a64_lanes<3>(lane.data(), n, h.data()); break;
        default: fnv1a64_lanes<4>(lane.data(), n, h.data()); break;
      }
      for (std::size_t w = 0; w < g; ++w) out[i + w] = fnv1a64(bufs[i + w].subspan(n), h[w]);
      i += g;
    }
#endif
  for (; i + kWays <= bufs.size(); i += kWays) {
    std::size_t n = bufs[i].size();
    for (std::size_t w = 1; w < kWays; ++w) n = std::min(n, bufs[i + w].size());
    uint64_t h[kWays] = {kBasis, kBasis, kBasis, kBasis};
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t w = 0; w < kWays; ++w) h[w] = (h[w] ^ bufs[i + w][k]) * kPrime;
    for (std::size_t w = 0; w < kWays; ++w) out[i + w] = fnv1a64(bufs[i + w].subspan(n), h[w]);
  }
  for (; i < bufs.size(); ++i) out[i] = fnv1a64(bufs[i]);
}

namespace {
// One record's line (no newline) into `buf`; returns its length. to_chars, not a stream: a TLM
// job writes thousands of records, and an ostringstream per record (its locale set up each time)
// was most of the trace file's cost. The text is format()'s: decimal, and hex as text::hex.
constexpr std::size_t kLineMax = 160;  // 20 + 20 + 3 + 3 + names + 3 * 18 + 10 + spaces
std::size_t format_to(const Record& r, char* buf) {
  char* p = buf;
  char* const end = buf + kLineMax;
  auto dec = [&](uint64_t v) { p = std::to_chars(p, end, v).ptr; };
  auto hex = [&](uint64_t v) {
    *p++ = '0';
    *p++ = 'x';
    p = std::to_chars(p, end, v, 16).ptr;
  };
  auto name = [&](std::string_view n) { p = std::copy(n.begin(), n.end(), p); };
  dec(r.seq);
  *p++ = ' ';
  dec(r.cycle);
  *p++ = ' ';
  dec(r.col);
  *p++ = ' ';
  dec(r.row);
  *p++ = ' ';
  name(to_string(r.unit));
  *p++ = ' ';
  name(to_string(r.kind));
  *p++ = ' ';
  hex(r.addr);
  *p++ = ' ';
  dec(r.bytes);
  *p++ = ' ';
  hex(r.data_hash);
  *p++ = ' ';
  hex(r.token);
  return static_cast<std::size_t>(p - buf);
}
}  // namespace

std::string format(const Record& r) {
  char buf[kLineMax];
  return std::string(buf, format_to(r, buf));
}

Record parse(std::string_view line) {
  std::array<std::string_view, 10> col{};
  size_t n = 0;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    if (i >= line.size()) break;
    size_t j = line.find(' ', i);
    if (j == std::string_view::npos) j = line.size();
    if (n == col.size()) throw std::invalid_argument("trace record: more than 10 columns");
    col[n++] = line.substr(i, j - i);
    i = j;
  }
  if (n != col.size()) throw std::invalid_argument("trace record: " + std::to_string(n) + " columns, expected 10");
  Record r;
  r.seq = number(col[0], "seq");
  r.cycle = number(col[1], "cycle");
  const uint64_t c = number(col[2], "col"), w = number(col[3], "row");
  if (c > 127 || w > 31) throw std::invalid_argument("trace record: tile out of range");
  r.col = static_cast<uint8_t>(c);
  r.row = static_cast<uint8_t>(w);
  auto u = parse_unit(col[4]);
  if (!u) throw std::invalid_argument("trace record: bad unit '" + std::string(col[4]) + "'");
  auto k = parse_kind(col[5]);
  if (!k) throw std::invalid_argument("trace record: bad kind '" + std::string(col[5]) + "'");
  r.unit = *u;
  r.kind = *k;
  r.addr = number(col[6], "addr");
  const uint64_t b = number(col[7], "bytes");
  if (b > 0xFFFFFFFFu) throw std::invalid_argument("trace record: bytes out of range");
  r.bytes = static_cast<uint32_t>(b);
  r.data_hash = number(col[8], "hash");
  const uint64_t t = number(col[9], "token");
  if (t > 0xFFFFFFFFu) throw std::invalid_argument("trace record: token out of range");
  r.token = static_cast<uint32_t>(t);
  return r;
}

Writer::Writer(std::ostream& out) : out_(out) { out_ << "# axcore-trace v1\n"; }

void Writer::write(const Record& r) {
  char buf[kLineMax + 1];
  const std::size_t n = format_to(r, buf);
  buf[n] = '\n';
  out_.write(buf, static_cast<std::streamsize>(n + 1));
  ++count_;
}

std::vector<Record> read_trace(std::istream& in) {
  std::vector<Record> out;
  std::string line;
  size_t lineno = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (lineno == 1 && line == "# axcore-trace v1") header = true;
      continue;
    }
    if (!header) throw std::invalid_argument("trace: line 1 is not '# axcore-trace v1'");
    try {
      out.push_back(parse(line));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("trace line " + std::to_string(lineno) + ": " + e.what());
    }
  }
  if (!header) throw std::invalid_argument("trace: empty input, expected '# axcore-trace v1'");
  return out;
}

std::vector<Record> read_trace_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open trace " + path);
  return read_trace(f);
}

}  // namespace axcore::trace
