// One datapath invocation -> one datapath descriptor (spec layout datapath_desc), or one per group of
// blocks when a unit has several (guide §6, §9.2), with the per-unit contracts of guide §6 and §8
// checked on the way.
#include <algorithm>
#include <axcore/num/pword.hpp>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "axcore/compiler/printer.hpp"
#include "lower_datapath.hpp"

namespace axcore::compiler::lower_detail {
namespace {

// Every block of the datapath by unit, in the order written (guide §6: a unit may appear more than
// once; its blocks run in that order, §9.2).
struct Blocks {
  std::vector<const StmtNode*> ifd[2], main, dpu, odr;
  bool multi() const {
    return ifd[0].size() > 1 || ifd[1].size() > 1 || main.size() > 1 || dpu.size() > 1 || odr.size() > 1;
  }
};

std::string line_of(const StmtNode* s) { return "line " + std::to_string(s->loc.line); }

uint32_t pad_bits(const Expr& pad, const DType& elem, const SourceLoc& loc) {
  if (pad->kind != ExprKind::Broadcast) fail(loc, "the pad value of an IFD load is an A.Broadcast(value, 64)");
  if (pad->ival != 64)
    fail(pad->loc.known() ? pad->loc : loc, "the pad Broadcast must have 64 lanes, not " + std::to_string(pad->ival),
         "A.Broadcast(A.int8(0), 64)");
  const Expr& v = pad->args[0];
  if (v->kind == ExprKind::Int) {
    if (elem.base == DType::Base::Float32 || elem.base == DType::Base::Float16)
      return num::encode_lane(elem.spec(), static_cast<double>(v->ival));
    return static_cast<uint32_t>(v->ival) & (elem.base == DType::Base::Int8 ? 0xFFu : 0xFFFFFFFFu);
  }
  if (v->kind == ExprKind::Float) return num::encode_lane(elem.spec(), v->fval);
  fail(loc, "the pad value must be a constant (A.int8(v), A.float32(v))");
}

struct IfdOut {
  spec::Walk walk;
  const StreamNode* stream = nullptr;
  uint64_t elements = 0;
  std::vector<IfdOut> segs;  // the feeder's later segments in the same task (spec walk.segs, §8.3)
  uint64_t total() const {
    uint64_t n = elements;
    for (const IfdOut& s : segs) n += s.total();
    return n;
  }
  uint64_t rows() const {  // L1 rows its elements take (R(dtype) each)
    uint64_t n = elements * num::lane_bytes(walk.dtype);
    for (const IfdOut& s : segs) n += s.rows();
    return n;
  }
};

IfdOut lower_ifd(const StmtNode& b, const std::vector<Loop>& outer, const RegionOf& region) {
  std::vector<Loop> loops = outer;
  const std::vector<Stmt>& inner = peel(b.body, loops);
  int pushes = 0;
  const StmtNode* push = nullptr;
  for (const auto& s : inner) {
    if (s->kind == StmtKind::DeclReg || s->kind == StmtKind::OpMarker) continue;
    if (s->kind == StmtKind::Push) {
      ++pushes;
      push = s.get();
    } else {
      fail(s->loc, "Expected a single StreamPush",
           "one stream.push(buf[...]) per IFD block; compute the index in a C++ helper that returns the expression "
           "(§8.3)");
    }
  }
  if (pushes != 1)
    fail(pushes ? inner.back()->loc : b.loc, "Expected a single StreamPush",
         "one stream.push(...) per IFD block: a plain load, the if_then_else pad form, or an all-pad Broadcast");
  const SourceLoc& loc = push->loc;
  const Expr& v = push->value;
  const DType sdt = push->stream->dtype;
  IfdOut r;
  r.stream = push->stream.get();
  WalkPlan w;
  DType elem;
  uint32_t pad = 0;
  if (v->kind == ExprKind::Load) {
    elem = v->buf->dtype;
    w = plan_address(loops, *v->buf, v->args, region, loc);
  } else if (v->kind == ExprKind::IfThenElse) {
    const Expr& load = v->args[1];
    if (load->kind != ExprKind::Load)
      fail(loc, "the IFD pad form is A.if_then_else(cond, buf[idx], A.Broadcast(pad, 64))");
    elem = load->buf->dtype;
    w = plan_address(loops, *load->buf, load->args, region, loc);
    add_guards(w, loops, v->args[0], loc);
    pad = pad_bits(v->args[2], elem, loc);
  } else if (v->kind == ExprKind::Broadcast) {
    elem = sdt;
    w = plan_all_pad(loops);
    pad = pad_bits(v, elem, loc);
  } else if (v->kind == ExprKind::Cast) {
    fail(loc, "an IFD block casts nothing: the value reaches the stream exactly as loaded",
         "load a buffer of the dtype the consumer wants, or cast in the DPU");
  } else {
    fail(loc, "no compute on the loaded data in an IFD block: " + dump(v), "push a buffer load; compute in the DPU");
  }
  if (!(elem.base == sdt.base))
    fail(loc, "the IFD loads " + elem.str() + " into a stream declared " + sdt.str() + ": an IFD casts nothing");
  r.walk = encode_walk(w, elem.spec(), elem.spec(), pad, b.num == 1 ? "IFD(num=1)" : "IFD(num=0)", loc);
  r.elements = w.elements();
  return r;
}

struct OdrOut {
  spec::Walk walk;
  const StreamNode* stream = nullptr;
  uint64_t elements = 0;
};

// The popped element of an ODR store: pop, A.cast(pop), wrapped in A.vtrsp or not (transpose).
const StreamNode* popped_stream(const Expr& e, spec::Dtype& from, bool& transpose) {
  if (e->kind == ExprKind::Vtrsp && !transpose) {
    transpose = true;
    return popped_stream(e->args[0], from, transpose);
  }
  if (e->kind == ExprKind::Cast && e->args[0]->kind == ExprKind::Vtrsp && !transpose) {
    transpose = true;
    const auto inner = std::make_shared<ExprNode>(*e);
    inner->args = {e->args[0]->args[0]};
    return popped_stream(inner, from, transpose);
  }
  if (e->kind == ExprKind::Pop) {
    from = e->stream->dtype.spec();
    return e->stream.get();
  }
  if (e->kind == ExprKind::Cast && e->args[0]->kind == ExprKind::Pop) {
    from = e->args[0]->stream->dtype.spec();
    return e->args[0]->stream.get();
  }
  return nullptr;
}

OdrOut lower_odr(const StmtNode& b, const std::vector<Loop>& outer, const RegionOf& region, bool dwpu) {
  std::vector<Loop> loops = outer;
  const std::vector<Stmt>& inner = peel(b.body, loops);
  std::vector<const StmtNode*> work;
  for (const auto& s : inner)
    if (s->kind != StmtKind::DeclReg && s->kind != StmtKind::OpMarker) work.push_back(s.get());
  if (work.size() != 1)
    fail(work.empty() ? b.loc : work[1]->loc, "an ODR block holds one store (or one A.If store-or-drop) per element",
         "out[idx] = stream.pop(), or with A.If(pred): Then: out[idx] = s.pop() / Else: A.drop(s.pop())");
  const StmtNode* s = work[0];
  const StmtNode* store = s;
  Expr cond;
  if (s->kind == StmtKind::If) {
    cond = s->value;
    if (s->body.size() != 1 || s->body[0]->kind != StmtKind::Store)
      fail(s->loc, "the ODR's A.Then stores the popped element", "with A.Then(): out[idx] = s.pop()");
    store = s->body[0].get();
    for (const auto& e : s->else_body)
      if (e->kind != StmtKind::Drop)
        fail(e->loc, "the ODR's A.Else drops the popped element: the pop appears in both branches",
             "with A.Else(): A.drop(s.pop())");
  } else if (s->kind == StmtKind::Drop) {
    OdrOut r;
    r.stream = s->stream.get();
    WalkPlan w = plan_all_pad(loops);
    r.walk = encode_walk(w, s->stream->dtype.spec(), s->stream->dtype.spec(), 0, "ODR", s->loc);
    r.elements = w.elements();
    return r;
  } else if (s->kind != StmtKind::Store) {
    fail(s->loc, "an ODR block stores or drops stream elements; this statement does neither");
  }
  if (store->buf->role == BufferRole::Register) fail(store->loc, "the ODR stores to memory, not to a register");
  spec::Dtype from{};
  bool transpose = false;
  const StreamNode* st = popped_stream(store->value, from, transpose);
  if (!st) fail(store->loc, "an ODR store writes a popped stream element", "out[idx] = dpu_stream.pop()");
  OdrOut r;
  r.stream = st;
  WalkPlan w = plan_address(loops, *store->buf, store->indices, region, store->loc);
  if (cond) add_guards(w, loops, cond, s->loc);
  r.walk = encode_walk(w, store->buf->dtype.spec(), from, 0, "ODR", store->loc);
  r.elements = w.elements();
  if (transpose) {
    if (!dwpu)
      fail(store->value->loc, "A.vtrsp is only available on the DWPU datapath (A.DP_DWPU), not on DP_MVMEXE (§8.4)",
           "transpose in a datapath of its own: IFD -> ODR with out[idx] = A.vtrsp(s.pop())");
    if (r.elements % spec::param::pword_lanes != 0)
      fail(store->value->loc,
           "A.vtrsp transposes blocks of 64 consecutive stores; this ODR stores " + std::to_string(r.elements),
           "make the innermost ODR loop a multiple of 64 elements");
    r.walk.transpose = 1;
  }
  return r;
}

// The MatMul's three statements (guide §6.2): reset, the reduction loop, the push.
struct MvmOut {
  spec::MvmDesc desc;
  const StreamNode* in = nullptr;
  const StreamNode* out = nullptr;
  uint64_t outputs = 0, k_blocks = 0;
};

MvmOut lower_mvm(const StmtNode& b, const std::vector<Loop>& outer, const ImcOf& imc_of) {
  std::vector<Loop> loops = outer;
  const std::vector<Stmt>& inner = peel(b.body, loops);
  std::vector<const StmtNode*> st;
  for (const auto& s : inner)
    if (s->kind != StmtKind::DeclReg && s->kind != StmtKind::OpMarker) st.push_back(s.get());
  const char* hint =
      "acc = A.mvm_accumulator(); A.reset_accumulator(acc); for kb in A.serial(K_BLOCKS): acc += A.mvm_1x1(ifd.pop(), "
      "w_imc[kb, nb]); mvm_stream.push(acc)";
  auto bad = [&](const StmtNode* s, const std::string& what) {
    fail(s ? s->loc : b.loc,
         "the MatMul block holds a reset, a reduction loop over acc += A.mvm_1x1(...), and a push of acc: " + what,
         hint);
  };
  if (st.empty() || st[0]->kind != StmtKind::Reset)
    bad(st.empty() ? nullptr : st[0], "it does not start with A.reset_accumulator(acc)");
  const BufferNode* acc = st[0]->buf.get();
  if (st.size() < 2 || st[1]->kind != StmtKind::For) {
    if (st.size() >= 2 && st[1]->kind == StmtKind::Accum) {
      // A single accumulate without a loop: K_BLOCKS = 1.
    } else {
      bad(st.size() >= 2 ? st[1] : st[0], "the reduction loop is missing");
    }
  }
  const StmtNode* red = st.size() >= 2 ? st[1] : nullptr;
  std::vector<Loop> kloops;
  const std::vector<Stmt>* kbody = nullptr;
  std::vector<Stmt> single;
  if (red->kind == StmtKind::For) {
    kloops.push_back({red->var.get(), red->start, red->extent, red->loc});
    kbody = &red->body;
  } else {
    single.push_back(std::make_shared<StmtNode>(*red));
    kbody = &single;
  }
  std::vector<const StmtNode*> accs;
  for (const auto& s : *kbody) {
    if (s->kind == StmtKind::Accum)
      accs.push_back(s.get());
    else
      bad(s.get(), "only acc += A.mvm_1x1(...) belongs in the reduction loop");
  }
  if (accs.size() != 1)
    bad(accs.size() > 1 ? accs[1] : red,
        "the reduction loop accumulates exactly once per step (a second accumulate is refused)");
  const StmtNode* a = accs[0];
  if (a->buf.get() != acc)
    bad(a,
        "it accumulates into " + a->buf->name + " but reset " + acc->name + ": a MatMul has one accumulator register");
  const Expr& mvm = a->value;
  if (!mvm || mvm->kind != ExprKind::Mvm) bad(a, "the accumulated value is A.mvm_1x1(x, imc[kb, nb])");
  const Expr& x = mvm->args[0];
  const Expr& w = mvm->args[1];
  if (x->kind != ExprKind::Pop) bad(a, "the MVM's first operand is the streamed vector: ifd_stream.pop()");
  if (w->kind != ExprKind::Load || w->buf->role != BufferRole::Imc)
    bad(a, "the MVM's second operand is an IMC tile: w_imc[kb, nb] (A.alloc_imc)");
  if (w->args.size() != 2) fail(a->loc, "index the IMC buffer with two indices, w_imc[k_block, n_block] (§8.1)");
  if (x->stream->dtype.base != DType::Base::Int8)
    fail(x->loc, "MatMul requires int8x64 inputs, but " + x->stream->name + " carries " + x->stream->dtype.str(),
         "stream int8x64 data (cast in a DPU datapath first: atomic.dpu_cast)");
  if (st.size() != 3 || st[2]->kind != StmtKind::Push)
    bad(st.size() > 3 ? st[3] : st.back(), "it must end with mvm_stream.push(acc), and nothing follows it");
  const StmtNode* push = st[2];
  if (push->value->kind != ExprKind::RegRead || push->value->buf.get() != acc)
    bad(push, "the push sends the accumulator itself (mvm_stream.push(acc)), not an expression of it");
  const ImcPlace ip = imc_of(*w->buf, a->loc);
  Affine t = affine_of(w->args[0], a->loc).scaled(w->buf->shape[1]);
  t += affine_of(w->args[1], a->loc);
  MvmOut r;
  r.in = x->stream.get();
  r.out = push->stream.get();
  spec::MvmDesc& d = r.desc;
  int64_t base = ip.tile_base + t.constant;
  d.k_blocks = static_cast<uint32_t>(kloops.empty() ? 1 : kloops[0].extent);
  if (!kloops.empty()) {
    base += t.of(kloops[0].var) * kloops[0].start;
    d.k_stride = static_cast<int32_t>(t.of(kloops[0].var));
  }
  std::vector<Dim> dims;
  for (const auto& l : loops) {
    base += t.of(l.var) * l.start;
    dims.push_back({l.extent, t.of(l.var), {}});
  }
  for (const auto& [v, c] : t.coef) {
    bool known = !kloops.empty() && kloops[0].var == v;
    for (const auto& l : loops) known = known || l.var == v;
    if (!known) fail(a->loc, "the IMC index uses " + v->name + ", which is not a loop of this datapath");
  }
  uint64_t outputs = 1;
  for (const auto& l : loops) outputs *= static_cast<uint64_t>(l.extent);
  dims = merge_dims(dims);
  if (dims.size() > spec::param::mvm_out_dims)
    fail(b.loc, "the MatMul's outputs need " + std::to_string(dims.size()) + " loop dimensions; the MVM has " +
                    std::to_string(spec::param::mvm_out_dims));
  d.matrix_id = ip.matrix_id;
  d.ndims = static_cast<uint32_t>(dims.size());
  d.tile_base = static_cast<uint32_t>(base);
  uint32_t* sz[] = {&d.o0_size, &d.o1_size, &d.o2_size, &d.o3_size};
  int32_t* ts[] = {&d.o0_tstride, &d.o1_tstride, &d.o2_tstride, &d.o3_tstride};
  for (auto* p : sz) *p = 1;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    *sz[k] = static_cast<uint32_t>(dims[dims.size() - 1 - k].size);
    *ts[k] = static_cast<int32_t>(dims[dims.size() - 1 - k].stride);
  }
  try {
    (void)d.encode();
  } catch (const spec::FieldRangeError& e) {
    fail(b.loc, std::string("the MatMul does not fit its descriptor: ") + e.what());
  }
  r.outputs = outputs;
  r.k_blocks = d.k_blocks;
  return r;
}

struct DwOut {
  spec::DwpuDesc desc;
  const StreamNode* in = nullptr;
  const StreamNode* out = nullptr;
  uint64_t outputs = 0;
};

DwOut lower_dw(const StmtNode& b, const std::vector<Loop>& outer, const RegionOf& region) {
  std::vector<Loop> loops = outer;
  const std::vector<Stmt>& inner = peel(b.body, loops);
  if (inner.size() != 1 || inner[0]->kind != StmtKind::Push || inner[0]->value->kind != ExprKind::DpuCall)
    fail(b.loc, "the depthwise stage pushes one window result per output");
  const Expr& call = inner[0]->value;
  DwOut r;
  r.in = call->args[0]->stream.get();
  r.out = inner[0]->stream.get();
  const Affine g = affine_of(call->args[1], b.loc);
  spec::DwpuDesc& d = r.desc;
  d.op = static_cast<spec::DwpuOp>(b.num);
  d.taps = static_cast<uint32_t>(b.extent);
  d.divisor = static_cast<uint32_t>(b.start);
  const L1Region w = region(*b.buf, b.loc);
  d.weight_base_row = w.base_row;
  d.weight_count = d.op == spec::DwpuOp::CONV ? static_cast<uint32_t>(b.buf->elements()) : 0;
  if (d.weight_count > spec::param::dwpu_weight_pwords)
    fail(b.loc, "the depthwise weights are " + std::to_string(d.weight_count) + " PWORDs; the DWPU holds " +
                    std::to_string(spec::param::dwpu_weight_pwords));
  std::vector<Dim> dims;
  int64_t base = g.constant;
  uint64_t outputs = 1;
  for (const auto& l : loops) {
    base += g.of(l.var) * l.start;
    dims.push_back({l.extent, g.of(l.var), {}});
    outputs *= static_cast<uint64_t>(l.extent);
  }
  if (base != 0) fail(b.loc, "the first output's weight group must be 0");
  dims = merge_dims(dims);
  if (dims.size() > spec::param::dwpu_out_dims) fail(b.loc, "the depthwise outputs need more than 4 loop dimensions");
  d.ndims = static_cast<uint32_t>(dims.size());
  uint32_t* sz[] = {&d.o0_size, &d.o1_size, &d.o2_size, &d.o3_size};
  int32_t* ws[] = {&d.o0_wstride, &d.o1_wstride, &d.o2_wstride, &d.o3_wstride};
  for (auto* p : sz) *p = 1;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    *sz[k] = static_cast<uint32_t>(dims[dims.size() - 1 - k].size);
    *ws[k] = static_cast<int32_t>(dims[dims.size() - 1 - k].stride);
  }
  (void)d.encode();
  r.outputs = outputs;
  return r;
}

