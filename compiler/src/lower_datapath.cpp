// One datapath invocation -> one datapath descriptor (spec layout datapath_desc), with the
// per-unit contracts of guide §6 and §8 checked on the way.
#include <axcore/num/pword.hpp>
#include <map>
#include <set>

#include "axcore/compiler/printer.hpp"
#include "lower_datapath.hpp"

namespace axcore::compiler::lower_detail {
namespace {

struct Blocks {
  const StmtNode* ifd[2] = {nullptr, nullptr};
  const StmtNode* matmul = nullptr;
  const StmtNode* dw = nullptr;
  const StmtNode* dpu = nullptr;
  const StmtNode* odr = nullptr;
};

void set_once(const StmtNode*& slot, const StmtNode* s, const char* what) {
  if (slot)
    fail(s->loc, std::string("a second ") + what + " block in one datapath: this compiler emits one command per unit",
         "split the work into two datapaths");
  slot = s;
}

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

}  // namespace

Task lower_datapath(const StmtNode& dp, const std::vector<Loop>& outer, const RegionOf& region, const ImcOf& imc_of) {
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
        set_once(bl.ifd[s->num], s.get(), s->num ? "IFD(num=1)" : "IFD(num=0)");
        break;
      case Unit::MatMul: set_once(bl.matmul, s.get(), "MatMul"); break;
      case Unit::Depthwise: set_once(bl.dw, s.get(), "depthwise"); break;
      case Unit::DPU: set_once(bl.dpu, s.get(), "DPU"); break;
      case Unit::ODR: set_once(bl.odr, s.get(), "ODR"); break;
      default: fail(s->loc, "an " + to_string(s->unit) + " block does not belong in a datapath");
    }
  }
  if (!bl.odr)
    fail(dp.loc, "a datapath ends in an ODR block that stores (or drops) its results",
         "with A.ODR(): out[...] = stream.pop()");
  if (!bl.ifd[0]) fail(dp.loc, "a datapath starts with A.IFD(num=0), its main feeder");
  const bool mvm = dp.dp_kind == DpKind::MVMEXE;

  spec::DatapathDesc desc;  // words() fills the magic and the length
  spec::DpHeader& h = desc.header;
  h.kind = mvm ? spec::DpKind::MVMEXE : spec::DpKind::DWPU;
  Task t;
  t.queue = mvm ? spec::Queue::MVMEXE : spec::Queue::DWPU;

  const IfdOut ifd0 = lower_ifd(*bl.ifd[0], outer, region);
  desc.ifd0 = ifd0.walk;
  h.has_ifd0 = 1;
  t.ifd0_elems = ifd0.elements;
  std::set<const StreamNode*> side;
  std::optional<IfdOut> ifd1;
  if (bl.ifd[1]) {
    ifd1 = lower_ifd(*bl.ifd[1], outer, region);
    side.insert(ifd1->stream);
  }

  spec::Dtype main_out = ifd0.walk.dtype;  // what reaches the DPU / ODR on the main path
  const StreamNode* main_stream = ifd0.stream;
  uint64_t main_count = ifd0.elements;
  if (bl.matmul) {
    const MvmOut m = lower_mvm(*bl.matmul, outer, imc_of);
    if (side.count(m.in))
      fail(bl.matmul->loc, "IFD(num=1) is the DPU's side input: the MatMul cannot pop " + m.in->name,
           "feed the MatMul from A.IFD(num=0)");
    if (m.in != ifd0.stream) fail(bl.matmul->loc, "the MatMul pops " + m.in->name + ", which IFD(num=0) does not push");
    if (m.outputs * m.k_blocks != ifd0.elements)
      fail(bl.matmul->loc,
           "IFD(num=0) pushes " + std::to_string(ifd0.elements) + " elements but the MatMul pops " +
               std::to_string(m.outputs * m.k_blocks) + " (" + std::to_string(m.outputs) + " outputs x K_BLOCKS " +
               std::to_string(m.k_blocks) + "): the counts must agree (§6.2)",
           "stream the window in the same number of PWORDs the reduction loop pops");
    desc.mvm = m.desc;
    h.has_main = 1;
    t.mvm_tile_ops = m.outputs * m.k_blocks;
    main_out = spec::Dtype::INT32;
    main_stream = m.out;
    main_count = m.outputs;
  } else if (bl.dw) {
    const DwOut d = lower_dw(*bl.dw, outer, region);
    if (side.count(d.in)) fail(bl.dw->loc, "IFD(num=1) is the DPU's side input: the depthwise stage cannot pop it");
    if (d.outputs * d.desc.taps != ifd0.elements)
      fail(bl.dw->loc, "IFD(num=0) pushes " + std::to_string(ifd0.elements) +
                           " elements but the depthwise stage pops " + std::to_string(d.outputs * d.desc.taps));
    desc.dwpu = d.desc;
    h.has_main = 1;
    main_out = spec::Dtype::INT32;
    main_stream = d.out;
    main_count = d.outputs;
  } else if (mvm) {
    fail(dp.loc, "a DP_MVMEXE datapath needs its MatMul block");
  }

  uint64_t odr_in = main_count;
  const StreamNode* odr_stream = main_stream;
  if (bl.dpu) {
    StreamInfo si{[&](const StreamNode* s) { return side.count(s) > 0; }};
    DpuLowered d = lower_dpu(*bl.dpu, outer, si, main_out, ifd1 ? ifd1->walk.dtype : spec::Dtype::FLOAT32, region);
    if (d.implicit_ifd1) {
      if (ifd1)
        fail(bl.dpu->loc,
             "the DPU reads a buffer directly and the datapath also has A.IFD(num=1): the side input is taken",
             "stream every DPU operand through the one A.IFD(num=1) block");
      ifd1 = IfdOut{d.ifd1, nullptr, d.ifd1_elements};
    }
    if (d.pops_main != main_count)
      fail(bl.dpu->loc, "the DPU pops " + std::to_string(d.pops_main) +
                            " elements from its main input, which delivers " + std::to_string(main_count) +
                            ": the counts must agree");
    if (ifd1 && d.pops_side != ifd1->elements)
      fail(bl.dpu->loc, "the DPU pops " + std::to_string(d.pops_side) + " elements from IFD(num=1), which pushes " +
                            std::to_string(ifd1->elements) + ": the counts must agree");
    desc.dpu = d.desc;
    desc.program = d.code;
    h.has_dpu = 1;
    odr_in = d.pushes;
    odr_stream = nullptr;
    t.dpu_instr_per_iter = d.desc.body_len;
    t.dpu_iterations = d.desc.iterations;
  } else if (ifd1) {
    fail(bl.ifd[1]->loc, "IFD(num=1) feeds the DPU, and this datapath has no DPU block");
  }
  if (ifd1) {
    desc.ifd1 = ifd1->walk;
    h.has_ifd1 = 1;
    t.ifd1_elems = ifd1->elements;
    t.ifd1_rows = ifd1->elements * num::lane_bytes(ifd1->walk.dtype);
  }
  const OdrOut o = lower_odr(*bl.odr, outer, region, !mvm);
  if (odr_stream && o.stream != odr_stream)
    fail(bl.odr->loc, "the ODR pops " + o.stream->name + ", but the stage before it pushes " + odr_stream->name);
  if (o.elements != odr_in)
    fail(bl.odr->loc, "the ODR pops " + std::to_string(o.elements) + " elements but receives " +
                          std::to_string(odr_in) + ": the counts must agree");
  desc.odr = o.walk;
  h.has_odr = 1;
  t.odr_elems = o.elements;
  t.odr_rows = o.elements * num::lane_bytes(o.walk.dtype);
  t.words = desc.words();
  t.id = dp.id;
  return t;
}

}  // namespace axcore::compiler::lower_detail
