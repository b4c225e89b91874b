// DPU register file and execute stage: dpu_registers float18x64 registers and one instruction
// per cycle on whole registers (lane-wise through ax_f18_pkg, or a cross-lane reduction tree),
// the result written at the end of the cycle, so the next instruction reads it. Sources are read
// before dst is written. start_i makes every register +0 (a valid bit per register). Register
// indices arrive resolved (loop counters added, ranges checked by ax_dpu_seq). POP casts the
// popped element to float18 and PUSH casts register a to the output dtype (ax_cast_pkg, as
// ax_pword_cast). The execute logic is combinational (the functions below); the clocked process
// holds only the register writes and calls it under exec_i, so that a simulation evaluates it
// only in cycles that execute.
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

  // A source register: +0 until written since start.
  function automatic f18x64_t rd(logic [4:0] r);
    return rv_q[r] ? rf_q[r] : '0;
  endfunction

  // LUT, per lane: the last chained table (tbl .. tbl + ntbl - 1) whose x_min <= x, then its
  // segment's slope * x + offset.
  function automatic f18x64_t lut(f18x64_t src, logic [4:0] tbl, logic [3:0] ntbl);
    f18x64_t    res, tr;
    f18_t       x;
    f18_t       xmin [8];
    logic [2:0] k;
    logic [4:0] t, j;
    for (int unsigned i = 0; i < 8; i++) xmin[i] = rv_q[tbl + 5'(i)] ? rf_q[tbl + 5'(i)][0] : '0;
    for (int unsigned n = 0; n < PWORD_LANES; n++) begin
      x = src[n];
      k = '0;
      for (int unsigned i = 0; i < 8; i++) if (4'(i) < ntbl && f18_le(xmin[i], x)) k = 3'(i);
      t  = tbl + 5'(k);
      tr = rd(t);
      j  = f18_lut_seg(x, tr[0], tr[1]);
      res[n] = f18_is_nan(x) ? F18_NAN : f18_add(f18_mul(tr[2 + 2 * int'(j)], x), tr[3 + 2 * int'(j)]);
    end
    return res;
  endfunction

  // The register an instruction writes (every op but NOP, PUSH, LOOP, ENDLOOP).
  function automatic f18x64_t result(dpu_op_e op, f18x64_t va, f18x64_t vb, f18x64_t vc,
                                     logic [4:0] tbl, logic [3:0] ntbl, dtype_e pdt, elem_t pel);
    f18x64_t res;
    elem_t   wide;
    res = '0;
    unique case (op)
      DPU_OP_POP: begin
        wide = cast_pword(pdt, DTYPE_FLOAT18, pel);
        for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = wide[32*n +: 18];
      end
      DPU_OP_MOV: res = va;
      DPU_OP_ADD: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_add(va[n], vb[n]);
      DPU_OP_SUB: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_sub(va[n], vb[n]);
      DPU_OP_MUL: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_mul(va[n], vb[n]);
      DPU_OP_MIN: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_min(va[n], vb[n]);
      DPU_OP_MAX: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_max(va[n], vb[n]);
      DPU_OP_FMA: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_fma(va[n], vb[n], vc[n]);
      DPU_OP_PRELU: for (int unsigned n = 0; n < PWORD_LANES; n++) res[n] = f18_prelu(va[n], vb[n]);
      DPU_OP_LUT: res = lut(va, tbl, ntbl);
      DPU_OP_ADD_REDUCE: res = {PWORD_LANES{f18_reduce(va, RED_ADD)}};
      DPU_OP_MAX_REDUCE: res = {PWORD_LANES{f18_reduce(va, RED_MAX)}};
      DPU_OP_MIN_REDUCE: res = {PWORD_LANES{f18_reduce(va, RED_MIN)}};
      default: res = '0;
    endcase
    return res;
  endfunction

  // PUSH: register a cast to the output dtype.
  function automatic elem_t to_out(f18x64_t va, dtype_e dt);
    elem_t wide;
    wide = '0;
    for (int unsigned n = 0; n < PWORD_LANES; n++) wide[32*n +: 32] = 32'(va[n]);
    return cast_pword(DTYPE_FLOAT18, dt, wide);
  endfunction

  always_ff @(posedge clk_i) begin
    if (exec_i && op_i == DPU_OP_PUSH) push_q <= to_out(rd(a_i), push_dt_i);
    else if (exec_i && writes(op_i))   rf_q[dst_i] <= result(op_i, rd(a_i), rd(b_i), rd(c_i), b_i, chain_i, pop_dt_i, pop_i);
  end

  assign push_o = push_q;
endmodule
