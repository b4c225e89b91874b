// A whole PWORD through ax_lane_cast: 64 lanes of `from_i` (lane n at bits [8w*n +: 8w] of
// the element image, w = lane bytes; float18 lanes use 32-bit slots) into `to_i`.
module ax_pword_cast
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
(
  input  dtype_e from_i,
  input  dtype_e to_i,
  input  elem_t  in_i,
  output elem_t  out_o
);
  function automatic int unsigned lane_bits(dtype_e d);
    unique case (d)
      DTYPE_INT8:    return 8;
      DTYPE_FLOAT16: return 16;
      default:       return 32;
    endcase
  endfunction

  logic [PWORD_LANES-1:0][31:0] lin, lout;
  always_comb begin
    for (int unsigned n = 0; n < PWORD_LANES; n++) begin
      unique case (lane_bits(from_i))
        8:       lin[n] = 32'(in_i[8*n +: 8]);
        16:      lin[n] = 32'(in_i[16*n +: 16]);
        default: lin[n] = in_i[32*n +: 32];
      endcase
    end
  end

  for (genvar n = 0; n < PWORD_LANES; n++) begin : g_lane
    ax_lane_cast u_cast (
      .from_i (from_i),
      .to_i   (to_i),
      .in_i   (lin[n]),
      .out_o  (lout[n])
    );
  end

  always_comb begin
    out_o = '0;
    for (int unsigned n = 0; n < PWORD_LANES; n++) begin
      unique case (lane_bits(to_i))
        8:       out_o[8*n +: 8]   = lout[n][7:0];
        16:      out_o[16*n +: 16] = lout[n][15:0];
        default: out_o[32*n +: 32] = lout[n];
      endcase
    end
  end
endmodule
