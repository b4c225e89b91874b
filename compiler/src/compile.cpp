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
  PrimFunc f = in;
  f.body = make_stmt(StmtKind::Seq, in.body->loc);
  f.body->body = in.body->body;
  PassManager pm;
  pm.add("block-predicates", [](PrimFunc& g) { apply_block_predicates(g, false); });
  pm.add("split-k", [&tiling](PrimFunc& g) { split_k(g, tiling); });
  TilingOptions t = tiling;
  t.cores = std::max(t.cores, opt.cores);
  pm.add("partition-cores", [t](PrimFunc& g) { partition_cores(g, t); });
  pm.add("tile-l1", [t](PrimFunc& g) { tile_for_l1(g, t); });
  pm.add("sink-and-unroll", sink_and_unroll)
      .add("block-predicates-final", [](PrimFunc& g) { apply_block_predicates(g, true); })
      .add("drop-empty-loops", drop_empty_loops)
      .add("infer-datapath-kinds", infer_datapath_kinds)
      .add("fuse", [auto_fuse = opt.fuse](PrimFunc& g) { fuse_datapaths(g, auto_fuse); });
  LowerOptions lo;
  lo.cores = opt.cores;
  lo.l1_bytes = tiling.l1_bytes;
  lo.overlap = opt.overlap;
  lo.hazards_are_errors = opt.hazards_are_errors;
  lo.imc_tiles = static_cast<uint32_t>(std::min<int64_t>(tiling.imc_tiles, spec::param::imc_tiles));
  CompileResult r;
  const EmitOptions eo{opt.name, opt.source};
  pm.add("lower", [&r, lo](PrimFunc& g) { r.program = lower(g, lo); });
  pm.add("emit", [&r, eo](PrimFunc& g) { r.bundle = emit_bundle(g, r.program, eo); });
  r.timings = pm.run(f, opt.verify_each);
  r.warnings = r.program.warnings;
  r.program.fusion_notes = f.fusion_notes;
  r.lowered = std::make_shared<const PrimFunc>(std::move(f));
  r.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace axcore::compiler
