// Core-tile internal constants: the L1 row ports in priority order (docs/timing.md: ODR > IFD0 >
// IFD1 > LoadIMC > DMA word port; inside a class the MVMEXE pipeline first) and small helpers
// (row counts, DPU operand use).
// verilator lint_off UNUSEDPARAM
package ax_core_pkg;
  import axcore_pkg::*;
  import ax_rtl_pkg::*;

  localparam int unsigned L1P_MVM_ODR  = 0;
  localparam int unsigned L1P_DW_ODR   = 1;
  localparam int unsigned L1P_MVM_IFD0 = 2;
  localparam int unsigned L1P_DW_IFD0  = 3;
  localparam int unsigned L1P_MVM_IFD1 = 4;
  localparam int unsigned L1P_DW_IFD1  = 5;
  localparam int unsigned L1P_LOADIMC  = 6;
  localparam int unsigned L1P_DWPU_W   = 7;   // DWPU weight load
  localparam int unsigned L1P_UNITS    = 8;   // unit ports; the word port comes after them
  localparam int unsigned L1P_WORD     = 8;

  localparam int unsigned ROW_W = 48;         // signed row arithmetic of walks

  typedef logic signed [ROW_W-1:0] srow_t;

  // An error a unit reports (one cycle pulse), kept by the command processor for its task.
  typedef struct packed {
    logic        valid;
    error_code_e code;
    logic [31:0] addr;
  } unit_err_t;

  function automatic logic [2:0] rows_of(dtype_e d);
    return 3'(dtype_rows(d));
  endfunction

  // The operand fields a DPU opcode uses, {c, b, a, dst} (ax_dpu_prog validates them, ax_dpu_seq
  // resolves them); opcodes without operands (NOP, LOOP, ENDLOOP, unknown) use none.
  function automatic logic [3:0] dpu_uses(dpu_op_e op);
    logic [3:0] u;
    unique case (op)
      DPU_OP_POP:  u = 4'b0001;
      DPU_OP_PUSH: u = 4'b0010;
      DPU_OP_MOV, DPU_OP_ADD_REDUCE, DPU_OP_MAX_REDUCE, DPU_OP_MIN_REDUCE: u = 4'b0011;
      DPU_OP_ADD, DPU_OP_SUB, DPU_OP_MUL, DPU_OP_MIN, DPU_OP_MAX, DPU_OP_PRELU, DPU_OP_LUT:
        u = 4'b0111;
      DPU_OP_FMA:  u = 4'b1111;
      default:     u = 4'b0000;
    endcase
    return u;
  endfunction

  // A DPU instruction's operand byte (dst, a, b, c) as its generated type.
  function automatic dpu_operand_t dpu_operand(logic [7:0] b);
    return dpu_operand_t'(32'(b));
  endfunction

  // The tables a LUT instruction chains (imm 0 means one).
  function automatic logic [3:0] lut_chain(logic [15:0] imm);
    return (imm == '0) ? 4'd1 : 4'(imm);
  endfunction
endpackage
// verilator lint_on UNUSEDPARAM