// The blocks one task runs: a slice [from, from + count) of an IFD / ODR block's walk, or a whole
// MatMul / depthwise / DPU block.
struct Part {
  std::size_t block = 0;
  uint64_t from = 0, count = 0;
};
struct Segment {
  std::vector<Part> ifd0, ifd1;  // a feeder's parts in the task: its segments, in order (§8.3)
  std::optional<Part> odr;
  std::optional<std::size_t> main, dpu;
  const StmtNode* by = nullptr;  // the block the task was cut for (errors point at it)
};

// The main stage of one block: MatMul (MVMEXE) or depthwise (DWPU).
struct MainOut {
  const StmtNode* block = nullptr;
  std::optional<MvmOut> mvm;
  std::optional<DwOut> dw;
  const StreamNode* in = nullptr;
  const StreamNode* out = nullptr;
  uint64_t pops = 0, outputs = 0;
};

// The descriptor of one task from its lowered pieces (every count already checked).
Task assemble(const StmtNode& dp, bool mvm, const IfdOut& ifd0, const std::optional<IfdOut>& ifd1, const MvmOut* m,
              const DwOut* dw, const DpuLowered* dpu, const OdrOut& odr) {
  spec::DatapathDesc desc;  // words() fills the magic and the length
  spec::DpHeader& h = desc.header;
  h.kind = mvm ? spec::DpKind::MVMEXE : spec::DpKind::DWPU;
  Task t;
  t.queue = mvm ? spec::Queue::MVMEXE : spec::Queue::DWPU;
  // each feeder's walk, its later segments in the seg sections (IFD0's first, then IFD1's)
  const std::array<spec::Walk*, spec::param::ifd_seg_walks> pool{&desc.seg0, &desc.seg1};
  std::size_t pooled = 0;
  auto feed = [&](const IfdOut& f) {
    spec::Walk w = f.walk;
    w.segs = static_cast<uint32_t>(f.segs.size());
    for (const IfdOut& s : f.segs) *pool.at(pooled++) = s.walk;  // lower_multi checked the count
    return w;
  };
  desc.ifd0 = feed(ifd0);
  h.has_ifd0 = 1;
  t.ifd0_elems = ifd0.total();
  if (m) {
    desc.mvm = m->desc;
    h.has_main = 1;
    t.mvm_tile_ops = m->outputs * m->k_blocks;
  } else if (dw) {
    desc.dwpu = dw->desc;
    h.has_main = 1;
  }
  if (dpu) {
    desc.dpu = dpu->desc;
    desc.program = dpu->code;
    h.has_dpu = 1;
    t.dpu_instr_per_iter = dpu->desc.body_len;
    t.dpu_iterations = dpu->desc.iterations;
  }
  if (ifd1) {
    desc.ifd1 = feed(*ifd1);
    h.has_ifd1 = 1;
    t.ifd1_elems = ifd1->total();
    t.ifd1_rows = ifd1->rows();
  }
  desc.odr = odr.walk;
  h.has_odr = 1;
  t.odr_elems = odr.elements;
  t.odr_rows = odr.elements * num::lane_bytes(odr.walk.dtype);
  t.words = desc.words();
  t.id = dp.id;
  return t;
}

