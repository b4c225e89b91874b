// The DPU block as a register program (guide §7, §8.5; spec dpu_desc / dpu_instr): register
// allocation, one arithmetic operation per statement with float18x64 operands, serial loops as
// LOOP/ENDLOOP with loop-indexed registers, the init preamble, and buffer reads turned into pops
// of an IFD1 walk (the DPU reads no memory itself).
#include <algorithm>
#include <map>

#include "axcore/compiler/printer.hpp"
#include "lower_internal.hpp"

namespace axcore::compiler::lower_detail {
namespace {

using spec::DpuOp;

struct LoadRef {
  const BufferNode* buf;
  std::vector<Expr> idx;
  SourceLoc loc;
};

class DpuCompiler {
 public:
  DpuCompiler(const StreamInfo& s, const std::vector<Loop>& iter) : streams_(s), iter_(iter) {}

  void declare(const BufferNode* b, const SourceLoc& loc) {
    if (regs_.count(b)) return;
    regs_[b] = next_;
    next_ += static_cast<uint32_t>(b->shape[0]);
    if (next_ > spec::param::dpu_registers)
      fail(loc,
           "the DPU block declares " + std::to_string(next_) + " registers; the DPU has " +
               std::to_string(spec::param::dpu_registers) + " (spec dpu_registers)",
           "smaller A.array sizes, or stage the data through memory across datapaths (§14)");
  }

  void block(const std::vector<Stmt>& list, uint64_t mult) {
    for (const auto& s : list) stmt(s, mult);
  }

  void stmt(const Stmt& s, uint64_t mult) {
    switch (s->kind) {
      case StmtKind::DeclReg: declare(s->buf.get(), s->loc); return;
      case StmtKind::OpMarker: return;
      case StmtKind::Store: {
        check_one_op(s);
        const uint32_t dst = reg_operand(*s->buf, s->indices, s->loc);
        check_init_rule(*s);
        into(s->value, dst, s, mult);
        return;
      }
      case StmtKind::Push: {
        check_one_op(s);
        Expr v = s->value;
        if (v->kind == ExprKind::Cast) {
          out_dtype_ = v->dtype;
          // push(cast(pop())) keeps its cast: the pop becomes a POP (input cast to float18), the
          // outer cast happens at PUSH. Any other operand is float18 already.
          const auto inner = v->args[0]->kind;
          if (inner != ExprKind::Pop && inner != ExprKind::Load) v = v->args[0];
        } else {
          out_dtype_ = s->stream->dtype;
        }
        if (out_dtype_.base == DType::Base::Float18) out_dtype_ = s->stream->dtype;
        const uint32_t a = operand(v, s, mult);
        emit({DpuOp::PUSH, 0, a, 0, 0, 0});
        pushes_ += mult;
        return;
      }
      case StmtKind::For: {
        if (loops_.size() >= spec::param::dpu_loop_depth)
          fail(s->loc, "DPU loops nest at most " + std::to_string(spec::param::dpu_loop_depth) + " deep");
        if (s->extent < 1) return;
        emit({DpuOp::LOOP, 0, 0, 0, 0, static_cast<uint32_t>(s->extent)});
        loops_.push_back({s->var.get(), s->start, s->extent, s->loc});
        block(s->body, mult * static_cast<uint64_t>(s->extent));
        loops_.pop_back();
        emit({DpuOp::ENDLOOP, 0, 0, 0, 0, 0});
        return;
      }
      default:
        fail(s->loc, "this statement is not valid in a DPU block",
             "DPU blocks hold register assignments (x = ..., regs[i] = ...), serial loops and stream.push(...)");
    }
  }

  std::vector<spec::DpuInstr> code;
  std::vector<LoadRef> loads;
  uint64_t pops_main = 0, pops_side = 0, pushes_ = 0;
  DType out_dtype_;
  spec::Dtype in1_seen = spec::Dtype::FLOAT32;
  bool side_seen = false;
  std::size_t init_len = 0;
  bool in_init = false;  // compiling the A.init preamble

