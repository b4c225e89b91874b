// The `.axb` container: a 64-byte header, a section table, then the sections (docs/runtime.md).
//   header:  u32 magic 'AXB1' | u16 major | u16 minor | u32 header bytes (64) | u32 sections |
//            u64 spec hash | u64 file bytes | 32 reserved bytes (0)
//   table:   per section u32 kind | u32 flags (0) | u64 offset | u64 size | u64 FNV-1a 64
//   sections at 8-byte aligned offsets after the table, in any order, not overlapping.
#include <algorithm>
#include <fstream>

#include "axcore/runtime/bundle.hpp"
#include "axcore/text/hex.hpp"
#include "axcore/trace/record.hpp"
#include "bytes.hpp"

namespace axcore::runtime {
namespace {

using detail::ByteReader;
using detail::ByteWriter;

constexpr uint32_t kHeaderBytes = 64;
constexpr uint32_t kEntryBytes = 32;
constexpr uint32_t kMaxSections = 64;

enum class Section : uint32_t {
  META = 1,
  TXN = 2,
  COMMANDS = 3,
  CONSTANTS = 4,
  BUFFERS = 5,
  PARAMS = 6,
  GRAPH = 7,
  DISPATCH = 8,  // container 1.1
};
constexpr std::array<std::string_view, 9> kSectionNames = {"?",       "META",   "TXN",   "COMMANDS", "CONSTANTS",
                                                           "BUFFERS", "PARAMS", "GRAPH", "DISPATCH"};
std::string_view name_of(uint32_t kind) { return kind < kSectionNames.size() ? kSectionNames[kind] : "?"; }

using text::hex;

enum AttrTag : uint8_t { INT = 0, FLOAT = 1, STRING = 2, INTS = 3, FLOATS = 4 };

// ---- encoding ------------------------------------------------------------------------------

std::vector<uint8_t> enc_meta(const Bundle& b) {
  ByteWriter w;
  w.u32(static_cast<uint32_t>(b.metadata.size()));
  for (const auto& [k, v] : b.metadata) {
    w.str(k);
    w.str(v);
  }
  return std::move(w.data());
}
std::vector<uint8_t> enc_txn(const Bundle& b) {
  ByteWriter w;
  for (uint32_t x : b.txn) w.u32(x);
  return std::move(w.data());
}
std::vector<uint8_t> enc_commands(const Bundle& b) {
  ByteWriter w;
  w.u32(static_cast<uint32_t>(b.commands.size()));
  for (const auto& c : b.commands) {
    w.str(c.name);
    w.u32(c.core);
    w.u32(c.word);
    w.u32(static_cast<uint32_t>(c.words.size()));
    for (uint32_t x : c.words) w.u32(x);
  }
  return std::move(w.data());
}
std::vector<uint8_t> enc_constants(const Bundle& b) {
  ByteWriter w;
  w.u32(static_cast<uint32_t>(b.constants.size()));
  for (const auto& c : b.constants) {
    w.str(c.name);
    w.u64(c.bytes.size());
    w.bytes(c.bytes);
  }
  return std::move(w.data());
}
std::vector<uint8_t> enc_buffers(const Bundle& b) {
  ByteWriter w;
  w.u32(static_cast<uint32_t>(b.buffers.size()));
  for (const auto& x : b.buffers) {
    w.str(x.name);
    w.u8(static_cast<uint8_t>(x.role));
    w.u8(static_cast<uint8_t>(x.dtype));
    w.u8(static_cast<uint8_t>(x.shape.size()));
    w.u8(static_cast<uint8_t>((x.arg ? 1 : 0) | (x.constant ? 2 : 0)));
    for (uint64_t d : x.shape) w.u64(d);
    w.u8(static_cast<uint8_t>(x.layout.kind));
    w.i32(x.layout.axis);
    w.u32(x.layout.pad_bits);
    w.u64(x.layout.bytes);
    w.u32(x.layout.align);
    if (x.arg) w.u32(*x.arg);
    if (x.constant) w.u32(*x.constant);
  }
  return std::move(w.data());
}
std::vector<uint8_t> enc_params(const Bundle& b) {
  ByteWriter w;
  w.u32(static_cast<uint32_t>(b.params.size()));
  for (const auto& p : b.params) {
    w.str(p.name);
    w.u8(static_cast<uint8_t>(p.type));
    w.u32(p.default_bits);
    w.str(p.doc);
    w.u32(static_cast<uint32_t>(p.targets.size()));
    for (const auto& t : p.targets) {
      w.u64(t.addr);
      w.u32(t.mask);
      w.u32(t.shift);
    }
  }
  return std::move(w.data());
}
void enc_names(ByteWriter& w, const std::vector<std::string>& v) {
  w.u32(static_cast<uint32_t>(v.size()));
  for (const auto& s : v) w.str(s);
}
std::vector<uint8_t> enc_graph(const Bundle& b) {
  ByteWriter w;
  w.u32(static_cast<uint32_t>(b.graph.size()));
  for (const auto& n : b.graph) {
    w.str(n.op);
    enc_names(w, n.inputs);
    enc_names(w, n.outputs);
    w.u32(static_cast<uint32_t>(n.attrs.size()));
    for (const auto& [k, v] : n.attrs) {
      w.str(k);
      w.u8(static_cast<uint8_t>(v.index()));
      std::visit(
          [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, int64_t>)
              w.i64(x);
            else if constexpr (std::is_same_v<T, double>)
              w.f64(x);
            else if constexpr (std::is_same_v<T, std::string>)
              w.str(x);
            else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
              w.u32(static_cast<uint32_t>(x.size()));
              for (int64_t e : x) w.i64(e);
            } else {
              w.u32(static_cast<uint32_t>(x.size()));
              for (double e : x) w.f64(e);
            }
          },
          v);
    }
  }
  return std::move(w.data());
}