// One block of each unit: one task.
Task lower_single(const StmtNode& dp, const Blocks& bl, const std::vector<Loop>& outer, const RegionOf& region,
                  const ImcOf& imc_of) {
  const bool mvm = dp.dp_kind == DpKind::MVMEXE;
  const IfdOut ifd0 = lower_ifd(*bl.ifd[0][0], outer, region);
  std::set<const StreamNode*> side;
  std::optional<IfdOut> ifd1;
  if (!bl.ifd[1].empty()) {
    ifd1 = lower_ifd(*bl.ifd[1][0], outer, region);
    side.insert(ifd1->stream);
  }
  const StmtNode* matmul = nullptr;
  const StmtNode* dwb = nullptr;
  if (!bl.main.empty()) (bl.main[0]->unit == Unit::MatMul ? matmul : dwb) = bl.main[0];

  spec::Dtype main_out = ifd0.walk.dtype;  // what reaches the DPU / ODR on the main path
  const StreamNode* main_stream = ifd0.stream;
  uint64_t main_count = ifd0.elements;
  std::optional<MvmOut> m;
  std::optional<DwOut> d;
  if (matmul) {
    m = lower_mvm(*matmul, outer, imc_of);
    if (side.count(m->in))
      fail(matmul->loc, "IFD(num=1) is the DPU's side input: the MatMul cannot pop " + m->in->name,
           "feed the MatMul from A.IFD(num=0)");
    if (m->in != ifd0.stream) fail(matmul->loc, "the MatMul pops " + m->in->name + ", which IFD(num=0) does not push");
    if (m->outputs * m->k_blocks != ifd0.elements)
      fail(matmul->loc,
           "IFD(num=0) pushes " + std::to_string(ifd0.elements) + " elements but the MatMul pops " +
               std::to_string(m->outputs * m->k_blocks) + " (" + std::to_string(m->outputs) + " outputs x K_BLOCKS " +
               std::to_string(m->k_blocks) + "): the counts must agree (§6.2)",
           "stream the window in the same number of PWORDs the reduction loop pops");
    main_out = spec::Dtype::INT32;
    main_stream = m->out;
    main_count = m->outputs;
  } else if (dwb) {
    d = lower_dw(*dwb, outer, region);
    if (side.count(d->in)) fail(dwb->loc, "IFD(num=1) is the DPU's side input: the depthwise stage cannot pop it");
    if (d->outputs * d->desc.taps != ifd0.elements)
      fail(dwb->loc, "IFD(num=0) pushes " + std::to_string(ifd0.elements) + " elements but the depthwise stage pops " +
                         std::to_string(d->outputs * d->desc.taps));
    main_out = spec::Dtype::INT32;
    main_stream = d->out;
    main_count = d->outputs;
  } else if (mvm) {
    fail(dp.loc, "a DP_MVMEXE datapath needs its MatMul block");
  }

  uint64_t odr_in = main_count;
  const StreamNode* odr_stream = main_stream;
  std::optional<DpuLowered> dl;
  if (!bl.dpu.empty()) {
    const StmtNode* dpu = bl.dpu[0];
    StreamInfo si{[&](const StreamNode* s) { return side.count(s) > 0; }, {}};
    dl = lower_dpu(*dpu, outer, si, main_out, ifd1 ? ifd1->walk.dtype : spec::Dtype::FLOAT32, region);
    if (dl->implicit_ifd1) {
      if (ifd1)
        fail(dpu->loc,
             "the DPU reads a buffer directly and the datapath also has A.IFD(num=1): the side input is taken",
             "stream every DPU operand through the one A.IFD(num=1) block");
      ifd1 = IfdOut{dl->ifd1, nullptr, dl->ifd1_elements, {}};
    }
    if (dl->pops_main != main_count)
      fail(dpu->loc, "the DPU pops " + std::to_string(dl->pops_main) +
                         " elements from its main input, which delivers " + std::to_string(main_count) +
                         ": the counts must agree");
    if (ifd1 && dl->pops_side != ifd1->elements)
      fail(dpu->loc, "the DPU pops " + std::to_string(dl->pops_side) + " elements from IFD(num=1), which pushes " +
                         std::to_string(ifd1->elements) + ": the counts must agree");
    odr_in = dl->pushes;
    odr_stream = nullptr;
  } else if (ifd1) {
    fail(bl.ifd[1][0]->loc, "IFD(num=1) feeds the DPU, and this datapath has no DPU block");
  }
  const StmtNode* odrb = bl.odr[0];
  const OdrOut o = lower_odr(*odrb, outer, region, !mvm);
  if (odr_stream && o.stream != odr_stream)
    fail(odrb->loc, "the ODR pops " + o.stream->name + ", but the stage before it pushes " + odr_stream->name);
  if (o.elements != odr_in)
    fail(odrb->loc, "the ODR pops " + std::to_string(o.elements) + " elements but receives " + std::to_string(odr_in) +
                        ": the counts must agree");
  return assemble(dp, mvm, ifd0, ifd1, m ? &*m : nullptr, d ? &*d : nullptr, dl ? &*dl : nullptr, o);
}

