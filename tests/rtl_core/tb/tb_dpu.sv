// Testbench: one ax_dpu with its streams driven by the C++ side, plus a scalar port that
// evaluates the ax_f18_pkg functions the DPU lanes use (op_sel_i: 0 add, 1 sub, 2 mul, 3 min,
// 4 max, 5 prelu, 6 fma(a, b, c), 7 a <= b, 8 LUT segment of a with x_min b and inv_step c).
module tb_dpu
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
  import ax_f18_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic        abort_i,
  input  dpu_desc_t   desc_i,
  input  logic        has_in1_i,
  input  logic        prog_wr_i,
  input  logic [15:0] prog_idx_i,
  input  word_t       prog_data_i,
  output error_code_e prog_code_o,
  output logic        busy_o,
  output logic        done_o,
  output unit_err_t   err_o,
  output act_t        act_o,
  output logic        wait_in1_o,
  input  logic        in0_valid_i,
  output logic        in0_ready_o,
  input  strm_t       in0_data_i,
  input  logic        in1_valid_i,
  output logic        in1_ready_o,
  input  strm_t       in1_data_i,
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output strm_t       out_data_o,
  input  logic [3:0]  op_sel_i,
  input  f18_t        op_a_i,
  input  f18_t        op_b_i,
  input  f18_t        op_c_i,
  output f18_t        op_r_o
);
  ax_dpu u_dpu (
    .clk_i (clk_i), .rst_ni (rst_ni), .start_i (start_i), .abort_i (abort_i),
    .desc_i (desc_i), .has_in1_i (has_in1_i),
    .prog_wr_i (prog_wr_i), .prog_idx_i (prog_idx_i), .prog_data_i (prog_data_i),
    .prog_bank_i (1'b0), .prog_dpu_i (desc_i), .prog_in1_i (has_in1_i), .run_bank_i (1'b0),
    .prog_code_o (prog_code_o), .busy_o (busy_o), .done_o (done_o), .err_o (err_o),
    .act_o (act_o), .wait_in1_o (wait_in1_o),
    .in0_valid_i (in0_valid_i), .in0_ready_o (in0_ready_o), .in0_data_i (in0_data_i),
    .in1_valid_i (in1_valid_i), .in1_ready_o (in1_ready_o), .in1_data_i (in1_data_i),
    .out_valid_o (out_valid_o), .out_ready_i (out_ready_i), .out_data_o (out_data_o)
  );

  always_comb begin
    unique case (op_sel_i)
      4'd0:    op_r_o = f18_add(op_a_i, op_b_i);
      4'd1:    op_r_o = f18_sub(op_a_i, op_b_i);
      4'd2:    op_r_o = f18_mul(op_a_i, op_b_i);
      4'd3:    op_r_o = f18_min(op_a_i, op_b_i);
      4'd4:    op_r_o = f18_max(op_a_i, op_b_i);
      4'd5:    op_r_o = f18_prelu(op_a_i, op_b_i);
      4'd6:    op_r_o = f18_fma(op_a_i, op_b_i, op_c_i);
      4'd7:    op_r_o = 18'(f18_le(op_a_i, op_b_i));
      4'd8:    op_r_o = 18'(f18_lut_seg(op_a_i, op_b_i, op_c_i));
      default: op_r_o = '0;
    endcase
  end
endmodule
