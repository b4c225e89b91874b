// DPU register file and execute stage: dpu_registers float18x64 registers and one instruction
// per cycle on whole registers (lane-wise through ax_f18_pkg, or a cross-lane reduction tree),
// the result written at the end of the cycle, so the next instruction reads it. Sources are read
// before dst is written. start_i makes every register +0 (a valid bit per register). Register
// indices arrive resolved (loop counters added, ranges checked by ax_dpu_seq). POP casts the
// popped element to float18 and PUSH casts register a to the output dtype (ax_cast_pkg, as
// ax_pword_cast). The execute logic is combinational and gated by exec_i, so that a simulation
// evaluates it only in cycles that execute; a small clocked process registers its result.
module ax_dpu_alu
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_cast_pkg::*;
  import ax_f18_pkg::*;
(
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       start_i,     // every register becomes +0
  input  logic       exec_i,      // execute op_i this cycle
  input  dpu_op_e    op_i,
  input  logic [4:0] dst_i,
  input  logic [4:0] a_i,
  input  logic [4:0] b_i,         // LUT: the first table register
  input  logic [4:0] c_i,
  input  logic [3:0] chain_i,     // LUT: tables chained (1..8)
  input  elem_t      pop_i,       // POP: the popped element (its stream's image)
  input  dtype_e     pop_dt_i,    // its dtype
  input  dtype_e     push_dt_i,   // the output stream's dtype
  output elem_t      push_o       // PUSH: register a cast to push_dt_i, captured in the PUSH cycle
);
  localparam int unsigned NR = DPU_REGISTERS;

  f18x64_t       rf_q [NR];
  logic [NR-1:0] rv_q;            // register written since start (else it reads +0)
  elem_t         push_q;

  function automatic logic writes(dpu_op_e op);
    return !(op inside {DPU_OP_NOP, DPU_OP_PUSH, DPU_OP_LOOP, DPU_OP_ENDLOOP});
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)                         rv_q <= '0;
    else if (start_i)                    rv_q <= '0;
    else if (exec_i && writes(op_i))     rv_q[dst_i] <= 1'b1;
  end

  // The next value, computed only in cycles that execute (res_d for a register, wide_d for PUSH)
  // and registered below. The block's temporaries (ra .. j) are written before they are read in
  // every cycle that executes and are left alone in the others: not latches, and only res_d and
  // wide_d (assigned on every path) leave the block, hence the LATCH waiver on this block only.
  f18x64_t res_d;
  elem_t   wide_d;

  /* verilator lint_off LATCH */
  always_comb begin
    res_d  = '0;
    wide_d = '0;
    if (exec_i && op_i != DPU_OP_NOP && op_i != DPU_OP_LOOP && op_i != DPU_OP_ENDLOOP) begin
      f18x64_t    ra, rb, rc, res, tr;
      elem_t      wide;
      f18_t       x;
      f18_t       xmin [8];
      logic [2:0] k;
      logic [4:0] t, j;
      ra  = rv_q[a_i] ? rf_q[a_i] : '0;
      rb  = rv_q[b_i] ? rf_q[b_i] : '0;
      rc  = rv_q[c_i] ? rf_q[c_i] : '0;
      res = '0;
      unique case (op_i)
        DPU_OP_POP: begin
          wide = cast_pword(pop_dt_i, DTYPE_FLOAT18, pop_i);
          for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = wide[32*n +: 18];
        end
        DPU_OP_PUSH: begin
          wide = '0;
          for (int unsigned n = 0; n < PWORD_LANES; n++) wide[32*n +: 32] = 32'(ra[n]);
          wide_d = cast_pword(DTYPE_FLOAT18, push_dt_i, wide);
        end
        DPU_OP_MOV: res = ra;
        DPU_OP_ADD: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_add(ra[n], rb[n]);
        DPU_OP_SUB: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_sub(ra[n], rb[n]);
        DPU_OP_MUL: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_mul(ra[n], rb[n]);
        DPU_OP_MIN: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_min(ra[n], rb[n]);
        DPU_OP_MAX: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_max(ra[n], rb[n]);
        DPU_OP_FMA: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_fma(ra[n], rb[n], rc[n]);
        DPU_OP_PRELU: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_prelu(ra[n], rb[n]);
        DPU_OP_LUT: begin
          // per lane: the last chained table whose x_min <= x, then its segment's slope * x + offset
          for (int unsigned i = 0; i < 8; i++) xmin[i] = rv_q[b_i + 5'(i)] ? rf_q[b_i + 5'(i)][0] : '0;
          for (int unsigned n = 0; n < PWORD_LANES; n++) begin
            x = ra[n];
            k = '0;
            for (int unsigned i = 0; i < 8; i++) if (4'(i) < chain_i && f18_le(xmin[i], x)) k = 3'(i);
            t  = b_i + 5'(k);
            tr = rv_q[t] ? rf_q[t] : '0;
            j  = f18_lut_seg(x, tr[0], tr[1]);
            res[n] = f18_is_nan(x) ? F18_NAN : f18_add(f18_mul(tr[2 + 2 * int'(j)], x), tr[3 + 2 * int'(j)]);
          end
        end
        DPU_OP_ADD_REDUCE: res = {PWORD_LANES{f18_reduce(ra, RED_ADD)}};
        DPU_OP_MAX_REDUCE: res = {PWORD_LANES{f18_reduce(ra, RED_MAX)}};
        DPU_OP_MIN_REDUCE: res = {PWORD_LANES{f18_reduce(ra, RED_MIN)}};
        default: res = '0;
      endcase
      res_d = res;
    end
  end
  /* verilator lint_on LATCH */

  always_ff @(posedge clk_i) begin
    if (exec_i && op_i == DPU_OP_PUSH) push_q <= wide_d;
    else if (exec_i && writes(op_i))   rf_q[dst_i] <= res_d;
  end

  assign push_o = push_q;
endmodule