// The DPU registers a block reads or writes, each with the first statement that does.
void registers_of(const std::vector<Stmt>& body, std::map<const BufferNode*, SourceLoc>& out) {
  std::function<void(const Expr&, const SourceLoc&)> expr = [&](const Expr& e, const SourceLoc& at) {
    if (!e) return;
    if (e->buf && e->buf->role == BufferRole::Register) out.emplace(e->buf.get(), at);
    for (const auto& a : e->args) expr(a, at);
  };
  for (const auto& s : body) {
    if (s->buf && s->buf->role == BufferRole::Register) out.emplace(s->buf.get(), s->loc);
    expr(s->value, s->loc);
    for (const auto& i : s->indices) expr(i, s->loc);
    registers_of(s->body, out);
    registers_of(s->else_body, out);
  }
}

// The streams a block pops, in order of first pop, each with that statement.
void pops_of(const std::vector<Stmt>& body, std::vector<std::pair<const StreamNode*, SourceLoc>>& out) {
  std::function<void(const Expr&, const SourceLoc&)> expr = [&](const Expr& e, const SourceLoc& at) {
    if (!e) return;
    if (e->kind == ExprKind::Pop &&
        std::none_of(out.begin(), out.end(), [&](const auto& p) { return p.first == e->stream.get(); }))
      out.emplace_back(e->stream.get(), at);
    for (const auto& a : e->args) expr(a, at);
  };
  for (const auto& s : body) {
    expr(s->value, s->loc);
    pops_of(s->body, out);
    pops_of(s->else_body, out);
  }
}

