// The program lowering: IMC allocation, placement of buffers into L1 (with SysDMA transfers from
// and to DDR), default sync (a wait after every launch, §12) and explicit ids, and lowering of
// every launch to its descriptor.
// GCC 12 reports -Wmaybe-uninitialized inside std::variant's move of Step (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <algorithm>
#include <functional>
#include <set>
#include <sstream>
#include <tuple>

#include "axcore/compiler/affine.hpp"
#include "axcore/compiler/scoped_value.hpp"
#include "axcore/compiler/sync.hpp"
#include "lower_datapath.hpp"
#include "lower_hazards.hpp"

namespace axcore::compiler {
namespace {

using namespace lower_detail;

// A buffer with a home outside L1 (DDR or L2, ir.hpp home_of): copied into L1 around the launches
// of units that touch it; a DMA block addresses it where it lives.
bool backed(const BufferNode& b) { return home_of(b) != Home::L1; }

// Every buffer a core unit reads or writes, in first-use order, with whether a unit reads it
// before any unit wrote it.
void collect(const std::vector<Stmt>& list, std::vector<const BufferNode*>& order, std::set<const BufferNode*>& written,
             std::set<const BufferNode*>& read_first);

void note(const BufferNode* b, bool write, std::vector<const BufferNode*>& order, std::set<const BufferNode*>& written,
          std::set<const BufferNode*>& read_first) {
  if (b->role == BufferRole::Register || b->role == BufferRole::Accumulator || b->role == BufferRole::Imc) return;
  b = b->root();
  if (std::find(order.begin(), order.end(), b) == order.end()) order.push_back(b);
  if (write)
    written.insert(b);
  else if (!written.count(b))
    read_first.insert(b);
}

void collect_expr(const Expr& e, std::vector<const BufferNode*>& order, std::set<const BufferNode*>& written,
                  std::set<const BufferNode*>& read_first) {
  if (!e) return;
  if (e->kind == ExprKind::Load && e->buf) note(e->buf.get(), false, order, written, read_first);
  for (const auto& a : e->args) collect_expr(a, order, written, read_first);
}

// A DMA block touches L1 only on its L1 side; its DDR or L2 side is addressed there, not placed.
void collect_dma(const std::vector<Stmt>& list, std::vector<const BufferNode*>& order,
                 std::set<const BufferNode*>& written, std::set<const BufferNode*>& read_first) {
  for (const auto& s : list) {
    if (s->kind == StmtKind::Store && s->value && s->value->kind == ExprKind::Load) {
      if (!backed(*s->value->buf->root())) note(s->value->buf.get(), false, order, written, read_first);
      if (!backed(*s->buf->root())) note(s->buf.get(), true, order, written, read_first);
    }
    collect_dma(s->body, order, written, read_first);
  }
}

void collect(const std::vector<Stmt>& list, std::vector<const BufferNode*>& order, std::set<const BufferNode*>& written,
             std::set<const BufferNode*>& read_first) {
  for (const auto& s : list) {
    if (s->kind == StmtKind::Block && (s->unit == Unit::SysDMA || s->unit == Unit::CoreDMA)) {
      collect_dma(s->body, order, written, read_first);
      continue;
    }
    collect_expr(s->value, order, written, read_first);
    if (s->kind == StmtKind::Block && s->unit == Unit::Depthwise) note(s->buf.get(), false, order, written, read_first);
    collect(s->body, order, written, read_first);
    collect(s->else_body, order, written, read_first);
    if (s->kind == StmtKind::Store && s->buf) note(s->buf.get(), true, order, written, read_first);
  }
}

// The DDR and L2 sides of a DMA block's copies (roots): the buffers it reads and writes there.
void dma_ddr_sides(const std::vector<Stmt>& list, std::vector<const BufferNode*>& reads,
                   std::vector<const BufferNode*>& writes) {
  for (const auto& s : list) {
    if (s->kind == StmtKind::Store && s->value && s->value->kind == ExprKind::Load) {
      if (backed(*s->value->buf->root())) reads.push_back(s->value->buf->root());
      if (backed(*s->buf->root())) writes.push_back(s->buf->root());
    }
    dma_ddr_sides(s->body, reads, writes);
  }
}

// The IMC buffers a launch reads (MatMul) or writes (LoadIMC).
void imc_buffers(const Expr& e, std::set<const BufferNode*>& out) {
  if (!e) return;
  if (e->kind == ExprKind::Load && e->buf && e->buf->role == BufferRole::Imc) out.insert(e->buf.get());
  for (const auto& a : e->args) imc_buffers(a, out);
}
void imc_buffers(const std::vector<Stmt>& list, std::set<const BufferNode*>& out) {
  for (const auto& s : list) {
    imc_buffers(s->value, out);
    for (const auto& i : s->indices) imc_buffers(i, out);
    if (s->kind == StmtKind::Store && s->buf && s->buf->role == BufferRole::Imc) out.insert(s->buf.get());
    imc_buffers(s->body, out);
    imc_buffers(s->else_body, out);
  }
}

// Whole-buffer copies between DDR and L1 under the overlap scheduler go in pieces of rows
// (docs/compiler.md "Copies in pieces and row bands"): reads of about 32 KiB, each piece on the next read
// channel; stores of about 16 KiB where the pieces' rows are last written by different launches.
constexpr uint32_t kReadPieceRows = 512, kStorePieceRows = 256;

tap::BdTask bd_task(uint64_t words, bool mm2s, spec::MemSel mem, uint32_t core, uint64_t addr, uint32_t first_bd,
                    tap::Engine engine) {
  tap::LowerOptions o;
  o.direction = mm2s ? tap::Direction::kMm2s : tap::Direction::kS2mm;
  o.mem = mem;
  o.core = core;
  o.base_address = addr;
  o.first_bd = first_bd;
  const int64_t rows = static_cast<int64_t>(words / 16);
  const auto p = tap::TensorAccessPattern::full({tap::SymInt(rows), tap::SymInt(16)});
  return tap::lower_to_bds(p, 32, engine, o);
}

class Lowering {
 public:
  Lowering(const PrimFunc& f, const LowerOptions& opt) : f_(f), opt_(opt), overlap_(opt.overlap && opt.cores == 1) {
    p_.cores = opt.cores;
    p_.l1_bytes = opt.l1_bytes;
  }

  Program run() {
    place();
    walk(f_.body->body, {});
    for (const BufferNode* b : outputs_)
      if (!copies_.at(b).ddr) write_back(*b);
    // Every launch is waited before the program ends (a hand-written id nobody waited for too).
    for (std::size_t i = 0; i < p_.steps.size(); ++i)
      if (launch_key_.count(i)) wait_for(i);
    if (overlap_) {
      schedule_overlap(p_);
      p_.overlapped = true;
    }
    explain_placement();
    verify_sync(p_);
    return std::move(p_);
  }

 private:
  // The core each launch runs on: its A.AICore block, a Datapath's core=, a CoreDMA's core.
  static uint32_t core_at(const StmtNode& s, uint32_t around) {
    if ((s.kind == StmtKind::Datapath || (s.kind == StmtKind::Block && s.unit != Unit::SysDMA)) && s.core >= 0)
      return static_cast<uint32_t>(s.core);
    return around;
  }

