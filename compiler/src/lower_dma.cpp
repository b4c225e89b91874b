// A.SysDMA / A.CoreDMA blocks (guide §8.1, §14) lowered to BD chains with taplib: the block is a
// loop nest around one copy `dst[idx] = src[idx']`; both addresses must be affine in the loops
// ("Expected linear index"), and may be non-contiguous — the walk becomes up to the engine's
// dimensions, chained BDs beyond that (tap::lower_to_bds checks every engine limit).
#include <axcore/tap/errors.hpp>

#include "lower_internal.hpp"

namespace axcore::compiler::lower_detail {
namespace {

Affine flat(const BufferNode& b, const std::vector<Expr>& idx, const SourceLoc& loc) {
  if (idx.size() != b.shape.size())
    fail(loc, b.name + " has " + std::to_string(b.shape.size()) + " dimensions but is indexed with " +
                  std::to_string(idx.size()));
  Affine a;
  int64_t stride = 1;
  for (std::size_t d = idx.size(); d-- > 0;) {
    if (idx[d]->kind == ExprKind::Ramp)
      fail(loc, "a DMA block copies one element per loop step: index " + b.name + " with one element, not a slice",
           "loop over the elements: for (auto e : A::serial(n)) dst(e) = src(base + e)");
    a += affine_of(idx[d], loc).scaled(stride);
    stride *= b.shape[d];
  }
  return a;
}

DmaSide side(const BufferNode& b, const Affine& a, const std::vector<Loop>& loops, const SourceLoc& loc,
             const RegionOf& region, const HomeOf& home) {
  DmaSide s;
  s.buffer = b.root();
  const HomePlace h = home(*s.buffer);
  s.ddr = h.home == Home::DDR;
  const int64_t wpe = b.dtype.bytes() / 4;  // 32-bit words per element
  int64_t off = a.constant;
  std::vector<tap::SymInt> sizes, strides;
  for (const auto& l : loops) {
    off += a.of(l.var) * l.start;
    sizes.emplace_back(l.extent);
    strides.emplace_back(a.of(l.var) * wpe);
  }
  for (const auto& [v, c] : a.coef) {
    bool known = false;
    for (const auto& l : loops) known = known || l.var == v;
    if (!known) fail(loc, "the address of " + b.name + " uses " + v->name + ", which is not a loop of this DMA block");
  }
  sizes.emplace_back(wpe);
  strides.emplace_back(1);
  const int64_t elements = s.buffer->elements();
  if (off < 0 || off >= elements)
    fail(loc, "the first element the DMA " + std::string(&b == s.buffer ? "" : "view ") + b.name +
                  " moves is outside the buffer (element " + std::to_string(off) + " of " + std::to_string(elements) +
                  ")");
  try {
    s.pattern.emplace(std::vector<tap::SymInt>{tap::SymInt(elements * wpe)}, tap::SymInt(off * wpe), sizes, strides);
  } catch (const tap::TapError& e) {
    fail(loc, "the DMA cannot walk " + b.name + " this way: " + e.what(),
         "an address that moves forward with every loop (a DMA walk has no negative strides)");
  }
  if (s.ddr) {
    s.mem = spec::MemSel::DDR;
  } else if (h.home == Home::L2) {
    s.mem = spec::MemSel::L2;
    s.base = h.base;
  } else {
    const L1Region r = region(*s.buffer, loc);
    s.mem = spec::MemSel::L1;
    s.core = r.core;
    s.base = static_cast<uint64_t>(r.base_row) * spec::param::l1_row_bytes;
  }
  return s;
}

}  // namespace

DmaPlan plan_dma(const StmtNode& block, const RegionOf& region, const HomeOf& home) {
  std::vector<Loop> loops;
  const std::vector<Stmt>& inner = peel(block.body, loops);
  const char* form = "for (auto e : A::serial(n)) dst(e) = src(base + e);  (one copy per DMA block)";
  std::vector<const StmtNode*> work;
  for (const auto& s : inner)
    if (s->kind != StmtKind::OpMarker) work.push_back(s.get());
  const std::string unit = to_string(block.unit);
  if (work.size() != 1 || work[0]->kind != StmtKind::Store)
    fail(work.empty() ? block.loc : work[0]->loc,
         "an A." + unit + " block holds one copy dst[...] = src[...] inside its loops", form);
  const StmtNode& st = *work[0];
  const Expr& v = st.value;
  if (!v || v->kind != ExprKind::Load)
    fail(st.loc,
         "an A." + unit + " block copies memory: the value stored is a buffer element, not " +
             std::string(v && v->kind == ExprKind::Cast ? "a cast" : "an expression"),
         "dst[...] = src[...] (a DMA moves bytes; cast in a datapath)");
  if (st.buf->role == BufferRole::Register || v->buf->role == BufferRole::Register || st.buf->role == BufferRole::Imc ||
      v->buf->role == BufferRole::Imc)
    fail(st.loc, "a DMA moves memory, not registers or IMC tiles", "load the IMC with A.pseudo.LoadIMC");
  if (st.buf->dtype != v->buf->dtype)
    fail(st.loc, "the DMA copies " + v->buf->dtype.str() + " into " + st.buf->dtype.str() + ": a DMA casts nothing",
         "copy between buffers of one dtype");
  DmaPlan p;
  p.engine = block.unit == Unit::CoreDMA ? tap::Engine::kCoreDma : tap::Engine::kSysDma;
  p.src = side(*v->buf, flat(*v->buf, v->args, st.loc), loops, st.loc, region, home);
  p.dst = side(*st.buf, flat(*st.buf, st.indices, st.loc), loops, st.loc, region, home);
  if (p.engine == tap::Engine::kCoreDma && (p.src.ddr || p.dst.ddr))
    fail(block.loc,
         "A.CoreDMA moves data inside the core's memories; " + (p.src.ddr ? p.src.buffer->name : p.dst.buffer->name) +
             " lives in DDR",
         "move DDR data with A.SysDMA (the shim's engine)");
  const bool l2 = p.src.mem == spec::MemSel::L2 || p.dst.mem == spec::MemSel::L2;
  if (p.engine == tap::Engine::kSysDma && !p.src.ddr && !p.dst.ddr) {
    if (!l2)
      fail(block.loc,
           "A.SysDMA moves data between DDR or L2 and the core; neither " + p.src.buffer->name + " nor " +
               p.dst.buffer->name + " lives in DDR or L2",
           "copy between L1 buffers with A.CoreDMA");
    p.engine = tap::Engine::kMemDma;  // no DDR side: the mem tile's engine, beside L2
  }
  p.core = block.core >= 0                 ? static_cast<uint32_t>(block.core)
           : p.src.mem == spec::MemSel::L1 ? p.src.core
                                           : p.dst.core;
  p.words = 1;
  for (const auto& l : loops) p.words *= static_cast<uint64_t>(l.extent);
  p.words *= static_cast<uint64_t>(v->buf->dtype.bytes() / 4);
  p.loc = st.loc;
  return p;
}

tap::BdTask dma_task(const DmaSide& s, bool mm2s, tap::Engine engine, uint32_t first_bd, const SourceLoc& loc) {
  tap::LowerOptions o;
  o.direction = mm2s ? tap::Direction::kMm2s : tap::Direction::kS2mm;
  o.mem = s.mem;
  o.core = s.core;
  o.base_address = s.base;
  o.first_bd = first_bd;
  try {
    return tap::lower_to_bds(*s.pattern, 32, engine, o);
  } catch (const tap::TapError& e) {
    fail(loc, std::string("the DMA walk of ") + s.buffer->name + " does not fit the engine: " + e.what(),
         "a simpler (fewer-dimension, contiguous) copy, or split it into several DMA blocks");
  }
}

}  // namespace axcore::compiler::lower_detail