// The part of a unit's blocks (element counts `counts`, in order) that elements [from, from + count)
// of their stream fall in: one block, else refused at `by` (`what` says what `by` takes).
std::optional<Part> part_of(const std::vector<const StmtNode*>& blocks, const std::vector<uint64_t>& counts,
                            const char* unit, uint64_t from, uint64_t count, const StmtNode& by,
                            const std::string& what) {
  if (count == 0) return std::nullopt;
  uint64_t start = 0;
  for (std::size_t j = 0; j < blocks.size(); ++j) {
    if (from < start + counts[j]) {
      if (from + count > start + counts[j])
        fail(by.loc,
             what + " elements " + std::to_string(from) + ".." + std::to_string(from + count - 1) + " of the " + unit +
                 " stream, which come from two " + unit + " blocks (" + line_of(blocks[j]) + " and " +
                 line_of(blocks[j + 1]) +
                 "): the blocks of a datapath run as consecutive tasks here, one block of each unit in each, so "
                 "a block exchanges its stream with one block of the unit beside it",
             "pair the blocks one to one (one producer block per consumer block), or interleave the operands in "
             "memory and drain one stream (§8.3)");
      return Part{j, from - start, count};
    }
    start += counts[j];
  }
  fail(by.loc, what + " elements past the end of the " + std::string(unit) + " stream");
}

// An IFD / ODR block's elements [p.from, p.from + p.count), as the walk of one task.
template <class Out>
Out sliced(const std::vector<Out>& outs, const std::vector<const StmtNode*>& blocks, const Part& p, const char* unit) {
  Out r = outs[p.block];
  const auto w = slice_walk(r.walk, p.from, p.count);
  if (!w)
    fail(blocks[p.block]->loc,
         std::string("the blocks around this ") + unit + " block take its elements " + std::to_string(p.from) + ".." +
             std::to_string(p.from + p.count - 1) + " in one task, and they are not one walk",
         "make the elements each block beside it takes a whole number of this block's inner loop runs");
  r.walk = *w;
  r.elements = p.count;
  return r;
}

std::vector<Part> one(const std::optional<Part>& p) { return p ? std::vector<Part>{*p} : std::vector<Part>{}; }

// Elements [from, from + count) of a feeder's stream as the parts of its blocks they fall in, in
// order: the segments of the feeder in one task (§8.3).
std::vector<Part> parts_of(const std::vector<const StmtNode*>& blocks, const std::vector<uint64_t>& counts,
                           const char* unit, uint64_t from, uint64_t count, const StmtNode& by) {
  std::vector<Part> out;
  uint64_t start = 0;
  for (std::size_t j = 0; j < blocks.size() && count > 0; ++j) {
    if (from < start + counts[j]) {
      const uint64_t n = std::min(count, start + counts[j] - from);
      out.push_back(Part{j, from - start, n});
      from += n;
      count -= n;
    }
    start += counts[j];
  }
  if (count > 0) fail(by.loc, "this DPU block pops elements past the end of the " + std::string(unit) + " stream");
  return out;
}

// A feeder in one task: its first part's walk, the later parts as its segments.
IfdOut feeder(const std::vector<IfdOut>& outs, const std::vector<const StmtNode*>& blocks,
              const std::vector<Part>& parts, const char* unit) {
  IfdOut r = sliced(outs, blocks, parts[0], unit);
  for (std::size_t k = 1; k < parts.size(); ++k) r.segs.push_back(sliced(outs, blocks, parts[k], unit));
  return r;
}