  // Which core's L1 holds each buffer: the core of the launches that touch it (one core only).
  // `region` is the innermost A.AICore's location: a launch written in another file (an
  // operator's, placed by core= on the call) is reported there, at the user's line.
  void assign_cores(const std::vector<Stmt>& list, uint32_t core, const SourceLoc* region = nullptr) {
    for (const auto& s : list) {
      const uint32_t c = core_at(*s, core);
      if (s->kind == StmtKind::Block && s->unit == Unit::AICore) {
        if (c >= opt_.cores)
          fail(s->loc, "A.AICore(core=" + std::to_string(c) + ") on a " + std::to_string(opt_.cores) + "-core target",
               "compile for more cores (axc --cores N), or use a core below " + std::to_string(opt_.cores));
        assign_cores(s->body, c, &s->loc);
        continue;
      }
      if (s->kind == StmtKind::For || s->kind == StmtKind::Seq) {
        assign_cores(s->body, c, region);
        continue;
      }
      const SourceLoc& at = region && region->file != s->loc.file ? *region : s->loc;
      std::vector<const BufferNode*> order;
      std::set<const BufferNode*> w, r;
      collect({s}, order, w, r);
      for (const BufferNode* b : order) {
        auto [it, fresh] = core_of_.emplace(b, c);
        if (!fresh && it->second != c)
          fail(at,
               b->name + " is used on core " + std::to_string(it->second) + " and on core " + std::to_string(c) +
                   ": a buffer lives in one core's L1",
               "give each core its own buffer (and its own copy of shared data), or let the compiler partition the "
               "loop (--cores)");
      }
    }
  }

  static bool is_dma(const Stmt& s) {
    return s->kind == StmtKind::Block && (s->unit == Unit::SysDMA || s->unit == Unit::CoreDMA);
  }

  // The launches in walk()'s order: datapaths, LoadIMC and DMA blocks (A.AICore bodies inline).
  static void for_each_launch(const std::vector<Stmt>& list, const std::function<void(const Stmt&)>& fn) {
    for (const auto& s : list) {
      if (s->kind == StmtKind::Block && s->unit == Unit::AICore)
        for_each_launch(s->body, fn);
      else if (s->kind == StmtKind::Datapath || (s->kind == StmtKind::Block && (s->unit == Unit::LoadIMC || is_dma(s))))
        fn(s);
    }
  }

  // The buffers a launch touches: in L1 (first-use order, with which it writes), then a DMA
  // block's DDR sides.
  struct Touched {
    std::vector<const BufferNode*> l1, ddr_reads, ddr_writes;
    std::set<const BufferNode*> written;
  };
  static Touched touched_by(const Stmt& s) {
    Touched t;
    std::set<const BufferNode*> read_first;
    collect({s}, t.l1, t.written, read_first);
    if (is_dma(s)) dma_ddr_sides(s->body, t.ddr_reads, t.ddr_writes);
    return t;
  }

  void place() {
    std::vector<const BufferNode*> order;
    std::set<const BufferNode*> written, read_first;
    collect(f_.body->body, order, written, read_first);
    assign_cores(f_.body->body, 0);
    // Lifetimes in launches; an output lives to the end (it is copied out there).
    std::map<const BufferNode*, std::pair<std::size_t, std::size_t>> life;
    std::size_t n = 0;
    for_each_launch(f_.body->body, [&](const Stmt& s) {
      const Touched t = touched_by(s);
      for (const auto* list : {&t.l1, &t.ddr_reads, &t.ddr_writes})
        for (const BufferNode* b : *list) life.emplace(b, std::make_pair(n, n)).first->second.second = n;
      ++n;
    });
    std::vector<Lifetime> lifetimes;
    for (const BufferNode* b : order) {
      const auto [first, last] = life.count(b) ? life.at(b) : std::make_pair(n, n);
      lifetimes.push_back({b, core_of_.count(b) ? core_of_.at(b) : 0, first, b->output ? n : last,
                           static_cast<uint64_t>(b->elements()) * b->dtype.rows()});
    }
    std::stable_sort(lifetimes.begin(), lifetimes.end(),
                     [](const Lifetime& a, const Lifetime& b) { return a.first < b.first; });
    L1Plan plan = allocate_l1(lifetimes, opt_.cores, opt_.l1_bytes);
    p_.l1 = std::move(plan.region);
    reuses_ = std::move(plan.reuses);
    p_.l1_rows_used = std::move(plan.rows_used);
    for (const BufferNode* b : order) {
      if (backed(*b)) {
        const bool in_ddr = b->role == BufferRole::Input || b->role == BufferRole::Constant;
        copies_[b] = Copies{!in_ddr, true};
      }
      if (b->output) outputs_.push_back(b);
    }
    place_l2(life);
  }

  // Every buffer homed in L2 that a launch touches gets bytes of L2 for the whole program, in
  // first-use order, each at a 64-byte row (a bump allocator: L2 holds 4 MiB, the scratch of one
  // program is a few buffers).
  void place_l2(const std::map<const BufferNode*, std::pair<std::size_t, std::size_t>>& life) {
    std::vector<std::pair<std::size_t, const BufferNode*>> l2;
    for (const auto& [b, r] : life)
      if (home_of(*b) == Home::L2) l2.emplace_back(r.first, b);
    std::sort(l2.begin(), l2.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second->name < b.second->name;
    });
    uint64_t next = 0;
    for (const auto& [first, b] : l2) {
      const uint64_t bytes = static_cast<uint64_t>(b->elements()) * b->dtype.bytes();
      if (next + bytes > opt_.l2_bytes)
        fail(b->loc,
             b->name + " lives in L2 and needs " + std::to_string(bytes) + " bytes; the L2 buffers before it take " +
                 std::to_string(next) + " of the " + std::to_string(opt_.l2_bytes) + " bytes of L2",
             "declare it A.L2_WEAK or A.DDR_WEAK (the compiler then places it where it fits)");
      p_.l2[b] = next;
      next += (bytes + spec::param::l1_row_bytes - 1) / spec::param::l1_row_bytes * spec::param::l1_row_bytes;
    }
  }

  HomePlace home_place(const BufferNode& b) const {
    const Home h = home_of(b);
    return HomePlace{h, h == Home::L2 ? p_.l2.at(&b) : 0};
  }

  L1Region region(const BufferNode& b, const SourceLoc& loc) {
    auto it = p_.l1.find(b.root());
    if (it == p_.l1.end()) fail(loc, b.name + " has no place in L1 (internal: a buffer the placement did not see)");
    return it->second;
  }

  ImcPlace imc(const BufferNode& b, const SourceLoc&) {
    auto it = imc_.find(&b);
    if (it != imc_.end()) return it->second;
    const int64_t tiles = b.shape[0] * b.shape[1];
    if (tiles > spec::param::imc_tiles)
      fail(b.loc,
           "IMC tile budget exceeded: A.alloc_imc((" + std::to_string(b.shape[0]) + ", " + std::to_string(b.shape[1]) +
               ")) holds " + std::to_string(tiles) + " tiles; one residency holds at most " +
               std::to_string(spec::param::imc_tiles) + " (spec imc_tiles, §14)",
           "split the matrix along K (atomic.matmul with partial=, §11.2) or along N, one residency per piece");
    // Packing (issue 21): a matrix that fits beside the current residency's matrices joins it
    // (the same matrix_id, the next free tiles), so loading it ends no residency and the
    // matrices loaded before it stay readable; else it begins a new residency at tile 0, and the
    // earlier matrices of that core are gone (reading one is the guide's §14 hazard, refused).
    ImcCore& ic = imc_core_[imc_launch_core_];
    ImcPlace p{ic.matrix_id, static_cast<uint32_t>(ic.next_tile), imc_launch_core_};
    if (ic.matrix_id == 0 || ic.next_tile + tiles > opt_.imc_tiles) {
      p = ImcPlace{++residencies_, 0, imc_launch_core_};
      if (p.matrix_id > 255) fail(b.loc, "more than 255 resident matrices in one program");
      ic.matrix_id = p.matrix_id;
      ic.next_tile = 0;
    }
    ic.next_tile += tiles;
    imc_[&b] = p;
    return p;
  }

