// DPU (spec dpu_desc / dpu_instr, common/ref Dpu, docs/timing.md "DPU"): program memory and
// validator (ax_dpu_prog), sequencer (ax_dpu_seq), register file + float18 execute
// (ax_dpu_alu, which also casts: POP from in0_dtype / in1_dtype or its imm's dtype to float18, PUSH from float18 to
// out_dtype, the ax_cast_pkg functions of ax_pword_cast). One instruction per cycle; a PUSH
// enters the output stream (stream_depth, inside the unit) dpu_latency cycles after it issued
// and issues only when a slot is reserved for it. Done once the program ran to its end and its
// last push entered the stream. The registers are +0 at every start.
// verilator lint_off PINCONNECTEMPTY
module ax_dpu
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic        abort_i,
  input  dpu_desc_t   desc_i,
  input  logic        has_in1_i,     // the datapath has IFD1
  // program load: the descriptor words as the command processor fetches them
  input  logic        prog_wr_i,
  input  logic [15:0] prog_idx_i,
  input  word_t       prog_data_i,
  input  logic        prog_bank_i,   // program bank being loaded (two: one runs, one loads)
  input  dpu_desc_t   prog_dpu_i,    // the loading descriptor's DPU section and IFD1 bit
  input  logic        prog_in1_i,
  input  logic        run_bank_i,    // bank of the task checked / run (desc_i, has_in1_i)
  output error_code_e prog_code_o,   // validation of the run bank's program (NONE: legal)
  output logic        busy_o,
  output logic        done_o,        // pulse
  output unit_err_t   err_o,
  output act_t        act_o,
  output logic        wait_in1_o,
  // main input (MVM/DWPU output or IFD0), IFD1, output
  input  logic        in0_valid_i,
  output logic        in0_ready_o,
  input  strm_t       in0_data_i,
  input  logic        in1_valid_i,
  output logic        in1_ready_o,
  input  strm_t       in1_data_i,
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output strm_t       out_data_o
);
`ifndef SYNTHESIS
  initial assert (DPU_LATENCY >= 1) else $fatal(1, "ax_dpu: dpu_latency must be >= 1");
`endif

  logic [7:0] pc;
  dpu_instr_t instr;
  ax_dpu_prog u_prog (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .wr_i       (prog_wr_i),
    .wr_idx_i   (prog_idx_i),
    .wr_data_i  (prog_data_i),
    .wr_bank_i  (prog_bank_i),
    .wr_desc_i  (prog_dpu_i),
    .wr_in1_i   (prog_in1_i),
    .rd_bank_i  (run_bank_i),
    .desc_i     (desc_i),
    .has_in1_i  (has_in1_i),
    .rd_pc_i    (pc),
    .rd_instr_o (instr),
    .code_o     (prog_code_o)
  );

  logic       exec, pop, pop_sel, push, credit, finished;
  logic [4:0] dst, ra, rb, rc;
  logic [3:0] chain;
  logic       drained;

  ax_dpu_seq u_seq (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .start_i     (start_i),
    .abort_i     (abort_i),
    .desc_i      (desc_i),
    .pc_o        (pc),
    .instr_i     (instr),
    .in0_valid_i (in0_valid_i),
    .in1_valid_i (in1_valid_i),
    .credit_i    (credit),
    .drained_i   (drained),
    .exec_o      (exec),
    .dst_o       (dst),
    .a_o         (ra),
    .b_o         (rb),
    .c_o         (rc),
    .chain_o     (chain),
    .pop_o       (pop),
    .pop_sel_o   (pop_sel),
    .push_o      (push),
    .busy_o      (busy_o),
    .finished_o  (finished),
    .err_o       (err_o),
    .act_o       (act_o),
    .wait_in1_o  (wait_in1_o)
  );
  assign in0_ready_o = pop && !pop_sel;
  assign in1_ready_o = pop && pop_sel;

  // POP casts from its stream's dtype, or from the dtype its imm names (spec dpu_pop: a later
  // segment of another dtype on the feeder, guide §8.3)
  // verilator lint_off UNUSEDSIGNAL
  dpu_pop_t pop_imm;   // its own_dtype and dtype
  // verilator lint_on UNUSEDSIGNAL
  dtype_e   pop_dt;
  assign pop_imm = dpu_pop_t'(32'(instr.imm));
  assign pop_dt  = pop_imm.own_dtype ? pop_imm.dtype : pop_sel ? desc_i.in1_dtype : desc_i.in0_dtype;

  elem_t push_cast;
  ax_dpu_alu u_alu (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .start_i   (start_i),
    .exec_i    (exec),
    .op_i      (instr.op),
    .dst_i     (dst),
    .a_i       (ra),
    .b_i       (rb),
    .c_i       (rc),
    .chain_i   (chain),
    .pop_i     (pop_sel ? in1_data_i.data : in0_data_i.data),
    .pop_dt_i  (pop_dt),
    .push_dt_i (desc_i.out_dtype),
    .push_o    (push_cast)
  );

  // PUSH: the cast element (the ALU registers it in the PUSH cycle) enters the FIFO DPU_LATENCY
  // cycles later; the PUSH holds its slot from its own cycle on
  ax_result_tail #(.T(strm_t), .Depth(STREAM_DEPTH), .Stages(DPU_LATENCY), .Sample(1)) u_tail (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .abort_i     (abort_i),
    .reserve_i   (push),
    .valid_i     (push),
    .data_i      ('{pad: 1'b0, data: push_cast}),
    .credit_o    (credit),
    .drained_o   (drained),
    .out_valid_o (out_valid_o),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data_o)
  );

  assign done_o = finished && drained;

  logic unused;
  assign unused = ^{in0_data_i.pad, in1_data_i.pad};
endmodule
// verilator lint_on PINCONNECTEMPTY