// The runs of a feeder's streams a DPU block pops against the segments its task's feeder
// delivers (consecutive segments of one stream are one run): the same streams, in the same
// order, of the same lengths; else refused at the pop. Segments of another dtype than the first
// get POPs that name their dtype (si.own_dtype).
void matches(const std::vector<PopRun>& runs, const IfdOut* fed, const std::vector<const StmtNode*>& blocks,
             const std::vector<Part>& parts, const char* unit, const StmtNode& dpu, StreamInfo& si) {
  if (!fed) return;  // nothing popped from this feeder (the counts agreed)
  std::vector<const IfdOut*> segs{fed};
  for (const IfdOut& s : fed->segs) segs.push_back(&s);
  std::vector<PopRun> delivered;
  for (std::size_t k = 0; k < segs.size(); ++k) {
    if (!delivered.empty() && delivered.back().stream == segs[k]->stream)
      delivered.back().count += segs[k]->elements;
    else
      delivered.push_back({segs[k]->stream, segs[k]->elements, blocks[parts[k].block]->loc});
    if (segs[k]->walk.dtype != fed->walk.dtype) si.own_dtype[segs[k]->stream] = segs[k]->walk.dtype;
  }
  for (std::size_t k = 0; k < std::max(runs.size(), delivered.size()); ++k) {
    const PopRun* r = k < runs.size() ? &runs[k] : nullptr;
    const PopRun* d = k < delivered.size() ? &delivered[k] : nullptr;
    if (r && d && r->stream == d->stream && r->count == d->count) continue;
    const std::string by = d ? " (line " + std::to_string(d->at.line) + ")" : "";
    if (r && d && r->stream == d->stream)
      fail(r->at,
           "this DPU block pops " + std::to_string(r->count) + " elements of " + r->stream->name +
               ", but the block feeding it in its task" + by + " delivers " + std::to_string(d->count) +
               " of them before the next: one feeder delivers its blocks' streams one after the other, in the "
               "order written (§8.3)",
           "pop each stream as many times as its block pushes in this task");
    fail(r ? r->at : dpu.loc,
         "this DPU block pops " + (r ? r->stream->name : std::string("nothing more")) +
             ", but the block feeding it in its " + unit + " segment" + by + " pushes " +
             (d ? d->stream->name : std::string("nothing more")) +
             ": one feeder delivers its blocks' streams in the order written (§8.3)",
         "pop the streams in the order their blocks are written");
  }
}

uint64_t sum(const std::vector<uint64_t>& v) {
  uint64_t s = 0;
  for (uint64_t x : v) s += x;
  return s;
}