  struct ImcCore {  // the placement's residency of a core (what the device holds: hazards_)
    uint32_t matrix_id = 0;
    int64_t next_tile = 0;
  };

  // The L1 rows of a placed buffer, as one access.
  Access l1_access(const BufferNode& b, bool write) const {
    const L1Region& r = p_.l1.at(b.root());
    return Access{Access::Space::L1, r.core, r.base_row,    static_cast<uint64_t>(r.base_row) + r.rows,
                  nullptr,           write,  b.root()->name};
  }

  // The elements [lo, hi) of `root` the launch statement `s` reads or writes, from its affine
  // accesses over the loops inside it (a tile view's region, a pipelined buffer's slot: guide
  // §11.2, §12); nullopt when an access is not affine over them (then the whole buffer counts).
  static std::optional<std::pair<int64_t, int64_t>> touched_elements(const Stmt& s, const BufferNode* root) {
    std::map<const VarNode*, std::pair<int64_t, int64_t>> vars;  // loop variable -> first, last value
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    bool ok = true;
    auto range = [&](const Expr& e, int64_t& mn, int64_t& mx) {
      const Affine a = affine_of(e, e->loc);
      mn = mx = a.constant;
      for (const auto& [v, k] : a.coef) {
        auto it = vars.find(v);
        if (it == vars.end()) throw CompileError({}, "a variable of no loop inside the launch");
        mn += std::min(k * it->second.first, k * it->second.second);
        mx += std::max(k * it->second.first, k * it->second.second);
      }
    };
    auto access = [&](const Buffer& b, const std::vector<Expr>& idx) {
      if (!b || b->root() != root) return;
      if (idx.size() != b->shape.size()) throw CompileError({}, "an access without one index per dimension");
      int64_t mn = 0, mx = 0, stride = 1;
      for (std::size_t d = idx.size(); d-- > 0;) {
        int64_t a = 0, z = 0;
        if (idx[d]->kind == ExprKind::Ramp) {  // a slice: base .. base + (lanes - 1) * step
          int64_t s0 = 0, s1 = 0, l0 = 0, l1 = 0;
          range(idx[d]->args[0], a, z);
          range(idx[d]->args[1], s0, s1);
          range(idx[d]->args[2], l0, l1);
          if (s0 != s1 || l0 != l1 || s0 < 0) throw CompileError({}, "a slice of no fixed step and length");
          z += (l1 - 1) * s1;
        } else {
          range(idx[d], a, z);
        }
        mn += a * stride;
        mx += z * stride;
        stride *= b->shape[d];
      }
      lo = std::min(lo, mn);
      hi = std::max(hi, mx + 1);
    };
    std::function<void(const Expr&)> expr = [&](const Expr& e) {
      if (!e) return;
      if (e->kind == ExprKind::Load) {
        access(e->buf, e->args);
      } else if (e->buf && e->buf->root() == root) {
        throw CompileError({}, "an unindexed use");
      }
      for (const auto& a : e->args) expr(a);
    };
    std::function<void(const Stmt&)> stmt = [&](const Stmt& st) {
      if (st->kind == StmtKind::For) {
        if (st->extent <= 0) return;
        vars[st->var.get()] = {st->start, st->start + st->extent - 1};
      }
      if (st->kind == StmtKind::Store) {
        access(st->buf, st->indices);
      } else if (st->buf && st->buf->root() == root) {
        throw CompileError({}, "an unindexed use");
      }
      for (const auto& i : st->indices) expr(i);
      expr(st->value);
      for (const auto& b : st->body) stmt(b);
      for (const auto& b : st->else_body) stmt(b);
    };
    try {
      stmt(s);
    } catch (const CompileError&) { ok = false; }
    if (!ok || lo > hi) return std::nullopt;
    return std::make_pair(lo, hi);
  }

  // What a datapath or LoadIMC touches: its L1 buffers and IMC tiles (a LoadIMC that begins a
  // residency on the device invalidates every tile of the core's IMC). An MVM reading a matrix
  // the device no longer holds is a §14 hazard (lower_hazards.hpp).
  std::vector<Access> unit_footprint(const Stmt& s, uint32_t core, bool loadimc) {
    std::vector<Access> fp;
    const Touched t = touched_by(s);
    for (const BufferNode* b : t.l1) {
      if (!p_.l1.count(b)) continue;
      Access a = l1_access(*b, t.written.count(b) > 0);
      if (const auto e = touched_elements(s, b->root())) {  // only the rows of the elements it touches
        const uint64_t rows = b->root()->dtype.rows();
        a.lo = std::max(a.lo, a.lo + static_cast<uint64_t>(std::max<int64_t>(e->first, 0)) * rows);
        a.hi = std::min(a.hi, p_.l1.at(b->root()).base_row + static_cast<uint64_t>(e->second) * rows);
      }
      fp.push_back(a);
    }
    std::set<const BufferNode*> imcs;
    imc_buffers({s}, imcs);
    for (const BufferNode* b : imcs) {
      auto it = imc_.find(b);
      if (it == imc_.end()) continue;
      const ImcPlace& ip = it->second;
      const uint64_t tiles = static_cast<uint64_t>(b->shape[0] * b->shape[1]);
      if (loadimc && hazards_.loadimc(core, *b, ip.matrix_id, s->loc)) {
        fp.push_back(Access{Access::Space::Imc, core, 0, spec::param::imc_tiles, nullptr, true,
                            "residency " + std::to_string(ip.matrix_id)});
      } else {
        if (!loadimc) hazards_.mvm_reads(core, *b, s->loc);
        fp.push_back(Access{Access::Space::Imc, core, ip.tile_base, ip.tile_base + tiles, nullptr, loadimc, b->name});
      }
    }
    return fp;
  }

  // Before a launch (guide §11: a unit reads and writes L1 only). A DDR-backed buffer a unit
  // touches has two copies, its DDR buffer and its L1 region: a unit touching it gets the data
  // copied into L1 first when DDR holds the newer data (an input, a constant, or what a SysDMA
  // wrote there — a DDR result of a tiled operator); a DMA block moving its DDR side first gets
  // the newer L1 data (what a unit wrote) copied back. Returns the buffers the launch touches.
  std::vector<const BufferNode*> stage(const Stmt& s) {
    Touched t = touched_by(s);
    // A buffer taking rows of buffers no longer live starts after every launch that touched them.
    for (const BufferNode* b : t.l1)
      if (started_.insert(b).second && reuses_.count(b))
        for (const BufferNode* o : reuses_.at(b))
          for (std::size_t j : users_[o]) wait_for(j);
    for (const auto* list : {&t.ddr_reads, &t.ddr_writes})
      for (const BufferNode* b : *list)
        if (copies_.count(b) && !copies_.at(b).ddr) write_back(*b);
    for (const BufferNode* b : t.l1) {
      auto it = copies_.find(b);
      if (it == copies_.end()) continue;
      if (!it->second.l1) bring_in(*b);
      if (t.written.count(b)) it->second.ddr = false;
    }
    for (const BufferNode* b : t.ddr_writes)
      if (copies_.count(b)) copies_.at(b).l1 = false;
    t.l1.insert(t.l1.end(), t.ddr_reads.begin(), t.ddr_reads.end());
    t.l1.insert(t.l1.end(), t.ddr_writes.begin(), t.ddr_writes.end());
    return t.l1;
  }

