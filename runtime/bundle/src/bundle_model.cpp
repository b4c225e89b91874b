// The bundle's data model: names, sizes, and the consistency rules validate() enforces.
#include <algorithm>
#include <set>
#include <sstream>
#include <tuple>

#include "axcore/runtime/bundle.hpp"
#include "axcore/text/hex.hpp"
#include "axcore/txn/decode.hpp"
#include "axcore/txn/error.hpp"

namespace axcore::runtime {
namespace {

constexpr std::array<std::string_view, 4> kRoles = {"input", "output", "constant", "scratch"};
constexpr uint64_t kMaxRank = 8;

[[noreturn]] void fail(const std::string& msg) { throw BundleError("bundle: " + msg); }

using text::hex;

bool good_name(std::string_view s) {
  if (s.empty() || s.size() > 256) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == ':' || c == '-';
  });
}

// numel with overflow detection; the image of one buffer must stay below 2^48 bytes.
uint64_t checked_numel(const std::vector<uint64_t>& shape, const std::string& who) {
  uint64_t n = 1;
  for (uint64_t d : shape) {
    if (d != 0 && n > (uint64_t{1} << 48) / d) fail(who + ": shape is too large");
    n *= d;
  }
  return n;
}

std::string shape_text(const std::vector<uint64_t>& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

// The DISPATCH part: scalar names (distinct, not a parameter's), ranges, expressions over known
// scalars, guards with a message and a usable modulus, staged values at places the bundle has.
void validate_dispatch(const Bundle& b, const std::set<std::string, std::less<>>& params) {
  const Dispatch& d = b.dispatch;
  if (d.empty()) {
    if (!d.guards.empty() || !d.staged.empty()) fail("dispatch: guards or staged values without dispatch-time scalars");
    return;
  }
  std::set<std::string, std::less<>> seen;
  for (const auto& s : d.scalars) {
    const std::string who = "dispatch-time scalar '" + s.name + "'";
    if (!good_name(s.name)) fail("dispatch-time scalar name '" + s.name + "' is not [A-Za-z0-9_.:-]+");
    if (!seen.insert(s.name).second) fail("two dispatch-time scalars are named '" + s.name + "'");
    if (params.count(s.name)) fail(who + " has the name of a runtime parameter");
    if (s.min > s.max) fail(who + ": range [" + std::to_string(s.min) + ", " + std::to_string(s.max) + "] is empty");
  }
  auto check = [&](const Affine& a, const std::string& who) {
    for (const auto& t : a.terms)
      if (t.scalar >= d.scalars.size())
        fail(who + ": term of scalar " + std::to_string(t.scalar) + ", the bundle has " +
             std::to_string(d.scalars.size()));
  };
  for (size_t i = 0; i < d.guards.size(); ++i) {
    const auto& g = d.guards[i];
    const std::string who = "dispatch guard " + std::to_string(i);
    check(g.expr, who);
    if (g.message.empty()) fail(who + ": no message");
    if (g.modulus < 0) fail(who + ": modulus " + std::to_string(g.modulus));
    if (static_cast<unsigned>(g.op) > static_cast<unsigned>(GuardOp::NE))
      fail(who + ": unknown comparison " + std::to_string(static_cast<unsigned>(g.op)));
  }
  std::set<std::tuple<unsigned, uint32_t, uint32_t>> places;
  for (size_t i = 0; i < d.staged.size(); ++i) {
    const auto& s = d.staged[i];
    const std::string who = "staged value " + std::to_string(i) + " (" + std::string(to_string(s.kind)) + " " +
                            std::to_string(s.index) + ")";
    check(s.value, who);
    if (!places.emplace(static_cast<unsigned>(s.kind), s.index, s.sub).second) fail(who + ": staged twice");
    switch (s.kind) {
      case StagedKind::TXN_WORD:
        if (s.index < 4 || s.index >= b.txn.size())
          fail(who + ": not a word of the TXN after its header (" + std::to_string(b.txn.size()) + " words)");
        break;
      case StagedKind::BUFFER_DIM:
        if (s.index >= b.buffers.size() || s.sub >= b.buffers[s.index].shape.size())
          fail(who + ": no such buffer extent");
        break;
      case StagedKind::BUFFER_BYTES:
        if (s.index >= b.buffers.size()) fail(who + ": no such buffer");
        break;
      default: fail(who + ": unknown kind");
    }
  }
}

// " (register 0x00200040)": the register a staged TXN word writes, when a blockwrite or write32
// carries it ("" otherwise).
std::string staged_register(const Bundle& b, uint32_t index) {
  try {
    for (const txn::Op& op : txn::decode(b.txn).ops) {
      if (index < op.pos || index >= op.pos + op.words.size()) continue;
      if (const auto* w = std::get_if<txn::BlockWrite>(&op.body)) {
        const auto first = static_cast<uint32_t>(w->data.data() - b.txn.data());
        if (index >= first) return " (register " + hex(uint64_t{w->addr} + 4 * (index - first)) + ")";
      }
      if (const auto* w = std::get_if<txn::Write32>(&op.body)) return " (register " + hex(w->addr) + ")";
    }
  } catch (const txn::Error&) {}
  return "";
}

}  // namespace

