#include "axcore/compiler/compile.hpp"

#include <algorithm>

#include "axcore/compiler/printer.hpp"

namespace axcore::compiler {

std::string CompileResult::ir_lowered() const { return lowered ? dump(*lowered) : std::string(); }

CompileResult compile(const PrimFunc& in, const CompileOptions& opt) { return compile(in, opt, TilingOptions{}); }

CompileResult compile(const PrimFunc& in, const CompileOptions& opt, const TilingOptions& tiling) {
  const auto start = std::chrono::steady_clock::now();
  if (tiling.l1_bytes > spec::param::l1_bytes || tiling.l1_bytes < spec::param::l1_row_bytes)
    fail(in.body->loc,
         "an L1 budget of " + std::to_string(tiling.l1_bytes) + " bytes: this device's L1 holds " +
             std::to_string(spec::param::l1_bytes) + " bytes (spec l1_bytes)",
         "a budget between " + std::to_string(spec::param::l1_row_bytes) + " and " +
             std::to_string(spec::param::l1_bytes));
  if (tiling.l2_bytes > spec::param::l2_bytes)
    fail(in.body->loc,
         "an L2 budget of " + std::to_string(tiling.l2_bytes) + " bytes: this device's L2 holds " +
             std::to_string(spec::param::l2_bytes) + " bytes (spec l2_bytes)",
         "a budget of at most " + std::to_string(spec::param::l2_bytes));
  LowerOptions lo;
  lo.cores = opt.cores;
  lo.l1_bytes = tiling.l1_bytes;
  lo.l2_bytes = tiling.l2_bytes;
  lo.overlap = opt.overlap;
  lo.hazards_are_errors = opt.hazards_are_errors;
  lo.imc_tiles = static_cast<uint32_t>(std::min<int64_t>(tiling.imc_tiles, spec::param::imc_tiles));
  const EmitOptions eo{opt.name, opt.source};
  TilingOptions t = tiling;
  t.cores = std::max(t.cores, opt.cores);
  CompileResult r;
  PrimFunc f;
  // An L1 overflow moves the largest weak scratch buffer still in L1 out of it (guide §5.1: a weak
  // scope is one the placement may move) and compiles again; with none left, it is the error.
  for (;;) {
    f = in;
    f.body = make_stmt(StmtKind::Seq, in.body->loc);
    f.body->body = in.body->body;
    PassManager pm;
    pm.add("block-predicates", [](PrimFunc& g) { apply_block_predicates(g, false); });
    pm.add("split-k", [&tiling](PrimFunc& g) { split_k(g, tiling); });
    pm.add("partition-cores", [t](PrimFunc& g) { partition_cores(g, t); });
    pm.add("place-scopes", [t](PrimFunc& g) { place_scopes(g, t); });
    pm.add("tile-l1", [t](PrimFunc& g) { tile_for_l1(g, t); });
    pm.add("sink-and-unroll", sink_and_unroll)
        .add("block-predicates-final", [](PrimFunc& g) { apply_block_predicates(g, true); })
        .add("drop-empty-loops", drop_empty_loops)
        .add("infer-datapath-kinds", infer_datapath_kinds)
        .add("fuse", [auto_fuse = opt.fuse](PrimFunc& g) { fuse_datapaths(g, auto_fuse); });
    pm.add("lower", [&r, lo](PrimFunc& g) { r.program = lower(g, lo); });
    pm.add("emit", [&r, eo](PrimFunc& g) { r.bundle = emit_bundle(g, r.program, eo); });
    try {
      r.timings = pm.run(f, opt.verify_each);
      break;
    } catch (const L1Overflow& e) {
      const BufferNode* victim = nullptr;
      for (const auto& b : f.buffers)
        if (!b->alias_of && b->role == BufferRole::Local && !b->output && b->scope == Scope::L1_WEAK &&
            !t.spill.count(b->name) &&
            (!victim || b->elements() * b->dtype.bytes() > victim->elements() * victim->dtype.bytes()))
          victim = b.get();
      if (!victim || t.cores > 1) throw;
      t.spill[victim->name] = "L1 overflowed at " + e.loc().str() + ": " + e.message();
    }
  }
  r.warnings = r.program.warnings;
  r.program.fusion_notes = f.fusion_notes;
  r.program.operator_notes = f.operator_notes;
  r.lowered = std::make_shared<const PrimFunc>(std::move(f));
  r.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace axcore::compiler
