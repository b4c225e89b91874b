// Testbench: one ax_lane_cast per (from, to) pair the C++ side selects.
module tb_cast
  import axcore_pkg::*;
(
  input  logic [2:0]  from_i,
  input  logic [2:0]  to_i,
  input  logic [31:0] in_i,
  output logic [31:0] out_o
);
  ax_lane_cast u_cast (
    .from_i (dtype_e'(from_i)),
    .to_i   (dtype_e'(to_i)),
    .in_i   (in_i),
    .out_o  (out_o)
  );
endmodule