  // Copies between a buffer's DDR and L1 copies, after every launch still touching either.
  void bring_in(const BufferNode& b) {
    for (std::size_t j : users_[&b]) wait_for(j);
    transfer(b, true);
    copies_.at(&b).l1 = true;
  }
  void write_back(const BufferNode& b) {
    for (std::size_t j : users_[&b]) wait_for(j);
    transfer(b, false);
    copies_.at(&b).ddr = true;
  }
  void used_by(const std::vector<const BufferNode*>& bufs, std::size_t launch) {
    for (const BufferNode* b : bufs) users_[b].push_back(launch);
  }

  // A DDR-homed buffer moves on the shim's SysDMA, an L2-homed one on the mem tile's MemDMA.
  void transfer(const BufferNode& b, bool to_l1) {
    const HomePlace home = home_place(b);
    const bool ddr = home.home == Home::DDR;
    const L1Region whole = p_.l1.at(&b);
    // Reads: the two channels' reads share the DDR (the bridge interleaves their bursts), so a large
    // buffer read whole on one channel shares the DDR with whatever the other channel reads next
    // (the next layer's weight) and lands late; in pieces on alternating channels the DDR serves
    // the copies about in the order the program needs them. Stores: a piece leaves once the last
    // launch writing its rows is done (a band of the last layer) instead of after the last one.
    const uint32_t piece_rows = to_l1 ? kReadPieceRows : kStorePieceRows;
    uint32_t pieces = overlap_ && ddr ? std::max<uint32_t>(1, (whole.rows + piece_rows / 2) / piece_rows) : 1;
    if (!to_l1 && pieces > 1 && last_writers(b, whole, pieces).size() < 2) pieces = 1;
    if (pieces > 1)
      p_.placement_notes.push_back(
          std::string(to_l1 ? "load " : "store ") + b.name + " in " + std::to_string(pieces) + " copies of ~" +
          std::to_string(whole.rows / pieces * spec::param::l1_row_bytes) + " bytes: " +
          (to_l1 ? "on alternating channels, so the DDR serves the reads in the order the program needs them"
                 : "each once the last launch writing its rows is done"));
    for (uint32_t k = 0; k < pieces; ++k) {
      const uint32_t r0 = whole.rows * k / pieces, r1 = whole.rows * (k + 1) / pieces;
      std::string name = std::string(to_l1 ? "load " : "store ") + b.name + (ddr ? "" : " (L2)");
      if (pieces > 1) name += " [" + std::to_string(k + 1) + "/" + std::to_string(pieces) + "]";
      transfer_rows(b, to_l1, L1Region{whole.core, whole.base_row + r0, r1 - r0},
                    home.base + static_cast<uint64_t>(r0) * spec::param::l1_row_bytes, std::move(name));
    }
  }
  // The last launch writing each of `pieces` equal row ranges of b's L1 region (SIZE_MAX: none).
  std::set<std::size_t> last_writers(const BufferNode& b, const L1Region& whole, uint32_t pieces) const {
    std::set<std::size_t> last;
    const auto it = users_.find(&b);
    for (uint32_t k = 0; k < pieces; ++k) {
      const uint64_t lo = whole.base_row + static_cast<uint64_t>(whole.rows) * k / pieces;
      const uint64_t hi = whole.base_row + static_cast<uint64_t>(whole.rows) * (k + 1) / pieces;
      std::size_t w = SIZE_MAX;
      for (std::size_t j = 0; it != users_.end() && j < it->second.size(); ++j) {
        const Step& st = p_.steps[it->second[j]];
        const auto* t = std::get_if<Transfer>(&st);
        for (const Access& a : t ? t->footprint : std::get<Task>(st).footprint)
          if (a.space == Access::Space::L1 && a.write && a.core == whole.core && a.lo < hi && lo < a.hi)
            w = it->second[j];
      }
      last.insert(w);
    }
    return last;
  }
  // One copy of rows `rows` of b's L1 region, `far_addr` the address of their first byte in DDR or L2.
  void transfer_rows(const BufferNode& b, bool to_l1, const L1Region& rows, uint64_t far_addr, std::string name) {
    const bool ddr = home_place(b).home == Home::DDR;
    const spec::MemSel far = ddr ? spec::MemSel::DDR : spec::MemSel::L2;
    Transfer t;
    t.buffer = ddr ? &b : nullptr;
    t.engine = ddr ? tap::Engine::kSysDma : tap::Engine::kMemDma;
    t.to_l1 = to_l1;
    t.l1 = rows;
    t.words = static_cast<uint64_t>(t.l1.rows) * 16;
    t.ddr_mm2s = ddr && to_l1;
    t.ddr_s2mm = ddr && !to_l1;
    t.channel = to_l1 ? (ddr ? read_channel(t) : 0) : 1;
    if (ddr && !to_l1) stored_.insert(0);
    t.name = std::move(name);
    const uint64_t l1_addr = static_cast<uint64_t>(t.l1.base_row) * 64;
    const auto lower_all = [&](uint32_t first) {
      if (to_l1) {
        t.mm2s = bd_task(t.words, true, far, 0, far_addr, first, t.engine);
        t.s2mm = bd_task(t.words, false, spec::MemSel::L1, t.l1.core, l1_addr,
                         first + static_cast<uint32_t>(t.mm2s.bds.size()), t.engine);
      } else {
        t.mm2s = bd_task(t.words, true, spec::MemSel::L1, t.l1.core, l1_addr, first, t.engine);
        t.s2mm = bd_task(t.words, false, far, 0, far_addr, first + static_cast<uint32_t>(t.mm2s.bds.size()), t.engine);
      }
    };
    lower_all(0);
    lower_all(alloc_bds(t, b.loc));
    Access l1 = l1_access(b, to_l1);
    l1.lo = rows.base_row, l1.hi = static_cast<uint64_t>(rows.base_row) + rows.rows;
    t.footprint = {l1, Access{ddr ? Access::Space::Ddr : Access::Space::L2, 0, 0, 0, &b, !to_l1, b.name}};
    used_by({&b}, launch(Step(std::move(t)), ""));
  }