// DISPATCH: scalars (name, min, max, doc), guards (expr, modulus, op, rhs, message), staged values
// (kind, index, sub, value); an affine expression is i64 constant + u32 count of (u32 scalar, i64
// coef).
void enc_affine(ByteWriter& w, const Affine& a) {
  w.i64(a.constant);
  w.u32(static_cast<uint32_t>(a.terms.size()));
  for (const auto& t : a.terms) {
    w.u32(t.scalar);
    w.i64(t.coef);
  }
}
std::vector<uint8_t> enc_dispatch(const Bundle& b) {
  const Dispatch& d = b.dispatch;
  ByteWriter w;
  w.u32(static_cast<uint32_t>(d.scalars.size()));
  for (const auto& s : d.scalars) {
    w.str(s.name);
    w.i64(s.min);
    w.i64(s.max);
    w.str(s.doc);
  }
  w.u32(static_cast<uint32_t>(d.guards.size()));
  for (const auto& g : d.guards) {
    enc_affine(w, g.expr);
    w.i64(g.modulus);
    w.u8(static_cast<uint8_t>(g.op));
    w.i64(g.rhs);
    w.str(g.message);
  }
  w.u32(static_cast<uint32_t>(d.staged.size()));
  for (const auto& s : d.staged) {
    w.u8(static_cast<uint8_t>(s.kind));
    w.u32(s.index);
    w.u32(s.sub);
    enc_affine(w, s.value);
  }
  return std::move(w.data());
}

// ---- decoding ------------------------------------------------------------------------------

