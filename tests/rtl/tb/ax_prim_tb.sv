// Test top for the stream primitives: a 32-bit ax_fifo (depth 4), a spill register behind it,
// and a 5-way ax_rr_arb, all driven from C++ (tests/rtl/prim_test.cpp).
module ax_prim_tb (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        clr_i,
  input  logic        in_valid_i,
  output logic        in_ready_o,
  input  logic [31:0] in_data_i,
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [31:0] out_data_o,
  output logic [2:0]  count_o,
  input  logic [4:0]  req_i,
  input  logic        ack_i,
  output logic [4:0]  gnt_o,
  output logic [2:0]  idx_o,
  output logic        gnt_valid_o
);
  logic        mid_valid, mid_ready;
  logic [31:0] mid_data;

  ax_fifo #(.T(logic [31:0]), .Depth(4)) u_fifo (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .clr_i       (clr_i),
    .in_valid_i  (in_valid_i),
    .in_ready_o  (in_ready_o),
    .in_data_i   (in_data_i),
    .out_valid_o (mid_valid),
    .out_ready_i (mid_ready),
    .out_data_o  (mid_data),
    .out_next_o  (),          // the entry behind the head: used by the command processor
    .count_o     (count_o)
  );

  ax_spill_reg #(.T(logic [31:0])) u_spill (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .clr_i       (clr_i),
    .in_valid_i  (mid_valid),
    .in_ready_o  (mid_ready),
    .in_data_i   (mid_data),
    .out_valid_o (out_valid_o),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data_o)
  );

  ax_rr_arb #(.N(5)) u_arb (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .req_i   (req_i),
    .ack_i   (ack_i),
    .gnt_o   (gnt_o),
    .idx_o   (idx_o),
    .valid_o (gnt_valid_o)
  );
endmodule