  // A hand-written or inserted A.SysDMA / A.CoreDMA block.
  std::size_t dma_block(const StmtNode& s) {
    const DmaPlan d = plan_dma(
        s, [this](const BufferNode& b, const SourceLoc& l) { return region(b, l); },
        [this](const BufferNode& b) { return home_place(b); });
    Transfer t;
    t.engine = d.engine;
    t.core = d.core;
    t.to_l1 = !(d.src.mem == spec::MemSel::L1 && d.dst.mem != spec::MemSel::L1);  // false: a copy out of L1
    t.buffer = d.src.ddr ? d.src.buffer : d.dst.ddr ? d.dst.buffer : nullptr;
    if (d.src.ddr && d.dst.ddr) t.s2mm_buffer = d.dst.buffer;  // DDR to DDR: each side patched with its own buffer
    t.ddr_mm2s = d.src.ddr;
    t.ddr_s2mm = d.dst.ddr;
    // Channel 0 copies towards L1 (or within a memory), channel 1 away from it, to DDR or L2.
    const bool away = d.dst.ddr || (d.dst.mem == spec::MemSel::L2 && d.src.mem == spec::MemSel::L1);
    t.channel = away ? 1 : d.src.ddr ? read_channel(t) : 0;
    if (d.dst.ddr) stored_.insert(dma_tile(t));
    t.words = d.words;
    t.id = s.id;
    const DmaSide& l1side = d.src.mem == spec::MemSel::L1 ? d.src : d.dst;
    if (p_.l1.count(l1side.buffer)) t.l1 = p_.l1.at(l1side.buffer);
    t.name = std::string(d.engine == tap::Engine::kCoreDma  ? "coredma "
                         : d.engine == tap::Engine::kMemDma ? "memdma "
                                                            : "sysdma ") +
             d.src.buffer->name + " -> " + d.dst.buffer->name;
    if (!s.id.empty()) t.name += " (" + s.id + ")";
    const auto lower_all = [&](uint32_t first) {
      t.mm2s = dma_task(d.src, true, d.engine, first, d.loc);
      t.s2mm = dma_task(d.dst, false, d.engine, first + static_cast<uint32_t>(t.mm2s.bds.size()), d.loc);
    };
    lower_all(0);
    lower_all(alloc_bds(t, s.loc));
    for (const DmaSide* side : {&d.src, &d.dst}) {
      const bool write = side == &d.dst;
      if (side->ddr || side->mem == spec::MemSel::L2)
        t.footprint.push_back(Access{side->ddr ? Access::Space::Ddr : Access::Space::L2, 0, 0, 0, side->buffer, write,
                                     side->buffer->name});
      else if (p_.l1.count(side->buffer))
        t.footprint.push_back(l1_access(*side->buffer, write));
    }
    return launch_stmt(Step(std::move(t)), s);
  }

  // The channel of a copy reading DDR into the chip. With the overlap scheduler consecutive ones
  // alternate over the engine's channels: a channel runs its copies one after the other, each
  // waiting ddr_latency_cycles for its first row, so on two channels one copy's latency passes
  // under the other's data (the bridge keeps axi_max_reads bursts of both in flight). Channel 1
  // also writes results back to DDR, and a store waits for the compute it saves: from the
  // engine's first store on, reads stay on channel 0 so none queues behind a store. Before it,
  // the overlap scheduler may move the copy to the channel its model finds free first
  // (Transfer::any_channel).
  uint32_t read_channel(Transfer& t) {
    const uint32_t tile = dma_tile(t);
    if (!overlap_ || stored_.count(tile)) return 0;
    t.any_channel = true;
    return read_next_[tile]++ % spec::param::dma_channels;
  }

  // Consecutive BD ids for `t` on its engine that no copy still in flight uses; waits for the
  // oldest copies on that engine when they are all taken (an earlier wait only adds ordering).
  uint32_t alloc_bds(const Transfer& t, const SourceLoc& loc) {
    const uint32_t tile = dma_tile(t);
    const uint32_t need = static_cast<uint32_t>(t.mm2s.bds.size() + t.s2mm.bds.size());
    const uint32_t have = tap::engine_limits(t.engine).bds;
    if (need > have)
      fail(loc, "the copy needs " + std::to_string(need) + " BDs; the " + tap::engine_limits(t.engine).name + " has " +
                    std::to_string(have));
    if (overlap_) {  // round robin: the scheduler orders copies that share a BD (sync.hpp)
      uint32_t& next = bd_next_[tile];
      if (next + need > have) next = 0;
      const uint32_t first = next;
      next += need;
      return first;
    }
    auto& busy = bd_owner_[tile];
    busy.resize(have, kNoOwner);
    for (;;) {
      for (uint32_t first = 0; first + need <= have; ++first) {
        bool free = true;
        for (uint32_t k = 0; k < need && free; ++k) free = busy[first + k] == kNoOwner;
        if (!free) continue;
        for (uint32_t k = 0; k < need; ++k) busy[first + k] = p_.steps.size();  // the launch about to be made
        return first;
      }
      std::size_t oldest = kNoOwner;
      for (std::size_t o : busy) oldest = std::min(oldest, o);
      wait_for(oldest);
    }
  }

  using Key = std::tuple<int, uint32_t, uint32_t>;  // (0 dma | 1 core queue, tile or core, channel or queue)
  Key key_of(const Step& s) const {
    if (const auto* t = std::get_if<Transfer>(&s)) return {0, dma_tile(*t), t->channel};
    const auto& k = std::get<Task>(s);
    return {1, k.core, static_cast<uint32_t>(k.queue)};
  }

  // A launch the program wrote (a datapath, LoadIMC or DMA block): checked against the launches
  // tagged id= that no A.sync waited for yet (a §14 hazard), and tagged itself when its author did.
  // The launches one id tags are one unit of work (§12: an operator call's id= tags all of its
  // launches); their order among themselves is the compiler's, not a missing wait.
  // `wait` false: an untagged launch is not waited for yet (a datapath's tasks but its last, which
  // its core queue runs in order; waiting for the last retires them all).
  std::size_t launch_stmt(Step st, const StmtNode& s, bool wait = true) {
    hazards_.before_launch(st, s.id_generated ? std::string() : s.id, p_.steps, s.loc);
    const std::size_t i = launch(std::move(st), s.id, s.loc, wait);
    if (!s.id.empty() && !s.id_generated) hazards_.tagged(i, s.id, s.loc);
    return i;
  }

  std::size_t launch(Step s, const std::string& id, const SourceLoc& loc = {}, bool wait = true) {
    hazards_.launching(s, loc);
    // Without the overlap scheduler a tagged launch stays in flight until its A.sync; a later
    // launch touching what it touches (must_order, sync.hpp: e.g. a pipelined tile's copy into an
    // L1 slot a datapath still reads) waits for it first, so the program has no race.
    if (!overlap_) {
      std::vector<std::size_t> conflicts;
      for (const auto& [j, k] : launch_key_)
        if (must_order(s, p_.steps[j])) conflicts.push_back(j);
      for (std::size_t j : conflicts) wait_for(j);
    }
    const std::size_t i = p_.steps.size();
    launch_key_[i] = key_of(s);
    p_.steps.push_back(std::move(s));
    if (id.empty()) {
      if (wait) wait_for(i);
    } else {
      ids_[id].push_back(i);  // one id may tag several launches (an operator call's, id= on ops::invoke)
    }
    return i;
  }

  // Waits for launch `i`. Tokens of one channel or queue arrive in launch order, so the launches
  // before it on the same channel are waited first; a launch already waited is not waited again.
  // In overlap mode only fences (A.sync) are placed here; schedule_overlap places the rest.
  void wait_for(std::size_t i, bool fence = false) {
    if (overlap_ && !fence) return;
    auto it = launch_key_.find(i);
    if (it == launch_key_.end()) return;
    const Key k = it->second;
    std::vector<std::size_t> due;
    for (const auto& [j, kj] : launch_key_)
      if (j <= i && kj == k) due.push_back(j);
    for (std::size_t j : due) {
      p_.steps.push_back(Wait{j});
      launch_key_.erase(j);
      for (auto& [tile, owners] : bd_owner_)
        for (auto& o : owners)
          if (o == j) o = kNoOwner;
    }
  }

  // A task's descriptor in its core's CMD_MEM. A descriptor equal word for word to one already
  // placed on that core is shared (tasks never rewrite their descriptor): the host loads each
  // distinct descriptor once (3 cycles a word through AXI-Lite), e.g. a streamed linear's row
  // chunks alternate between two descriptors (ping/pong slots), so 12 chunks load 2.
  uint32_t place_descriptor(Task& t, const SourceLoc& loc) {
    auto& placed = cmd_placed_[t.core];
    if (auto it = placed.find(t.words); it != placed.end()) return t.cmd_word = it->second;
    uint32_t& next = cmd_next_[t.core];
    const uint32_t at = next;
    next += static_cast<uint32_t>(t.words.size());
    if (next > spec::param::cmd_mem_bytes / 4)
      fail(loc,
           "the program's descriptors need more than the " + std::to_string(spec::param::cmd_mem_bytes) +
               " bytes of core command memory",
           "fewer datapath invocations (sink loops into the units instead of unrolling them, §9)");
    t.cmd_word = at;
    placed.emplace(t.words, at);
    return at;
  }