 private:
  // §8.5 / §14: a register the A.init preamble writes holds a constant the iterations read; it
  // cannot be written again in the loop. And it must be an A.array: an A.var is scratch within
  // one iteration, not a value carried from the preamble.
  void check_init_rule(const StmtNode& s) {
    const BufferNode& b = *s.buf;
    if (in_init && b.is_var)
      fail(s.loc,
           b.name +
               " is an A.var, written in A.init: a register the preamble fills for later iterations to read "
               "must be an A.array (an A.var is scratch within one iteration, §8.5)",
           b.name + " = A.array(\"float18x64\", size=1) and " + b.name + "[0] = ... in A.init");
    int64_t lo = regs_.at(&b), hi = lo;
    if (!b.is_var && !s.indices.empty()) {
      const Affine a = affine_of(s.indices[0], s.loc);
      lo += a.constant;
      hi = lo;
      for (const auto& [v, coef] : a.coef) {
        const Loop& l = loops_[static_cast<std::size_t>(loop_level(v))];  // reg_operand checked the form
        lo += l.start;
        hi += l.start + l.extent - 1;
      }
    }
    for (int64_t r = lo; r <= hi; ++r) {
      if (in_init) {
        init_written_.emplace(r, &s);
        continue;
      }
      auto it = init_written_.find(r);
      if (it == init_written_.end()) continue;
      const StmtNode& first = *it->second;
      const int64_t k = r - regs_.at(first.buf.get());
      fail(s.loc,
           first.buf->name + (first.buf->is_var ? "" : "[" + std::to_string(k) + "]") + " is written in A.init (at " +
               first.loc.str() + "): a register the preamble writes cannot be written again in the loop (§8.5, §14)",
           "write the per-iteration value into another register (A.var or an A.array of its own); the preamble's "
           "registers are read-only after it");
    }
  }
  std::map<int64_t, const StmtNode*> init_written_;  // register -> the preamble's store

  void emit(spec::DpuInstr i) {
    code.push_back(i);
    if (code.size() > spec::param::dpu_max_instructions)
      fail(where_, "the DPU program exceeds " + std::to_string(spec::param::dpu_max_instructions) +
                       " instructions (spec dpu_max_instructions)");
  }

  // The arithmetic on values in `e`. The indices of a register read or a buffer load are
  // address arithmetic (reg[j + 1], bias[nb * 2]): the DPU's index modes and the IFD1 walk
  // compute them, not an instruction, so they do not count.
  static int ops_in(const Expr& e) {
    if (!e || e->kind == ExprKind::RegRead || e->kind == ExprKind::Load) return 0;
    int n = (is_arith(e->kind) || e->kind == ExprKind::DpuCall) ? 1 : 0;
    for (const auto& a : e->args) n += ops_in(a);
    return n;
  }

  void check_one_op(const Stmt& s) {
    where_ = s->loc;
    temp_ = 0;
    if (ops_in(s->value) > 1) {
      std::string text = s->kind == StmtKind::Push ? s->stream->name + ".push(" + dump(s->value) + ")"
                                                   : s->buf->name + " = " + dump(s->value);
      fail(s->loc,
           "Failed to parse TIR statement " + text +
               ": a DPU statement carries at most one arithmetic operation (+, -, *, A.min/A.max or an A.dpu.ops call)",
           "split it, one operation per statement, through a register: acc[0] = x * scale[0]; "
           "dpu_stream.push(A.cast(acc[0] + bias[0], ...))");
    }
  }

  int loop_level(const VarNode* v) const {
    for (std::size_t k = 0; k < loops_.size(); ++k)
      if (loops_[k].var == v) return static_cast<int>(k);
    return -1;
  }

  uint32_t reg_operand(const BufferNode& b, const std::vector<Expr>& idx, const SourceLoc& loc) {
    if (b.role != BufferRole::Register)
      fail(loc, "a DPU block stores only into registers (A.var / A.array); " + b.name + " is a buffer",
           "store buffers from the ODR: out[...] = dpu_stream.pop()");
    auto it = regs_.find(&b);
    if (it == regs_.end()) declare(&b, loc), it = regs_.find(&b);
    uint32_t reg = it->second;
    if (b.is_var || idx.empty()) return ref_reg(reg, spec::DpuIndex::NONE);
    const Affine a = affine_of(idx[0], loc);
    int64_t c = a.constant;
    spec::DpuIndex mode = spec::DpuIndex::NONE;
    for (const auto& [v, coef] : a.coef) {
      const int lvl = loop_level(v);
      if (lvl < 0)
        fail(loc,
             "register " + b.name + " is indexed by " + v->name +
                 ", a loop the DPU runs as its element iterations: registers are indexed by whole numbers or by a loop "
                 "inside the DPU block",
             b.name + "[k] with a literal k, or an A.serial loop written inside the DPU block");
      if (coef != 1 || mode != spec::DpuIndex::NONE)
        fail(loc, "register " + b.name + " index must be a constant plus one DPU loop variable (reg[j] or reg[j + k])");
      mode = static_cast<spec::DpuIndex>(lvl + 1);
      c += loops_[static_cast<std::size_t>(lvl)].start;
    }
    if (c < 0 || c >= b.shape[0])
      fail(loc, b.name + "[" + std::to_string(c) + "] is out of range: size=" + std::to_string(b.shape[0]));
    return ref_reg(reg + static_cast<uint32_t>(c), mode);
  }

