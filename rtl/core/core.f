// The AI core tile (rtl/core), in compile order. Needs the two packages, rtl/prim, rtl/mem,
// rtl/dma and rtl/top/ax_err_rec.sv before it (rtl/prim/ax_clk_gate.sv, which the uncore gates too,
// is in rtl/sys.f); the primitive only the core uses (the units' rtl/prim/ax_result_tail.sv) is listed here.
rtl/core/ax_core_pkg.sv
rtl/core/ax_f18_pkg.sv
rtl/core/ax_cast_pkg.sv
rtl/prim/ax_result_tail.sv
rtl/core/ax_lane_cast.sv
rtl/core/ax_pword_cast.sv
rtl/core/ax_walk_gen.sv
rtl/core/ax_l1_bank.sv
rtl/core/ax_l1.sv
rtl/core/ax_ifd.sv
rtl/core/ax_odr_trsp.sv
rtl/core/ax_odr.sv
rtl/core/ax_imc.sv
rtl/core/ax_loadimc.sv
rtl/core/ax_mvm.sv
rtl/core/ax_dpu_prog.sv
rtl/core/ax_dpu_seq.sv
rtl/core/ax_dpu_alu.sv
rtl/core/ax_dpu.sv
rtl/core/ax_dwpu_div.sv
rtl/core/ax_dwpu.sv
rtl/core/ax_datapath.sv
rtl/core/ax_imc_apart.sv
rtl/core/ax_fetch_next.sv
rtl/core/ax_cmdproc.sv
rtl/core/ax_barrier_net.sv
rtl/core/ax_core_tile.sv