  void walk(const std::vector<Stmt>& list, const std::vector<Loop>& outer) {
    for (const auto& s : list) {
      switch (s->kind) {
        case StmtKind::Datapath: {
          // Several blocks of one unit lower to several tasks, in order (docs/compiler.md); each
          // stages and claims only the buffers of its own blocks.
          imc_launch_core_ = core_at(*s, core_);
          std::vector<DatapathTask> tasks = lower_datapath(
              *s, outer, [this](const BufferNode& b, const SourceLoc& l) { return region(b, l); },
              [this](const BufferNode& b, const SourceLoc& l) { return imc(b, l); });
          const std::string dp_name = "dp" + std::to_string(++dp_count_);
          for (std::size_t k = 0; k < tasks.size(); ++k) {
            Task& t = tasks[k].task;
            Stmt part = s;
            if (tasks.size() > 1) {
              part = std::make_shared<StmtNode>(*s);
              part->body.clear();
              for (const auto& b : s->body)
                if (b->kind != StmtKind::Block ||
                    std::find(tasks[k].blocks.begin(), tasks[k].blocks.end(), b.get()) != tasks[k].blocks.end())
                  part->body.push_back(b);
            }
            const auto touched = stage(part);
            t.core = core_at(*s, core_);
            t.name = dp_name + (tasks.size() > 1 ? "." + std::to_string(k + 1) : std::string()) +
                     (t.queue == spec::Queue::MVMEXE ? ".mvmexe" : ".dwpu") + (op_.empty() ? "" : " (" + op_ + ")");
            t.predicted_cycles = predict(t);
            t.footprint = unit_footprint(part, t.core, false);
            place_descriptor(t, s->loc);
            // The queue runs the tasks in order: only the last is waited for, or one that fills it.
            const Step st(std::move(t));
            const Key key = key_of(st);
            const auto pending =
                std::count_if(launch_key_.begin(), launch_key_.end(), [&](const auto& e) { return e.second == key; });
            const bool wait = k + 1 == tasks.size() || pending + 2 > static_cast<long>(spec::param::queue_depth);
            used_by(touched, launch_stmt(st, *s, wait));
          }
          break;
        }
        case StmtKind::Block:
          if (s->unit == Unit::LoadIMC) {
            const auto touched = stage(s);
            imc_launch_core_ = core_at(*s, core_);
            Task t = lower_loadimc(
                *s, [this](const BufferNode& b, const SourceLoc& l) { return region(b, l); },
                [this](const BufferNode& b, const SourceLoc& l) { return imc(b, l); });
            t.name = "loadimc" + std::to_string(++li_count_) + (op_.empty() ? "" : " (" + op_ + ")");
            t.id = s->id;
            t.core = core_at(*s, core_);
            t.footprint = unit_footprint(s, t.core, true);
            place_descriptor(t, s->loc);
            used_by(touched, launch_stmt(Step(std::move(t)), *s));
          } else if (s->unit == Unit::AICore) {
            const ScopedValue<uint32_t> on_core(core_, core_at(*s, core_));  // restored on a throw too
            walk(s->body, outer);
          } else if (s->unit == Unit::SysDMA || s->unit == Unit::CoreDMA) {
            const auto touched = stage(s);
            used_by(touched, dma_block(*s));
          } else {
            fail(s->loc, "an A." + to_string(s->unit) + " block belongs inside a datapath");
          }
          break;
        case StmtKind::Sync: sync(*s); break;
        case StmtKind::Barrier:
          if (s->cores.size() >= 2) barrier(*s);
          break;
        case StmtKind::OpMarker: op_ = s->id; break;
        case StmtKind::For:
          fail(s->loc, "a device loop outside a datapath that wraps no datapath has nothing to run", "remove the loop");
        case StmtKind::DeclReg: fail(s->loc, "a DPU register is declared outside any datapath");
        default: fail(s->loc, "this statement belongs inside a unit block");
      }
    }
  }

  // A.sync(waits=, signals=, buffers=) (guide §12). A wait is a fence: the host waits for the
  // launches the id tags (and what a signal of that id marked). A signal marks every launch made
  // before this point done under its id (a wait on it waits for those still in flight; for the
  // hazard checker each is fenced by the author). buffers= narrows both to the launches touching
  // those buffers; alone it waits for every such launch in flight.
  void sync(const StmtNode& s) {
    std::set<std::size_t> guarded;  // the launches touching a guarded buffer
    for (const Buffer& b : s.guards)
      for (std::size_t i : users_[b->root()]) guarded.insert(i);
    const auto applies = [&](std::size_t i) { return s.guards.empty() || guarded.count(i) > 0; };
    const auto fence = [&](std::size_t i) {
      wait_for(i, true);
      hazards_.fenced(i, p_.steps);
    };
    const auto guard_names = [&] {
      std::string n;
      for (const Buffer& b : s.guards) n += (n.empty() ? "" : ", ") + b->name;
      return n;
    };
    for (const auto& w : s.waits) {
      auto it = ids_.find(w);
      if (it == ids_.end())
        fail(s.loc, "A.sync waits on \"" + w + "\", which no launch before it is tagged with (or signals)",
             "tag the launch: id=\"" + w + "\", or mark it done first: A.signals(\"" + w + "\")");
      bool any = false;
      for (std::size_t i : it->second)
        if (applies(i)) fence(i), any = true;
      if (!any && !s.guards.empty())
        fail(s.loc,
             "A.sync(waits=[\"" + w + "\"], buffers=[" + guard_names() + "]): no launch \"" + w +
                 "\" names touches those buffers, so the sync would guard nothing (§12)",
             "name the buffers those launches read or write, or drop buffers=");
    }
    for (const auto& sig : s.signals) {
      auto& marked = ids_[sig];
      for (std::size_t i = 0; i < p_.steps.size(); ++i) {
        const bool is_launch =
            std::holds_alternative<Task>(p_.steps[i]) || std::holds_alternative<Transfer>(p_.steps[i]);
        if (is_launch && applies(i) && std::find(marked.begin(), marked.end(), i) == marked.end()) marked.push_back(i);
      }
    }
    if (s.waits.empty() && s.signals.empty())
      for (std::size_t i : guarded)
        if (launch_key_.count(i)) fence(i);
  }

  // A.barrier(*cores): a barrier descriptor on every core's CTRL queue, all pushed before any is
  // waited (a core's barrier completes only when every core in the mask has reached it).
  void barrier(const StmtNode& s) {
    uint32_t mask = 0;
    for (int c : s.cores) {
      if (c < 0 || static_cast<uint32_t>(c) >= opt_.cores)
        fail(s.loc,
             "A.barrier names core " + std::to_string(c) + " on a " + std::to_string(opt_.cores) + "-core target");
      mask |= 1u << c;
    }
    const uint32_t id = ++barriers_ & 0xFF;
    std::vector<std::size_t> launched;
    for (int c : s.cores) {
      spec::BarrierDesc d;
      d.magic = spec::magic::barrier;
      d.barrier_id = id;
      d.core_mask = mask;
      Task t;
      t.core = static_cast<uint32_t>(c);
      t.queue = spec::Queue::CTRL;
      const auto e = d.encode();
      t.words.assign(e.begin(), e.end());
      t.name = "barrier" + std::to_string(id);
      place_descriptor(t, s.loc);
      launched.push_back(p_.steps.size());
      launch(Step(std::move(t)), "barrier." + std::to_string(id) + "." + std::to_string(c), s.loc);
    }
    p_.steps.push_back(Barrier{s.cores});
    for (std::size_t i : launched) wait_for(i);
  }

