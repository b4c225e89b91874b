// DPU program memory (two banks of dpu_max_instructions x 64 bits: the command processor loads
// the next task's program into one while the task in the other runs) and its validator. The
// command processor hands over every fetched descriptor word (wr_idx_i = word index in the
// descriptor; word 0 starts a new descriptor in bank wr_bank_i, whose DPU section and IFD1 bit
// are wr_desc_i / wr_in1_i); instruction i is words DATAPATH_DESC_PROGRAM_WORD + 2i, + 2i + 1.
// code_o and rd_instr_o are those of bank rd_bank_i (its descriptor: desc_i, has_in1_i).
// The checks of common/ref validate_dpu run as the instructions arrive, so code_o is final one
// cycle after the last word: more than dpu_max_instructions -> DPU_ILLEGAL; a stream dtype that
// is not INT8/INT32/FLOAT16/FLOAT32 -> STREAM_DTYPE; then bad opcode, operand bit 7, a loop
// index deeper than the open loops, POP imm (spec dpu_pop; IFD1 absent), LUT chain (> lut_max_chain
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
  input  logic        wr_bank_i,
  // verilator lint_off UNUSEDSIGNAL
  input  dpu_desc_t   wr_desc_i,    // the loading descriptor's DPU section (arrives before the program)
  // verilator lint_on UNUSEDSIGNAL
  input  logic        wr_in1_i,
  input  logic        rd_bank_i,
  // verilator lint_off UNUSEDSIGNAL
  input  dpu_desc_t   desc_i,       // the DPU section of the bank rd_bank_i's descriptor
  // verilator lint_on UNUSEDSIGNAL
  input  logic        has_in1_i,
  input  logic [7:0]  rd_pc_i,
  output dpu_instr_t  rd_instr_o,
  output error_code_e code_o
);
  localparam int unsigned NI = DPU_MAX_INSTRUCTIONS;
  localparam int unsigned P0 = DATAPATH_DESC_PROGRAM_WORD;

  logic [63:0] mem_q [2][NI];
  word_t       lo_q;
  logic [1:0]  bad_q, bad_d;          // per bank
  logic [1:0][1:0] dep_q, dep_d;
  logic [1:0]  dep_w;                 // the loading bank's loop depth
  assign dep_w = dep_q[wr_bank_i];

  logic [15:0] rel;
  logic [14:0] idx;
  logic        hi;
  logic [8:0]  n;
  dpu_instr_t  in;
  assign rel = wr_idx_i - 16'(P0);
  assign idx = rel[15:1];
  assign hi  = wr_i && wr_idx_i >= 16'(P0) && rel[0] && 32'(idx) < 32'(n) && 32'(idx) < NI;
  assign n   = 9'(wr_desc_i.init_len) + 9'(wr_desc_i.body_len);
  assign in  = dpu_instr_t'({wr_data_i, lo_q});

  // a POP's imm (spec dpu_pop): stream 0 or 1 (IFD1 only with it), and with own_dtype an L1
  // dtype; nothing else set
  function automatic logic pop_bad(logic [15:0] imm, logic in1);
    dpu_pop_t p;
    p = dpu_pop_t'(32'(imm));
    return (p.own_dtype ? (p.rsv_5 != '0 || !dtype_is_memory(p.dtype)) : imm > 16'd1) ||
           (p.stream && !in1);
  endfunction

  function automatic logic op_bad(logic [7:0] operand, logic [1:0] depth);
    dpu_operand_t o;
    o = dpu_operand(operand);
    return (o.rsv_7 != '0) || (32'(o.reg_f) >= DPU_REGISTERS) || (2'(o.index) > depth);
  endfunction

  always_comb begin
    logic ud, ua, ub, uc;
    logic [3:0] chain;
    // verilator lint_off UNUSEDSIGNAL
    dpu_operand_t tbl;   // LUT: operand b, the first table (register and index mode used)
    // verilator lint_on UNUSEDSIGNAL
    bad_d = bad_q;
    dep_d = dep_q;
    {uc, ub, ua, ud} = dpu_uses(in.op);
    chain = lut_chain(in.imm);
    tbl   = dpu_operand(in.b);
    if (hi) begin
      if (32'(idx) == 32'(wr_desc_i.init_len) && dep_w != '0) bad_d[wr_bank_i] = 1'b1;
      if (6'(in.op) > 6'(DPU_OP_ENDLOOP)) bad_d[wr_bank_i] = 1'b1;
      if ((ud && op_bad(in.dst, dep_w)) || (ua && op_bad(in.a, dep_w)) ||
          (ub && op_bad(in.b, dep_w)) || (uc && op_bad(in.c, dep_w))) bad_d[wr_bank_i] = 1'b1;
      unique case (in.op)
        DPU_OP_POP: if (pop_bad(in.imm, wr_in1_i)) bad_d[wr_bank_i] = 1'b1;
        DPU_OP_LUT: begin
          if (in.imm > 16'(LUT_MAX_CHAIN)) bad_d[wr_bank_i] = 1'b1;
          else if (tbl.index == DPU_INDEX_NONE && 32'(tbl.reg_f) + 32'(chain) > DPU_REGISTERS) bad_d[wr_bank_i] = 1'b1;
        end
        DPU_OP_LOOP: begin
          if (in.imm == '0 || 32'(dep_w) + 1 > DPU_LOOP_DEPTH) bad_d[wr_bank_i] = 1'b1;
          else dep_d[wr_bank_i] = dep_w + 2'd1;
        end
        DPU_OP_ENDLOOP: begin
          if (dep_w == '0) bad_d[wr_bank_i] = 1'b1;
          else dep_d[wr_bank_i] = dep_w - 2'd1;
        end
        default: ;
      endcase
    end
    if (wr_i && wr_idx_i == '0) begin  // a new descriptor
      bad_d[wr_bank_i] = 1'b0;
      dep_d[wr_bank_i] = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bad_q <= '0;
      dep_q <= '0;
      lo_q  <= '0;
    end else begin
      bad_q <= bad_d;
      dep_q <= dep_d;
      if (wr_i) lo_q <= wr_data_i;
    end
  end
  always_ff @(posedge clk_i) begin
    if (hi) mem_q[wr_bank_i][idx[6:0]] <= {wr_data_i, lo_q};
  end

  assign rd_instr_o = dpu_instr_t'((32'(rd_pc_i) < NI) ? mem_q[rd_bank_i][rd_pc_i[6:0]] : 64'd0);

  logic [8:0] n_rd;
  assign n_rd = 9'(desc_i.init_len) + 9'(desc_i.body_len);
  always_comb begin
    code_o = ERROR_CODE_NONE;
    if (32'(n_rd) > NI) code_o = ERROR_CODE_DPU_ILLEGAL;
    else if (!dtype_is_memory(desc_i.in0_dtype) || (has_in1_i && !dtype_is_memory(desc_i.in1_dtype)) ||
             !dtype_is_memory(desc_i.out_dtype)) code_o = ERROR_CODE_STREAM_DTYPE;
    else if (bad_q[rd_bank_i] || dep_q[rd_bank_i] != '0) code_o = ERROR_CODE_DPU_ILLEGAL;
  end

  logic unused;
  assign unused = ^{in[63:56], in[31:30]};
endmodule
