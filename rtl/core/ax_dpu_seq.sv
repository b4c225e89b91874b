// DPU sequencer (common/ref Dpu): runs the init preamble [0, init_len) once, then the body
// [init_len, init_len + body_len) `iterations` times, one instruction per cycle (LOOP and ENDLOOP
// one cycle each, ENDLOOP once per iteration of its loop). POP waits for its stream, PUSH for an
// output slot (credit_i); both retry every cycle. Loop-indexed operands add the counter of the
// k-th open loop (k = 1 outermost); a resolved register outside the file (or LUT tables leaving
// it) stops the DPU with DPU_ILLEGAL when the instruction is reached. The program is validated
// by ax_dpu_prog before the task starts.
module ax_dpu_seq
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
(
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       start_i,
  input  logic       abort_i,
  // verilator lint_off UNUSEDSIGNAL
  input  dpu_desc_t  desc_i,      // dtypes and reserved words are ax_dpu's
  // verilator lint_on UNUSEDSIGNAL
  output logic [7:0] pc_o,
  input  dpu_instr_t instr_i,     // the instruction at pc_o
  input  logic       in0_valid_i,
  input  logic       in1_valid_i,
  input  logic       credit_i,    // PUSH may issue
  input  logic       drained_i,   // no PUSH in flight to the output stream
  output logic       exec_o,      // the instruction at pc_o executes this cycle
  output logic [4:0] dst_o,
  output logic [4:0] a_o,
  output logic [4:0] b_o,
  output logic [4:0] c_o,
  output logic [3:0] chain_o,
  output logic       pop_o,       // exec_o of a POP (pop_sel_o: 0 = main input, 1 = IFD1)
  output logic       pop_sel_o,
  output logic       push_o,      // exec_o of a PUSH
  output logic       busy_o,
  output logic       finished_o,  // the program ran to its end
  output unit_err_t  err_o,
  output act_t       act_o,
  output logic       wait_in1_o   // stalled on IFD1 (WDOG_WAITS dpu_in1)
);
  localparam int unsigned NR = DPU_REGISTERS;
  localparam int unsigned LD = DPU_LOOP_DEPTH;

  typedef enum logic [1:0] {PH_INIT, PH_BODY, PH_DONE} phase_e;

  logic              active_q, active_d, fault_q, fault_d;
  phase_e            ph_q, ph_d;
  logic [7:0]        pc_q, pc_d;
  logic [31:0]       it_q, it_d;
  logic [1:0]        dep_q, dep_d;
  logic [LD-1:0][7:0]  ls_q, ls_d;     // first instruction of each open loop's body
  logic [LD-1:0][15:0] lc_q, lc_d;     // iteration counts
  logic [LD-1:0][15:0] li_q, li_d;     // counters (0-based)

  // ---- decode ----
  logic ud, ua, ub, uc;
  assign {uc, ub, ua, ud} = dpu_uses(instr_i.op);

  // register = reg + counter of loop `index` (the validator guarantees that loop is open)
  // verilator lint_off UNUSEDSIGNAL
  function automatic logic [16:0] resolve(logic [7:0] operand, logic [LD-1:0][15:0] cnt);
    dpu_operand_t o;
    logic [1:0]   lvl;
    o   = dpu_operand(operand);
    lvl = 2'(o.index) - 2'd1;
    if (o.index == DPU_INDEX_NONE) return 17'(o.reg_f);
    return 17'(o.reg_f) + 17'(cnt[lvl]);
  endfunction  // the reserved bits are the validator's
  // verilator lint_on UNUSEDSIGNAL

  logic [16:0] rd, ra, rb, rc;
  logic [3:0]  chain;
  logic        bad, running, ready, exec;
  assign rd    = resolve(instr_i.dst, li_q);
  assign ra    = resolve(instr_i.a, li_q);
  assign rb    = resolve(instr_i.b, li_q);
  assign rc    = resolve(instr_i.c, li_q);
  assign chain = lut_chain(instr_i.imm);
  assign bad   = (ud && rd >= 17'(NR)) || (ua && ra >= 17'(NR)) || (ub && rb >= 17'(NR)) ||
                 (uc && rc >= 17'(NR)) ||
                 (instr_i.op == DPU_OP_LUT && rb + 17'(chain) > 17'(NR));
  assign running = active_q && ph_q != PH_DONE && !fault_q;
  always_comb begin
    ready = 1'b1;
    if (instr_i.op == DPU_OP_POP)  ready = instr_i.imm[0] ? in1_valid_i : in0_valid_i;
    if (instr_i.op == DPU_OP_PUSH) ready = credit_i;
  end
  assign exec = running && !bad && ready;

  // ---- next state ----
  logic [1:0]  top;   // innermost open loop
  assign top = dep_q - 2'd1;
  logic [8:0]  body_end;
  assign body_end = 9'(desc_i.init_len) + 9'(desc_i.body_len);

  // Moves to the body / the next iteration / done when pc leaves its section (ref Dpu::settle).
  task automatic settle(inout phase_e ph, inout logic [7:0] pcv, inout logic [31:0] it);
    if (ph == PH_INIT && pcv >= desc_i.init_len) begin
      ph = PH_BODY;
      pcv = desc_i.init_len;
      it = '0;
    end
    if (ph == PH_BODY) begin
      if (desc_i.iterations == '0 || desc_i.body_len == '0) ph = PH_DONE;
      else if (9'(pcv) >= body_end) begin
        pcv = desc_i.init_len;
        if (33'(it) + 33'd1 >= 33'(desc_i.iterations)) ph = PH_DONE;
        else it = it + 32'd1;
      end
    end
  endtask

  always_comb begin
    active_d = active_q;
    fault_d  = fault_q || (running && bad);
    ph_d     = ph_q;
    pc_d     = pc_q;
    it_d     = it_q;
    dep_d    = dep_q;
    ls_d     = ls_q;
    lc_d     = lc_q;
    li_d     = li_q;
    if (exec) begin
      pc_d = pc_q + 8'd1;
      if (instr_i.op == DPU_OP_LOOP) begin
        ls_d[dep_q] = pc_q + 8'd1;
        lc_d[dep_q] = instr_i.imm;
        li_d[dep_q] = '0;
        dep_d       = dep_q + 2'd1;
      end else if (instr_i.op == DPU_OP_ENDLOOP) begin
        if (32'(li_q[top]) + 32'd1 < 32'(lc_q[top])) begin
          li_d[top] = li_q[top] + 16'd1;
          pc_d      = ls_q[top];
        end else dep_d = top;
      end
      settle(ph_d, pc_d, it_d);
    end
    if (active_q && ((ph_q == PH_DONE && drained_i) || fault_q)) active_d = 1'b0;
    if (start_i) begin
      active_d = 1'b1;
      fault_d  = 1'b0;
      ph_d     = PH_INIT;
      pc_d     = '0;
      it_d     = '0;
      dep_d    = '0;
      settle(ph_d, pc_d, it_d);
    end
    if (abort_i) active_d = 1'b0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      fault_q  <= 1'b0;
      ph_q     <= PH_DONE;
      pc_q     <= '0;
      it_q     <= '0;
      dep_q    <= '0;
      ls_q     <= '0;
      lc_q     <= '0;
      li_q     <= '0;
    end else begin
      active_q <= active_d;
      fault_q  <= fault_d;
      ph_q     <= ph_d;
      pc_q     <= pc_d;
      it_q     <= it_d;
      dep_q    <= dep_d;
      ls_q     <= ls_d;
      lc_q     <= lc_d;
      li_q     <= li_d;
    end
  end

  assign pc_o       = pc_q;
  assign exec_o     = exec;
  assign dst_o      = rd[4:0];
  assign a_o        = ra[4:0];
  assign b_o        = rb[4:0];
  assign c_o        = rc[4:0];
  assign chain_o    = chain;
  assign pop_o      = exec && instr_i.op == DPU_OP_POP;
  assign pop_sel_o  = instr_i.imm[0];
  assign push_o     = exec && instr_i.op == DPU_OP_PUSH;
  assign busy_o     = active_q;
  assign finished_o = active_q && ph_q == PH_DONE;
  always_comb begin
    err_o           = '0;
    err_o.valid     = running && bad;
    err_o.code      = ERROR_CODE_DPU_ILLEGAL;
    act_o           = '0;
    act_o.busy      = exec;
    act_o.stall_in  = running && !bad && !ready && instr_i.op == DPU_OP_POP;
    act_o.stall_out = running && !bad && !ready && instr_i.op == DPU_OP_PUSH;
  end
  assign wait_in1_o = act_o.stall_in && instr_i.imm[0];

  logic unused;
  assign unused = ^{instr_i[63:56], instr_i[31:30]};
endmodule