  static uint64_t predict(const Task& t) {
    // docs/timing.md: every unit streams one element per cycle at best; the slowest unit binds.
    uint64_t c = t.mvm_tile_ops;
    c = std::max(c, t.ifd0_elems);
    c = std::max(c, t.ifd1_rows);
    c = std::max(c, t.odr_rows);
    c = std::max(c, t.dpu_instr_per_iter * t.dpu_iterations);
    return c + t.words.size() + 8;
  }

  // `axc compile --explain`: where the scratch buffers went and why (place-scopes), the IMC
  // matrices and the L1 and L2 buffers.
  void explain_placement() {
    for (const auto& n : f_.placement_notes) p_.placement_notes.push_back("scope " + n);
    std::map<uint32_t, std::vector<std::string>> by_id;
    for (const auto& [b, ip] : imc_)
      by_id[ip.matrix_id].push_back(b->name + " tiles " + std::to_string(ip.tile_base) + ".." +
                                    std::to_string(ip.tile_base + b->shape[0] * b->shape[1] - 1));
    for (const auto& [id, names] : by_id) {
      std::string line = "IMC residency " + std::to_string(id) + ":";
      for (const auto& n : names) line += " " + n + ";";
      if (names.size() > 1) line += " (packed: each loads beside the others, none ends another's residency)";
      p_.placement_notes.push_back(line);
    }
    for (const auto& [b, r] : p_.l1) {
      std::string line = "L1 core" + std::to_string(r.core) + " rows " + std::to_string(r.base_row) + ".." +
                         std::to_string(r.base_row + r.rows - 1) + ": " + b->name;
      if (reuses_.count(b)) {
        line += " (takes rows of";
        for (const BufferNode* o : reuses_.at(b)) line += " " + o->name;
        line += " after they are dead)";
      }
      p_.placement_notes.push_back(line);
    }
    for (const auto& [b, at] : p_.l2)
      p_.placement_notes.push_back("L2 bytes " + std::to_string(at) + ".." +
                                   std::to_string(at + static_cast<uint64_t>(b->elements()) * b->dtype.bytes() - 1) +
                                   ": " + b->name);
  }

  const PrimFunc& f_;
  LowerOptions opt_;
  bool overlap_ = true;
  Program p_;
  lower_detail::HazardChecker hazards_{opt_.hazards_are_errors, p_.warnings};
  std::map<uint32_t, ImcCore> imc_core_;
  uint32_t imc_launch_core_ = 0, residencies_ = 0;
  std::map<uint32_t, uint32_t> bd_next_;  // overlap mode: the next BD per DMA tile (round robin)
  struct Copies {
    bool l1 = true, ddr = true;  // which copy holds the buffer's data (both: equal, or nothing written yet)
  };
  std::map<const BufferNode*, Copies> copies_;                          // the DDR-backed buffers placed in L1
  std::vector<const BufferNode*> outputs_;                              // placed outputs, in first-use order
  std::map<const BufferNode*, std::vector<std::size_t>> users_;         // the launches touching each buffer
  std::map<const BufferNode*, std::vector<const BufferNode*>> reuses_;  // L1 rows taken over (l1_alloc.cpp)
  std::set<const BufferNode*> started_;                                 // touched by a launch so far
  std::map<const BufferNode*, ImcPlace> imc_;
  std::map<std::string, std::vector<std::size_t>> ids_;  // the launches each id tags
  static constexpr std::size_t kNoOwner = static_cast<std::size_t>(-1);
  std::map<std::size_t, Key> launch_key_;                  // launches not waited yet
  std::map<uint32_t, std::vector<std::size_t>> bd_owner_;  // per DMA tile: the launch holding each BD
  std::map<uint32_t, uint32_t> cmd_next_;                  // per core
  std::map<uint32_t, uint32_t> read_next_;                 // overlap mode: per DMA tile, DDR reads so far
  std::set<uint32_t> stored_;                              // DMA tiles that wrote DDR
  std::map<uint32_t, std::map<std::vector<uint32_t>, uint32_t>> cmd_placed_;  // per core: descriptor words -> word
  std::map<const BufferNode*, uint32_t> core_of_;
  uint32_t core_ = 0;  // the core of the launch being lowered
  uint32_t barriers_ = 0;
  int dp_count_ = 0, li_count_ = 0;
  std::string op_;
};

}  // namespace

namespace lower_detail {

Task lower_loadimc(const StmtNode& block, const RegionOf& region, const ImcOf& imc_of) {
  std::vector<Loop> loops;
  const std::vector<Stmt>& inner = peel(block.body, loops);
  const char* form = "w_imc[kb, nb] = weights[kb * 64 : kb * 64 + 64, nb]";
  if (inner.size() != 1 || inner[0]->kind != StmtKind::Store || inner[0]->buf->role != BufferRole::Imc)
    fail(block.loc, "a LoadIMC block holds one store per IMC block, of a 64-row slice of the weights", form);
  const StmtNode& st = *inner[0];
  if (st.indices.size() != 2)
    fail(st.loc, "index the IMC buffer with two indices, w_imc[k_block, n_block] (§8.1)", form);
  const Expr& src = st.value;
  if (src->kind != ExprKind::Load || src->buf->dtype.base != DType::Base::Int8 || src->buf->dtype.lanes != 64)
    fail(st.loc, "a LoadIMC stores a 64-row slice of an int8x64 weight buffer", form);
  int ramp_dim = -1;
  for (std::size_t d = 0; d < src->args.size(); ++d)
    if (src->args[d]->kind == ExprKind::Ramp) ramp_dim = static_cast<int>(d);
  int64_t rows = 1;
  if (ramp_dim >= 0)
    rows = const_int(src->args[static_cast<std::size_t>(ramp_dim)]->args[2], st.loc, "the slice extent");
  if (ramp_dim < 0 || rows != 64)
    fail(st.loc,
         "a LoadIMC store names " + std::to_string(rows) + " weight row" + (rows == 1 ? "" : "s") +
             ", but an IMC block is 64 rows (one tile); the load takes its row count from the slice and would fail at "
             "run time with "
             "mvmprg: Weights stream has not been fully consumed",
         form);
  if (const_int(src->args[static_cast<std::size_t>(ramp_dim)]->args[1], st.loc, "the slice step") != 1)
    fail(st.loc, "the weight slice must be contiguous (step 1)", form);
  // Element index of row r of the slice: base + r * stride(ramp_dim).
  const BufferNode& w = *src->buf;
  Affine elem;
  int64_t stride = 1, row_stride = 0;
  for (std::size_t d = w.shape.size(); d-- > 0;) {
    const Expr& ix = src->args[d];
    if (static_cast<int>(d) == ramp_dim) {
      elem += affine_of(ix->args[0], st.loc).scaled(stride);
      row_stride = stride;
    } else {
      elem += affine_of(ix, st.loc).scaled(stride);
    }
    stride *= w.shape[d];
  }
  const BufferNode& imcb = *st.buf;
  const ImcPlace ip = imc_of(imcb, st.loc);
  Affine tile = affine_of(st.indices[0], st.loc).scaled(imcb.shape[1]);
  tile += affine_of(st.indices[1], st.loc);
  if (loops.size() > 2) fail(block.loc, "a LoadIMC walks at most two loops over IMC blocks (K_BLOCKS, N_BLOCKS)");
  std::vector<Loop> l = loops;
  while (l.size() < 2) l.insert(l.begin(), Loop{nullptr, 0, 1, {}});
  spec::LoadimcDesc d;
  d.magic = spec::magic::loadimc;
  d.matrix_id = ip.matrix_id;
  int64_t base_tile = ip.tile_base + tile.constant, base_row = elem.constant;
  for (const auto& lp : l) {
    if (!lp.var) continue;
    base_tile += tile.of(lp.var) * lp.start;
    base_row += elem.of(lp.var) * lp.start;
  }
  d.d1_size = static_cast<uint32_t>(l[0].extent);
  d.d0_size = static_cast<uint32_t>(l[1].extent);
  d.d1_tstride = static_cast<int32_t>(l[0].var ? tile.of(l[0].var) : 0);
  d.d0_tstride = static_cast<int32_t>(l[1].var ? tile.of(l[1].var) : 0);
  d.d1_astride = static_cast<int32_t>(l[0].var ? elem.of(l[0].var) : 0);
  d.d0_astride = static_cast<int32_t>(l[1].var ? elem.of(l[1].var) : 0);
  d.row_stride = static_cast<uint32_t>(row_stride);
  d.tile_base = static_cast<uint32_t>(base_tile);
  d.base_row = static_cast<uint32_t>(region(w, st.loc).base_row + base_row);
  Task t;
  t.queue = spec::Queue::LOADIMC;
  try {
    const auto e = d.encode();
    t.words.assign(e.begin(), e.end());
  } catch (const spec::FieldRangeError& e) {
    fail(block.loc, std::string("the LoadIMC does not fit its descriptor: ") + e.what());
  }
  t.predicted_cycles = static_cast<uint64_t>(d.d0_size) * d.d1_size * 64 + 16;
  return t;
}

}  // namespace lower_detail

