#include "catalog.hpp"

namespace axcore::examples {

const std::vector<Example>& catalog() {
  static const std::vector<Example> k = {
      {"scale", "Part II §1: scale by 2.0, one datapath per element (sunk)", [] { return scale(); }},
      {"scale_op", "Part II §2: the same as one operator, atomic.mul(inp, 2.0)", [] { return scale_op(); }},
      {"matmul", "§6.2: 64 x 512 @ 512 x 256 int8, float32 out", [] { return matmul(64, 8, 4, false); }, true},
      {"matmul_bias", "§6.2 epilogue: 16 x 128 @ 128 x 128 + per-column bias", [] { return matmul(16, 2, 2, true); }},
      {"conv3x3", "§6.2 as a convolution: 3x3 window, 128 -> 128 channels, 6 x 6 out",
       [] { return conv3x3(6, 6, 2, 2); }, true},
      {"depthwise3x3", "§6.3: 3x3 depthwise over two channel blocks, 8 x 16 out",
       [] { return depthwise3x3(8, 16, 2); }},
      {"dpu_affine", "§8.5: per-channel affine with an A.init preamble", [] { return dpu_affine(16, 0.5f, 1.0f); }},
      {"row_sum", "§8.5: row sum with a register file and add_reduce", [] { return row_sum(8, 4); }},
      {"tiled_matmul", "§11.2: matmul + bias, M written A.tiles(64, tile_max=16): 4 tiles DMA'd in and out",
       [] { return tiled_matmul(64, 8, 4, {.tile_min = 0, .tile_max = 16, .num_tiles = 0, .drain = 0}); }, true},
      {"pipelined_matmul", "§12: the same, A.tiles(64, num_tiles=4, drain=2): load, compute, store overlap",
       [] { return tiled_matmul(64, 8, 4, {.tile_min = 0, .tile_max = 0, .num_tiles = 4, .drain = 2}); }, true},
      {"vit_patch_embed", "§13: ViTPatchEmbed from operators (slice, 4x4/4 conv, reshape, sub)",
       [] { return vit_patch_embed(); }, true},
      {"loop_forms", "§4.4: A.grid(*shape, always_tuple=True) over a computed rank, A.unroll(2) / A.unroll(2, 3)",
       [] { return loop_forms(); }},
      {"int_imm_store", "§5, §8.5: A.IntImm pad and index, A.buffer_store into registers and the output",
       [] { return int_imm_store(); }},
      {"store_or_drop", "§8.4: A.If / A.Then / A.Else in the ODR, surplus column dropped with A.drop",
       [] { return store_or_drop(); }},
      {"dpu_reduce_fma", "§7: running A.max / A.min, dpu_reduce(x, \"max\" / \"min\" / \"add\"), dpu_fma",
       [] { return dpu_reduce_fma(); }},
      {"where_guard", "§10: A.where on datapaths, CoreDMA and SysDMA blocks bounds what they move",
       [] { return where_guard(); }},
      {"two_dpu_blocks", "§9.2: IFD -> DPU -> IFD -> DPU -> ODR in one sunk datapath, one task per DPU block",
       [] { return two_dpu_blocks(); }},
      {"two_matmul_blocks", "§9.2 with the main stage: IFD -> MatMul -> DPU -> ODR twice in one sunk MVMEXE datapath",
       [] { return two_matmul_blocks(); }},
      {"feeder_segments", "§8.3: sa, sb on one feeder (IFD_1_STREAM) popped all of sa, then all of sb: two segments",
       [] { return feeder_segments(); }},
      {"feeder_segments_mixed", "§8.3: int8 then float32 on IFD0, float32 then a strided int8 walk on IFD1, one task",
       [] { return feeder_segments_mixed(); }},
      {"stream_pins_bypass",
       "§6.1, §6.4: streams pinned to IFD_0/IFD_1/DPU_STREAM, A.bypass() in MatMul, DPU, IFD(num=1)",
       [] { return stream_pins_bypass(); }},
      {"sync_signals", "§12: A.sync(waits=, buffers=) waits for one copy, A.signals marks the rest done",
       [] { return sync_signals(); }},
      {"dpu_ops", "§7: lut, prelu, fma, max/min/add_reduce, A.Max / A.Min in a program's own DPU block",
       [] { return dpu_ops(); }},
      {"scalar_values", "§5: A.int8 / A.int32 / A.float32 in A.Broadcast pads and IFD bounds, A.cast",
       [] { return scalar_values(); }},
      {"memory_scopes", "§5.1: A.L2 / A.L2_WEAK / A.L1 buffers, DDR -> L2 -> L1 copies and back",
       [] { return memory_scopes(); }},
      {"l2_spill", "§5.1, §11: a 1.5 MiB A.L1_WEAK intermediate moved to L2, both loops tiled through L1",
       [] { return l2_spill(6144, A::L1_WEAK); }, false, 1},
  };
  return k;
}

const Example* find_example(const std::string& name) {
  for (const auto& e : catalog())
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace axcore::examples