void dec_meta(ByteReader& r, Bundle& b) {
  const uint32_t n = r.count("metadata entries", 8);
  for (uint32_t i = 0; i < n; ++i) {
    std::string k = r.str("a metadata key");
    const uint64_t at = r.pos();
    std::string v = r.str("a metadata value");
    if (!b.metadata.emplace(std::move(k), std::move(v)).second) r.fail(at, "duplicate metadata key");
  }
}
void dec_txn(ByteReader& r, Bundle& b) {
  if (r.left() % 4) r.fail(0, "size " + std::to_string(r.left()) + " is not a whole number of words");
  b.txn.reserve(r.left() / 4);
  while (r.left()) b.txn.push_back(r.u32());
}
void dec_commands(ByteReader& r, Bundle& b) {
  const uint32_t n = r.count("command streams", 16);
  for (uint32_t i = 0; i < n; ++i) {
    CommandStream c;
    c.name = r.str("a command stream name");
    c.core = r.u32();
    c.word = r.u32();
    const uint32_t words = r.count("command words", 4);
    c.words.reserve(words);
    for (uint32_t k = 0; k < words; ++k) c.words.push_back(r.u32());
    b.commands.push_back(std::move(c));
  }
}
void dec_constants(ByteReader& r, Bundle& b) {
  const uint32_t n = r.count("constant blobs", 12);
  for (uint32_t i = 0; i < n; ++i) {
    ConstantBlob c;
    c.name = r.str("a constant name");
    const uint64_t size = r.u64();
    auto bytes = r.bytes(size, "a constant blob");
    c.bytes.assign(bytes.begin(), bytes.end());
    b.constants.push_back(std::move(c));
  }
}
void dec_buffers(ByteReader& r, Bundle& b) {
  const uint32_t n = r.count("buffers", 29);
  for (uint32_t i = 0; i < n; ++i) {
    BufferDesc x;
    x.name = r.str("a buffer name");
    x.role = static_cast<BufferRole>(r.u8());
    x.dtype = static_cast<spec::Dtype>(r.u8());
    const uint8_t rank = r.u8();
    const uint64_t flags_at = r.pos();
    const uint8_t flags = r.u8();
    if (flags & ~3u) r.fail(flags_at, "buffer '" + x.name + "' has unknown flags " + hex(flags));
    if (rank > 8) r.fail(flags_at - 1, "buffer '" + x.name + "' has rank " + std::to_string(rank) + " (at most 8)");
    for (uint8_t k = 0; k < rank; ++k) x.shape.push_back(r.u64());
    x.layout.kind = static_cast<LayoutKind>(r.u8());
    x.layout.axis = r.i32();
    x.layout.pad_bits = r.u32();
    x.layout.bytes = r.u64();
    x.layout.align = r.u32();
    if (flags & 1) x.arg = r.u32();
    if (flags & 2) x.constant = r.u32();
    b.buffers.push_back(std::move(x));
  }
}
void dec_params(ByteReader& r, Bundle& b) {
  const uint32_t n = r.count("parameters", 17);
  for (uint32_t i = 0; i < n; ++i) {
    RuntimeParam p;
    p.name = r.str("a parameter name");
    p.type = static_cast<ParamType>(r.u8());
    p.default_bits = r.u32();
    p.doc = r.str("a parameter doc");
    const uint32_t t = r.count("parameter targets", 16);
    for (uint32_t k = 0; k < t; ++k) {
      ParamTarget pt;
      pt.addr = r.u64();
      pt.mask = r.u32();
      pt.shift = r.u32();
      p.targets.push_back(pt);
    }
    b.params.push_back(std::move(p));
  }
}
std::vector<std::string> dec_names(ByteReader& r, const char* what) {
  const uint32_t n = r.count(what, 4);
  std::vector<std::string> v;
  for (uint32_t i = 0; i < n; ++i) v.push_back(r.str("a tensor name"));
  return v;
}
void dec_graph(ByteReader& r, Bundle& b) {
  const uint32_t n = r.count("graph nodes", 16);
  for (uint32_t i = 0; i < n; ++i) {
    GraphNode g;
    g.op = r.str("an op name");
    g.inputs = dec_names(r, "node inputs");
    g.outputs = dec_names(r, "node outputs");
    const uint32_t na = r.count("attributes", 5);
    for (uint32_t k = 0; k < na; ++k) {
      std::string key = r.str("an attribute name");
      const uint64_t at = r.pos();
      AttrValue v;
      switch (r.u8()) {
        case INT: v = r.i64(); break;
        case FLOAT: v = r.f64(); break;
        case STRING: v = r.str("a string attribute"); break;
        case INTS: {
          const uint32_t c = r.count("ints", 8);
          std::vector<int64_t> x;
          for (uint32_t j = 0; j < c; ++j) x.push_back(r.i64());
          v = std::move(x);
          break;
        }
        case FLOATS: {
          const uint32_t c = r.count("floats", 8);
          std::vector<double> x;
          for (uint32_t j = 0; j < c; ++j) x.push_back(r.f64());
          v = std::move(x);
          break;
        }
        default: r.fail(at, "attribute '" + key + "' has an unknown type tag");
      }
      if (!g.attrs.emplace(std::move(key), std::move(v)).second) r.fail(at, "duplicate attribute");
    }
    b.graph.push_back(std::move(g));
  }
}