  static uint32_t ref_reg(uint32_t reg, spec::DpuIndex mode) {
    return spec::DpuOperand{reg, mode}.encode_word();  // FieldRangeError past the register field
  }

  uint32_t temp() {
    const uint32_t t = next_ + temp_++;
    if (t >= spec::param::dpu_registers)
      fail(where_,
           "the DPU block needs more registers than the DPU has (" + std::to_string(spec::param::dpu_registers) + ")");
    return t;
  }

  static bool is_f18(const Expr& e) { return e->dtype.base == DType::Base::Float18; }

  void require_f18(const Expr& e, const Expr& other) {
    if (!is_f18(e)) {
      fail(e->loc.known() ? e->loc : where_,
           "mismatched types. " + e->dtype.str() + " vs. " + (other ? other->dtype.str() : std::string("float18x64")) +
               ": DPU arithmetic takes float18x64 operands",
           "A.cast(" + dump(e) + ", \"float18x64\")");
    }
  }

  // The value of a leaf (a register, or a pop/load cast to float18), in a register.
  uint32_t operand(const Expr& e, const Stmt& s, uint64_t mult) {
    if (e->kind == ExprKind::RegRead) return reg_operand(*e->buf, e->args, e->loc.known() ? e->loc : s->loc);
    const uint32_t t = temp();
    into(e, t, s, mult);
    return t;
  }

  void into(const Expr& e, uint32_t dst, const Stmt& s, uint64_t mult) {
    switch (e->kind) {
      case ExprKind::RegRead: emit({DpuOp::MOV, dst, operand(e, s, mult), 0, 0, 0}); return;
      case ExprKind::Cast: {
        const Expr& x = e->args[0];
        if (e->dtype.base != DType::Base::Float18 && x->kind != ExprKind::Pop && x->kind != ExprKind::Load) {
          into(x, dst, s, mult);  // a cast to the push dtype happens at PUSH
          return;
        }
        if (x->kind == ExprKind::Pop) {
          const bool side = streams_.is_side(x->stream.get());
          spec::DpuPop pop;
          pop.stream = side ? 1u : 0u;
          const auto own = streams_.own_dtype.find(x->stream.get());
          if (own != streams_.own_dtype.end()) {  // a later segment of another dtype (§8.3)
            pop.own_dtype = 1;
            pop.dtype = own->second;
          }
          emit({DpuOp::POP, dst, 0, 0, 0, pop.encode_word()});
          (side ? pops_side : pops_main) += mult;
          if (side && own == streams_.own_dtype.end()) {
            side_seen = true;
            in1_seen = x->stream->dtype.spec();
          }
          return;
        }
        if (x->kind == ExprKind::Load) {
          if (!loops_.empty())
            fail(x->loc,
                 "the DPU reads " + x->buf->name +
                     " inside a DPU loop: a buffer read becomes an IFD1 element per iteration, so write it outside the "
                     "block's loops",
                 "load it into a register in A.init, or stream it through A.IFD(num=1)");
          loads.push_back({x->buf.get(), x->args, x->loc.known() ? x->loc : s->loc});
          emit({DpuOp::POP, dst, 0, 0, 0, 1});
          pops_side += mult;
          side_seen = true;
          in1_seen = x->buf->dtype.spec();
          return;
        }
        into(x, dst, s, mult);
        return;
      }
      case ExprKind::Pop:
        fail(e->loc,
             "mismatched types. " + e->dtype.str() +
                 " vs. float18x64: a DPU value read from a stream is cast to float18x64",
             "A.cast(" + e->stream->name + ".pop(), \"float18x64\")");
      case ExprKind::Load:
        fail(e->loc,
             "mismatched types. " + e->dtype.str() +
                 " vs. float18x64: a DPU operand read from a buffer is cast to float18x64",
             "A.cast(" + dump(e) + ", \"float18x64\")");
      case ExprKind::Add:
      case ExprKind::Sub:
      case ExprKind::Mul:
      case ExprKind::Min:
      case ExprKind::Max: {
        require_f18(e->args[0], e->args[1]);
        require_f18(e->args[1], e->args[0]);
        const uint32_t a = operand(e->args[0], s, mult), b = operand(e->args[1], s, mult);
        const DpuOp op = e->kind == ExprKind::Add   ? DpuOp::ADD
                         : e->kind == ExprKind::Sub ? DpuOp::SUB
                         : e->kind == ExprKind::Mul ? DpuOp::MUL
                         : e->kind == ExprKind::Min ? DpuOp::MIN
                                                    : DpuOp::MAX;
        emit({op, dst, a, b, 0, 0});
        return;
      }
      case ExprKind::DpuCall: {
        for (const auto& a : e->args) require_f18(a, nullptr);
        std::vector<uint32_t> r;
        for (const auto& a : e->args) r.push_back(operand(a, s, mult));
        const std::string& n = e->name;
        if (n == "lut")
          emit({DpuOp::LUT, dst, r[0], r[1], 0,
                static_cast<uint32_t>(std::max<int64_t>(e->ival, 1))});  // ival: chained tables
        else if (n == "prelu")
          emit({DpuOp::PRELU, dst, r[0], r[1], 0, 0});
        else if (n == "fma")
          emit({DpuOp::FMA, dst, r[0], r[1], r[2], 0});
        else if (n == "add_reduce")
          emit({DpuOp::ADD_REDUCE, dst, r[0], 0, 0, 0});
        else if (n == "max_reduce")
          emit({DpuOp::MAX_REDUCE, dst, r[0], 0, 0, 0});
        else if (n == "min_reduce")
          emit({DpuOp::MIN_REDUCE, dst, r[0], 0, 0, 0});
        else
          fail(e->loc, "A.dpu.ops." + n + " is not a DPU operation");
        return;
      }
      case ExprKind::Float:
      case ExprKind::Int:
        fail(e->loc.known() ? e->loc : s->loc, "There is no float18 literal: DPU constants come from a buffer (§7)",
             "A.alloc_constant([...], \"float32x64\") and read it, cast to float18x64");
      default: fail(e->loc.known() ? e->loc : s->loc, "this expression is not a DPU operation: " + dump(e));
    }
  }

