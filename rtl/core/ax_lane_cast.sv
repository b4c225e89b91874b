// One lane of a dtype conversion (common/num convert()): ax_cast_pkg::cast_lane, whose header
// states the rounding rules. Lane values sit in the low bits of a 32-bit word.
module ax_lane_cast
  import axcore_pkg::*;
  import ax_cast_pkg::*;
(
  input  dtype_e      from_i,
  input  dtype_e      to_i,
  input  logic [31:0] in_i,
  output logic [31:0] out_o
);
  assign out_o = cast_lane(from_i, to_i, in_i);
endmodule