Affine dec_affine(ByteReader& r) {
  Affine a;
  a.constant = r.i64();
  const uint32_t n = r.count("affine terms", 12);
  for (uint32_t i = 0; i < n; ++i) {
    AffineTerm t;
    t.scalar = r.u32();
    t.coef = r.i64();
    a.terms.push_back(t);
  }
  return a;
}
void dec_dispatch(ByteReader& r, Bundle& b) {
  Dispatch& d = b.dispatch;
  const uint32_t ns = r.count("dispatch-time scalars", 24);
  for (uint32_t i = 0; i < ns; ++i) {
    DispatchScalar s;
    s.name = r.str("a scalar name");
    s.min = r.i64();
    s.max = r.i64();
    s.doc = r.str("a scalar doc");
    d.scalars.push_back(std::move(s));
  }
  const uint32_t ng = r.count("dispatch guards", 33);
  for (uint32_t i = 0; i < ng; ++i) {
    DispatchGuard g;
    g.expr = dec_affine(r);
    g.modulus = r.i64();
    g.op = static_cast<GuardOp>(r.u8());
    g.rhs = r.i64();
    g.message = r.str("a guard message");
    d.guards.push_back(std::move(g));
  }
  const uint32_t nv = r.count("staged values", 21);
  for (uint32_t i = 0; i < nv; ++i) {
    StagedValue s;
    const uint64_t at = r.pos();
    const uint8_t kind = r.u8();
    if (kind > static_cast<uint8_t>(StagedKind::BUFFER_BYTES))
      r.fail(at, "staged value " + std::to_string(i) + " has unknown kind " + std::to_string(kind));
    s.kind = static_cast<StagedKind>(kind);
    s.index = r.u32();
    s.sub = r.u32();
    s.value = dec_affine(r);
    d.staged.push_back(std::move(s));
  }
}

using Decoder = void (*)(ByteReader&, Bundle&);
constexpr std::array<Decoder, 9> kDecoders = {nullptr,     dec_meta,   dec_txn,   dec_commands, dec_constants,
                                              dec_buffers, dec_params, dec_graph, dec_dispatch};

}  // namespace