// Several blocks of one unit (guide §6, §9.2): a task per group of blocks that exchange their
// streams, in the order written; docs/compiler.md "Several blocks of one unit".
std::vector<DatapathTask> lower_multi(const StmtNode& dp, const Blocks& bl, const std::vector<Loop>& outer,
                                      const RegionOf& region, const ImcOf& imc_of) {
  const bool mvm = dp.dp_kind == DpKind::MVMEXE;
  // A DPU block's registers start at 0 in its task: state carried to a later block is refused.
  std::map<const BufferNode*, const StmtNode*> reg_block;
  for (const StmtNode* b : bl.dpu) {
    std::map<const BufferNode*, SourceLoc> regs;
    registers_of(b->body, regs);
    for (const auto& [r, at] : regs) {
      const auto [it, fresh] = reg_block.emplace(r, b);
      if (!fresh && it->second != b)
        fail(at,
             "register " + r->name + " of the DPU block at " + line_of(it->second) +
                 " is used again in a later DPU block of the same datapath: each DPU block runs as a task of its "
                 "own here and its registers start at 0 (and in one pipeline it would see only the last "
                 "iteration's value, §9.2)",
             "split the stateful phases into separate datapaths (§9.2), or give each DPU block its own registers");
    }
  }
  std::vector<IfdOut> ifd[2];
  std::vector<uint64_t> ifd_n[2];
  std::set<const StreamNode*> side;
  for (int f = 0; f < 2; ++f)
    for (const StmtNode* b : bl.ifd[f]) {
      ifd[f].push_back(lower_ifd(*b, outer, region));
      ifd_n[f].push_back(ifd[f].back().elements);
      if (f == 1) side.insert(ifd[f].back().stream);
    }
  std::vector<MainOut> main;
  std::vector<uint64_t> main_pops, main_outs;
  for (const StmtNode* b : bl.main) {
    MainOut o;
    o.block = b;
    if (b->unit == Unit::MatMul) {
      o.mvm = lower_mvm(*b, outer, imc_of);
      o.in = o.mvm->in;
      o.out = o.mvm->out;
      o.outputs = o.mvm->outputs;
      o.pops = o.mvm->outputs * o.mvm->k_blocks;
    } else {
      o.dw = lower_dw(*b, outer, region);
      o.in = o.dw->in;
      o.out = o.dw->out;
      o.outputs = o.dw->outputs;
      o.pops = o.dw->outputs * o.dw->desc.taps;
    }
    if (b->unit != bl.main[0]->unit) fail(b->loc, "a datapath has a MatMul or a depthwise stage, not both (§2)");
    if (side.count(o.in))
      fail(b->loc, "IFD(num=1) is the DPU's side input: the " + to_string(b->unit) + " stage cannot pop " + o.in->name,
           "feed it from A.IFD(num=0)");
    main_pops.push_back(o.pops);
    main_outs.push_back(o.outputs);
    main.push_back(std::move(o));
  }
  if (mvm && main.empty()) fail(dp.loc, "a DP_MVMEXE datapath needs its MatMul block");
  if (bl.dpu.empty() && !bl.ifd[1].empty())
    fail(bl.ifd[1][0]->loc, "IFD(num=1) feeds the DPU, and this datapath has no DPU block");
  const StreamInfo si{[&](const StreamNode* s) { return side.count(s) > 0; }, {}};
  // §8.3: one feeder delivers its blocks' streams one after the other, never interleaved: a DPU
  // block pops them all of one, then all of the next (feeder_pops refuses the interleaved
  // pattern), and they become the segments of the feeder in its task. The main stage's results
  // are one stream.
  std::vector<std::vector<PopRun>> runs[2];  // per DPU block: [0] its main input, [1] IFD(num=1)
  for (const StmtNode* b : bl.dpu) {
    runs[1].push_back(feeder_pops(*b, outer, si.is_side, "IFD(num=1)"));
    runs[0].push_back(feeder_pops(
        *b, outer, [&](const StreamNode* s) { return !si.is_side(s); },
        main.empty() ? "IFD(num=0)" : "its main input"));
    const std::vector<PopRun>& m = runs[0].back();
    if (!main.empty() && m.size() > 1)
      fail(m[1].at,
           "this DPU block pops " + m[1].stream->name + " besides " + m[0].stream->name +
               ", two streams of its main input: the " + to_string(bl.main[0]->unit) +
               " block of its task pushes one stream",
           "pop each main-stage stream in a DPU block of its own");
  }
  const spec::Dtype in0 = main.empty() ? ifd[0][0].walk.dtype : spec::Dtype::INT32;
  std::vector<DpuLowered> dpu;
  std::vector<uint64_t> dpu_pops, dpu_side, dpu_pushes;
  for (const StmtNode* b : bl.dpu) {
    dpu.push_back(lower_dpu(*b, outer, si, in0, spec::Dtype::FLOAT32, region));
    dpu_pops.push_back(dpu.back().pops_main);
    dpu_side.push_back(dpu.back().implicit_ifd1 ? 0 : dpu.back().pops_side);
    dpu_pushes.push_back(dpu.back().pushes);
  }
  std::vector<OdrOut> odr;
  std::vector<uint64_t> odr_n;
  for (const StmtNode* b : bl.odr) {
    odr.push_back(lower_odr(*b, outer, region, !mvm));
    odr_n.push_back(odr.back().elements);
  }

  // Every stream: what its producer blocks push, its consumer blocks pop.
  auto agree = [](uint64_t pushed, const char* producer, uint64_t popped, const StmtNode* consumer, const char* unit) {
    if (pushed != popped)
      fail(consumer->loc, std::string("the ") + producer + " blocks push " + std::to_string(pushed) +
                              " elements but the " + unit + " blocks pop " + std::to_string(popped) +
                              ": the counts must agree");
  };
  const uint64_t ifd0_total = sum(ifd_n[0]);
  if (!main.empty())
    agree(ifd0_total, "IFD(num=0)", sum(main_pops), bl.main[0], main[0].mvm ? "MatMul" : "depthwise");
  else if (!dpu.empty())
    agree(ifd0_total, "IFD(num=0)", sum(dpu_pops), bl.dpu[0], "DPU");
  else
    agree(ifd0_total, "IFD(num=0)", sum(odr_n), bl.odr[0], "ODR");
  if (!main.empty() && !dpu.empty()) agree(sum(main_outs), "main-stage", sum(dpu_pops), bl.dpu[0], "DPU");
  if (!main.empty() && dpu.empty()) agree(sum(main_outs), "main-stage", sum(odr_n), bl.odr[0], "ODR");
  if (!dpu.empty()) {
    agree(sum(dpu_pushes), "DPU", sum(odr_n), bl.odr[0], "ODR");
    agree(sum(ifd_n[1]), "IFD(num=1)", sum(dpu_side), bl.dpu[0], "DPU (side input)");
  }

  // Cut into tasks at the blocks of the last compute unit (the DPU, else the main stage): each runs
  // whole in one task; IFD and ODR blocks are sliced where the tasks' elements fall.
  std::vector<Segment> segs;
  auto starts = [](const std::vector<uint64_t>& n) {
    std::vector<uint64_t> s(n.size() + 1, 0);
    for (std::size_t j = 0; j < n.size(); ++j) s[j + 1] = s[j] + n[j];
    return s;
  };
  const auto main_in_at = starts(main_pops), main_out_at = starts(main_outs);
  if (!dpu.empty()) {
    uint64_t pm = 0, ps = 0, po = 0;
    for (std::size_t k = 0; k < dpu.size(); ++k) {
      const StmtNode& b = *bl.dpu[k];
      Segment g;
      g.by = &b;
      g.dpu = k;
      uint64_t f0 = pm, f0n = dpu_pops[k];
      if (!main.empty()) {
        std::size_t j = 0;
        while (j < main.size() && !(main_out_at[j] == pm && main_outs[j] == dpu_pops[k])) ++j;
        if (j == main.size())
          fail(b.loc,
               "this DPU block pops the main stage's results " + std::to_string(pm) + ".." +
                   std::to_string(pm + dpu_pops[k] - 1) + ", which are not all of one " + to_string(bl.main[0]->unit) +
                   " block's: the blocks of a datapath run as consecutive tasks here, and a compute block runs "
                   "whole in one of them",
               "write one " + to_string(bl.main[0]->unit) + " block per DPU block, pushing what that DPU block pops");
        g.main = j;
        f0 = main_in_at[j];
        f0n = main_pops[j];
      }
      if (main.empty())  // the DPU pops IFD(num=0): its blocks' streams are segments of the task (§8.3)
        g.ifd0 = parts_of(bl.ifd[0], ifd_n[0], "IFD(num=0)", f0, f0n, b);
      else
        g.ifd0 = one(part_of(bl.ifd[0], ifd_n[0], "IFD(num=0)", f0, f0n, b, "this DPU block's task takes"));
      g.ifd1 = parts_of(bl.ifd[1], ifd_n[1], "IFD(num=1)", ps, dpu_side[k], b);
      g.odr = part_of(bl.odr, odr_n, "DPU output", po, dpu_pushes[k], b, "the ODR stores this DPU block's");
      pm += dpu_pops[k];
      ps += dpu_side[k];
      po += dpu_pushes[k];
      segs.push_back(g);
    }
  } else if (!main.empty()) {
    for (std::size_t j = 0; j < main.size(); ++j) {
      Segment g;
      g.by = bl.main[j];
      g.main = j;
      g.ifd0 = one(part_of(bl.ifd[0], ifd_n[0], "IFD(num=0)", main_in_at[j], main_pops[j], *g.by, "this block pops"));
      g.odr = part_of(bl.odr, odr_n, "main-stage output", main_out_at[j], main_outs[j], *g.by,
                      "the ODR stores this block's");
      segs.push_back(g);
    }
  } else {  // IFD(num=0) -> ODR: a task between every two block boundaries of either
    std::set<uint64_t> cuts;
    for (uint64_t c : starts(ifd_n[0])) cuts.insert(c);
    for (uint64_t c : starts(odr_n)) cuts.insert(c);
    for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) {
      const uint64_t a = *it, n = *std::next(it) - a;
      Segment g;
      g.ifd0 = one(part_of(bl.ifd[0], ifd_n[0], "IFD(num=0)", a, n, *bl.odr[0], "the ODR stores"));
      g.odr = part_of(bl.odr, odr_n, "IFD(num=0)", a, n, *bl.ifd[0][0], "the ODR stores");
      g.by = bl.odr[g.odr->block];
      segs.push_back(g);
    }
  }

  std::vector<DatapathTask> tasks;
  for (const Segment& g : segs) {
    if (g.ifd0.empty())
      fail(g.by->loc,
           "this block's task would read nothing from IFD(num=0): every datapath task starts with its "
           "main feeder",
           "pop the main input in every DPU block");
    if (!g.odr)
      fail(g.by->loc, "this block's task would store nothing: every datapath task ends in an ODR",
           "push a result from every DPU block");
    if (g.ifd0.size() + g.ifd1.size() > 2 + spec::param::ifd_seg_walks)
      fail(g.by->loc,
           "this DPU block's task reads " + std::to_string(g.ifd0.size()) + " segments from IFD(num=0) and " +
               std::to_string(g.ifd1.size()) + " from IFD(num=1): a task's feeders run at most " +
               std::to_string(spec::param::ifd_seg_walks) + " later segments between them (spec ifd_seg_walks)",
           "pop fewer streams of one feeder in one DPU block (split it, §9.2), or lay the operands out in one buffer "
           "and drain one stream (§8.3)");
    const IfdOut i0 = feeder(ifd[0], bl.ifd[0], g.ifd0, "IFD(num=0)");
    std::optional<IfdOut> i1;
    if (!g.ifd1.empty()) i1 = feeder(ifd[1], bl.ifd[1], g.ifd1, "IFD(num=1)");
    const OdrOut o = sliced(odr, bl.odr, *g.odr, "ODR");
    const MainOut* mo = g.main ? &main[*g.main] : nullptr;
    if (mo && mo->in != i0.stream)
      fail(mo->block->loc, "the " + to_string(mo->block->unit) + " pops " + mo->in->name +
                               ", which the IFD(num=0) block at " + line_of(bl.ifd[0][g.ifd0[0].block]) +
                               " feeding it does not push");
    if (!g.dpu) {
      const StreamNode* before = mo ? mo->out : i0.stream;
      if (o.stream != before)
        fail(bl.odr[g.odr->block]->loc,
             "the ODR pops " + o.stream->name + ", but the block before it in its task pushes " + before->name);
    }
    std::optional<DpuLowered> dl;
    if (g.dpu) {
      const StmtNode& b = *bl.dpu[*g.dpu];
      // The streams it pops are the ones the blocks feeding it in its task push, in their order.
      StreamInfo tsi = si;
      matches(runs[1][*g.dpu], i1 ? &*i1 : nullptr, bl.ifd[1], g.ifd1, "IFD(num=1)", b, tsi);
      if (mo) {
        for (const PopRun& r : runs[0][*g.dpu])
          if (r.stream != mo->out)
            fail(r.at,
                 "this DPU block pops " + r.stream->name + ", but the block feeding it in its task (" +
                     line_of(mo->block) + ") pushes " + mo->out->name,
                 "pop the streams in the order their blocks are written");
      } else {
        matches(runs[0][*g.dpu], &i0, bl.ifd[0], g.ifd0, "IFD(num=0)", b, tsi);
      }
      dl = lower_dpu(b, outer, tsi, mo ? spec::Dtype::INT32 : i0.walk.dtype, i1 ? i1->walk.dtype : spec::Dtype::FLOAT32,
                     region);
      if (dl->implicit_ifd1) {
        if (i1)
          fail(b.loc, "the DPU reads a buffer directly and its task also has A.IFD(num=1): the side input is taken",
               "stream every DPU operand through A.IFD(num=1)");
        i1 = IfdOut{dl->ifd1, nullptr, dl->ifd1_elements, {}};
      }
    }
    DatapathTask dt{assemble(dp, mvm, i0, i1, mo && mo->mvm ? &*mo->mvm : nullptr, mo && mo->dw ? &*mo->dw : nullptr,
                             dl ? &*dl : nullptr, o),
                    {bl.ifd[0][g.ifd0[0].block], bl.odr[g.odr->block]}};
    for (std::size_t f = 1; f < g.ifd0.size(); ++f) dt.blocks.push_back(bl.ifd[0][g.ifd0[f].block]);
    for (const Part& p : g.ifd1) dt.blocks.push_back(bl.ifd[1][p.block]);
    if (mo) dt.blocks.push_back(mo->block);
    if (g.dpu) dt.blocks.push_back(bl.dpu[*g.dpu]);
    tasks.push_back(std::move(dt));
  }
  return tasks;
}

}  // namespace

