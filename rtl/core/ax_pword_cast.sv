// A whole PWORD through ax_cast_pkg::cast_lane: 64 lanes of `from_i` (lane n at bits
// [8w*n +: 8w] of the element image, w = lane bytes; float18 lanes use 32-bit slots) into `to_i`.
module ax_pword_cast
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_cast_pkg::*;
(
  input  dtype_e from_i,
  input  dtype_e to_i,
  input  elem_t  in_i,
  output elem_t  out_o
);
  assign out_o = cast_pword(from_i, to_i, in_i);
endmodule