std::vector<uint8_t> encode_bundle(const Bundle& b) {
  validate(b);
  std::vector<std::pair<Section, std::vector<uint8_t>>> secs;
  auto add = [&](Section s, std::vector<uint8_t> bytes, bool present) {
    if (present) secs.emplace_back(s, std::move(bytes));
  };
  add(Section::META, enc_meta(b), !b.metadata.empty());
  add(Section::TXN, enc_txn(b), !b.txn.empty());
  add(Section::COMMANDS, enc_commands(b), !b.commands.empty());
  add(Section::CONSTANTS, enc_constants(b), !b.constants.empty());
  add(Section::BUFFERS, enc_buffers(b), !b.buffers.empty());
  add(Section::PARAMS, enc_params(b), !b.params.empty());
  add(Section::GRAPH, enc_graph(b), !b.graph.empty());
  add(Section::DISPATCH, enc_dispatch(b), !b.dispatch.empty());

  uint64_t off = kHeaderBytes + kEntryBytes * secs.size();
  ByteWriter table;
  for (const auto& [kind, bytes] : secs) {
    table.u32(static_cast<uint32_t>(kind));
    table.u32(0);
    table.u64(off);
    table.u64(bytes.size());
    table.u64(trace::fnv1a64(bytes));
    off = (off + bytes.size() + 7) & ~uint64_t{7};
  }
  ByteWriter w;
  w.u32(kBundleMagic);
  w.u16(kBundleVersionMajor);
  w.u16(b.dispatch.empty() ? 0 : kBundleVersionMinor);  // the lowest version that holds the bundle
  w.u32(kHeaderBytes);
  w.u32(static_cast<uint32_t>(secs.size()));
  w.u64(b.spec_hash);
  w.u64(0);  // file bytes, patched below
  w.pad_to(kHeaderBytes);
  w.bytes(table.data());
  for (const auto& s : secs) {
    w.bytes(s.second);
    w.pad_to(8);
  }
  std::vector<uint8_t> out = std::move(w.data());
  const uint64_t size = out.size();
  for (int i = 0; i < 8; ++i) out[24 + i] = static_cast<uint8_t>(size >> (8 * i));
  return out;
}

BundleHeaderInfo decode_bundle_header(std::span<const uint8_t> bytes) {
  if (bytes.size() < kHeaderBytes)
    throw BundleError("bundle: truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the 64-byte header");
  ByteReader r(bytes.first(kHeaderBytes), "header", 0);
  const uint32_t magic = r.u32();
  if (magic != kBundleMagic)
    throw BundleError("bundle: not an axcore bundle: magic " + hex(magic) + ", expected " + hex(kBundleMagic) +
                      " ('AXB1')");
  BundleHeaderInfo h;
  h.version_major = r.u16();
  h.version_minor = r.u16();
  if (h.version_major != kBundleVersionMajor || h.version_minor > kBundleVersionMinor)
    throw BundleError("bundle: container version " + std::to_string(h.version_major) + "." +
                      std::to_string(h.version_minor) + ", this runtime reads " + std::to_string(kBundleVersionMajor) +
                      ".0 to " + std::to_string(kBundleVersionMajor) + "." + std::to_string(kBundleVersionMinor));
  const uint32_t header_bytes = r.u32();
  if (header_bytes != kHeaderBytes)
    throw BundleError("bundle: header size " + std::to_string(header_bytes) + ", expected 64");
  h.sections = r.u32();
  h.spec_hash = r.u64();
  h.file_bytes = r.u64();
  if (h.file_bytes > bytes.size())
    throw BundleError("bundle: truncated: the header gives " + std::to_string(h.file_bytes) + " bytes, the file has " +
                      std::to_string(bytes.size()));
  if (h.file_bytes < bytes.size())
    throw BundleError("bundle: oversized: " + std::to_string(bytes.size() - h.file_bytes) + " bytes after the " +
                      std::to_string(h.file_bytes) + " the header gives");
  if (h.sections > kMaxSections)
    throw BundleError("bundle: " + std::to_string(h.sections) + " sections, at most " + std::to_string(kMaxSections));
  return h;
}