  const StreamInfo& streams_;
  const std::vector<Loop>& iter_;
  std::map<const BufferNode*, uint32_t> regs_;
  uint32_t next_ = 0, temp_ = 0;
  std::vector<Loop> loops_;
  SourceLoc where_;
};

}  // namespace

DpuLowered lower_dpu(const StmtNode& block, const std::vector<Loop>& outer, const StreamInfo& streams, spec::Dtype in0,
                     spec::Dtype in1, const RegionOf& region) {
  std::vector<Stmt> decls, inits, rest;
  for (const auto& s : block.body) {
    if (s->kind == StmtKind::DeclReg)
      decls.push_back(s);
    else if (s->kind == StmtKind::Block && s->unit == Unit::Init)
      inits.push_back(s);
    else
      rest.push_back(s);
  }
  std::vector<Loop> iter = outer;
  const std::vector<Stmt>* body = &rest;
  while (body->size() == 1 && (*body)[0]->kind == StmtKind::For) {
    const Stmt& f = (*body)[0];
    iter.push_back({f->var.get(), f->start, f->extent, f->loc});
    body = &f->body;
  }
  uint64_t iterations = 1;
  for (const auto& l : iter) iterations *= static_cast<uint64_t>(l.extent);

  DpuCompiler c(streams, iter);
  for (const auto& d : decls) c.declare(d->buf.get(), d->loc);
  c.in_init = true;
  for (const auto& i : inits) c.block(i->body, 1);
  c.in_init = false;
  if (!c.loads.empty())
    fail(c.loads[0].loc,
         "A.init reads " + c.loads[0].buf->name +
             " from a buffer: the preamble's constants arrive on the IFD1 side input",
         "with A.init(): reg[0] = A.cast(ifd1_stream.pop(), \"float18x64\")");
  c.init_len = c.code.size();
  c.block(*body, iterations);

  DpuLowered r;
  r.code = std::move(c.code);
  r.desc.init_len = static_cast<uint32_t>(c.init_len);
  r.desc.body_len = static_cast<uint32_t>(r.code.size() - c.init_len);
  r.desc.in0_dtype = in0;
  r.desc.in1_dtype = c.side_seen ? c.in1_seen : in1;
  r.desc.out_dtype = c.out_dtype_.is_index() ? spec::Dtype::FLOAT32 : c.out_dtype_.spec();
  r.desc.iterations = static_cast<uint32_t>(iterations);
  r.pops_main = c.pops_main;
  r.pops_side = c.pops_side;
  r.pushes = c.pushes_;
  if (c.loads.size() > 1)
    fail(c.loads[1].loc,
         "the DPU reads " + std::to_string(c.loads.size()) +
             " buffers per element, but its side input (IFD1) delivers one stream in order",
         "read one buffer per element, or interleave the operands in memory and stream them through A.IFD(num=1) "
         "(§8.3)");
  if (c.loads.size() == 1) {
    const LoadRef& l = c.loads[0];
    WalkPlan w = plan_address(iter, *l.buf, l.idx, region, l.loc);
    r.implicit_ifd1 = true;
    r.ifd1 = encode_walk(w, l.buf->dtype.spec(), l.buf->dtype.spec(), 0, "IFD(num=1)", l.loc);
    r.ifd1_elements = w.elements();
  }
  return r;
}

}  // namespace axcore::compiler::lower_detail
