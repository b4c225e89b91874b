// The guide's programs written with the builder (guide Part II, §6.2, §6.3, §8.5, §11.2, §12, §13).
// catalog.hpp lists them by name (axc compile NAME, axdemo, tests/compiler/examples_e2e_test.cpp).
#pragma once

#include <axcore/compiler/script.hpp>
#include <cstdint>
#include <functional>

namespace axcore::examples {

namespace A = compiler::A;

// Part II §1: scale an (8, 1) float32x64 input by a constant 2.0, one datapath per element
// (sunk into the units).
A::Module scale();
// Part II §2: the same work as an operator, A.output(axol.atomic.mul(inp, 2.0)).
A::Module scale_op();
// §6.2: out = inp @ W, inp (M, K_BLOCKS) int8x64, W (K, N_BLOCKS) int8x64 constant, float32 out.
// With bias: the §6.2 epilogue (a per-output-column float32 bias read in the DPU).
A::Module matmul(int64_t m, int64_t k_blocks, int64_t n_blocks, bool bias, uint32_t seed = 1);
// §6.2 "the same datapath as a convolution": a 3x3 window over inp (OH + 2, OW + 2, C_IN_BLOCKS)
// int8x64 streamed by an IFD grid (kh, kw, cib), weights (9 * C_in, N_BLOCKS) int8x64 constant
// (row k = (kh * 3 + kw) * C_in + ci), out (OH, OW, N_BLOCKS) float32x64.
A::Module conv3x3(int64_t oh, int64_t ow, int64_t c_in_blocks, int64_t n_blocks, uint32_t seed = 2);
// §6.3: a 3x3 depthwise convolution over two channel blocks through the operator library
// (core.dw_convolution_2d); the filter is a constant here (the operator makes it resident).
A::Module depthwise3x3(int64_t out_h, int64_t out_w, int64_t c_blocks);
// §8.5: a per-channel affine transform, scale and bias loaded once in A.init from IFD1.
A::Module dpu_affine(int64_t rows, float scale, float bias);
// §8.5: row sum over NB blocks with a register file, then add_reduce across the lanes.
A::Module row_sum(int64_t rows, int64_t nb);
// §11.2 / §12: the §6.2 matmul + bias whose M loop is written A.tiles(M, bounds): the tiling pass
// copies each tile of input rows into L1 and each tile of results out (SysDMA blocks it inserts);
// with bounds.drain = 2 the loads, the compute and the stores of consecutive tiles overlap (§12).
A::Module tiled_matmul(int64_t m, int64_t k_blocks, int64_t n_blocks, compiler::TileBounds bounds, uint32_t seed = 5);
// §13: ViTPatchEmbed composed from operators in a prim_func (the YAML model
// examples/models/vit_patch_embed.yaml is the same graph): slice_tensor, a 4x4 stride-4
// convolution, reshape, sub_tensor.
A::Module vit_patch_embed();

// guide_constructs.cpp: constructs no whole program above uses, each as the guide writes it.
// §4.4: A.grid(*shape, always_tuple=True) (A::grid_nest) over a (2, 3, 2) float32x64 input, each
// element scaled by the constant of its channel block (the loop tuple's last entry); and A.unroll:
// for u in A.unroll(2): for i in A.serial(4): one datapath (two datapaths, i sunk), then
// A.unroll(2, 3) around a copy datapath, over a (3, 4) input `rows`.
A::Module loop_forms();
// §5 A.IntImm and §8.4 / §8.5 A.buffer_store: an (8, 1) output from a (6, 1) int8x64 input, its
// rows reversed (inp[A.IntImm("int32", 5) - i]) and two rows of A.Broadcast(A.IntImm("int8", -7), 64)
// padding after them, scaled in the DPU through a register file written by A.buffer_store,
// stored by A.buffer_store(out, ...).
A::Module int_imm_store();
// §8.4 store or drop: a (4, 4) float32x64 input doubled, the ODR storing columns 0..2 mirrored
// (out[r, 2 - c]) into a (4, 3) output under A.If(c < 3) and dropping column 3 with A.drop(s.pop())
// (stored, column 3 would land on the previous row's last column).
A::Module store_or_drop();
// §7 A.dpu.ops.dpu_reduce, dpu_fma, A.min / A.max: per row of a (4, 3) float32x64 input, the
// blocks combined elementwise by a running A.max and A.min, reduced across the lanes by
// dpu_reduce(.., "max") / "min", out[r, 0] = dpu_fma(max, 0.75, min), out[r, 1] =
// dpu_reduce(block 0, "add").
A::Module dpu_reduce_fma();
// §10 A.where(cond): an (8, 1) float32x64 input copied into L1 (SysDMA), b = 2 * a on rows 0..4
// and 3 * a on rows 5..7 (two datapath loops over all 8 rows, each with A.where; the A.where in
// the ODR is inert), c = a on rows 0..3 and b on rows 4..7 (two CoreDMA loops with A.where), and
// out = c by the second of two unrolled SysDMA blocks (A.where(h == 1)).
A::Module where_guard();
// §6.1 pinned stream scopes and §6.4 A.bypass(), over (8, 1) float32x64 inputs `inp` and `wts`:
// prod = inp * wts through streams pinned IFD_0_STREAM / IFD_1_STREAM / DPU_STREAM, the weights'
// block written A.IFD() without num (its stream's pin makes it the side input); copy = inp
// exactly through IFD -> MatMul (A.bypass()) -> DPU (A.bypass()) -> ODR; twice = 2 * inp with
// A.IFD(num=1): A.bypass() beside a DPU reading its constant directly.
A::Module stream_pins_bypass();
// §12 A.sync(buffers=) and A.signals, with §4.2's macro as a C++ function: (4, 1) float32x64
// inputs a and b copied into L1 by two SysDMA copies tagged "load"; A.sync(waits=["load"],
// buffers=[a_l1]) waits for a's copy only; out_a = a + a (datapath "ew_a"); A.signals("a_done")
// marks what was launched so far (b's copy, ew_a) done; A.waits("a_done"); out_b = b + b. Both
// datapath loops are emitted by one statement-emitting helper (the guide's @A.macro). `guard`, when
// given, is written in place of that A.sync (tests compare the waits other syncs place).
A::Module sync_signals(const std::function<void(const A::BufferHandle& a_l1)>& guard = {});
// §7 the DPU intrinsics as a program's own DPU block, over a (4, 2) float32x64 input: three
// constants (a LUT table fitted to x^2 / 128 on [-128, 128], a PReLU slope 0.25, 0.5) preloaded in
// A.init into an A.array; per row the blocks x[0], x[1] in an A.array, m = A.Max(x0, x1),
// n = A.Min(x0, x1) (A.var), and four results: fma(max_reduce(m), 0.5, min_reduce(n)),
// add_reduce(x0), prelu(x1, 0.25), lut(x0, table).
A::Module dpu_ops();
// §5 the scalar constructors as the IFD's pad values and index bounds: out_q (6, 1) = the (4, 1)
// int8x64 input q then two rows of A.Broadcast(A.int8(-3), 64) (bounds A.int32(4)), cast to float32
// in the DPU; out_x (6, 1) = the (4, 1) float32x64 input x, then two rows of
// A.Broadcast(A.float32(-1.5), 64) (bounds A.int32(0) and A.int32(4); IFD -> ODR, exact).
A::Module scalar_values();

// §6 / §9.2 several blocks of one unit: IFD -> DPU -> IFD -> DPU -> ODR in one datapath inside
// A.grid(4): a (4, 1) input a doubled by the first DPU block, b plus 3 by the second, both pushing
// one stream the ODR stores two elements per iteration of (for j in A.serial(2): out[i, j]). Sunk,
// each block runs every iteration before the next block starts, so out's rows in order hold 2a
// for every i, then b + 3 (not (2a_i, b_i + 3) per row).
A::Module two_dpu_blocks();

// §6 / §9.2 with the main stage: inp (4, 2) int8x64 @ weights (128, 2) int8x64, one MVMEXE
// datapath per row m holding IFD -> MatMul -> DPU -> ODR twice (column block 0, then 1; a C++ loop
// writes the copies), sunk over m: one task per DPU block, out (4, 2) float32x64 = inp @ weights.
A::Module two_matmul_blocks();

// §8.3 several streams on one feeder, the guide's legitimate sequential form: sa and sb both
// A.IFD_1_STREAM, each fed by an A.IFD(num=1) block of its own; one DPU block pops all of sa (into
// registers), then all of sb, so the feeder runs them as two segments of one task. x, a, b (4, 1)
// float32x64; out (4, 1) = x * a + b (float18 each step).
A::Module feeder_segments();

// §8.3 with differently typed and shaped segments on both feeders of one task: IFD0 runs m1 (the
// (4, 1) int8x64 q) then m2 (all of the (2, 2) float32x64 x); IFD1 runs s1 (the one element of the
// (1, 1) float32x64 s) then s2 (int8x64 g[2j, k + 1] of a (3, 4) g over j, k < 2: a strided 2-D
// walk). out (8, 1) float32x64 = q * s, then x + g[...] in that order.
A::Module feeder_segments_mixed();

// §5.1 memory scopes: an (8, 1) float32x64 input copied into `staged` (A.L2, the mem tile) by a
// SysDMA, from there into `a` (A.L1) by a CoreDMA; mid = 2a (A.L2: the units write its L1 copy,
// which the compiler copies to L2 before a SysDMA moves mid to the output `out`); small = 3 mid
// (A.L2_WEAK: it fits L1, so it lives there alone) copied to `out2`.
A::Module memory_scopes();
// §5.1 / §11: y = 2x, z = 3y over `rows` float32x64 rows, y allocated in `y_scope`. With rows
// beyond L1 and y A.L1_WEAK, y moves to L2 and both loops are tiled through L1 (DDR traffic: x and
// z only); with y A.DDR the tiles of y go through DDR.
A::Module l2_spill(int64_t rows, compiler::Scope y_scope);

}  // namespace axcore::examples