std::vector<DatapathTask> lower_datapath(const StmtNode& dp, const std::vector<Loop>& outer, const RegionOf& region,
                                         const ImcOf& imc_of) {
  Blocks bl;
  for (const auto& s : dp.body) {
    if (s->kind != StmtKind::Block || is_bypassed(*s)) continue;  // A.bypass(): as if omitted (§6.4)
    switch (s->unit) {
      case Unit::IFD:
        if (s->num != 0 && s->num != 1)
          fail(s->loc,
               "A.IFD(num=" + std::to_string(s->num) +
                   ") is out of range: a datapath's feeders are num=0 (main) and num=1 (the DPU side input)",
               "A.IFD(num=0) or A.IFD(num=1)");
        bl.ifd[s->num].push_back(s.get());
        break;
      case Unit::MatMul:
      case Unit::Depthwise: bl.main.push_back(s.get()); break;
      case Unit::DPU: bl.dpu.push_back(s.get()); break;
      case Unit::ODR: bl.odr.push_back(s.get()); break;
      default: fail(s->loc, "an " + to_string(s->unit) + " block does not belong in a datapath");
    }
  }
  if (bl.odr.empty())
    fail(dp.loc, "a datapath ends in an ODR block that stores (or drops) its results",
         "with A.ODR(): out[...] = stream.pop()");
  if (bl.ifd[0].empty()) fail(dp.loc, "a datapath starts with A.IFD(num=0), its main feeder");
  if (!bl.multi()) {
    std::vector<DatapathTask> one(1);
    one[0].task = lower_single(dp, bl, outer, region, imc_of);
    return one;
  }
  return lower_multi(dp, bl, outer, region, imc_of);
}

}  // namespace axcore::compiler::lower_detail
