// DPU program memory (dpu_max_instructions x 64 bits) and its validator. The command processor
// hands over every fetched descriptor word (wr_idx_i = word index in the descriptor; word 0
// starts a new descriptor); instruction i is words DATAPATH_DESC_PROGRAM_WORD + 2i, + 2i + 1.
// The checks of common/ref validate_dpu run as the instructions arrive, so code_o is final one
// cycle after the last word: more than dpu_max_instructions -> DPU_ILLEGAL; a stream dtype that
// is not INT8/INT32/FLOAT16/FLOAT32 -> STREAM_DTYPE; then bad opcode, operand bit 7, a loop
// index deeper than the open loops, POP stream (> 1, or IFD1 absent), LUT chain (> lut_max_chain
// or tables leaving the file), LOOP count 0 or nesting > dpu_loop_depth, ENDLOOP without LOOP,
// a section (init or body) ending inside a loop -> DPU_ILLEGAL.
module ax_dpu_prog
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        wr_i,
  input  logic [15:0] wr_idx_i,
  input  word_t       wr_data_i,
  // verilator lint_off UNUSEDSIGNAL
  input  dpu_desc_t   desc_i,       // the descriptor's DPU section (arrives before the program)
  // verilator lint_on UNUSEDSIGNAL
  input  logic        has_in1_i,
  input  logic [7:0]  rd_pc_i,
  output dpu_instr_t  rd_instr_o,
  output error_code_e code_o
);
  localparam int unsigned NI = DPU_MAX_INSTRUCTIONS;
  localparam int unsigned P0 = DATAPATH_DESC_PROGRAM_WORD;

  logic [63:0] mem_q [NI];
  word_t       lo_q;
  logic        bad_q, bad_d;
  logic [1:0]  dep_q, dep_d;

  logic [15:0] rel;
  logic [14:0] idx;
  logic        hi;
  logic [8:0]  n;
  dpu_instr_t  in;
  assign rel = wr_idx_i - 16'(P0);
  assign idx = rel[15:1];
  assign hi  = wr_i && wr_idx_i >= 16'(P0) && rel[0] && 32'(idx) < 32'(n) && 32'(idx) < NI;
  assign n   = 9'(desc_i.init_len) + 9'(desc_i.body_len);
  assign in  = dpu_instr_t'({wr_data_i, lo_q});

  function automatic logic op_bad(logic [7:0] operand, logic [1:0] depth);
    return operand[7] || (32'(operand[4:0]) >= DPU_REGISTERS) || (operand[6:5] > depth);
  endfunction

  always_comb begin
    logic ud, ua, ub, uc;
    logic [3:0] chain;
    bad_d = bad_q;
    dep_d = dep_q;
    {uc, ub, ua, ud} = dpu_uses(in.op);
    chain = lut_chain(in.imm);
    if (hi) begin
      if (32'(idx) == 32'(desc_i.init_len) && dep_q != '0) bad_d = 1'b1;
      if (6'(in.op) > 6'(DPU_OP_ENDLOOP)) bad_d = 1'b1;
      if ((ud && op_bad(in.dst, dep_q)) || (ua && op_bad(in.a, dep_q)) ||
          (ub && op_bad(in.b, dep_q)) || (uc && op_bad(in.c, dep_q))) bad_d = 1'b1;
      unique case (in.op)
        DPU_OP_POP: if (in.imm > 16'd1 || (in.imm == 16'd1 && !has_in1_i)) bad_d = 1'b1;
        DPU_OP_LUT: begin
          if (in.imm > 16'(LUT_MAX_CHAIN)) bad_d = 1'b1;
          else if (in.b[6:5] == '0 && 32'(in.b[4:0]) + 32'(chain) > DPU_REGISTERS) bad_d = 1'b1;
        end
        DPU_OP_LOOP: begin
          if (in.imm == '0 || 32'(dep_q) + 1 > DPU_LOOP_DEPTH) bad_d = 1'b1;
          else dep_d = dep_q + 2'd1;
        end
        DPU_OP_ENDLOOP: begin
          if (dep_q == '0) bad_d = 1'b1;
          else dep_d = dep_q - 2'd1;
        end
        default: ;
      endcase
    end
    if (wr_i && wr_idx_i == '0) begin  // a new descriptor
      bad_d = 1'b0;
      dep_d = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bad_q <= 1'b0;
      dep_q <= '0;
      lo_q  <= '0;
    end else begin
      bad_q <= bad_d;
      dep_q <= dep_d;
      if (wr_i) lo_q <= wr_data_i;
    end
  end
  always_ff @(posedge clk_i) begin
    if (hi) mem_q[idx[6:0]] <= {wr_data_i, lo_q};
  end

  assign rd_instr_o = dpu_instr_t'((32'(rd_pc_i) < NI) ? mem_q[rd_pc_i[6:0]] : 64'd0);

  always_comb begin
    code_o = ERROR_CODE_NONE;
    if (32'(n) > NI) code_o = ERROR_CODE_DPU_ILLEGAL;
    else if (!dtype_is_memory(desc_i.in0_dtype) || (has_in1_i && !dtype_is_memory(desc_i.in1_dtype)) ||
             !dtype_is_memory(desc_i.out_dtype)) code_o = ERROR_CODE_STREAM_DTYPE;
    else if (bad_q || dep_q != '0) code_o = ERROR_CODE_DPU_ILLEGAL;
  end

  logic unused;
  assign unused = ^{in[63:56], in[31:30]};
endmodule