Bundle decode_bundle(std::span<const uint8_t> bytes, const DecodeOptions& opt) {
  const BundleHeaderInfo h = decode_bundle_header(bytes);
  if (h.spec_hash != spec::kSpecHash && !opt.allow_foreign_spec)
    throw BundleError("bundle: built against spec hash " + hex(h.spec_hash) + ", this runtime implements spec hash " +
                      hex(spec::kSpecHash) + " (recompile the program for this spec)");
  const uint64_t table_end = kHeaderBytes + uint64_t{kEntryBytes} * h.sections;
  if (table_end > h.file_bytes)
    throw BundleError("bundle: truncated: the table of " + std::to_string(h.sections) + " sections ends at byte " +
                      std::to_string(table_end) + ", the file has " + std::to_string(h.file_bytes));
  ByteReader t(bytes.subspan(kHeaderBytes, table_end - kHeaderBytes), "section table", kHeaderBytes);
  struct Entry {
    uint32_t kind;
    uint64_t off, size, hash;
  };
  std::vector<Entry> entries;
  for (uint32_t i = 0; i < h.sections; ++i) {
    const uint64_t at = t.pos();
    Entry e{};
    e.kind = t.u32();
    const uint32_t flags = t.u32();
    e.off = t.u64();
    e.size = t.u64();
    e.hash = t.u64();
    const std::string who = "section " + std::to_string(i) + " (" + std::string(name_of(e.kind)) + ")";
    if (e.kind == 0 || e.kind >= kDecoders.size()) t.fail(at, who + ": unknown kind " + std::to_string(e.kind));
    if (flags) t.fail(at, who + ": unknown flags " + hex(flags));
    if (e.kind == static_cast<uint32_t>(Section::DISPATCH) && h.version_minor < 1)
      t.fail(at, who + ": a DISPATCH section needs container 1.1, the header says " + std::to_string(h.version_major) +
                     "." + std::to_string(h.version_minor));
    if (e.off < table_end || e.off > h.file_bytes || e.size > h.file_bytes - e.off)
      t.fail(at, who + ": bytes [" + std::to_string(e.off) + ", +" + std::to_string(e.size) +
                     ") are outside the file's sections [" + std::to_string(table_end) + ", " +
                     std::to_string(h.file_bytes) + ")");
    for (const Entry& o : entries) {
      if (o.kind == e.kind) t.fail(at, who + ": a second " + std::string(name_of(e.kind)) + " section");
      if (e.off < o.off + o.size && o.off < e.off + e.size)
        t.fail(at, who + ": overlaps the " + std::string(name_of(o.kind)) + " section");
    }
    entries.push_back(e);
  }

  Bundle b;
  b.spec_hash = h.spec_hash;
  std::vector<std::span<const uint8_t>> bodies;
  for (const Entry& e : entries) bodies.push_back(bytes.subspan(e.off, e.size));
  std::vector<uint64_t> sums(entries.size());
  if (opt.verify_checksums) trace::fnv1a64_each(bodies, sums);  // the sections' chains side by side
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    const auto body = bodies[i];
    const std::string who = "section " + std::string(name_of(e.kind));
    if (opt.verify_checksums && sums[i] != e.hash)
      throw BundleError("bundle: " + who + " at byte " + std::to_string(e.off) + ": checksum " + hex(sums[i]) +
                        ", the table says " + hex(e.hash) + " (corrupted file)");
    ByteReader r(body, who, e.off);
    kDecoders[e.kind](r, b);
    r.finish();
  }
  validate(b);
  return b;
}

void save_bundle(const std::filesystem::path& path, const Bundle& b) {
  const std::vector<uint8_t> bytes = encode_bundle(b);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw BundleError("cannot write " + path.string());
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw BundleError("error writing " + path.string());
}

Bundle load_bundle(const std::filesystem::path& path, const DecodeOptions& opt) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw BundleError(path.string() + ": cannot open");
  std::vector<uint8_t> bytes;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec) {  // a regular file: read in one call, not a byte at a time
    bytes.resize(static_cast<std::size_t>(size));
    f.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<std::size_t>(f.gcount()));
  } else {
    bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  try {
    return decode_bundle(bytes, opt);
  } catch (const BundleError& e) { throw BundleError(path.string() + ": " + e.what()); }
}

}  // namespace axcore::runtime