std::string_view to_string(BufferRole r) {
  const auto i = static_cast<size_t>(r);
  return i < kRoles.size() ? kRoles[i] : "?";
}
std::optional<BufferRole> parse_buffer_role(std::string_view s) {
  for (size_t i = 0; i < kRoles.size(); ++i)
    if (kRoles[i] == s) return static_cast<BufferRole>(i);
  return std::nullopt;
}
std::string_view to_string(LayoutKind k) {
  switch (k) {
    case LayoutKind::DENSE: return "dense";
    case LayoutKind::PWORDS: return "pwords";
  }
  return "?";
}
std::string_view to_string(ParamType t) {
  switch (t) {
    case ParamType::INT32: return "int32";
    case ParamType::FLOAT32: return "float32";
  }
  return "?";
}

const BufferDesc* Bundle::find_buffer(std::string_view name) const {
  for (const auto& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}
const RuntimeParam* Bundle::find_param(std::string_view name) const {
  for (const auto& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

uint32_t dtype_bytes(spec::Dtype d) {
  switch (d) {
    case spec::Dtype::INT8: return 1;
    case spec::Dtype::FLOAT16: return 2;
    case spec::Dtype::INT32:
    case spec::Dtype::FLOAT32: return 4;
    default: break;
  }
  fail("dtype " + std::to_string(static_cast<uint32_t>(d)) + " is not a host dtype (int8, int32, float16, float32)");
}

uint64_t layout_image_bytes(const BufferDesc& b) {
  const std::string who = "buffer '" + b.name + "'";
  std::vector<uint64_t> shape = b.shape;
  if (b.layout.kind == LayoutKind::PWORDS) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    const int64_t ax = b.layout.axis < 0 ? b.layout.axis + rank : b.layout.axis;
    if (rank == 0 || ax < 0 || ax >= rank)
      fail(who + ": PWORDS axis " + std::to_string(b.layout.axis) + " is not an axis of shape " + shape_text(b.shape));
    shape[static_cast<size_t>(ax)] = (shape[static_cast<size_t>(ax)] + 63) / 64;
    shape.push_back(64);
  } else if (b.layout.kind != LayoutKind::DENSE) {
    fail(who + ": unknown layout kind " + std::to_string(static_cast<unsigned>(b.layout.kind)));
  }
  return checked_numel(shape, who) * dtype_bytes(b.dtype);
}

uint64_t device_bytes(const BufferDesc& b) { return b.layout.bytes ? b.layout.bytes : layout_image_bytes(b); }

void validate(const Bundle& b) {
  uint32_t cores = spec::param::max_cores;
  if (!b.txn.empty()) {
    try {
      const txn::Decoded d = txn::decode(b.txn);
      if (d.header.device.num_rows > spec::param::first_core_row)
        cores = d.header.device.num_rows - spec::param::first_core_row;
    } catch (const txn::Error& e) { fail(std::string("TXN section: ") + e.what()); }
  }

  std::set<std::string, std::less<>> names;
  std::set<uint32_t> args;
  for (const auto& buf : b.buffers) {
    const std::string who = "buffer '" + buf.name + "'";
    if (!good_name(buf.name)) fail("buffer name '" + buf.name + "' is not 1..256 characters of [A-Za-z0-9_.:-]");
    if (!names.insert(buf.name).second) fail("two buffers are named '" + buf.name + "'");
    if (static_cast<unsigned>(buf.role) >= kRoles.size())
      fail(who + ": unknown role " + std::to_string(static_cast<unsigned>(buf.role)));
    if (buf.shape.size() > kMaxRank)
      fail(who + ": rank " + std::to_string(buf.shape.size()) + " exceeds " + std::to_string(kMaxRank));
    try {
      dtype_bytes(buf.dtype);
    } catch (const BundleError&) {
      fail(who + ": dtype " + std::to_string(static_cast<uint32_t>(buf.dtype)) +
           " is not int8, int32, float16 or float32");
    }
    const uint64_t image = layout_image_bytes(buf);
    if (buf.layout.bytes && buf.layout.bytes < image)
      fail(who + ": footprint " + std::to_string(buf.layout.bytes) + " bytes is smaller than its " +
           std::string(to_string(buf.layout.kind)) + " image of " + std::to_string(image) + " bytes");
    const uint32_t al = buf.layout.align;
    if (al < 4 || al > (1u << 20) || (al & (al - 1)))
      fail(who + ": alignment " + std::to_string(al) + " is not a power of two in [4, 1 MiB]");
    if (buf.arg && !args.insert(*buf.arg).second)
      fail(who + ": TXN argument " + std::to_string(*buf.arg) + " is bound to two buffers");
    if (buf.role == BufferRole::CONSTANT) {
      if (!buf.constant) fail(who + ": a constant buffer needs a constant blob index");
      if (*buf.constant >= b.constants.size())
        fail(who + ": constant blob " + std::to_string(*buf.constant) + ", the bundle has " +
             std::to_string(b.constants.size()));
      const uint64_t want = checked_numel(buf.shape, who) * dtype_bytes(buf.dtype);
      const uint64_t have = b.constants[*buf.constant].bytes.size();
      if (have != want)
        fail(who + ": constant blob " + std::to_string(*buf.constant) + " has " + std::to_string(have) +
             " bytes, shape " + shape_text(buf.shape) + " of " + std::string(spec::to_string(buf.dtype)) + " needs " +
             std::to_string(want));
    } else if (buf.constant) {
      fail(who + ": only constant buffers carry a constant blob index (role " + std::string(to_string(buf.role)) + ")");
    }
  }

  for (const auto& c : b.commands) {
    const std::string who = "command stream '" + c.name + "'";
    if (c.core >= cores) fail(who + ": core " + std::to_string(c.core) + ", the program has " + std::to_string(cores));
    if (uint64_t{c.word} + c.words.size() > spec::core::CMD_MEM.count)
      fail(who + ": words [" + std::to_string(c.word) + ", " + std::to_string(uint64_t{c.word} + c.words.size()) +
           ") run past command memory (" + std::to_string(spec::core::CMD_MEM.count) + " words)");
  }

  std::set<std::string, std::less<>> pnames;
  for (const auto& p : b.params) {
    const std::string who = "parameter '" + p.name + "'";
    if (!good_name(p.name)) fail("parameter name '" + p.name + "' is not [A-Za-z0-9_.:-]+");
    if (!pnames.insert(p.name).second) fail("two parameters are named '" + p.name + "'");
    if (static_cast<unsigned>(p.type) > 1)
      fail(who + ": unknown type " + std::to_string(static_cast<unsigned>(p.type)));
    for (const auto& t : p.targets) {
      const auto at = spec::decode_addr(t.addr);
      if (!at || at->col >= spec::param::columns || at->row >= spec::param::first_core_row + cores || (t.addr & 3))
        fail(who + ": target " + hex(t.addr) + " is not an aligned register of the device");
      if (t.shift >= 32 || t.mask == 0)
        fail(who + ": target " + hex(t.addr) + " has shift " + std::to_string(t.shift) + " and mask " + hex(t.mask));
    }
  }

  validate_dispatch(b, pnames);

  std::set<std::string, std::less<>> defined(names);
  for (size_t i = 0; i < b.graph.size(); ++i) {
    const GraphNode& n = b.graph[i];
    const std::string who = "graph node " + std::to_string(i) + " (" + n.op + ")";
    if (n.op.empty()) fail(who + ": no op");
    for (const auto& in : n.inputs)
      if (!defined.count(in)) fail(who + ": input '" + in + "' is no buffer and no earlier output");
    for (const auto& out : n.outputs) {
      if (!good_name(out)) fail(who + ": output name '" + out + "' is not [A-Za-z0-9_.:-]+");
      const BufferDesc* buf = b.find_buffer(out);
      if (buf && buf->role != BufferRole::OUTPUT && buf->role != BufferRole::SCRATCH)
        fail(who + ": output '" + out + "' overwrites the " + std::string(to_string(buf->role)) +
             " buffer of that name");
      if (!buf && !defined.insert(out).second) fail(who + ": output '" + out + "' is defined twice");
    }
  }
  if (!b.graph.empty()) {
    for (const auto& buf : b.buffers) {
      if (buf.role != BufferRole::OUTPUT) continue;
      const bool made = std::any_of(b.graph.begin(), b.graph.end(), [&](const GraphNode& n) {
        return std::find(n.outputs.begin(), n.outputs.end(), buf.name) != n.outputs.end();
      });
      if (!made) fail("output buffer '" + buf.name + "' is not produced by the operator graph");
    }
  }
}

std::string describe(const Bundle& b) {
  std::ostringstream o;
  o << "bundle: spec " << hex(b.spec_hash) << (b.spec_hash == spec::kSpecHash ? " (this spec)" : " (foreign)") << "\n";
  for (const auto& [k, v] : b.metadata) {  // a multi-line value (the compiler's "steps") one line each
    if (v.find('\n') == std::string::npos) {
      o << "  " << k << ": " << v << "\n";
      continue;
    }
    o << "  " << k << ":\n";
    for (size_t at = 0; at < v.size();) {
      const size_t nl = std::min(v.find('\n', at), v.size());
      o << "    " << v.substr(at, nl - at) << "\n";
      at = nl + 1;
    }
  }
  o << "  txn: " << b.txn.size() << " words\n";
  o << "  buffers: " << b.buffers.size() << "\n";
  for (const auto& buf : b.buffers) {
    o << "    " << buf.name << " " << to_string(buf.role) << " " << spec::to_string(buf.dtype) << shape_text(buf.shape)
      << " " << to_string(buf.layout.kind);
    if (buf.layout.kind == LayoutKind::PWORDS) o << "(axis " << buf.layout.axis << ")";
    o << " " << device_bytes(buf) << " B";
    if (buf.arg) o << " arg" << *buf.arg;
    if (buf.constant) o << " blob" << *buf.constant;
    o << "\n";
  }
  o << "  constants: " << b.constants.size() << "\n";
  for (size_t i = 0; i < b.constants.size(); ++i)
    o << "    " << i << " " << b.constants[i].name << " " << b.constants[i].bytes.size() << " B\n";
  o << "  command streams: " << b.commands.size() << "\n";
  for (const auto& c : b.commands)
    o << "    " << c.name << " core " << c.core << " @word " << c.word << " " << c.words.size() << " words\n";
  o << "  params: " << b.params.size() << "\n";
  for (const auto& p : b.params)
    o << "    " << p.name << " " << to_string(p.type) << " default " << hex(p.default_bits) << " -> "
      << p.targets.size() << " targets\n";
  if (!b.dispatch.empty()) {
    const Dispatch& d = b.dispatch;
    o << "  dispatch-time scalars: " << d.scalars.size() << " (stored at one admissible point; bind with --param)\n";
    for (const auto& s : d.scalars)
      o << "    " << s.name << " in [" << s.min << ", " << s.max << "]" << (s.doc.empty() ? "" : ": " + s.doc) << "\n";
    for (const auto& g : d.guards)
      o << "    guard " << affine_text(g.expr, d.scalars) << (g.modulus ? " % " + std::to_string(g.modulus) : "") << " "
        << to_string(g.op) << " " << g.rhs << ": \"" << g.message << "\"\n";
    o << "  staged: " << d.staged.size() << " values\n";
    for (const auto& s : d.staged) {
      o << "    " << to_string(s.kind) << " ";
      if (s.kind == StagedKind::TXN_WORD)
        o << s.index << staged_register(b, s.index);
      else
        o << b.buffers[s.index].name << (s.kind == StagedKind::BUFFER_DIM ? "[" + std::to_string(s.sub) + "]" : "");
      o << " = " << affine_text(s.value, d.scalars) << "\n";
    }
  }
  o << "  graph: " << b.graph.size() << " nodes\n";
  for (const auto& n : b.graph) {
    o << "    " << n.op << "(";
    for (size_t i = 0; i < n.inputs.size(); ++i) o << (i ? ", " : "") << n.inputs[i];
    o << ") -> ";
    for (size_t i = 0; i < n.outputs.size(); ++i) o << (i ? ", " : "") << n.outputs[i];
    o << "\n";
  }
  return o.str();
}

}  // namespace axcore::runtime