Program lower(const PrimFunc& f, const LowerOptions& opt) { return Lowering(f, opt).run(); }

namespace {

// The placement and the schedule in words: where the IMC matrices and the L1 buffers went, which
// copies are in flight while each datapath runs (pushed before it ends, waited after it starts),
// and which waits held the stream back and why.
void explain_overlap(std::ostream& os, const Program& p) {
  os << "placement:\n";
  for (const auto& l : p.placement_notes) os << "  " << l << "\n";
  if (!p.overlapped) {
    os << "sync: a wait after every launch (" << (p.cores > 1 ? "a multi-core program" : "overlap off") << ")\n";
    return;
  }
  std::map<std::size_t, std::size_t> waited;  // launch -> the step waiting it
  for (std::size_t i = 0; i < p.steps.size(); ++i)
    if (const auto* w = std::get_if<Wait>(&p.steps[i])) waited[w->launch] = i;
  auto name = [&](std::size_t i) {
    const Step& s = p.steps[i];
    return std::holds_alternative<Transfer>(s) ? std::get<Transfer>(s).name : std::get<Task>(s).name;
  };
  os << "overlap (copies in flight while a datapath or LoadIMC runs):\n";
  std::size_t alone = 0;
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const auto* k = std::get_if<Task>(&p.steps[i]);
    if (!k || k->queue == spec::Queue::CTRL) continue;
    std::vector<std::string> with;
    for (std::size_t j = 0; j < p.steps.size(); ++j) {
      if (!std::holds_alternative<Transfer>(p.steps[j]) || !waited.count(j)) continue;
      if (j < waited.at(i) && waited.at(j) > i) with.push_back(name(j));
    }
    if (with.empty()) {
      ++alone;
      continue;
    }
    os << "  [" << i << "] " << k->name << ":";
    for (std::size_t n = 0; n < with.size(); ++n) os << (n ? ", " : " ") << with[n];
    os << "\n";
  }
  if (alone) os << "  " << alone << " unit launch" << (alone == 1 ? "" : "es") << " with no copy in flight\n";
  // LoadIMC tasks in flight with an MVMEXE task of their core: the device runs them together (the
  // verifier checked them apart: same matrix_id, disjoint tiles; docs/timing.md).
  os << "LoadIMC beside MVMEXE (the IMC loads tiles the running datapath does not read):\n";
  std::size_t beside = 0;
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const auto* k = std::get_if<Task>(&p.steps[i]);
    if (!k || k->queue != spec::Queue::MVMEXE || !waited.count(i)) continue;
    std::vector<std::string> with;
    for (std::size_t j = 0; j < p.steps.size(); ++j) {
      const auto* l = std::get_if<Task>(&p.steps[j]);
      if (!l || l->queue != spec::Queue::LOADIMC || l->core != k->core || !waited.count(j)) continue;
      if (j < waited.at(i) && waited.at(j) > i) with.push_back(l->name);
    }
    if (with.empty()) continue;
    ++beside;
    os << "  [" << i << "] " << k->name << ":";
    for (std::size_t n = 0; n < with.size(); ++n) os << (n ? ", " : " ") << with[n];
    os << "\n";
  }
  if (!beside) os << "  none\n";
  if (!p.reorder_notes.empty())
    os << "reordered by the model (DDR reads moved to the other channel, tasks backfilled before earlier ones of their "
          "queue):\n";
  for (const auto& l : p.reorder_notes) os << "  " << l << "\n";
  os << "could not overlap (a wait the stream needed before the next launch, and why):\n";
  for (const auto& l : p.sync_notes) os << "  " << l << "\n";
}

}  // namespace

std::string explain(const Program& p) {
  std::ostringstream os;
  for (std::size_t c = 0; c < p.l1_rows_used.size(); ++c)
    os << "core" << c << " L1 rows used: " << p.l1_rows_used[c] << " of " << p.l1_bytes / spec::param::l1_row_bytes
       << "\n";
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    os << "[" << i << "] ";
    const Step& s = p.steps[i];
    if (const auto* t = std::get_if<Transfer>(&s)) {
      os << t->name << " (" << t->words * 4 << " bytes, channel " << t->channel << ", BDs " << t->mm2s.start_bd << ".."
         << t->s2mm.start_bd + t->s2mm.bds.size() - 1 << (t->id.empty() ? "" : ", id \"" + t->id + "\"") << ")";
    } else if (const auto* k = std::get_if<Task>(&s)) {
      os << "core" << k->core << " " << spec::to_string(k->queue) << " " << k->name << " @cmd " << k->cmd_word << " ("
         << k->words.size() << " words";
      if (k->mvm_tile_ops) os << ", " << k->mvm_tile_ops << " tile-ops";
      os << ", ~" << k->predicted_cycles << " cycles)";
    } else if (const auto* w = std::get_if<Wait>(&s)) {
      os << "wait [" << w->launch << "]";
    } else if (const auto* b = std::get_if<Barrier>(&s)) {
      os << "barrier over " << b->cores.size() << " cores";
    }
    os << "\n";
  }
  explain_overlap(os, p);
  if (!p.operator_notes.empty()) os << "operators (how a call was cut, and why):\n";
  for (const auto& n : p.operator_notes) os << "  " << n << "\n";
  if (!p.fusion_notes.empty()) os << "fusion (§12):\n";
  for (const auto& n : p.fusion_notes) os << "  " << n << "\n";
  return os.str();
}

}  // namespace axcore::compiler
